# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1 (faults/endpoint_route/) on recorded routers: split/full classification, exact pinned-route matching, the plan
(cases 01, 04). Was tests/unit/plugins/plugin_utils/fix/test_wg_route_plan.py (the code left fix/ for this folder)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import parse_ip_route_show, parse_ip_route_show_text
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import (
    over_tunnel, plan_wg_endpoint_routes, route_delete_argv)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import endpoint_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import (
    configured_routes, find_pinned_routes, interface_devices, route_section, user_route_conflict)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import (
    find_uplinks, metered_refusal, metered_unmatched, uplink_device)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import classify_tunnel
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard, uci_wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show


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


QUARTERS = ["0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"]
V6_QUARTERS = ["::/2", "4000::/2", "8000::/2", "c000::/2"]
HOST = "vpn.example.net"  # a hostname endpoint: only the allowed_ips themselves can tell a full tunnel


@pytest.mark.parametrize("peers, tunnel, reason", [
    # every IPv4 address, in more pieces than two halves
    ([_peer(QUARTERS, endpoint=HOST)], "full",
     "routed allowed_ips include 0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/2 and 192.0.0.0/2"),
    ([_peer(QUARTERS)], "full", "routed allowed_ips include 0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/2 and 192.0.0.0/2"),
    ([_peer(QUARTERS[:3], endpoint=HOST)], "split", None),
    ([_peer(["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/2"], endpoint=HOST)], "full",
     "routed allowed_ips include 0.0.0.0/1, 128.0.0.0/2 and 192.0.0.0/2"),
    ([_peer(["0.0.0.0/1", "128.0.0.0/2"], endpoint=HOST)], "split", None),
    ([_peer(QUARTERS[:2], endpoint=HOST), _peer(QUARTERS[2:], endpoint=None)], "full",
     "routed allowed_ips include 0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/2 and 192.0.0.0/2"),
    ([_peer(QUARTERS[:2], endpoint=HOST), _peer(QUARTERS[2:], routed=False, endpoint=None)], "split", None),
    # the halves, in any order, with an overlapping prefix: named by the halves
    ([_peer(["128.0.0.0/1", "0.0.0.0/1"], endpoint=HOST)], "full", "routed allowed_ips include 0.0.0.0/1 and 128.0.0.0/1"),
    ([_peer(["0.0.0.0/1", "10.0.0.0/8", "128.0.0.0/1"], endpoint=HOST)], "full",
     "routed allowed_ips include 0.0.0.0/1 and 128.0.0.0/1"),
    ([_peer(["0.0.0.0/1", "10.0.0.0/8"], endpoint=HOST)], "split", None),
    ([_peer(["0.0.0.0/1", "128.0.0.0/1", "0.0.0.0/0"], endpoint=HOST)], "full", "routed allowed_ips include 0.0.0.0/0"),
    ([_peer(["0.0.0.1/0"], endpoint=HOST)], "full", "routed allowed_ips include 0.0.0.0/0"),   # host bits cleared
    # IPv6
    ([_peer(["::/1", "8000::/1"], endpoint=HOST)], "full", "routed allowed_ips include ::/1 and 8000::/1"),
    ([_peer(V6_QUARTERS, endpoint=HOST)], "full", "routed allowed_ips include ::/2, 4000::/2, 8000::/2 and c000::/2"),
    ([_peer(V6_QUARTERS[1:], endpoint=HOST)], "split", None),
    ([_peer(["::/1"], endpoint=HOST)], "split", None),
    ([_peer(["0::0/0"], endpoint=HOST)], "full", "routed allowed_ips include ::/0"),
    ([_peer(["::/1", "8000::/1", "0.0.0.0/1", "128.0.0.0/1"], endpoint=HOST)], "full",
     "routed allowed_ips include 0.0.0.0/1 and 128.0.0.0/1"),
    # overlapping prefixes and the endpoint: the first routed prefix that holds it is named
    ([_peer(["10.0.0.0/8", "10.1.0.0/16"], endpoint="10.1.2.3")], "full", "endpoint 10.1.2.3 is inside the routed allowed_ips 10.0.0.0/8"),
    ([_peer(["10.1.0.0/16", "10.0.0.0/8"], endpoint="10.1.2.3")], "full",
     "endpoint 10.1.2.3 is inside the routed allowed_ips 10.1.0.0/16"),
    ([_peer(["10.0.0.0/8", "10.1.0.0/16"], endpoint="11.0.0.1")], "split", None),
    ([_peer(["203.0.113.0/24"], endpoint="203.0.114.0")], "split", None),     # just past the prefix
    ([_peer(["203.0.113.0/24"], endpoint="203.0.112.255")], "split", None),   # just before it
    ([_peer(["203.0.113.0/24"], endpoint="203.0.113.255")], "full",
     "endpoint 203.0.113.255 is inside the routed allowed_ips 203.0.113.0/24"),
    # the endpoint's family: a v4 endpoint is in no IPv6 prefix, IPv4-mapped ones included
    ([_peer(["2001:db8::/32", "::ffff:0:0/96"])], "split", None),
    ([_peer(["::ffff:0:0/96"], endpoint="::ffff:203.0.113.10")], "full",
     "endpoint ::ffff:203.0.113.10 is inside the routed allowed_ips ::ffff:0:0/96"),
    ([_peer(["203.0.113.0/24"], endpoint="::ffff:203.0.113.10")], "split", None),
    ([_peer(["2001:db8::/32"], endpoint="[2001:db8::10]")], "full", "endpoint 2001:db8::10 is inside the routed allowed_ips 2001:db8::/32"),
    ([_peer(["2001:db8::/32"], endpoint="[2001:db9::10]")], "split", None),
    ([_peer(["fe80::/64"], endpoint="fe80::1%wg0")], "full", "endpoint fe80::1%wg0 is inside the routed allowed_ips fe80::/64"),
    ([_peer(["10.0.0.0/8"], endpoint="300.1.1.1")], "split", None),     # not an address: a hostname to look up
])
def test_classify_tunnel_edges(peers, tunnel, reason):
    got = classify_tunnel(peers)
    assert (got["tunnel"], got["reason"]) == (tunnel, reason)


@pytest.mark.parametrize("prefix", ["300.1.1.1", "10.0.0.0/33", "", "10/8", "10.0.0.0/8 ", "fe80::1%wg0/128", "::/129"])
def test_classify_tunnel_refuses_what_is_no_prefix(prefix):
    with pytest.raises(ParseError, match="allowed_ips: %r is not an address or prefix" % prefix):
        classify_tunnel([_peer(["10.0.0.0/8", prefix])])


@pytest.mark.parametrize("peers, connection, inside", [
    ([_peer(QUARTERS, endpoint=HOST)], "198.51.100.7", True),
    ([_peer(QUARTERS[:3], endpoint=HOST)], "198.51.100.7", False),
    ([_peer(["10.0.0.0/8", "10.1.0.0/16"])], "10.1.0.1", True),
    ([_peer(["10.0.0.0/8"], routed=False)], "10.1.0.1", False),
    ([_peer(["::/0"])], "198.51.100.7", False),
    ([_peer(["::/0"])], "[2001:db8::7]", True),
    ([_peer([])], "10.77.0.9", True),               # the interface's own subnet
    ([_peer([])], "10.78.0.1", False),
    ([_peer(["10.0.0.0/8"])], "ansible.example.net", False),
])
def test_over_tunnel(peers, connection, inside):
    assert over_tunnel({"peers": peers, "addresses": ["10.77.0.2/24"]}, connection) is inside


def test_wireguard_interfaces_case01(load_fixture):
    network = parse_uci_show(load_fixture("uci_show", "case01_network.txt"))["network"]
    assert uci_wireguard_interfaces(network) == {"wg0": {
        "nohostroute": False, "nohostroute_value": None, "addresses": ["10.77.0.2/24"],
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
    # a user's config route to the endpoint is kept, netifd's pinned /32 deleted
    ("user_route_fibre_endpoint.txt", ("ip_j_route_show", "user_route_fibre_pinned_backup_table_all.txt"), [],
     [["uci", "set", "network.wg0.nohostroute=1"]],
     [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]], True),
    ("user_prefix_backup_endpoint.txt", ("ip_route_show", "user_prefix_backup_pinned_backup_table_all.txt"), ["wg0"],
     [["uci", "set", "network.wg0.nohostroute=1"]],
     [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]], True),
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


# netifd's wireguard.sh skips the endpoint host route only for the literal '1' (wireguard.sh@0a576dec):
# 'true', 'on' or 'yes' still pin it, so the plan writes '1' over them.
@pytest.mark.parametrize("written, honoured", [("1", True), ("true", False), ("on", False), ("yes", False),
                                               ("0", False), ("banana", False)])
def test_nohostroute_is_only_the_literal_1(load_fixture, written, honoured):
    text = load_fixture("uci_show", "case01_network.txt") + "network.wg0.nohostroute='%s'\n" % written
    network = parse_uci_show(text)["network"]
    assert uci_wireguard_interfaces(network)["wg0"]["nohostroute"] is honoured
    assert uci_wireguard_interfaces(network)["wg0"]["nohostroute_value"] == written
    routes = _routes(load_fixture, ("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"))
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network))
    assert plan["uci_commands"] == ([] if honoured else [["uci", "set", "network.wg0.nohostroute=1"]])
    assert plan["diff"]["before"].startswith("network.wg0.nohostroute='%s'\n" % written)


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


# a user's config route apart from netifd's pinned /32 (issue 17, point 4) -------------------------

FIBRE = ("user_route_fibre_endpoint.txt", "user_route_fibre_pinned_backup_table_all.txt")
PREFIX = ("user_prefix_backup_endpoint.txt", "user_prefix_backup_pinned_backup_table_all.txt")
NETIFD_DEL = ["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]


def _recorded(load_fixture, case, command):
    uci, routes = case
    network = parse_uci_show(load_fixture("uci_show", uci))["network"]
    return network, _routes(load_fixture, (command, routes))


@pytest.mark.parametrize("command", ["ip_j_route_show", "ip_route_show"])
def test_the_users_route_to_the_fibre_is_kept_and_netifds_pin_on_the_backup_deleted(load_fixture, command):
    """The field report: a config route sends the endpoint over the fibre (metric 30), netifd's /32 over the 5G
    backup (metric 20) wins; the plan kept both, so the role's check failed and the tunnel stayed on the backup."""
    network, routes = _recorded(load_fixture, FIBRE, command)
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network), preferred_device="eth1")
    entry = plan["interfaces"]["wg0"]
    assert plan["route_commands"] == [NETIFD_DEL]
    assert [(r["dst"], r["gateway"], r["dev"], r["metric"]) for r in entry["kept_routes"]] == [
        ("203.0.113.10", "192.0.2.1", "eth1", 30)]
    assert [(u["section"], u["target"], u["installed"]["dev"]) for u in entry["user_routes"]] == [
        ("wg_endpoint", "203.0.113.10/32", "eth1")]
    assert entry["conflicts"] == []
    assert plan["diff"]["after"] == "network.wg0.nohostroute='1'\nroute 203.0.113.10/32 via 192.0.2.1 dev eth1\n"


@pytest.mark.parametrize("command", ["ip_j_route_show", "ip_route_show"])
def test_a_users_route_that_keeps_the_endpoint_on_the_backup_is_a_conflict_kept_and_named(load_fixture, command):
    network, routes = _recorded(load_fixture, PREFIX, command)
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network), preferred_device="eth1")
    entry = plan["interfaces"]["wg0"]
    assert plan["route_commands"] == [NETIFD_DEL]               # netifd's /32 goes, the user's /24 stays
    assert entry["kept_routes"] == []
    [conflict] = entry["conflicts"]
    assert {key: conflict[key] for key in ("section", "target", "interface", "dev", "endpoint")} == {
        "section": "dc_net", "target": "203.0.113.0/24", "interface": "wanb", "dev": "wwan0", "endpoint": "203.0.113.10"}
    assert conflict["message"] == (
        "the config route section dc_net (target 203.0.113.0/24, interface wanb) sends 203.0.113.10 through wwan0, "
        "not the preferred uplink eth1: a route you configured, kept as it is; point it at the preferred uplink or "
        "delete it (uci delete network.dc_net)")
    # the same route is no conflict when it uses the preferred uplink, nor without a known preferred uplink
    assert plan_wg_endpoint_routes(network, routes, targets=uci_targets(network), preferred_device="wwan0")[
        "interfaces"]["wg0"]["conflicts"] == []
    assert plan_wg_endpoint_routes(network, routes, targets=uci_targets(network))["interfaces"]["wg0"]["conflicts"] == []


NET = ("network.wan=interface\nnetwork.wan.device='eth1'\nnetwork.wan.proto='dhcp'\nnetwork.wan.metric='10'\n"
       "network.wanb=interface\nnetwork.wanb.device='wwan0'\nnetwork.wanb.proto='dhcp'\nnetwork.wanb.metric='20'\n"
       "network.pwan=interface\nnetwork.pwan.device='eth2'\nnetwork.pwan.proto='pppoe'\n"
       "network.lte=interface\nnetwork.lte.device='/dev/cdc-wdm0'\nnetwork.lte.proto='qmi'\n")
USER = {"dst": "203.0.113.10", "gateway": "192.0.2.1", "dev": "eth1", "metric": 30, "table": "main", "protocol": "static"}


def _section(**options):
    text = NET + "network.ep=route\n" + "".join("network.ep.%s='%s'\n" % item for item in options.items())
    return parse_uci_show(text)["network"]


@pytest.mark.parametrize("options, route, users", [
    # the section's own values: each on both sides
    ({"interface": "wan", "target": "203.0.113.10/32", "gateway": "192.0.2.1", "metric": "30"}, USER, True),
    ({"interface": "wan", "target": "203.0.113.10/32", "gateway": "192.0.2.9", "metric": "30"}, USER, False),
    ({"interface": "wan", "target": "203.0.113.10/32", "metric": "31"}, USER, False),
    ({"interface": "wanb", "target": "203.0.113.10/32", "metric": "30"}, USER, False),          # wanb is wwan0
    ({"interface": "wan", "target": "203.0.113.10", "netmask": "255.255.255.255", "metric": "30"}, USER, True),
    ({"interface": "wan", "target": "203.0.113.0", "netmask": "255.255.255.0", "metric": "30"}, USER, False),
    ({"interface": "wan", "target": "203.0.113.10", "metric": "30"}, USER, True),               # no mask: a host route
    ({"interface": "wan", "target": "203.0.113.10", "metric": "30", "disabled": "1"}, USER, False),
    ({"interface": "wan", "target": "203.0.113.10", "metric": "30", "table": "100"}, USER, False),
    ({"interface": "wan", "target": "203.0.113.10", "metric": "30", "table": "100"}, dict(USER, table="100"), True),
    ({"interface": "wan", "target": "203.0.113.10", "metric": "30", "table": "main"}, USER, True),
    # no metric: the interface's (wan 10), as netifd sets it
    ({"interface": "wan", "target": "203.0.113.10"}, dict(USER, metric=10), True),
    ({"interface": "wan", "target": "203.0.113.10"}, USER, False),
    ({"target": "203.0.113.10"}, dict(USER, metric=None), True),                                  # no interface, metric 0
    ({"target": "203.0.113.10"}, USER, False),
    # the device netifd names for a ppp proto; a modem proto's is only known at run time (not compared)
    ({"interface": "pwan", "target": "203.0.113.10"}, dict(USER, dev="pppoe-pwan", metric=None), True),
    ({"interface": "pwan", "target": "203.0.113.10"}, dict(USER, dev="eth2", metric=None), False),
    ({"interface": "lte", "target": "203.0.113.10"}, dict(USER, dev="wwan0", metric=None), True),
    # a kernel route is never a section's
    ({"interface": "wan", "target": "203.0.113.10", "metric": "30"}, dict(USER, protocol="kernel"), False),
])
def test_a_kernel_route_is_the_users_when_a_config_route_section_asks_for_it(options, route, users):
    network = _section(**options)
    found = route_section(route, configured_routes(network), network)
    assert (found is not None) is users
    assert find_pinned_routes([route], "203.0.113.10", network) == ([] if users or route["protocol"] == "kernel" else [route])


@pytest.mark.parametrize("options", [{"target": "not-an-ip"}, {}, {"target": "2001:db8::1"}])
def test_a_section_netifd_cannot_read_is_left_out(options):
    assert configured_routes(_section(**options)) == []


def test_a_route6_section_and_a_metric_that_is_no_number():
    network = parse_uci_show("network.v6=route6\nnetwork.v6.target='2001:db8:10::10/128'\nnetwork.v6.interface='wan'\n")["network"]
    assert configured_routes(network) == [{"section": "v6", "target": "2001:db8:10::10/128", "interface": "wan",
                                           "gateway": None, "metric": None, "table": None}]
    # An option netifd cannot convert is dropped (the route is still installed): never a failure of the facts.
    [low] = configured_routes(_section(target="203.0.113.10", metric="low"))
    assert low["target"] == "203.0.113.10/32" and low["metric"] is None
    assert configured_routes(_section(target="203.0.113.10", disabled="perhaps"))[0]["target"] == "203.0.113.10/32"
    assert configured_routes(_section(target="203.0.113.10", disabled="1")) == []


@pytest.mark.parametrize("name, devices", [("wan", {"eth1"}), ("pwan", {"pppoe-pwan"}), ("lte", None), ("nope", None),
                                           (None, None)])
def test_interface_devices(name, devices):
    assert interface_devices(parse_uci_show(NET)["network"], name) == devices


def _user(target, dev, metric=None, table="main", section="s"):
    return {"section": section, "target": target, "interface": None,
            "installed": None if dev is None else {"dst": target, "dev": dev, "gateway": None, "metric": metric, "table": table}}


@pytest.mark.parametrize("users, preferred, dev", [
    ([_user("203.0.113.0/24", "wwan0")], "eth1", "wwan0"),
    ([_user("203.0.113.0/24", "eth1")], "eth1", None),
    ([_user("203.0.113.0/24", "wwan0")], None, None),                                   # preferred unknown: no guess
    ([_user("203.0.113.0/24", None)], "eth1", None),                                     # not installed: routes nothing
    ([_user("203.0.113.0/24", "wwan0", table="100")], "eth1", None),                    # another table
    ([_user("203.0.113.10/32", "eth1"), _user("203.0.113.0/24", "wwan0")], "eth1", None),     # the most specific wins
    ([_user("203.0.113.10/32", "wwan0"), _user("203.0.113.0/24", "eth1")], "eth1", "wwan0"),
    ([_user("203.0.113.0/24", "wwan0", 20), _user("203.0.113.0/24", "eth1", 10)], "eth1", None),   # then the lowest metric
    ([_user("203.0.113.0/24", "wwan0", 10), _user("203.0.113.0/24", "eth1", 20)], "eth1", "wwan0"),
    ([], "eth1", None),
])
def test_the_users_route_that_carries_the_endpoint_decides_the_conflict(users, preferred, dev):
    conflict = user_route_conflict(users, "203.0.113.10", preferred)
    assert (conflict or {}).get("dev") == dev


# metered uplinks (issue 17, point 5) -------------------------------------------------------------

@pytest.mark.parametrize("preferred, metered, expected", [
    ("eth1", [], [("wan", "eth1", True, False), ("wanb", "wwan0", False, False)]),
    ("eth1", ["wanb"], [("wan", "eth1", True, False), ("wanb", "wwan0", False, True)]),
    ("eth1", ["wwan0"], [("wan", "eth1", True, False), ("wanb", "wwan0", False, True)]),        # a device name
    ("eth1", ["wan", "wanb"], [("wan", "eth1", True, True), ("wanb", "wwan0", False, True)]),
    ("eth9", ["wanb"], [(None, "eth9", True, False), ("wan", "eth1", False, False), ("wanb", "wwan0", False, True)]),
    (None, [], [("wan", "eth1", False, False), ("wanb", "wwan0", False, False)]),
])
def test_the_uplinks_are_the_preferred_and_the_main_tables_defaults(load_fixture, preferred, metered, expected):
    network, routes = _recorded(load_fixture, FIBRE, "ip_j_route_show")
    found = find_uplinks(network, routes, preferred, metered)
    assert [(u["interface"], u["device"], u["preferred"], u["metered"]) for u in found] == expected


def test_a_wireguard_default_route_is_no_uplink(load_fixture):
    network = parse_uci_show(load_fixture("uci_show", "case04_network.txt"))["network"]
    routes = parse_ip_route_show_text("default dev wg0 proto static scope link\n"
                                      "default via 192.0.2.1 dev eth1 proto static metric 10\n"
                                      "default via 198.51.100.1 dev wwan0 table 2 proto static metric 20\n")
    assert [u["device"] for u in find_uplinks(network, routes, None, ["eth1"])] == ["eth1"]   # not wg0, not table 2


@pytest.mark.parametrize("metered, refused", [
    (["wan", "wanb"], True), (["eth1", "wwan0"], True), (["wanb"], False), (["wan"], False), ([], False)])
def test_every_uplink_metered_refuses_to_pick_one(load_fixture, metered, refused):
    network, routes = _recorded(load_fixture, FIBRE, "ip_j_route_show")
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network), preferred_device="eth1", metered=metered)
    assert (plan["refused"] is not None) is refused
    if refused:
        assert plan["refused"] == (
            "every uplink of this router is metered (wan: eth1, wanb: wwan0): refusing to pick one for the WireGuard "
            "endpoints; leave the uplink the tunnel may use out of the metered ones (and make it the preferred uplink)")
        assert (plan["uci_commands"], plan["route_commands"], plan["changed"]) == ([], [], False)
        assert plan["interfaces"]["wg0"]["changed"] is False and plan["diff"]["before"] == plan["diff"]["after"]
    else:
        assert plan["route_commands"] == [NETIFD_DEL] and plan["changed"] is True


def test_every_uplink_metered_refuses_nothing_when_nothing_would_change(load_fixture):
    network = parse_uci_show(load_fixture("uci_show", "case01_fixed_network.txt"))["network"]
    routes = _routes(load_fixture, ("ip_j_route_show", "full_tunnel_split_default.txt"))
    plan = plan_wg_endpoint_routes(network, routes, targets=uci_targets(network), preferred_device="eth1",
                                   metered=["eth1", "wwan0"])
    assert (plan["changed"], plan["refused"]) == (False, None)


@pytest.mark.parametrize("found, refused", [
    ([], False), ([{"interface": "wan", "device": "eth1", "metered": True}], True),
    ([{"interface": None, "device": "eth1", "metered": True}, {"interface": "wanb", "device": "wwan0", "metered": False}], False),
])
def test_metered_refusal(found, refused):
    assert (metered_refusal(found) is not None) is refused


@pytest.mark.parametrize("metered, unmatched", [
    (["wanb", "eth1"], []), (["wwan0"], []), (["lte", "wanb", "eth9"], ["lte", "eth9"]), ([], [])])
def test_a_metered_name_that_is_no_uplink_is_named(load_fixture, metered, unmatched):
    network, routes = _recorded(load_fixture, FIBRE, "ip_j_route_show")
    assert metered_unmatched(network, find_uplinks(network, routes, "eth1", metered), metered) == unmatched


@pytest.mark.parametrize("uplink, device", [
    ("wan", "eth1"), ("pwan", "pppoe-pwan"),      # PPPoE: netifd's device, not the uci device it dials over
    ("lte", "/dev/cdc-wdm0"), ("wwan0", "wwan0"), ("", None), (None, None),
])
def test_uplink_device_is_the_kernels_name(uplink, device):
    assert uplink_device(parse_uci_show(NET)["network"], uplink) == device


def test_a_pppoe_preferred_uplink_is_one_uplink_not_a_phantom_and_a_stranger():
    """The preferred uplink given as the uci interface resolves to pppoe-pwan, the device its default route uses."""
    network = parse_uci_show(NET)["network"]
    routes = [{"dst": "default", "dev": "pppoe-pwan", "table": "main", "type": "unicast"},
              {"dst": "default", "dev": "wwan0", "table": "main", "type": "unicast"}]
    found = find_uplinks(network, routes, uplink_device(network, "pwan"), ["wanb"])
    assert [(u["interface"], u["device"], u["preferred"], u["metered"]) for u in found] == [
        ("pwan", "pppoe-pwan", True, False), ("wanb", "wwan0", False, True)]


@pytest.mark.parametrize("allowed, reason", [
    (["0.0.0.0/1", "128.0.0.0/1", "::/0"], "routed allowed_ips include 0.0.0.0/1 and 128.0.0.0/1"),   # IPv4 is named first
    (["::/0", "10.0.0.0/8"], "routed allowed_ips include ::/0"),
    (["::/1", "8000::/1", "::/0"], "routed allowed_ips include ::/0"),
])
def test_a_full_tunnel_names_the_outermost_prefixes_ipv4_first(allowed, reason):
    assert classify_tunnel([_peer(allowed, endpoint=HOST)])["reason"] == reason
