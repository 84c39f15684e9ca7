# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_ip_link (ip link show) and parse_busybox_route (BusyBox route -n)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.netlink_text import parse_busybox_route, parse_ip_link
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import find_host_route


def _without_annotations(text):
    """Drop the '# ...' note a field copy starts with (not part of the command's output)."""
    return "".join(line for line in text.splitlines(True) if not line.startswith("#"))


TAILSCALE0 = {"ifindex": 9, "ifname": "tailscale0", "link": None,
              "flags": ["POINTOPOINT", "MULTICAST", "NOARP", "UP", "LOWER_UP"], "mtu": 1280, "qdisc": "fq_codel",
              "master": None, "operstate": "UNKNOWN", "linkmode": "DEFAULT", "group": "default", "txqlen": 500,
              "link_type": "none", "address": None, "broadcast": None, "kind_hint": "l3_tunnel"}
LAN1 = {"ifindex": 4, "ifname": "lan1", "link": "lan1p", "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
        "mtu": 1500, "qdisc": "noqueue", "master": "br-lan", "operstate": "UP", "linkmode": "DEFAULT",
        "group": "default", "txqlen": 1000, "link_type": "ether", "address": "76:2f:d2:67:22:0e",
        "broadcast": "ff:ff:ff:ff:ff:ff", "kind_hint": "ether"}

LINK_CASES = [
    # (fixture, link count, index, expected subset)
    ("case12_tailscale0.txt", 1, 0, TAILSCALE0),
    ("netns_tun_mtu1280.txt", 1, 0, dict(TAILSCALE0, ifindex=5, qdisc="pfifo_fast", operstate="DOWN",
                                         flags=["NO-CARRIER", "POINTOPOINT", "MULTICAST", "NOARP", "UP"])),
    ("netns_bridge_port_veth.txt", 1, 0, LAN1),
    ("netns_bridge.txt", 1, 0, {"ifname": "br-lan", "link": None, "master": None, "mtu": 1500, "operstate": "UP"}),
    ("netns_all.txt", 9, 0, {"ifname": "lo", "mtu": 65536, "link_type": "loopback", "kind_hint": "loopback",
                             "address": "00:00:00:00:00:00", "flags": ["LOOPBACK", "UP", "LOWER_UP"]}),
    ("netns_all.txt", 9, 3, LAN1),
    ("netns_all.txt", 9, 6, {"ifname": "eth0.2", "link": "wanpeer", "master": None}),
]


@pytest.mark.parametrize("case, count, index, expected", LINK_CASES)
def test_parse_ip_link(load_fixture, case, count, index, expected):
    links = parse_ip_link(load_fixture("ip_link_show", case))
    assert len(links) == count
    assert {key: links[index].get(key, "missing") for key in expected} == expected


def test_parse_ip_link_empty():
    assert parse_ip_link("") == []


@pytest.mark.parametrize("text, message", [
    ("    link/none \n", "line 1: detail line before any link"),
    ('Device "nosuchdev" does not exist.\n', "line 1: expected 'INDEX: NAME: <FLAGS> mtu ...'"),
    ("9: tailscale0: <UP> mtu big qdisc noqueue state UP\n", "line 1: mtu must be an integer, got 'big'"),
    ("1: lo: <UP> mtu 65536 qdisc noqueue state UP\n    link/loopback 00:00:00:00:00:00\n"
     "2: br-lan <UP> mtu 1500\n", "line 3: expected"),
    (b"9: tailscale0: <UP> mtu 1280", "must be text, got bytes"),
])
def test_parse_ip_link_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ip_link(text)


def _route(dst, dev, gateway=None):
    return {"dst": dst, "type": "unicast", "dev": dev, "gateway": gateway, "prefsrc": None, "protocol": None,
            "scope": None, "table": "main", "metric": None, "flags": [], "nexthops": [], "family": "inet"}


# case 01 edge (OpenWrt 18.06, openwrt/packages#8137): the endpoint /32 via the router's own LAN address
EDGE_ROUTES = [
    _route("default", "eth0.2", "192.0.2.1"),
    _route("10.77.0.0/24", "wg0"),
    _route("203.0.113.10", "br-lan", "192.168.10.1"),
    _route("192.168.10.0/24", "br-lan"),
    _route("192.0.2.0/24", "eth0.2"),
]


def test_parse_busybox_route_case01(load_fixture):
    text = _without_annotations(load_fixture("busybox_route_n", "case01_lan_gateway.txt"))
    assert parse_busybox_route(text) == EDGE_ROUTES


@pytest.mark.parametrize("command", ["busybox_route_n", "busybox_route"])
def test_parse_busybox_route_recorded(load_fixture, command):
    # the case 01 edge rebuilt in a namespace; the kernel lists the routes in its own order,
    # and `route` without -n prints "default" and "*"
    routes = parse_busybox_route(load_fixture(command, "netns_lan_gateway.txt"))
    assert sorted(routes, key=lambda route: route["dst"]) == sorted(EDGE_ROUTES, key=lambda route: route["dst"])


def test_busybox_route_finds_the_pinned_host_route(load_fixture):
    routes = parse_busybox_route(_without_annotations(load_fixture("busybox_route_n", "case01_lan_gateway.txt")))
    assert find_host_route(routes, "203.0.113.10") == _route("203.0.113.10", "br-lan", "192.168.10.1")
    assert find_host_route(routes, "203.0.113.11") is None


HEADER = "Kernel IP routing table\nDestination     Gateway         Genmask         Flags Metric Ref    Use Iface\n"


@pytest.mark.parametrize("row, expected", [
    ("10.0.0.0        192.0.2.1       255.0.0.0       UG    20     0        0 wwan0",
     dict(_route("10.0.0.0/8", "wwan0", "192.0.2.1"), metric=20)),
    ("10.9.0.0        0.0.0.0         255.255.0.0     !     0      0        0 lo",
     dict(_route("10.9.0.0/16", "lo"), type="unreachable")),
])
def test_parse_busybox_route_rows(row, expected):
    assert parse_busybox_route(HEADER + row + "\n") == [expected]


def test_parse_busybox_route_empty():
    assert parse_busybox_route("") == []


@pytest.mark.parametrize("text, message", [
    ("Kernel IPv6 routing table\nDestination Next Hop Flags Metric Ref Use Iface\n",
     "line 1: expected the header 'Destination Gateway Genmask"),
    ("# a note\n" + HEADER, "line 1: expected the header"),
    (HEADER + "0.0.0.0 192.0.2.1 0.0.0.0 UG 0 0 eth0.2\n", "line 3: expected 8 columns"),
    (HEADER + "10.0.0.0 0.0.0.0 255.0.255.0 U 0 0 0 eth0\n", "line 3: '10.0.0.0'/'255.0.255.0' is not a destination"),
    (HEADER + "10.0.0.0 0.0.0.0 255.0.0.0 U -1 0 0 eth0\n", "line 3: metric must be an integer, got '-1'"),
    (None, "must be text, got NoneType"),
])
def test_parse_busybox_route_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_busybox_route(text)
