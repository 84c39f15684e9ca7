# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_wg_route_plan: split/full classification, exact pinned-route matching, the plan (cases 01, 04)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import parse_ip_route_show, parse_ip_route_show_text
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route_pinned import route_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_endpoints import endpoint_route_facts, endpoint_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.wg_route_plan import (
    classify_tunnel, find_pinned_routes, plan_wg_endpoint_routes, route_delete_argv, uplink_device,
    wireguard_interfaces)


def uci_targets(network):
    """The endpoints openwrt_facts would look up on a router without a live WireGuard state (uci IP literals)."""
    return endpoint_targets(merge_wireguard(network, None))["targets"]


def _peer(allowed, routed=True, endpoint="203.0.113.10"):
    return {"section": "@wireguard_wg0[0]", "endpoint_host": endpoint, "allowed_ips": allowed,
            "route_allowed_ips": routed}


@pytest.mark.parametrize("peers, tunnel, reason", [
    ([_peer(["10.77.0.0/24", "192.168.20.0/24"])], "split", None),
    ([_peer(["0.0.0.0/0"])], "full", "routed allowed_ips include 0.0.0.0/0"),
    ([_peer(["::/0"])], "full", "routed allowed_ips include ::/0"),
    ([_peer(["0.0.0.0/1", "128.0.0.0/1"])], "full", "routed allowed_ips include 0.0.0.0/1 and 128.0.0.0/1"),
    ([_peer(["0.0.0.0/1"])], "split", None),
    ([_peer(["0.0.0.0/0"], routed=False)], "split", None),
    ([_peer(["203.0.113.0/24"])], "full", "endpoint 203.0.113.10 is inside the routed allowed_ips 203.0.113.0/24"),
    ([_peer(["10.0.0.0/8"], endpoint="vpn.example.net")], "split", None),
    ([_peer(["10.0.0.0/8"]), _peer(["0.0.0.0/0"], endpoint=None)], "full", "routed allowed_ips include 0.0.0.0/0"),
])
def test_classify_tunnel(peers, tunnel, reason):
    got = classify_tunnel(peers)
    assert (got["tunnel"], got["reason"]) == (tunnel, reason)


def test_wireguard_interfaces_case01(load_fixture):
    network = parse_uci_show(load_fixture("uci_show", "case01_network.txt"))["network"]
    assert wireguard_interfaces(network) == {"wg0": {
        "nohostroute": False, "addresses": ["10.77.0.2/24"],
        "peers": [{"section": "@wireguard_wg0[0]", "endpoint_host": "203.0.113.10",
                   "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"], "route_allowed_ips": True}]}}


@pytest.mark.parametrize("route, argv", [
    ({"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "table": "main"},
     ["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]),
    ({"dst": "203.0.113.10/32", "gateway": None, "dev": "eth1", "table": "2"},
     ["ip", "route", "del", "203.0.113.10/32", "dev", "eth1", "table", "2"]),
    ({"dst": "2001:db8:10::10", "gateway": "fe80::1", "dev": "wwan0", "table": "main"},
     ["ip", "-6", "route", "del", "2001:db8:10::10/128", "via", "fe80::1", "dev", "wwan0"]),
])
def test_route_delete_argv(route, argv):
    assert route_delete_argv(route) == argv


def test_find_pinned_routes_skips_local_and_other_hosts(load_fixture):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"))
    found = find_pinned_routes(routes, "203.0.113.10")
    assert [(r["dst"], r["gateway"], r["dev"], r["table"]) for r in found] == [
        ("203.0.113.10", "198.51.100.1", "wwan0", "main")]
    assert find_pinned_routes(routes, "203.0.113.11") == []
    assert find_pinned_routes(routes, "10.77.0.2") == []  # the local-table entry is not a pinned route


PLAN_CASES = [
    # (uci fixture, routes (command, fixture), interfaces, uci commands, route commands, changed)
    ("case01_network.txt", ("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), [],
     [["uci", "set", "network.wg0.nohostroute=1"]],
     [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]], True),
    ("case01_network.txt", ("ip_route_show", "case01_lan_gateway.txt"), ["wg0"],
     [["uci", "set", "network.wg0.nohostroute=1"]],
     [["ip", "route", "del", "203.0.113.10/32", "via", "192.168.10.1", "dev", "br-lan"]], True),
    ("case01_fixed_network.txt", ("ip_j_route_show", "full_tunnel_split_default.txt"), [], [], [], False),
    ("case04_network.txt", ("ip_j_route_show", "full_tunnel_split_default.txt"), [],
     [["uci", "delete", "network.wg0.nohostroute"]], [], True),
]


def _routes(load_fixture, source):
    command, case = source
    parser = parse_ip_route_show_text if command == "ip_route_show" else parse_ip_route_show
    text = load_fixture(command, case)
    # the field report's fixture starts with a comment line saying where it comes from
    return parser("".join(line for line in text.splitlines(True) if not line.startswith("#")))


@pytest.mark.parametrize("uci, source, interfaces, uci_commands, route_commands, changed", PLAN_CASES)
def test_plan(load_fixture, uci, source, interfaces, uci_commands, route_commands, changed):
    network = parse_uci_show(load_fixture("uci_show", uci))["network"]
    plan = plan_wg_endpoint_routes(network, _routes(load_fixture, source), interfaces, targets=uci_targets(network))
    assert plan["uci_commands"] == uci_commands
    assert plan["route_commands"] == route_commands
    assert plan["changed"] is changed
    assert plan["interfaces"]["wg0"]["changed"] is changed


def test_plan_case01_diff(load_fixture):
    network = parse_uci_show(load_fixture("uci_show", "case01_network.txt"))["network"]
    routes = _routes(load_fixture, ("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"))
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network))
    assert plan["diff"] == {
        "before": "network.wg0.nohostroute=(unset)\nroute 203.0.113.10/32 via 198.51.100.1 dev wwan0\n",
        "after": "network.wg0.nohostroute='1'\n"}
    assert plan["interfaces"]["wg0"]["refused"] is None
    assert plan["full_tunnel_endpoints"] == []


def test_plan_case04_refuses_nohostroute(load_fixture):
    network = parse_uci_show(load_fixture("uci_show", "case04_network.txt"))["network"]
    plan = plan_wg_endpoint_routes(network, [], [], connection_address="10.64.0.9", targets=uci_targets(network))
    entry = plan["interfaces"]["wg0"]
    assert entry["tunnel"] == "full"
    assert "routing loop" in entry["refused"]
    assert "0.0.0.0/1 and 128.0.0.0/1" in entry["refused"]
    assert entry["over_tunnel"] is True
    assert plan["full_tunnel_endpoints"] == [{"interface": "wg0", "endpoint": "203.0.113.55"}]


def test_plan_keeps_configured_route_and_lists_hostnames(load_fixture):
    text = load_fixture("uci_show", "case01_network.txt") + (
        "network.ep=route\nnetwork.ep.interface='wanb'\nnetwork.ep.target='203.0.113.10/32'\n"
        "network.@wireguard_wg0[1]=wireguard_wg0\nnetwork.@wireguard_wg0[1].endpoint_host='dc.example.net'\n"
        "network.@wireguard_wg0[1].allowed_ips='10.77.0.3/32'\n")
    routes = _routes(load_fixture, ("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"))
    network = parse_uci_show(text)["network"]
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network))
    entry = plan["interfaces"]["wg0"]
    assert plan["route_commands"] == []
    assert [r["dev"] for r in entry["kept_routes"]] == ["wwan0"]
    assert entry["unresolved"] == ["dc.example.net"]


@pytest.mark.parametrize("interfaces, message", [
    (["wg9"], "interfaces: 'wg9' is not a proto wireguard interface in /etc/config/network (found: wg0)"),
    (["wan"], "interfaces: 'wan' is not a proto wireguard interface"),
])
def test_plan_unknown_interface(load_fixture, interfaces, message):
    network = parse_uci_show(load_fixture("uci_show", "case01_network.txt"))["network"]
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan_wg_endpoint_routes(network, [], interfaces, targets=[])


def test_bad_allowed_ips_names_the_option():
    network = parse_uci_show("network.wg0=interface\nnetwork.wg0.proto='wireguard'\n"
                             "network.p=wireguard_wg0\nnetwork.p.allowed_ips='10.0.0.0/33'\n")["network"]
    with pytest.raises(ParseError, match="network.p.allowed_ips: '10.0.0.0/33'"):
        plan_wg_endpoint_routes(network, [], targets=[])


@pytest.mark.parametrize("uplink, device", [("wan", "eth1"), ("eth1", "eth1"), ("wwan0", "wwan0"), (None, None)])
def test_uplink_device(load_fixture, uplink, device):
    network = parse_uci_show(load_fixture("uci_show", "case01_network.txt"))["network"]
    assert uplink_device(network, uplink) == device


@pytest.mark.parametrize("uci, source, interfaces, uci_commands, route_commands, changed", PLAN_CASES)
def test_the_faults_plan_agrees_with_the_actions(load_fixture, uci, source, interfaces, uci_commands, route_commands, changed):
    """Fault 1's plan (from openwrt_facts' facts: merged uci and the endpoints' pinned routes) and wg_endpoint_route's
    plan (from the raw uci and routes) agree on the same router: converged ([]) exactly when the action changes
    nothing, one line per uci command and route deletion otherwise; a full tunnel's plan cannot tell (its
    hotplug script is not in the facts) unless the hotplug is off."""
    network = parse_uci_show(load_fixture("uci_show", uci))["network"]
    routes = _routes(load_fixture, source)
    interfaces_facts = merge_wireguard(network, None)
    targets = endpoint_targets(interfaces_facts)["targets"]
    view = {"openwrt": {"wireguard": {"interfaces": interfaces_facts},
                        "endpoint_routes": {"endpoints": [endpoint_route_facts(target, None, routes, "not looked up")
                                                          for target in targets]}}}
    role_vars = {"openwrt_mwan3_wg_interfaces": interfaces, "openwrt_mwan3_wg_full_tunnel_hotplug": False}
    plan = route_plan(view, role_vars)
    assert plan is not None and (plan == []) is (not changed)
    assert len(plan) == len(uci_commands) + len(route_commands)
    if plan_wg_endpoint_routes(network, routes, interfaces, targets=targets)["full_tunnel_endpoints"]:
        assert route_plan(view, dict(role_vars, openwrt_mwan3_wg_full_tunnel_hotplug=True)) is None
