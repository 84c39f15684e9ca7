# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""add_tunnels: split or full tunnel written into the merged WireGuard view, as openwrt_facts' wireguard facts carry it.

Moved with the classification from tests/unit/plugins/plugin_utils/parse/test_openwrt_wireguard.py (which keeps the
merge); classify_tunnel's own table is in test_decisions.py.
"""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import add_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump

CASE_NOW = 1767225600  # now of the field cases' dumps (fixtures README)
LAB_NOW = 1796029496  # now of the recorded lab dumps (fixtures README)


@pytest.fixture
def classified(load_fixture):
    def build(uci_case, dump_case=None, now=CASE_NOW):
        network = parse_uci_show(load_fixture("uci_show", uci_case)).get("network", {})
        live = None if dump_case is None else parse_wg_dump(load_fixture("wg_show_all_dump", dump_case), now)["interfaces"]
        return add_tunnels(merge_wireguard(network, live))
    return build


def test_case01_is_a_split_tunnel_shown_where_the_facts_show_it(classified):
    wg0 = classified("case01_network.txt", "case01_endpoint_hostroute.txt")["wg0"]
    assert (wg0["tunnel"], wg0["tunnel_reason"]) == ("split", None)
    assert list(wg0)[-3:] == ["tunnel", "tunnel_reason", "peers"]          # the facts' key order, unchanged
    peer = wg0["peers"][0]
    assert (peer["full_tunnel"], peer["full_tunnel_reason"]) == (False, None)
    assert list(peer)[-3:] == ["live", "full_tunnel", "full_tunnel_reason"]


def test_case04_full_tunnel_never_handshaked(classified):
    wg0 = classified("case04_network.txt", "case04_full_tunnel_never.txt")["wg0"]
    assert (wg0["tunnel"], wg0["nohostroute"]) == ("full", True)
    peer = wg0["peers"][0]
    assert peer["full_tunnel"] is True
    assert peer["full_tunnel_reason"] == "routed allowed_ips include 0.0.0.0/1 and 128.0.0.0/1"


def test_full_tunnel_by_live_endpoint_inside_routed_prefix():
    network = parse_uci_show(
        "network.wg0=interface\nnetwork.wg0.proto='wireguard'\n"
        "network.p=wireguard_wg0\nnetwork.p.public_key='%s'\nnetwork.p.endpoint_host='vpn.example.net'\n"
        "network.p.allowed_ips='192.0.2.0/24'\nnetwork.p.route_allowed_ips='1'\n" % ("B" * 43 + "="))["network"]
    live = {"wg0": {"public_key": None, "has_private_key": False, "listen_port": None, "fwmark": None, "peers": [
        {"public_key": "B" * 43 + "=", "endpoint": "192.0.2.7:51820", "endpoint_host": "192.0.2.7",
         "endpoint_port": 51820, "allowed_ips": ["192.0.2.0/24"], "latest_handshake_epoch": None,
         "handshake_age_s": None, "handshake_state": "never", "persistent_keepalive_s": None, "rx_bytes": 0,
         "tx_bytes": 0, "has_preshared_key": False}]}}
    assert add_tunnels(merge_wireguard(network, None))["wg0"]["peers"][0]["full_tunnel"] is False  # hostname: unknown
    peer = add_tunnels(merge_wireguard(network, live))["wg0"]["peers"][0]
    assert peer["full_tunnel"] is True
    assert peer["full_tunnel_reason"] == "endpoint 192.0.2.7 is inside the routed allowed_ips 192.0.2.0/24"


def test_a_live_only_peer_is_never_full(classified):
    interfaces = classified("case11_network_wg.txt", "hub_two_interfaces.txt", LAB_NOW)
    live_only = interfaces["wg0"]["peers"][2:]
    assert [(peer["in_uci"], peer["full_tunnel"], peer["full_tunnel_reason"]) for peer in live_only] == [
        (False, False, None), (False, False, None)]
    assert live_only[1]["live"]["endpoint_host"] == "fd99:1::3"
    assert (interfaces["wg1"]["tunnel"], interfaces["wg1"]["peers"]) == ("split", [])   # live only, no peer
