# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's decisions (faults/endpoint_route/), each on both sides: what a uci section reads as, which kernel route is the
user's, which one is netifd's pinned host route, the uplinks, and the whole plan (every key and message), so that
``make mutation`` finds no decision the tests do not pin (issue 31, item 5)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import hook_content
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import (
    over_tunnel, plan_wg_endpoint_routes, route_delete_argv)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import (
    configured_routes, find_pinned_routes, interface_devices, route_section, short_route, user_route_conflict, user_routes_to)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import (
    find_uplinks, metered_refusal, metered_unmatched, uplink_device)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import classify_tunnel
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import uci_wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show


def _raises(call, *args, **kwargs):
    """The ParseError message of ``call`` (the whole of it: a prefix or a changed case is a different message)."""
    with pytest.raises(ParseError) as info:
        call(*args, **kwargs)
    return str(info.value)


# the WireGuard interfaces and their peers --------------------------------------------------------

# Hand-made sections, in file order: what parse_uci_show gives and what it never gives (no options, no type).
WG_NETWORK = {
    "loopback": {"type": "interface", "options": {"proto": "static", "device": "lo"}},
    "early": {"type": "wireguard_wg1", "options": {"endpoint_host": "vpn.example.net", "allowed_ips": "10.9.0.0/24 10.8.0.0/24"}},
    "wan": {"type": "interface", "options": {"proto": "dhcp", "device": "eth1"}},
    "bare": {"type": "interface"},
    "wgroute": {"type": "route", "options": {"proto": "wireguard", "target": "10.5.0.0/16"}},
    "lookalike": {"type": "notaguard_wg0", "options": {"allowed_ips": ["10.66.0.0/16"]}},
    "untyped": {"options": {"proto": "wireguard"}},
    "wg0": {"type": "interface", "options": {"proto": "wireguard", "addresses": ["10.0.0.2/24", "fd00::2/64"], "nohostroute": "1"}},
    "wg1": {"type": "interface", "options": {"proto": "wireguard", "addresses": "10.1.0.2/24 10.1.0.3/24", "nohostroute": ["1"]}},
    "p0": {"type": "wireguard_wg0", "options": {"endpoint_host": "203.0.113.10", "allowed_ips": ["0.0.0.0/0", "::/0"],
                                                "route_allowed_ips": "1"}},
    "p1": {"type": "wireguard_wg0"},
    "stray": {"type": "wireguard_wg9", "options": {"allowed_ips": ["10.99.0.0/16"], "route_allowed_ips": "1"}},
}


def test_wireguard_interfaces_reads_only_proto_wireguard_interfaces_and_their_peers():
    """A peer may come before its interface; a list or a string of prefixes; a peer without options; a `list
    nohostroute` (not the literal '1': netifd pins the route, and its value is no string to show)."""
    assert uci_wireguard_interfaces(WG_NETWORK) == {
        "wg0": {"nohostroute": True, "nohostroute_value": "1", "addresses": ["10.0.0.2/24", "fd00::2/64"], "peers": [
            {"section": "p0", "endpoint_host": "203.0.113.10", "allowed_ips": ["0.0.0.0/0", "::/0"], "route_allowed_ips": True},
            {"section": "p1", "endpoint_host": None, "allowed_ips": [], "route_allowed_ips": False}]},
        "wg1": {"nohostroute": False, "nohostroute_value": None, "addresses": ["10.1.0.2/24", "10.1.0.3/24"], "peers": [
            {"section": "early", "endpoint_host": "vpn.example.net", "allowed_ips": ["10.9.0.0/24", "10.8.0.0/24"],
             "route_allowed_ips": False}]}}


@pytest.mark.parametrize("value, routed", [("1", True), ("on", True), ("0", False), ("off", False), (None, False)])
def test_route_allowed_ips_is_read_as_config_get_bool_does(value, routed):
    options = {"allowed_ips": ["10.0.0.0/8"]} if value is None else {"allowed_ips": ["10.0.0.0/8"], "route_allowed_ips": value}
    network = {"wg0": {"type": "interface", "options": {"proto": "wireguard"}}, "p": {"type": "wireguard_wg0", "options": options}}
    assert uci_wireguard_interfaces(network)["wg0"]["peers"][0]["route_allowed_ips"] is routed


@pytest.mark.parametrize("options, message", [
    ({"route_allowed_ips": "maybe"},
     "network.p.route_allowed_ips: expected a uci boolean (1/0, yes/no, on/off, true/false), got 'maybe'"),
    ({"allowed_ips": ["10.0.0.0/8", "10.0.0.0/33"]}, "network.p.allowed_ips: '10.0.0.0/33' is not an address or prefix"),
])
def test_a_peer_option_that_cannot_be_read_is_named(options, message):
    network = {"wg0": {"type": "interface", "options": {"proto": "wireguard"}}, "p": {"type": "wireguard_wg0", "options": options}}
    assert _raises(uci_wireguard_interfaces, network) == message


def _peer(allowed, routed=True, endpoint="203.0.113.10"):
    return {"section": "p", "endpoint_host": endpoint, "allowed_ips": allowed, "route_allowed_ips": routed}


@pytest.mark.parametrize("peers, expected", [
    ([_peer(["10.0.0.0/8"], routed=False), _peer(["192.168.0.0/16"])],
     {"tunnel": "split", "reason": None, "routed": ["192.168.0.0/16"]}),
    ([_peer(["0.0.0.0/0"], endpoint=None)],
     {"tunnel": "full", "reason": "routed allowed_ips include 0.0.0.0/0", "routed": ["0.0.0.0/0"]}),
    # a hostname peer (nothing to compare) does not end the search: the next peer's endpoint is inside
    ([_peer(["10.0.0.0/8"], endpoint="vpn.example.net"), _peer(["203.0.113.0/24"])],
     {"tunnel": "full", "reason": "endpoint 203.0.113.10 is inside the routed allowed_ips 203.0.113.0/24",
      "routed": ["10.0.0.0/8", "203.0.113.0/24"]}),
    ([_peer(["10.0.0.0/8"], endpoint=None), _peer(["203.0.113.0/24"], endpoint="203.0.114.1")],
     {"tunnel": "split", "reason": None, "routed": ["10.0.0.0/8", "203.0.113.0/24"]}),
    ([], {"tunnel": "split", "reason": None, "routed": []}),
])
def test_classify_tunnel_returns_the_routed_prefixes(peers, expected):
    assert classify_tunnel(peers) == expected


@pytest.mark.parametrize("value, expected", [
    ("203.0.113.10", "203.0.113.10"), (" 203.0.113.10 ", "203.0.113.10"), ("[2001:db8::10]", "2001:db8::10"),
    ("[fe80::1%wanX]", "fe80::1%wanX"),          # only the brackets go, never a zone's own letters
    ("dc.example.net", None), ("300.1.1.1", None), (None, None), ("", None),
])
def test_endpoint_address(value, expected):
    got = endpoint_address(value)
    assert (None if got is None else str(got)) == expected


# which device a uci interface is -----------------------------------------------------------------

DEVICES = {
    "loopback": {"type": "interface", "options": {"proto": "static", "device": "lo"}},
    "wan": {"type": "interface", "options": {"proto": "dhcp", "device": "eth1"}},
    "wan6": {"type": "interface", "options": {"proto": "dhcpv6", "device": "eth1"}},
    "old": {"type": "interface", "options": {"proto": "dhcp", "ifname": "eth0"}},
    "plain": {"type": "interface", "options": {"device": "eth3"}},
    "bare": {"type": "interface"},
    "pwan": {"type": "interface", "options": {"proto": "pppoe", "device": "eth2"}},
    "mobile": {"type": "interface", "options": {"proto": "3g", "device": "/dev/ttyUSB0"}},
    "lte": {"type": "interface", "options": {"proto": "qmi", "device": "/dev/cdc-wdm0"}},
    "ncm": {"type": "interface", "options": {"proto": "ncm", "device": "wwan1"}},
    "mbim": {"type": "interface", "options": {"proto": "mbim", "ifname": "wwan2"}},
    "modem": {"type": "interface", "options": {"proto": "qmi"}},
    "serial": {"type": "interface", "options": {"proto": "none", "device": "/dev/ttyACM0"}},
    "empty": {"type": "interface", "options": {"proto": "static", "device": ""}},
    "listed": {"type": "interface", "options": {"proto": "static", "device": ["eth4", "eth5"]}},
    "r": {"type": "route", "options": {"device": "eth6"}},
    "wg0": {"type": "interface", "options": {"proto": "wireguard"}},
}


@pytest.mark.parametrize("name, devices", [
    ("wan", {"eth1"}), ("wan6", {"eth1"}), ("old", {"eth0"}), ("plain", {"eth3"}), ("pwan", {"pppoe-pwan"}),
    ("mobile", {"3g-mobile"}),
    ("bare", None), ("lte", None), ("ncm", None), ("modem", None),   # a modem's device is only known at run time
    ("serial", None), ("empty", None), ("listed", None), ("r", None), ("wg0", None), ("nope", None), (None, None), ("", None),
])
def test_interface_devices_both_sides(name, devices):
    assert interface_devices(DEVICES, name) == devices


@pytest.mark.parametrize("name, device", [
    ("wan", "eth1"), ("old", "eth0"), ("pwan", "pppoe-pwan"), ("bare", "bare"), ("lte", "/dev/cdc-wdm0"), ("ncm", "wwan1"),
    ("mbim", "wwan2"), ("modem", "modem"), ("listed", "listed"), ("eth7", "eth7"), ("r", "r"), ("", None), (None, None),
])
def test_uplink_device_both_sides(name, device):
    assert uplink_device(DEVICES, name) == device


# what netifd installs from a config route ---------------------------------------------------------

ROUTE_BASE = {
    "wan": {"type": "interface", "options": {"proto": "dhcp", "device": "eth1", "metric": "10"}},
    "wanb": {"type": "interface", "options": {"proto": "dhcp", "device": "wwan0", "metric": "20"}},
    "wan6": {"type": "interface", "options": {"proto": "dhcpv6", "device": "eth1"}},
    "bare": {"type": "interface"},
    "badm": {"type": "interface", "options": {"proto": "dhcp", "device": "eth2", "metric": "high"}},
    "dev1": {"type": "device", "options": {"name": "eth1", "metric": "5"}},
}
HOST = {"section": "ep", "target": "203.0.113.10/32", "interface": None, "gateway": None, "metric": None, "table": None}


def _configured(options, kind="route"):
    network = dict(ROUTE_BASE, ep={"type": kind, "options": options} if options is not None else {"type": kind})
    return configured_routes(network)


@pytest.mark.parametrize("options, expected", [
    ({"target": "203.0.113.10"}, HOST),                                                           # no mask: a host route
    ({"target": "203.0.113.0", "netmask": "255.255.255.0"}, dict(HOST, target="203.0.113.0/24")),
    ({"target": "203.0.113.0", "netmask": "24"}, dict(HOST, target="203.0.113.0/24")),
    ({"target": "203.0.113.0/24", "netmask": "255.255.255.255"}, dict(HOST, target="203.0.113.0/24")),   # the prefix wins
    ({"target": "203.0.113.10", "interface": "wan", "gateway": "192.0.2.1", "table": "100"},
     dict(HOST, interface="wan", gateway="192.0.2.1", table="100", metric=10)),                  # the interface's metric
    ({"target": "203.0.113.10", "interface": "wan", "metric": "30"}, dict(HOST, interface="wan", metric=30)),   # its own
    ({"target": "203.0.113.10", "interface": "wan", "metric": "0"}, dict(HOST, interface="wan", metric=0)),
    ({"target": "203.0.113.10", "interface": "wan", "metric": "fast"}, dict(HOST, interface="wan", metric=10)),  # dropped
    ({"target": "203.0.113.10", "interface": "badm"}, dict(HOST, interface="badm")),
    ({"target": "203.0.113.10", "interface": "bare"}, dict(HOST, interface="bare")),
    ({"target": "203.0.113.10", "interface": "nosuch"}, dict(HOST, interface="nosuch")),
    ({"target": "203.0.113.10", "interface": "dev1"}, dict(HOST, interface="dev1")),             # not an interface section
    ({"target": "203.0.113.10", "interface": ["wan", "wanb"], "gateway": ["192.0.2.1"], "table": ["100"]}, HOST),
    ({"target": "203.0.113.10", "disabled": "0"}, HOST),
    ({"target": "203.0.113.10", "disabled": "perhaps"}, HOST),                                    # dropped: still installed
    ({"target": "203.0.113.10", "disabled": "1"}, None),
    ({"target": "203.0.113.10", "disabled": "yes"}, None),
    ({"netmask": "24"}, None), ({"target": ""}, None), ({"target": "", "netmask": "24"}, None), ({"target": ["203.0.113.10"]}, None),
    ({"target": "bogus"}, None), ({"target": "2001:db8::10"}, None), (None, None),
])
def test_configured_routes_reads_a_section_as_netifd_does(options, expected):
    assert _configured(options) == ([] if expected is None else [expected])


@pytest.mark.parametrize("options, expected", [
    ({"target": "2001:db8::10"}, dict(HOST, target="2001:db8::10/128")),
    ({"target": "2001:db8::", "netmask": "64", "interface": "wan6"}, dict(HOST, target="2001:db8::/64", interface="wan6")),
    ({"target": "203.0.113.10"}, None),                              # an IPv4 target in a route6 section: netifd skips it
])
def test_a_route6_section(options, expected):
    assert _configured(options, "route6") == ([] if expected is None else [expected])


def test_configured_routes_keeps_file_order_and_skips_other_sections():
    """Each section netifd skips is skipped alone: the ones after it are still read."""
    network = dict(ROUTE_BASE, a={"type": "route", "options": {"target": "203.0.113.1"}}, lan={"type": "interface", "options": {}},
                   off={"type": "route", "options": {"target": "203.0.113.2", "disabled": "1"}},
                   b={"type": "route6", "options": {"target": "2001:db8::1"}}, c={"type": "rule", "options": {"lookup": "2"}},
                   untargeted={"type": "route", "options": {"gateway": "192.0.2.1"}},
                   d={"type": "route", "options": {"target": "203.0.113.4"}},
                   unreadable={"type": "route", "options": {"target": "bogus"}},
                   e={"type": "route", "options": {"target": "203.0.113.5"}},
                   family={"type": "route6", "options": {"target": "203.0.113.6"}},
                   f={"type": "route", "options": {"target": "203.0.113.7"}})
    assert [(entry["section"], entry["target"]) for entry in configured_routes(network)] == [
        ("a", "203.0.113.1/32"), ("b", "2001:db8::1/128"), ("d", "203.0.113.4/32"), ("e", "203.0.113.5/32"), ("f", "203.0.113.7/32")]


# which kernel route a config route section installed ---------------------------------------------

V4 = {"dst": "203.0.113.10", "dev": "eth1", "protocol": "static", "table": "main"}
V6 = {"dst": "2001:db8::10", "dev": "eth1", "protocol": "static", "table": "main"}


@pytest.mark.parametrize("kind, options, route, users", [
    # IPv4: netifd's metric 0 is printed as none (or 0); 1024 is a real metric there
    ("route", {"target": "203.0.113.10"}, V4, True),
    ("route", {"target": "203.0.113.10"}, dict(V4, metric=0), True),
    ("route", {"target": "203.0.113.10"}, dict(V4, metric=1024), False),
    ("route", {"target": "203.0.113.10", "metric": "0"}, V4, True),
    ("route", {"target": "203.0.113.10", "metric": "0"}, dict(V4, metric=1), False),
    ("route", {"target": "203.0.113.10", "metric": "1"}, dict(V4, metric=1), True),
    ("route", {"target": "203.0.113.10", "metric": "1"}, V4, False),
    # IPv6: the kernel prints netifd's metric 0 as 1024
    ("route6", {"target": "2001:db8::10"}, dict(V6, metric=1024), True),
    ("route6", {"target": "2001:db8::10"}, dict(V6, metric=0), True),
    ("route6", {"target": "2001:db8::10"}, V6, True),
    ("route6", {"target": "2001:db8::10"}, dict(V6, metric=1025), False),
    ("route6", {"target": "2001:db8::10"}, dict(V6, metric=1023), False),
    ("route6", {"target": "2001:db8::10", "interface": "wan6"}, dict(V6, metric=1024), True),
    ("route6", {"target": "2001:db8::10", "interface": "wan6"}, dict(V6, metric=1024, dev="wwan0"), False),
    # the gateway is compared as an address; a gateway that is none matches nothing
    ("route6", {"target": "2001:db8::10", "gateway": "fe80::1"}, dict(V6, gateway="fe80:0:0::1"), True),
    ("route6", {"target": "2001:db8::10", "gateway": "fe80::1"}, dict(V6, gateway="fe80::2"), False),
    ("route6", {"target": "2001:db8::10", "gateway": "fe80::1"}, V6, False),
    ("route", {"target": "203.0.113.10", "gateway": "bogus"}, V4, False),
    ("route", {"target": "203.0.113.10", "gateway": "bogus"}, dict(V4, gateway="bogus"), False),
    # the route's type: unicast (also when not printed) only
    ("route", {"target": "203.0.113.10"}, dict(V4, type="unicast"), True),
    ("route", {"target": "203.0.113.10"}, dict(V4, type="unreachable"), False),
    ("route", {"target": "203.0.113.10"}, dict(V4, dst="bogus"), False),
    # the table: the main table by any of its names; another one by its number
    ("route", {"target": "203.0.113.10", "table": "254"}, V4, True),
    ("route", {"target": "203.0.113.10", "table": "100"}, dict(V4, table=100), True),
    ("route", {"target": "203.0.113.10", "table": "100"}, dict(V4, table="101"), False),
])
def test_route_section_both_sides(kind, options, route, users):
    network = dict(ROUTE_BASE, ep={"type": kind, "options": options})
    sections = configured_routes(network)
    assert (route_section(route, sections, network) is sections[0]) is users
    assert route_section(route, [], network) is None


@pytest.mark.parametrize("other", [
    {"target": "203.0.113.0/24", "interface": "wan"},                         # another destination
    {"target": "203.0.113.10", "interface": "wan", "gateway": "192.0.2.9"},   # another gateway
    {"target": "203.0.113.10", "interface": "wanb"},                          # another metric (wanb's 20)
    {"target": "203.0.113.10", "interface": "wan", "table": "100"},           # another table
    {"target": "203.0.113.10", "metric": "10", "interface": "badm"},          # another device (eth2)
])
def test_route_section_looks_past_a_section_that_did_not_install_the_route(other):
    network = dict(ROUTE_BASE, a={"type": "route", "options": other},
                   b={"type": "route", "options": {"target": "203.0.113.10", "interface": "wan", "gateway": "192.0.2.1"}})
    sections = configured_routes(network)
    assert route_section(dict(V4, metric=10, gateway="192.0.2.1"), sections, network)["section"] == "b"
    assert route_section(dict(V4, metric=20, gateway="192.0.2.1"), sections, network) is None


# the user's routes to an endpoint and the one that carries it --------------------------------------

USERS_NETWORK = dict(ROUTE_BASE, **{
    "all": {"type": "route", "options": {"target": "0.0.0.0/0", "interface": "wan"}},
    "half": {"type": "route", "options": {"target": "128.0.0.0/1", "interface": "wan"}},
    "net": {"type": "route", "options": {"target": "203.0.113.0/24", "interface": "wanb", "gateway": "198.51.100.1"}},
    "host": {"type": "route", "options": {"target": "203.0.113.10", "interface": "wan"}},
    "other": {"type": "route", "options": {"target": "198.51.100.0/24", "interface": "wan"}},
})
INSTALLED = {"dst": "203.0.113.10", "gateway": None, "dev": "eth1", "table": "main", "protocol": "static", "metric": 10}


def test_user_routes_to_lists_the_sections_holding_the_address_most_specific_first():
    routes = [dict(INSTALLED, dev="wwan0", metric=20), dict(INSTALLED, prefsrc="192.0.2.20")]
    assert user_routes_to(USERS_NETWORK, routes, "203.0.113.10") == [
        {"section": "host", "target": "203.0.113.10/32", "interface": "wan", "gateway": None, "metric": 10, "table": None,
         "installed": INSTALLED},
        {"section": "net", "target": "203.0.113.0/24", "interface": "wanb", "gateway": "198.51.100.1", "metric": 20,
         "table": None, "installed": None},
        {"section": "half", "target": "128.0.0.0/1", "interface": "wan", "gateway": None, "metric": 10, "table": None,
         "installed": None}]
    assert user_routes_to(USERS_NETWORK, routes, "203.0.113.10", []) == []      # the sections given are the ones used
    assert [entry["section"] for entry in user_routes_to(USERS_NETWORK, [], "10.0.0.1")] == []
    assert [entry["section"] for entry in user_routes_to(USERS_NETWORK, [], "198.51.100.7")] == ["other", "half"]


def test_user_routes_to_needs_an_address():
    assert _raises(user_routes_to, USERS_NETWORK, [], "vpn.example.net") == "user_routes_to: 'vpn.example.net' is not an IP address"


def _user(target, dev, metric=None, table="main", section="s", interface=None, gateway=None):
    return {"section": section, "target": target, "interface": interface, "installed": None if dev is None else {
        "dst": target, "dev": dev, "gateway": gateway, "metric": metric, "table": table}}


def test_the_conflict_names_the_section_its_route_and_what_to_do():
    users = [_user("203.0.113.0/24", None, section="down"), _user("203.0.113.0/24", "wwan0", gateway="198.51.100.1")]
    assert user_route_conflict(users, "203.0.113.10", "eth1") == {
        "section": "s", "target": "203.0.113.0/24", "interface": None, "dev": "wwan0", "gateway": "198.51.100.1",
        "message": "the config route section s (target 203.0.113.0/24) sends 203.0.113.10 through wwan0, not the preferred "
                   "uplink eth1: a route you configured, kept as it is; point it at the preferred uplink or delete it "
                   "(uci delete network.s)"}
    named = user_route_conflict([_user("203.0.113.0/24", "wwan0", interface="wanb", section="dc")], "203.0.113.10", "eth1")
    assert (named["interface"], named["message"].split(" sends ")[0]) == (
        "wanb", "the config route section dc (target 203.0.113.0/24, interface wanb)")


@pytest.mark.parametrize("users, dev", [
    ([_user("203.0.113.0/24", "wwan0", metric=1), _user("203.0.113.0/24", "eth1")], None),      # no metric is metric 0
    ([_user("203.0.113.0/24", "wwan0"), _user("203.0.113.0/24", "eth1", metric=1)], "wwan0"),
    ([_user("203.0.113.0/24", "wwan0", table="254")], "wwan0"),
    ([_user("203.0.113.0/24", "wwan0", table=None)], "wwan0"),
    ([_user("203.0.113.0/24", "wwan0", table="2")], None),
    (None, None),
])
def test_the_route_that_carries_the_endpoint_both_sides(users, dev):
    assert (user_route_conflict(users, "203.0.113.10", "eth1") or {}).get("dev") == dev


# the uplinks -------------------------------------------------------------------------------------

UPLINK_ROUTES = [{"dst": "default", "dev": "eth1", "table": "main", "type": "unicast"},
                 {"dst": "default", "dev": "wwan0", "type": "unicast"},
                 {"dst": "default", "dev": "eth1", "table": "254", "type": "unicast"},
                 {"dst": "default", "dev": "lo", "table": "main", "type": "unicast"},
                 {"dst": "default", "dev": "wg0", "table": "main", "type": "unicast"},
                 {"dst": "default", "dev": "eth9", "table": "3", "type": "unicast"},
                 {"dst": "default", "table": "main", "type": "unicast"}]


@pytest.mark.parametrize("preferred, metered, expected", [
    ("eth1", [], [("wan", "eth1", True, False), (None, "wwan0", False, False), (None, "lo", False, False)]),
    ("eth1", ["wan6"], [("wan", "eth1", True, True), (None, "wwan0", False, False), (None, "lo", False, False)]),
    ("wg0", ["wwan0"], [(None, "wg0", True, False), ("wan", "eth1", False, False), (None, "wwan0", False, True),
                        (None, "lo", False, False)]),
    (None, ["pwan"], [("wan", "eth1", False, False), (None, "wwan0", False, False), (None, "lo", False, False)]),
])
def test_find_uplinks_names_each_device_by_its_first_interface(preferred, metered, expected):
    """wan and wan6 share eth1: the first in the file names it; a tunnel or the loopback section names no device."""
    found = find_uplinks(DEVICES, UPLINK_ROUTES, preferred, metered)
    assert [(u["interface"], u["device"], u["preferred"], u["metered"]) for u in found] == expected


@pytest.mark.parametrize("metered, unmatched", [
    (["wan6"], []), (["wan"], []), (["eth1"], []), (["pwan"], ["pwan"]), (["lte", "wwan0", "eth9"], ["lte", "eth9"]),
])
def test_metered_unmatched_both_sides(metered, unmatched):
    found = find_uplinks(DEVICES, UPLINK_ROUTES, "eth1", metered)
    assert metered_unmatched(DEVICES, found, metered) == unmatched


def test_metered_refusal_names_each_uplink_by_interface_else_device():
    found = [{"interface": None, "device": "eth9", "metered": True}, {"interface": "wanb", "device": "wwan0", "metered": True}]
    assert metered_refusal(found) == (
        "every uplink of this router is metered (eth9, wanb: wwan0): refusing to pick one for the WireGuard endpoints; "
        "leave the uplink the tunnel may use out of the metered ones (and make it the preferred uplink)")
    assert metered_refusal([dict(found[0], metered=False), found[1]]) is None
    assert metered_refusal([]) is None


# netifd's pinned host routes and how they are deleted ----------------------------------------------

PINNED = {"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "protocol": "static", "metric": 20}


def test_find_pinned_routes_keeps_only_unicast_non_kernel_host_routes_with_a_device():
    skipped = [dict(PINNED, type="unreachable"), dict(PINNED, protocol="kernel"), dict(PINNED, dev=None),
               {"dst": "203.0.113.10", "protocol": "static"}, dict(PINNED, dst="203.0.113.0/24"), dict(PINNED, dst="bogus"),
               dict(PINNED, dst="default"), dict(PINNED, dst="203.0.113.11"), dict(PINNED, type="local", table="local")]
    found = [dict(PINNED, dst="203.0.113.10/32"), dict(PINNED, type="unicast", table="2", dev="eth2")]
    assert find_pinned_routes(skipped + found, "203.0.113.10") == found
    assert find_pinned_routes(skipped + found, "[203.0.113.10]") == found
    assert find_pinned_routes(found, "203.0.113.11") == []


def test_find_pinned_routes_leaves_out_the_users_route_whatever_its_place():
    network = dict(ROUTE_BASE, ep={"type": "route", "options": {"target": "203.0.113.10", "interface": "wan", "metric": "30"}})
    users = dict(PINNED, gateway="192.0.2.1", dev="eth1", metric=30)
    assert find_pinned_routes([users, PINNED], "203.0.113.10", network) == [PINNED]
    assert find_pinned_routes([users, PINNED], "203.0.113.10") == [users, PINNED]
    assert find_pinned_routes([users, PINNED], "203.0.113.10", {}) == [users, PINNED]


def test_find_pinned_routes_needs_an_address():
    assert _raises(find_pinned_routes, [], "vpn.example.net") == "find_pinned_routes: 'vpn.example.net' is not an IP address"


@pytest.mark.parametrize("route, argv", [
    ({"dst": "203.0.113.10", "dev": "eth1", "table": "254"}, ["ip", "route", "del", "203.0.113.10/32", "dev", "eth1"]),
    ({"dst": "203.0.113.10", "dev": "eth1"}, ["ip", "route", "del", "203.0.113.10/32", "dev", "eth1"]),
    ({"dst": "203.0.113.10", "dev": "eth1", "table": "main"}, ["ip", "route", "del", "203.0.113.10/32", "dev", "eth1"]),
    ({"dst": "203.0.113.10/32", "gateway": "192.0.2.1", "dev": "eth1", "table": 100},
     ["ip", "route", "del", "203.0.113.10/32", "via", "192.0.2.1", "dev", "eth1", "table", "100"]),
    ({"dst": "2001:db8::10/128", "dev": "wwan0", "table": "2"}, ["ip", "-6", "route", "del", "2001:db8::10/128", "dev", "wwan0",
                                                                 "table", "2"]),
])
def test_route_delete_argv_both_sides(route, argv):
    assert route_delete_argv(route) == argv


def test_route_delete_argv_needs_a_host_route():
    assert _raises(route_delete_argv, {"dst": "default", "dev": "eth1"}) == "route_delete_argv: 'default' is not a host route"


def test_over_tunnel_names_a_routed_prefix_that_is_none():
    info = {"peers": [_peer(["10.0.0.0/33"])], "addresses": []}
    assert _raises(over_tunnel, info, "10.1.0.1") == "allowed_ips: '10.0.0.0/33' is not an address or prefix"
    assert over_tunnel(info, None) is False and over_tunnel(info, "") is False


# the whole plan ----------------------------------------------------------------------------------

ROUTER = """network.loopback=interface
network.loopback.device='lo'
network.loopback.proto='static'
network.wan=interface
network.wan.device='eth1'
network.wan.proto='dhcp'
network.wan.metric='10'
network.wanb=interface
network.wanb.device='wwan0'
network.wanb.proto='dhcp'
network.wanb.metric='20'
network.wg0=interface
network.wg0.proto='wireguard'
network.wg0.addresses='10.77.0.2/24'
network.p0=wireguard_wg0
network.p0.endpoint_host='203.0.113.10'
network.p0.allowed_ips='10.77.0.0/24'
network.p0.route_allowed_ips='1'
network.p1=wireguard_wg0
network.p1.endpoint_host='dc.example.net'
network.p1.allowed_ips='10.77.0.3/32'
network.p2=wireguard_wg0
network.p2.endpoint_host='roam.example.net'
network.p2.allowed_ips='10.77.0.4/32'
network.p3=wireguard_wg0
network.p3.allowed_ips='10.77.0.5/32'
network.wg1=interface
network.wg1.proto='wireguard'
network.wg1.addresses='10.88.0.2/24'
network.wg1.nohostroute='1'
network.q0=wireguard_wg1
network.q0.endpoint_host='198.51.100.77'
network.q0.allowed_ips='0.0.0.0/0'
network.q0.route_allowed_ips='1'
network.ep=route
network.ep.interface='wan'
network.ep.target='203.0.113.10'
network.ep.gateway='192.0.2.1'
network.ep.metric='30'
network.dc_net=route
network.dc_net.interface='wanb'
network.dc_net.target='203.0.113.16/28'
"""
ROUTER_ROUTES = [
    {"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 10},
    {"dst": "default", "gateway": "198.51.100.1", "dev": "wwan0", "protocol": "static", "metric": 20},
    {"dst": "203.0.113.10", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 30},      # ep: the user's
    {"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "protocol": "static", "metric": 20},   # netifd's
    {"dst": "203.0.113.16/28", "dev": "wwan0", "protocol": "static", "metric": 20},                          # dc_net
    {"dst": "203.0.113.20", "gateway": "198.51.100.1", "dev": "wwan0", "table": "2", "protocol": "static"},   # netifd's
    {"dst": "198.51.100.77", "gateway": "198.51.100.1", "dev": "wwan0", "protocol": "static", "metric": 20},  # wg1's, kept
]
# openwrt_facts' lookups: p0 twice (live and uci agree), p2's live endpoint, one that is no address, wg1's
ROUTER_TARGETS = [{"interface": "wg0", "section": "p0", "address": "203.0.113.10"},
                  {"interface": "wg0", "section": "p2", "address": "203.0.113.20"},
                  {"interface": "wg0", "section": "p0", "address": "203.0.113.10"},
                  {"interface": "wg0", "section": None, "address": "roamer.example.net"},
                  {"interface": "wg1", "section": "q0", "address": "198.51.100.77"}]
WG0_DELETE = [{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "protocol": "static", "metric": 20},
              {"dst": "203.0.113.20", "gateway": "198.51.100.1", "dev": "wwan0", "table": "2", "protocol": "static"}]
DC_NET = {"section": "dc_net", "target": "203.0.113.16/28", "interface": "wanb", "gateway": None, "metric": 20, "table": None,
          "installed": {"dst": "203.0.113.16/28", "gateway": None, "dev": "wwan0", "table": None, "protocol": "static", "metric": 20},
          "endpoint": "203.0.113.20"}
DC_NET_MESSAGE = ("the config route section dc_net (target 203.0.113.16/28, interface wanb) sends 203.0.113.20 through wwan0, not "
                  "the preferred uplink eth1: a route you configured, kept as it is; point it at the preferred uplink or delete it "
                  "(uci delete network.dc_net)")
WG1_REFUSED = ("nohostroute refused for wg1: routed allowed_ips include 0.0.0.0/0, so without the endpoint host route the tunnel's "
               "own packets would be routed into wg1 (a routing loop); the host route is kept and re-pointed by an mwan3 hotplug "
               "script instead")
UPLINKS = [{"interface": "wan", "device": "eth1", "preferred": True, "metered": False},
           {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": True}]


def _router_plan(interfaces=None, **kwargs):
    network = parse_uci_show(ROUTER)["network"]
    arguments = dict(targets=ROUTER_TARGETS, preferred_device="eth1", metered=["wanb"], connection_address="10.77.0.9")
    arguments.update(kwargs)
    return plan_wg_endpoint_routes(network, ROUTER_ROUTES, interfaces, **arguments)


def test_the_whole_plan_of_a_split_and_a_full_tunnel():
    """Every key of the plan: wg0 (split) gets nohostroute=1 and loses netifd's pins in any table, the user's /32 on the
    fibre stays (it comes first in the table: the pin after it is still found), the user's /28 on the backup is a
    conflict; wg1 (full) gets its nohostroute removed and its endpoint goes to the hotplug script."""
    assert _router_plan() == {
        "interfaces": {
            "wg0": {"tunnel": "split", "reason": None, "nohostroute": False, "endpoints": ["203.0.113.10", "203.0.113.20"],
                    "unresolved": ["dc.example.net"], "delete_routes": [short_route(route) for route in WG0_DELETE],
                    "kept_routes": [short_route(ROUTER_ROUTES[2])],
                    "user_routes": [
                        {"section": "ep", "target": "203.0.113.10/32", "interface": "wan", "gateway": "192.0.2.1", "metric": 30,
                         "table": None, "installed": {"dst": "203.0.113.10", "gateway": "192.0.2.1", "dev": "eth1", "table": None,
                                                      "protocol": "static", "metric": 30}, "endpoint": "203.0.113.10"},
                        DC_NET],
                    "conflicts": [{"section": "dc_net", "target": "203.0.113.16/28", "interface": "wanb", "dev": "wwan0",
                                   "gateway": None, "message": DC_NET_MESSAGE, "endpoint": "203.0.113.20"}],
                    "over_tunnel": True, "changed": True, "refused": None},
            "wg1": {"tunnel": "full", "reason": "routed allowed_ips include 0.0.0.0/0", "nohostroute": True,
                    "endpoints": ["198.51.100.77"], "unresolved": [], "delete_routes": [], "kept_routes": [], "user_routes": [],
                    "conflicts": [], "over_tunnel": True, "changed": True, "refused": WG1_REFUSED}},
        "uci_commands": [["uci", "set", "network.wg0.nohostroute=1"], ["uci", "delete", "network.wg1.nohostroute"]],
        "route_commands": [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"],
                           ["ip", "route", "del", "203.0.113.20/32", "via", "198.51.100.1", "dev", "wwan0", "table", "2"]],
        "full_tunnel_endpoints": [{"interface": "wg1", "endpoint": "198.51.100.77"}],
        "hotplug_hook": {"path": "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint", "exists": None, "sha256": None,
                         "endpoints": ["198.51.100.77"],
                         # every uci WireGuard interface, the uplinks as planned, no preferred_uplink option given
                         "content": hook_content(["198.51.100.77"], ["wg0", "wg1"], "eth1", UPLINKS, None),
                         "install": True, "install_reason": "hotplug hook unknown", "remove": False, "stale": None,
                         "old_path": "/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint", "old_exists": None, "remove_old": True},
        "uplinks": UPLINKS,
        "refused": None,
        "changed": True,
        "diff": {"before": "network.wg0.nohostroute=(unset)\n"
                           "route 203.0.113.10/32 via 198.51.100.1 dev wwan0\n"
                           "route 203.0.113.10/32 via 192.0.2.1 dev eth1\n"
                           "route 203.0.113.20/32 via 198.51.100.1 dev wwan0 table 2\n"
                           "network.wg1.nohostroute='1'\n",
                 "after": "network.wg0.nohostroute='1'\n"
                          "route 203.0.113.10/32 via 192.0.2.1 dev eth1\n"
                          "network.wg1.nohostroute=(unset)\n"}}


def test_the_plan_handles_only_the_interfaces_asked_for():
    plan = _router_plan(["wg1"], connection_address="192.168.1.5")
    assert sorted(plan["interfaces"]) == ["wg1"]
    assert (plan["uci_commands"], plan["route_commands"]) == ([["uci", "delete", "network.wg1.nohostroute"]], [])
    assert plan["interfaces"]["wg1"]["over_tunnel"] is True
    assert _router_plan(["wg0"], connection_address="192.168.1.5")["interfaces"]["wg0"]["over_tunnel"] is False


def test_a_split_tunnel_already_fixed_changes_nothing_and_says_so_in_the_diff():
    text = ROUTER.replace("network.wg0.addresses='10.77.0.2/24'\n", "network.wg0.addresses='10.77.0.2/24'\nnetwork.wg0.nohostroute='1'\n")
    network = parse_uci_show(text)["network"]
    routes = [route for route in ROUTER_ROUTES if route not in WG0_DELETE]
    plan = plan_wg_endpoint_routes(network, routes, ["wg0"], targets=ROUTER_TARGETS, preferred_device="eth1")
    entry = plan["interfaces"]["wg0"]
    assert (plan["changed"], entry["changed"], plan["uci_commands"], plan["route_commands"], entry["delete_routes"]) == (
        False, False, [], [], [])
    assert plan["diff"] == {"before": "network.wg0.nohostroute='1'\nroute 203.0.113.10/32 via 192.0.2.1 dev eth1\n",
                            "after": "network.wg0.nohostroute='1'\nroute 203.0.113.10/32 via 192.0.2.1 dev eth1\n"}


def test_a_full_tunnel_without_nohostroute_is_left_alone():
    """The survivor of issue 31: a full tunnel whose nohostroute is unset plans no `uci delete` (nothing to remove),
    changes nothing, and its diff is empty; its endpoint still goes to the hotplug script."""
    network = parse_uci_show(ROUTER.replace("network.wg1.nohostroute='1'\n", ""))["network"]
    plan = plan_wg_endpoint_routes(network, ROUTER_ROUTES, ["wg1"], targets=ROUTER_TARGETS)
    entry = plan["interfaces"]["wg1"]
    assert (plan["uci_commands"], plan["route_commands"], plan["changed"], entry["changed"]) == ([], [], False, False)
    assert plan["diff"] == {"before": "", "after": ""}
    assert plan["full_tunnel_endpoints"] == [{"interface": "wg1", "endpoint": "198.51.100.77"}]
    assert entry["refused"] == WG1_REFUSED


def test_every_uplink_metered_the_plan_changes_nothing_at_all():
    plan = _router_plan(metered=["wan", "wanb"])
    assert (plan["uci_commands"], plan["route_commands"], plan["changed"]) == ([], [], False)
    assert plan["refused"] == metered_refusal([dict(UPLINKS[0], metered=True), UPLINKS[1]])
    assert [(entry["changed"], entry["delete_routes"]) for entry in plan["interfaces"].values()] == [(False, []), (False, [])]
    assert plan["interfaces"]["wg0"]["kept_routes"] == [short_route(ROUTER_ROUTES[2])]
    assert plan["diff"]["after"] == plan["diff"]["before"] == _router_plan()["diff"]["before"]


@pytest.mark.parametrize("text, interfaces, message", [
    (ROUTER, ["wg9"], "interfaces: 'wg9' is not a proto wireguard interface in /etc/config/network (found: wg0, wg1)"),
    (ROUTER, ["wg0", "wan"], "interfaces: 'wan' is not a proto wireguard interface in /etc/config/network (found: wg0, wg1)"),
    ("network.wan=interface\nnetwork.wan.proto='dhcp'\n", ["wg0"],
     "interfaces: 'wg0' is not a proto wireguard interface in /etc/config/network (found: none)"),
])
def test_a_requested_interface_that_is_no_tunnel_is_named(text, interfaces, message):
    assert _raises(plan_wg_endpoint_routes, parse_uci_show(text)["network"], [], interfaces, targets=[]) == message


def test_no_tunnel_no_plan():
    plan = plan_wg_endpoint_routes(parse_uci_show("network.wan=interface\nnetwork.wan.proto='dhcp'\n")["network"], [], targets=[])
    assert (plan["interfaces"], plan["changed"], plan["diff"]) == ({}, False, {"before": "", "after": ""})


# the user's IPv6 route to an IPv6 endpoint (issue 31: the survivor `version == 6 -> 7` deleted it) --------------

V6_ROUTER = """network.wan=interface
network.wan.device='eth1'
network.wan.proto='dhcp'
network.wan.metric='10'
network.wan6=interface
network.wan6.device='eth1'
network.wan6.proto='dhcpv6'
network.wanb=interface
network.wanb.device='wwan0'
network.wanb.proto='dhcp'
network.wanb.metric='20'
network.wg0=interface
network.wg0.proto='wireguard'
network.wg0.addresses='fd77::2/64'
network.p0=wireguard_wg0
network.p0.endpoint_host='[2001:db8:10::10]'
network.p0.allowed_ips='fd77::/64'
network.p0.route_allowed_ips='1'
network.ep6=route6
network.ep6.interface='wan6'
network.ep6.target='2001:db8:10::10/128'
"""
V6_USERS = {"dst": "2001:db8:10::10", "dev": "eth1", "protocol": "static", "metric": 1024, "pref": "medium"}
V6_NETIFD = {"dst": "2001:db8:10::10", "gateway": "fe80::1", "dev": "wwan0", "protocol": "static", "metric": 20, "pref": "medium"}


def test_the_users_route6_to_an_ipv6_endpoint_is_kept_and_netifds_pin_deleted():
    network = parse_uci_show(V6_ROUTER)["network"]
    targets = [{"interface": "wg0", "section": "p0", "address": "2001:db8:10::10"}]
    plan = plan_wg_endpoint_routes(network, [V6_USERS, V6_NETIFD], targets=targets, preferred_device="eth1")
    entry = plan["interfaces"]["wg0"]
    assert entry["kept_routes"] == [short_route(V6_USERS)]
    assert entry["delete_routes"] == [short_route(V6_NETIFD)]
    assert plan["route_commands"] == [["ip", "-6", "route", "del", "2001:db8:10::10/128", "via", "fe80::1", "dev", "wwan0"]]
    assert [(user["section"], user["installed"]["dev"]) for user in entry["user_routes"]] == [("ep6", "eth1")]
    assert entry["conflicts"] == []
    assert ipnet.network(entry["user_routes"][0]["target"]).version == 6


def test_an_old_bridge_with_a_list_ifname_does_not_stop_the_uplinks():
    """openwrt_facts failed with "unhashable type: 'list'" on a router whose lan bridge lists its ports (`list ifname`,
    OpenWrt 19.07 style): the uplinks read each interface's device, and that one is a list."""
    network = parse_uci_show("network.lan=interface\nnetwork.lan.type='bridge'\nnetwork.lan.proto='static'\n"
                             "network.lan.ifname='eth0.1' 'eth0.2'\nnetwork.wan=interface\nnetwork.wan.proto='dhcp'\n"
                             "network.wan.device='eth1'\n")["network"]
    routes = [{"dst": "default", "dev": "eth1", "table": "main", "type": "unicast"}]
    assert find_uplinks(network, routes, "eth1", ["lan"]) == [{"interface": "wan", "device": "eth1", "preferred": True,
                                                              "metered": False}]
    assert uplink_device(network, "lan") == "lan"


def test_only_a_hostname_nobody_looked_up_is_unresolved():
    """Without lookups, p0's IP literal is no endpoint (the plan acts on what the facts looked up) but not unresolved either."""
    entry = _router_plan(["wg0"], targets=[])["interfaces"]["wg0"]
    assert (entry["endpoints"], entry["unresolved"], entry["delete_routes"]) == ([], ["dc.example.net", "roam.example.net"], [])


def test_setting_nohostroute_alone_is_a_change():
    """No pinned route left, but nohostroute is still unset: the interface and the plan change."""
    routes = [route for route in ROUTER_ROUTES if route not in WG0_DELETE]
    plan = plan_wg_endpoint_routes(parse_uci_show(ROUTER)["network"], routes, ["wg0"], targets=ROUTER_TARGETS)
    assert (plan["changed"], plan["interfaces"]["wg0"]["changed"], plan["uci_commands"], plan["route_commands"]) == (
        True, True, [["uci", "set", "network.wg0.nohostroute=1"]], [])
