# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's one plan (faults/endpoint_route/plan.py): ``plan_endpoint_routes`` on the facts' shapes, both sides of
each decision, and the two callers: ``route_plan`` (Fault.plan, remediate's lines) and ``plan_wg_endpoint_routes``
(wg_endpoint_route's commands), on recorded routers."""

import copy
import hashlib

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import OLD_HOOK_PATH as OLD_HOOK, parse_hook_probe
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import (
    plan_endpoint_routes, plan_wg_endpoint_routes, route_plan)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import endpoint_route_facts, endpoint_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import find_uplinks
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import add_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import parse_ip_route_show, parse_ip_route_show_text
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show

SET = ["uci", "set", "network.wg0.nohostroute=1"]
UNSET = ["uci", "delete", "network.wg0.nohostroute"]
DEL = ["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]
SET_LINE = "network.wg0.nohostroute: unset -> '1'"
DEL_LINE = "delete the pinned route 203.0.113.10 via 198.51.100.1 dev wwan0 (endpoint of wg0)"
UNSET_LINE = "network.wg0.nohostroute: '1' -> unset (a full tunnel needs the endpoint's host route)"
NO_HOTPLUG = {"openwrt_mwan3_wg_full_tunnel_hotplug": False}
NO_HOOKS = {"hotplug_hook_exists": False, "old_hotplug_hook_exists": False}   # the probe: neither file there
INSTALL_MISSING = "install the hook /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint (hotplug hook missing)"


def _routes(load_fixture, command, case):
    parser = parse_ip_route_show_text if command == "ip_route_show" else parse_ip_route_show
    return parser("".join(line for line in load_fixture(command, case).splitlines(True) if not line.startswith("#")))


def recorded(load_fixture, uci, command, case, preferred="eth1", metered=()):
    """A router's raw read and the view openwrt_facts gives of it (the same functions: merge, targets, route facts, uplinks)."""
    network = parse_uci_show(load_fixture("uci_show", uci))["network"]
    routes = _routes(load_fixture, command, case)
    interfaces = add_tunnels(merge_wireguard(network, None))
    endpoints = [endpoint_route_facts(target, None, routes, None, network) for target in endpoint_targets(interfaces)["targets"]]
    view = {"preferred_uplink_device": preferred, "openwrt": {
        "wireguard": {"interfaces": interfaces},
        "endpoint_routes": {"endpoints": endpoints, "uplinks": find_uplinks(network, routes, preferred, metered),
                            **NO_HOOKS}}}
    return network, routes, view


CASES = [
    # (uci, routes, role variables, remediate's lines, the action's commands)
    ("case01_network.txt", ("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), {}, [SET_LINE, DEL_LINE], [SET, DEL]),
    ("case01_network.txt", ("ip_route_show", "case01_lan_gateway.txt"), {"openwrt_mwan3_wg_interfaces": "wg0"},
     [SET_LINE, "delete the pinned route 203.0.113.10 via 192.168.10.1 dev br-lan (endpoint of wg0)"],
     [SET, ["ip", "route", "del", "203.0.113.10/32", "via", "192.168.10.1", "dev", "br-lan"]]),
    ("case01_fixed_network.txt", ("ip_j_route_show", "full_tunnel_split_default.txt"), {}, [], []),
    ("case04_network.txt", ("ip_j_route_show", "full_tunnel_split_default.txt"), NO_HOTPLUG, [UNSET_LINE], [UNSET]),
    # hotplug on, no hook on the router (the facts' probe): installed with the text the plan gives
    ("case04_network.txt", ("ip_j_route_show", "full_tunnel_split_default.txt"), {}, [UNSET_LINE, INSTALL_MISSING], [UNSET]),
    ("user_route_fibre_endpoint.txt", ("ip_j_route_show", "user_route_fibre_pinned_backup_table_all.txt"), {},
     [SET_LINE, DEL_LINE], [SET, DEL]),
    ("user_prefix_backup_endpoint.txt", ("ip_route_show", "user_prefix_backup_pinned_backup_table_all.txt"), {},
     [SET_LINE, DEL_LINE], [SET, DEL]),
]


@pytest.mark.parametrize("uci, routes, role_vars, lines, commands", CASES)
def test_remediate_shows_the_plan_the_fix_applies(load_fixture, uci, routes, role_vars, lines, commands):
    """The fault's lines are the one plan's, one per command the action runs (or None where the facts cannot tell)."""
    network, parsed, view = recorded(load_fixture, uci, *routes)
    assert route_plan(view, role_vars) == lines
    chosen = [role_vars["openwrt_mwan3_wg_interfaces"]] if "openwrt_mwan3_wg_interfaces" in role_vars else None
    plan = plan_wg_endpoint_routes(network, parsed, chosen, preferred_device="eth1")
    assert plan["uci_commands"] + plan["route_commands"] == commands


def test_the_fix_plans_on_the_facts_it_would_gather(load_fixture):
    """plan_wg_endpoint_routes is plan_endpoint_routes on the facts built from the read: the same dict, key for key."""
    network, routes, view = recorded(load_fixture, "user_prefix_backup_endpoint.txt", "ip_route_show",
                                     "user_prefix_backup_pinned_backup_table_all.txt", metered=["wanb"])
    facts = view["openwrt"]
    assert plan_wg_endpoint_routes(network, routes, preferred_device="eth1", metered=["wanb"]) == plan_endpoint_routes(
        facts["wireguard"]["interfaces"], facts["endpoint_routes"]["endpoints"], uplinks=facts["endpoint_routes"]["uplinks"],
        preferred_device="eth1")


def test_a_users_host_route_is_kept_and_stays_in_the_diff(load_fixture):
    network, routes, _view = recorded(load_fixture, "user_route_fibre_endpoint.txt", "ip_j_route_show",
                                      "user_route_fibre_pinned_backup_table_all.txt")
    plan = plan_wg_endpoint_routes(network, routes, preferred_device="eth1")
    entry = plan["interfaces"]["wg0"]
    assert [(r["dst"], r["dev"]) for r in entry["kept_routes"]] == [("203.0.113.10", "eth1")]
    assert [(r["dst"], r["dev"]) for r in entry["delete_routes"]] == [("203.0.113.10", "wwan0")]
    assert plan["diff"] == {
        "before": "network.wg0.nohostroute=(unset)\nroute 203.0.113.10/32 via 198.51.100.1 dev wwan0\n"
                  "route 203.0.113.10/32 via 192.0.2.1 dev eth1\n",
        "after": "network.wg0.nohostroute='1'\nroute 203.0.113.10/32 via 192.0.2.1 dev eth1\n"}


# hand-made facts: both sides of each decision ---------------------------------------------------

PINNED = {"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "table": "main", "protocol": "static", "metric": 20}
ETH1 = {"interface": "wan", "device": "eth1", "preferred": True, "metered": False}
WWAN0 = {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": True}


def user(target, dev, table="main", section="ep"):
    dst = target.split("/")[0] if target.endswith(("/32", "/128")) else target
    return {"section": section, "target": target, "interface": None, "gateway": None, "metric": None, "table": None,
            "installed": None if dev is None else {"dst": dst, "gateway": "192.0.2.1", "dev": dev, "table": table,
                                                   "protocol": "static", "metric": None}}


def iface(tunnel="split", nohostroute=False, written=None, in_uci=True, peers=None, addresses=("10.77.0.2/24",)):
    options = {} if written is None else {"nohostroute": written}
    return {"in_uci": in_uci, "tunnel": tunnel, "tunnel_reason": None if tunnel == "split" else "routed allowed_ips include 0.0.0.0/0",
            "nohostroute": nohostroute, "options": options, "addresses": list(addresses),
            "peers": peers if peers is not None else [
                {"section": "p0", "endpoint_host": "203.0.113.10", "allowed_ips": ["10.77.0.0/24"], "route_allowed_ips": True}]}


def endpoint(address="203.0.113.10", pinned=(PINNED,), users=(), section="p0", interface="wg0"):
    return {"interface": interface, "section": section, "address": address, "pinned_routes": list(pinned), "user_routes": list(users)}


@pytest.mark.parametrize("info, uci", [
    (iface(nohostroute=True, written="1"), []),
    (iface(), [SET]),
    (iface(written="true"), [SET]),          # netifd honours only the literal '1'
])
def test_nohostroute_is_set_unless_it_is_the_literal_1(info, uci):
    plan = plan_endpoint_routes({"wg0": info}, [endpoint(pinned=())])
    assert plan["uci_commands"] == uci and plan["changed"] is bool(uci)
    written = info["options"].get("nohostroute")
    assert plan["diff"]["before"] == "network.wg0.nohostroute=%s\n" % ("'%s'" % written if written else "(unset)")


def test_a_list_nohostroute_is_shown_as_written_in_the_lines_and_unset_in_the_diff():
    info = iface(written=["1", "1"])
    view = {"openwrt": {"wireguard": {"interfaces": {"wg0": info}}, "endpoint_routes": {**NO_HOOKS, "endpoints": []}}}
    assert route_plan(view, {}) == ["network.wg0.nohostroute: '1 1' (netifd honours only '1') -> '1'"]
    assert plan_endpoint_routes({"wg0": info}, [])["diff"]["before"] == "network.wg0.nohostroute=(unset)\n"


@pytest.mark.parametrize("chosen, message", [
    (["wg9"], "interfaces: 'wg9' is not a proto wireguard interface in /etc/config/network (found: wg0)"),
    (["wg1"], "interfaces: 'wg1' is not a proto wireguard interface"),      # live only: not in uci, not the role's
])
def test_a_named_interface_uci_does_not_have_is_refused(chosen, message):
    interfaces = {"wg0": iface(), "wg1": iface(in_uci=False)}
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan_endpoint_routes(interfaces, [], chosen)
    assert list(plan_endpoint_routes(interfaces, [])["interfaces"]) == ["wg0"]
    view = {"openwrt": {"wireguard": {"interfaces": interfaces}, "endpoint_routes": {**NO_HOOKS, "endpoints": []}}}
    assert route_plan(view, {"openwrt_mwan3_wg_interfaces": chosen}) is None


@pytest.mark.parametrize("tunnel", [None, "half"])
def test_a_tunnel_neither_split_nor_full_cannot_be_planned(tunnel):
    with pytest.raises(ParseError, match="whether wg0 is a split or a full tunnel is unknown"):
        plan_endpoint_routes({"wg0": iface(tunnel=tunnel)}, [])


def test_one_address_is_one_endpoint_and_a_hostname_nobody_looked_up_is_unresolved():
    peers = [{"section": "p0", "endpoint_host": "203.0.113.10", "allowed_ips": [], "route_allowed_ips": True},
             {"section": "p1", "endpoint_host": "203.0.113.10", "allowed_ips": [], "route_allowed_ips": True},
             {"section": "dc", "endpoint_host": "dc.example.net", "allowed_ips": [], "route_allowed_ips": True},
             {"section": "hub", "endpoint_host": "hub.example.net", "allowed_ips": [], "route_allowed_ips": True}]
    endpoints = [endpoint(), endpoint(section="p1"), endpoint(address="203.0.113.20", pinned=(), section="hub"),
                 endpoint(address="not-an-ip", section="x"), endpoint(interface="wg1")]
    entry = plan_endpoint_routes({"wg0": iface(peers=peers)}, endpoints)["interfaces"]["wg0"]
    assert entry["endpoints"] == ["203.0.113.10", "203.0.113.20"]
    assert entry["delete_routes"] == [PINNED]                 # once, not once per peer
    assert entry["unresolved"] == ["dc.example.net"]          # hub.example.net was looked up (its live endpoint)


@pytest.mark.parametrize("users, kept", [
    ([user("203.0.113.10/32", "eth1")], ["eth1"]),
    ([user("203.0.113.0/24", "eth1")], []),                   # a prefix is no host route: nothing of it in the diff
    ([user("203.0.113.10/32", None)], []),                    # not installed
    ([user("203.0.113.11/32", "eth1")], []),                  # another address
    ([user("203.0.113.10/32", "eth1"), user("203.0.113.10/32", "eth1", section="twin")], ["eth1"]),   # one route, once
])
def test_a_users_host_route_to_the_endpoint_is_kept(users, kept):
    plan = plan_endpoint_routes({"wg0": iface(nohostroute=True, written="1")}, [endpoint(pinned=(), users=users)])
    assert [route["dev"] for route in plan["interfaces"]["wg0"]["kept_routes"]] == kept
    assert plan["diff"]["after"].count("route 203.0.113.10/32") == len(kept)
    assert [u["endpoint"] for u in plan["interfaces"]["wg0"]["user_routes"]] == ["203.0.113.10"] * len(users)


@pytest.mark.parametrize("preferred, conflicts", [("eth1", 1), ("wwan0", 0), (None, 0)])
def test_a_users_route_on_another_uplink_is_a_conflict_of_a_split_tunnel_only(preferred, conflicts):
    users = [user("203.0.113.0/24", "wwan0")]
    split = plan_endpoint_routes({"wg0": iface()}, [endpoint(users=users)], preferred_device=preferred)
    assert len(split["interfaces"]["wg0"]["conflicts"]) == conflicts
    full = plan_endpoint_routes({"wg0": iface(tunnel="full")}, [endpoint(users=users)], preferred_device=preferred)
    assert full["interfaces"]["wg0"]["conflicts"] == [] and full["interfaces"]["wg0"]["user_routes"] == []


def test_a_full_tunnel_keeps_its_host_route_and_loses_only_nohostroute():
    plan = plan_endpoint_routes({"wg0": iface(tunnel="full", nohostroute=True, written="1")}, [endpoint()])
    entry = plan["interfaces"]["wg0"]
    assert plan["uci_commands"] == [UNSET] and plan["route_commands"] == [] and entry["delete_routes"] == []
    assert entry["refused"].startswith("nohostroute refused for wg0: routed allowed_ips include 0.0.0.0/0, so without")
    assert plan["full_tunnel_endpoints"] == [{"interface": "wg0", "endpoint": "203.0.113.10"}]
    assert plan["diff"] == {"before": "network.wg0.nohostroute='1'\n", "after": "network.wg0.nohostroute=(unset)\n"}
    assert plan_endpoint_routes({"wg0": iface(tunnel="full")}, [endpoint()])["changed"] is False


@pytest.mark.parametrize("info, uplinks, refused", [
    (iface(), [dict(ETH1, metered=True), WWAN0], True),
    (iface(), [ETH1, WWAN0], False),                          # one uplink is not metered
    (iface(), None, False),                                   # the uplinks are unknown: no refusal
    (iface(), [], False),
    (iface(nohostroute=True, written="1"), [dict(ETH1, metered=True), WWAN0], False),   # nothing would change
])
def test_every_uplink_metered_refuses_a_change(info, uplinks, refused):
    plan = plan_endpoint_routes({"wg0": info}, [endpoint(pinned=() if info["nohostroute"] else (PINNED,))], uplinks=uplinks)
    assert (plan["refused"] is not None) is refused
    if refused:
        assert (plan["uci_commands"], plan["route_commands"], plan["changed"]) == ([], [], False)
        assert plan["interfaces"]["wg0"]["delete_routes"] == [] and plan["interfaces"]["wg0"]["changed"] is False
        assert plan["diff"]["before"] == plan["diff"]["after"]
    view = {"preferred_uplink_device": "eth1", "openwrt": {"wireguard": {"interfaces": {"wg0": info}}, "endpoint_routes": {
        "endpoints": [endpoint(pinned=() if info["nohostroute"] else (PINNED,))], "uplinks": uplinks, **NO_HOOKS}}}
    assert (route_plan(view, {}) is None) is refused


@pytest.mark.parametrize("connection, inside", [
    ("10.77.0.9", True),          # the interface's own subnet
    ("10.77.1.9", False),
    ("192.168.20.5", True),       # a routed allowed_ips prefix
    ("192.168.21.5", False),
    ("ansible.example.net", False),
    (None, False),
])
def test_over_tunnel(connection, inside):
    peers = [{"section": "p0", "endpoint_host": "203.0.113.10", "allowed_ips": ["192.168.20.0/24"], "route_allowed_ips": True},
             {"section": "p1", "endpoint_host": None, "allowed_ips": ["192.168.21.0/24"], "route_allowed_ips": False}]
    plan = plan_endpoint_routes({"wg0": iface(peers=peers)}, [], connection_address=connection)
    assert plan["interfaces"]["wg0"]["over_tunnel"] is inside


@pytest.mark.parametrize("hotplug, tells", [(False, True), ("false", True), ("no", True), ("0", True),
                                            ("off", True), ("n", True), ("False", True), (" f ", True),
                                            (True, False), ("yes", False), ("on", False), ("True", False), (1, False),
                                            (None, False)])
def test_a_full_tunnel_with_the_hotplug_script_cannot_be_told_from_the_facts(hotplug, tells):
    """The option read as the role's bool (faults/fault.py is_true, Ansible's bool): "off", "n", "False" too (before: on)."""
    view = {"openwrt": {"wireguard": {"interfaces": {"wg0": iface(tunnel="full")}},
                        "endpoint_routes": {**NO_HOOKS, "endpoints": [endpoint()]}}}
    role_vars = {} if hotplug is None else {"openwrt_mwan3_wg_full_tunnel_hotplug": hotplug}
    assert route_plan(view, role_vars) == ([] if tells else None)


def test_a_conflict_alone_is_none_a_conflict_with_a_change_is_the_change():
    users = [user("203.0.113.0/24", "wwan0")]
    view = {"preferred_uplink_device": "eth1", "openwrt": {"wireguard": {"interfaces": {"wg0": iface(nohostroute=True)}},
                                                           "endpoint_routes": {**NO_HOOKS, "endpoints": [endpoint(pinned=(), users=users)]}}}
    assert route_plan(view, {}) is None
    changed = copy.deepcopy(view)
    changed["openwrt"]["wireguard"]["interfaces"]["wg0"]["nohostroute"] = False
    assert route_plan(changed, {}) == [SET_LINE]


def test_route_plan_needs_both_facts_and_leaves_the_view_alone():
    view = {"openwrt": {"wireguard": {"interfaces": {"wg0": iface()}}, "endpoint_routes": {**NO_HOOKS, "endpoints": [endpoint()]}}}
    before = copy.deepcopy(view)
    assert route_plan(view, {}) == [SET_LINE, DEL_LINE] and view == before
    assert route_plan({"openwrt": {"wireguard": view["openwrt"]["wireguard"]}}, {}) is None
    assert route_plan({"openwrt": {"endpoint_routes": view["openwrt"]["endpoint_routes"]}}, {}) is None


# the full-tunnel hook: installed, kept or removed as stale ------------------------------------------

HOOK = "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint"
STALE_SPLIT = "remove the stale hook %s (no full tunnel left)" % HOOK
STALE_OFF = "remove the stale hook %s (openwrt_mwan3_wg_full_tunnel_hotplug is false)" % HOOK
CONVERGED_SPLIT = iface(nohostroute=True, written="1")
HOOK_KEYS = ("path", "exists", "endpoints", "install", "remove", "stale")


@pytest.mark.parametrize("interfaces, endpoints, hotplug, exists, hook_endpoints, install, remove, stale", [
    # no full tunnel (any more): a hook that is there, or may be, goes; an absent one is left absent
    ({"wg0": CONVERGED_SPLIT}, [endpoint(pinned=())], True, True, [], False, True, "no full tunnel left"),
    ({"wg0": CONVERGED_SPLIT}, [endpoint(pinned=())], True, None, [], False, True, "no full tunnel left"),
    ({"wg0": CONVERGED_SPLIT}, [endpoint(pinned=())], True, False, [], False, False, "no full tunnel left"),
    ({}, [], True, True, [], False, True, "no full tunnel left"),   # no WireGuard interface at all
    # a full tunnel with an endpoint: installed while the option is on, else it goes
    ({"wg0": iface(tunnel="full")}, [endpoint()], True, True, ["203.0.113.10"], True, False, None),
    ({"wg0": iface(tunnel="full")}, [endpoint()], True, False, ["203.0.113.10"], True, False, None),
    ({"wg0": iface(tunnel="full")}, [endpoint()], False, True, ["203.0.113.10"], False, True, "openwrt_mwan3_wg_full_tunnel_hotplug is false"),
    ({"wg0": iface(tunnel="full")}, [endpoint()], False, False, ["203.0.113.10"], False, False, "openwrt_mwan3_wg_full_tunnel_hotplug is false"),
    # a full tunnel whose endpoint is unknown (a hostname, the interface down): the hook it has stays, none is installed
    ({"wg0": iface(tunnel="full")}, [], True, True, [], False, False, None),
    # a split and a full tunnel: the full one's
    ({"wg0": CONVERGED_SPLIT, "wg1": iface(tunnel="full")}, [endpoint(pinned=()), endpoint(interface="wg1", address="198.51.100.77")],
     True, True, ["198.51.100.77"], True, False, None),
])
def test_the_hook_is_installed_for_a_full_tunnel_and_removed_when_stale(interfaces, endpoints, hotplug, exists, hook_endpoints,
                                                                        install, remove, stale):
    plan = plan_endpoint_routes(interfaces, endpoints, hotplug=hotplug, hook={"hotplug_hook_exists": exists})
    assert {key: plan["hotplug_hook"][key] for key in HOOK_KEYS} == {
        "path": HOOK, "exists": exists, "endpoints": hook_endpoints, "install": install, "remove": remove, "stale": stale}
    assert plan["changed"] is any(entry["changed"] for entry in plan["interfaces"].values())   # the hook is the role's, not the action's


V6 = "2001:db8::10"
V6_PEER = {"section": "p0", "endpoint_host": V6, "allowed_ips": ["0.0.0.0/0"], "route_allowed_ips": True}
V4_PEER = {"section": "p1", "endpoint_host": "203.0.113.10", "allowed_ips": ["0.0.0.0/0"], "route_allowed_ips": True}
HOSTNAME_PEER = {"section": "p1", "endpoint_host": "vpn.example.net", "allowed_ips": ["0.0.0.0/0"], "route_allowed_ips": True}
NO_IPV4 = "no full tunnel has an IPv4 endpoint"


@pytest.mark.parametrize("peers, endpoints, exists, hook_endpoints, install, remove, stale", [
    # every endpoint IPv6: nothing for the hook to re-point (its /32 via an IPv4 gateway), so none is installed and one
    # that is there (or may be) goes
    ([V6_PEER], [endpoint(address=V6)], True, [], False, True, NO_IPV4),
    ([V6_PEER], [endpoint(address=V6)], None, [], False, True, NO_IPV4),
    ([V6_PEER], [endpoint(address=V6)], False, [], False, False, NO_IPV4),
    # mixed: the hook re-points the IPv4 endpoint only
    ([V6_PEER, V4_PEER], [endpoint(address=V6), endpoint(section="p1")], False, ["203.0.113.10"], True, False, None),
    # an IPv6 endpoint and a hostname no lookup resolved (it may be IPv4): the hook it has stays, none is installed
    ([V6_PEER, HOSTNAME_PEER], [endpoint(address=V6)], True, [], False, False, None),
])
def test_the_hook_re_points_the_ipv4_endpoints_only(peers, endpoints, exists, hook_endpoints, install, remove, stale):
    """The plan lists the endpoints the hook re-points (its text names that list) and installs it only for some."""
    plan = plan_endpoint_routes({"wg0": iface(tunnel="full", peers=peers)}, endpoints, hook={"hotplug_hook_exists": exists})
    assert {key: plan["hotplug_hook"][key] for key in HOOK_KEYS} == {
        "path": HOOK, "exists": exists, "endpoints": hook_endpoints, "install": install, "remove": remove, "stale": stale}


def test_each_ipv4_endpoint_is_listed_once_for_the_hook():
    """Two full tunnels with the same endpoint: one ``ip route replace`` for it."""
    interfaces = {"wg0": iface(tunnel="full"), "wg1": iface(tunnel="full")}
    plan = plan_endpoint_routes(interfaces, [endpoint(), endpoint(interface="wg1"), endpoint(interface="wg1", address="198.51.100.77")])
    assert plan["hotplug_hook"]["endpoints"] == ["203.0.113.10", "198.51.100.77"]


def test_remediate_removes_the_hook_of_an_ipv6_only_full_tunnel():
    """With the hotplug option on, a full tunnel whose endpoints are all IPv6 gets no hook: the one there is a line."""
    view = {"preferred_uplink_device": "eth1", "openwrt": {
        "wireguard": {"interfaces": {"wg0": iface(tunnel="full", peers=[V6_PEER])}},
        "endpoint_routes": {"endpoints": [endpoint(address=V6, pinned=())], "hotplug_hook_exists": True, "old_hotplug_hook_exists": False}}}
    assert route_plan(view, {}) == ["remove the stale hook %s (%s)" % (HOOK, NO_IPV4)]
    view["openwrt"]["endpoint_routes"]["hotplug_hook_exists"] = False
    assert route_plan(view, {}) == []
    view["openwrt"]["endpoint_routes"]["hotplug_hook_exists"] = None
    assert route_plan(view, {}) is None


def test_a_stale_hook_is_removed_for_the_chosen_interfaces_only():
    """The hook names the handled full tunnels' endpoints: with only the split wg0 handled, it is stale."""
    interfaces = {"wg0": CONVERGED_SPLIT, "wg1": iface(tunnel="full")}
    plan = plan_endpoint_routes(interfaces, [endpoint(pinned=()), endpoint(interface="wg1")], ["wg0"], hook={"hotplug_hook_exists": True})
    assert (plan["hotplug_hook"]["install"], plan["hotplug_hook"]["remove"]) == (False, True)


def hook_view(info, hook, pinned=(), uplinks=None):
    routes = {"endpoints": [endpoint(pinned=pinned)], "hotplug_hook_exists": hook, "old_hotplug_hook_exists": False}
    if uplinks is not None:
        routes["uplinks"] = uplinks
    return {"preferred_uplink_device": "eth1", "openwrt": {"wireguard": {"interfaces": {"wg0": info}}, "endpoint_routes": routes}}


def full_view(load_fixture, case, tool="busybox_openwrt24.10", preferred="eth1", uplinks=(ETH1, WWAN0), rc=1):
    """A full tunnel wg0 with the endpoint 203.0.113.10 and no nohostroute, its host route kept (not pinned: netifd's
    route to a full tunnel's endpoint is required), the uplinks wan (eth1) and wanb (wwan0, metered), and the hook probe
    as recorded on the router (``sha256sum_hotplug_hook/TOOL_CASE.txt``: ``hook_only`` holds the hook the role wrote for
    exactly this router, ``both`` that hook and the old file, ``none`` neither), read by the facts' own parser."""
    name = "%s_%s.txt" % (tool, case)
    probe = parse_hook_probe(0 if case == "both" else rc, load_fixture("sha256sum_hotplug_hook", name),
                             load_fixture("sha256sum_hotplug_hook_stderr", name))
    routes = {"endpoints": [endpoint(pinned=())], "uplinks": [dict(uplink) for uplink in uplinks],
              "hotplug_hook_exists": probe[HOOK]["exists"], "hotplug_hook_sha256": probe[HOOK]["sha256"],
              "old_hotplug_hook_exists": probe[OLD_HOOK]["exists"]}
    return {"preferred_uplink_device": preferred, "openwrt": {"wireguard": {"interfaces": {"wg0": iface(tunnel="full")}},
                                                              "endpoint_routes": routes}}


OLD_LINE = "remove the hook an earlier version left at %s (mwan3 never runs it)" % OLD_HOOK


@pytest.mark.parametrize("tool", ["busybox_openwrt24.10", "gnu_debian12"])
@pytest.mark.parametrize("case, role_vars, view_keys, lines", [
    # converged: the router's hook is the text the role would write (the recorded digest): no role to run
    ("hook_only", {}, {}, []),
    ("hook_only", {"openwrt_mwan3_wg_full_tunnel_hotplug": True}, {}, []),
    # the hook missing, or another text: installed, rewritten (the preferred uplink, its device, the metered ones are
    # in the text)
    ("none", {}, {}, ["install the hook %s (hotplug hook missing)" % HOOK]),
    ("hook_only", {"openwrt_mwan3_wg_preferred_uplink": "wanb"}, {}, []),   # already among the uplinks: the same text
    ("hook_only", {"openwrt_mwan3_wg_preferred_uplink": "lte"}, {}, ["rewrite the hook %s (hotplug hook differs)" % HOOK]),
    ("hook_only", {}, {"preferred": "eth9"}, ["rewrite the hook %s (hotplug hook differs)" % HOOK]),
    ("hook_only", {}, {"uplinks": (ETH1, dict(WWAN0, metered=False))}, ["rewrite the hook %s (hotplug hook differs)" % HOOK]),
    # the file an earlier version left in /etc/hotplug.d/mwan3/: the role runs to remove it
    ("both", {}, {}, [OLD_LINE]),
    # the hook turned off: the one there is stale
    ("hook_only", NO_HOTPLUG, {}, [STALE_OFF]),
    ("none", NO_HOTPLUG, {}, []),
])
def test_a_full_tunnel_s_hook_is_planned_from_its_digest(load_fixture, tool, case, role_vars, view_keys, lines):
    assert route_plan(full_view(load_fixture, case, tool, **view_keys), role_vars) == lines


@pytest.mark.parametrize("facts, lines", [
    # the probe failed (no sha256sum): the hook's state is unknown while the plan wants it
    ({"hotplug_hook_exists": None, "hotplug_hook_sha256": None}, None),
    # the old file's state unknown
    ({"old_hotplug_hook_exists": None}, None),
    # uplinks not read: the hook's text is unknown
    ({"uplinks": None}, None),
    # facts of a version that read no digest: a hook that exists with no digest is rewritten
    ({"hotplug_hook_sha256": None}, ["rewrite the hook %s (hotplug hook differs)" % HOOK]),
])
def test_a_full_tunnel_s_hook_the_facts_cannot_tell(load_fixture, facts, lines):
    view = full_view(load_fixture, "hook_only")
    view["openwrt"]["endpoint_routes"].update(facts)
    assert route_plan(view, {}) == lines


def test_the_fix_writes_the_text_whose_digest_remediate_compares(load_fixture):
    """The action's plan on the same router carries the text the role writes (hotplug_hook.content): its SHA-256 is
    the one recorded on a router the role converged, and the plan installs nothing there."""
    view = full_view(load_fixture, "hook_only")
    facts = view["openwrt"]["endpoint_routes"]
    plan = plan_endpoint_routes(view["openwrt"]["wireguard"]["interfaces"], facts["endpoints"], uplinks=facts["uplinks"],
                                preferred_device="eth1", hook=facts, preferred_uplink="wan")
    hook = plan["hotplug_hook"]
    assert hashlib.sha256(hook["content"].encode()).hexdigest() == facts["hotplug_hook_sha256"]
    assert (hook["install"], hook["install_reason"], hook["remove"], hook["remove_old"]) == (False, None, False, False)
    assert hook["content"].startswith("#!/bin/sh\n") and 'ENDPOINTS="203.0.113.10"\n' in hook["content"]
    missing = plan_endpoint_routes(view["openwrt"]["wireguard"]["interfaces"], facts["endpoints"], uplinks=facts["uplinks"],
                                   preferred_device="eth1", hook=dict(facts, hotplug_hook_exists=False, hotplug_hook_sha256=None),
                                   preferred_uplink="wan")["hotplug_hook"]
    assert (missing["install"], missing["install_reason"], missing["content"]) == (True, "hotplug hook missing", hook["content"])


@pytest.mark.parametrize("info, hook, pinned, role_vars, lines", [
    # converged split tunnel: only the hook the facts saw is a change; unknown cannot be told
    (CONVERGED_SPLIT, True, (), {}, [STALE_SPLIT]),
    (CONVERGED_SPLIT, False, (), {}, []),
    (CONVERGED_SPLIT, None, (), {}, None),
    # a split tunnel still to fix: its changes, then the hook
    (iface(), True, (PINNED,), {}, [SET_LINE, DEL_LINE, STALE_SPLIT]),
    (iface(), False, (PINNED,), {}, [SET_LINE, DEL_LINE]),
    # a full tunnel with the hook turned off
    (iface(tunnel="full"), True, (), NO_HOTPLUG, [STALE_OFF]),
    (iface(tunnel="full", nohostroute=True, written="1"), True, (), NO_HOTPLUG, [UNSET_LINE, STALE_OFF]),
    (iface(tunnel="full"), False, (), NO_HOTPLUG, []),
    (iface(tunnel="full"), None, (), NO_HOTPLUG, None),
    # with the hook on, a full tunnel's hook text needs the uplinks, which these facts lack: cannot tell
    (iface(tunnel="full"), True, (), {}, None),
    (iface(tunnel="full"), False, (), {}, None),
])
def test_remediate_names_the_stale_hook_when_the_facts_saw_it(info, hook, pinned, role_vars, lines):
    assert route_plan(hook_view(info, hook, pinned), role_vars) == lines


def test_facts_without_the_hook_cannot_tell_a_converged_split_tunnel():
    view = hook_view(CONVERGED_SPLIT, False)
    del view["openwrt"]["endpoint_routes"]["hotplug_hook_exists"]
    assert route_plan(view, {}) is None


def test_every_uplink_metered_refuses_the_change_with_a_stale_hook_too():
    """The role fails before the hook tasks: remediate shows no line."""
    view = hook_view(iface(), True, (PINNED,), uplinks=[dict(ETH1, metered=True), WWAN0])
    assert route_plan(view, {}) is None
    assert route_plan(hook_view(CONVERGED_SPLIT, True, (), uplinks=[dict(ETH1, metered=True), WWAN0]), {}) == [STALE_SPLIT]
