# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role wireguard_mtu's filters: errors become AnsibleFilterError naming the filter, never a traceback."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.wireguard_mtu import FilterModule, wireguard_mtu_plan, wireguard_mtu_read_command


def test_both_filters_are_registered():
    assert set(FilterModule().filters()) == {"wireguard_mtu_read_command", "wireguard_mtu_plan"}


def test_the_plan_of_a_recorded_read(load_fixture):
    plan = wireguard_mtu_plan(load_fixture("wireguard_mtu_read", "openwrt_no_fw4.txt"), {"wg0": 1340}, "openwrt")
    assert plan["errors"] == [] and plan["live_change"] is True
    assert plan["apply"].startswith("ip link set dev wg0 mtu 1340 && { nft -a list chain inet fw4 mangle_forward")


@pytest.mark.parametrize("call, message", [
    (lambda: wireguard_mtu_read_command({"wg0": 99}, "openwrt"), "wireguard_mtu_read_command: wireguard_mtu_tunnels: wg0 must be"),
    (lambda: wireguard_mtu_read_command({"wg0": 1340}, "bsd"), "wireguard_mtu_read_command: platform must be one of"),
    (lambda: wireguard_mtu_plan(None, {"wg0": 1340}, "openwrt"), "wireguard_mtu_plan: expected the read command's output"),
    (lambda: wireguard_mtu_plan("x\n", {"wg0": 1340}, "openwrt"), "wireguard_mtu_plan: the wireguard_mtu read printed 'x'"),
    (lambda: wireguard_mtu_plan("", {"wg 0": 1340}, "linux"), 'wireguard_mtu_plan: wireguard_mtu_tunnels: "wg 0" is not an'),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()
