# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's fixing role and the variables its finding hands it."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fault import pmtu_fix_vars
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID, FIX_GROUPS, FIX_ROLES, FIX_VAR_NAMES

PMTU = BY_ID["path_mtu_black_hole"]


@pytest.mark.parametrize("evidence, fix_vars", [
    ({"interface": "wg0", "set_mtu_bytes": 1340, "tunnel_mtu_bytes": 1420}, {"wireguard_mtu_tunnels": {"wg0": 1340}}),
    ({"interface": "wg0", "set_mtu_bytes": 1419, "tunnel_mtu_bytes": 1420}, {"wireguard_mtu_tunnels": {"wg0": 1419}}),
    ({"interface": "wg0", "set_mtu_bytes": 1280, "tunnel_mtu_bytes": 1280}, None),   # at the IPv6 floor: nothing to lower
    ({"interface": "wg0", "set_mtu_bytes": None, "tunnel_mtu_bytes": 1420}, None),   # no MTU fits the path
    ({"interface": None, "set_mtu_bytes": 1340, "tunnel_mtu_bytes": 1420}, None),
    ({"interface": "wg0", "set_mtu_bytes": True, "tunnel_mtu_bytes": 1420}, None),
    ({"interface": "wg0", "set_mtu_bytes": 1340, "tunnel_mtu_bytes": None}, {"wireguard_mtu_tunnels": {"wg0": 1340}}),
])
def test_the_finding_hands_the_role_the_mtu_to_set(evidence, fix_vars):
    assert pmtu_fix_vars(evidence) == fix_vars
    assert PMTU.fix_vars(evidence) == fix_vars


def test_remediate_runs_the_role_after_keepalive_and_before_the_tcp_stack_on_every_wireguard_host():
    assert PMTU.fix_role == "tunnelfix.fleet.wireguard_mtu"
    order = list(FIX_ROLES)
    assert order.index(BY_ID["nat_peer_without_keepalive"].fix_role) < order.index(PMTU.fix_role) < order.index(
        BY_ID["loss_sensitive_congestion_control"].fix_role)
    assert FIX_GROUPS[PMTU.fix_role] == {"tunnelfix_openwrt", "tunnelfix_wireguard_peers", "tunnelfix_wireguard_hubs"}
    assert "wireguard_mtu_tunnels" in FIX_VAR_NAMES and PMTU.fix_needs == "wireguard_mtu_tunnels"
    assert "roles/wireguard_mtu/tasks/mtu.yml" in PMTU.files


def test_the_fault_declares_the_banip_reading_its_pacing_reads_on_openwrt():
    """measure.py paces the ladder inside banIP's ICMP limit (view["openwrt"]["banip"]): the gather must read it whenever
    the PMTU fault is registered, not only because fault 2 happens to be."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import platform_readings
    assert "banip" in [reading.name for reading in PMTU.facts if reading.on("openwrt") is not None]
    assert "banip" in [reading.name for reading in platform_readings([PMTU], "openwrt")]
    assert "banip" not in [reading.name for reading in platform_readings([PMTU], "linux")]
    assert "openwrt.banip" in PMTU.reads
