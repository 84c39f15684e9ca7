# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_ip_link (ip link show)."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.netlink_text import parse_ip_link


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


def test_link_without_a_detail_line_has_every_key():
    links = parse_ip_link("7: wg0: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu 1420 qdisc noqueue state UNKNOWN "
                          "mode DEFAULT group default qlen 1000\n")
    assert links == [{"ifindex": 7, "ifname": "wg0", "link": None, "flags": ["POINTOPOINT", "NOARP", "UP", "LOWER_UP"],
                      "mtu": 1420, "qdisc": "noqueue", "master": None, "operstate": "UNKNOWN", "linkmode": "DEFAULT",
                      "group": "default", "txqlen": 1000, "link_type": None, "address": None, "broadcast": None,
                      "kind_hint": None}]


def test_point_to_point_tunnel_peer_and_blank_lines():
    # ip link show gre1 (iproute2-6.1.0 shape): the remote end follows "peer"
    text = ("8: gre1@NONE: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu 1476 qdisc noqueue state UNKNOWN mode DEFAULT "
            "group default qlen 1000\n    link/gre 192.0.2.20 peer 198.51.100.1\n\n"
            "9: tailscale0: <POINTOPOINT,MULTICAST,NOARP,UP,LOWER_UP> mtu 1280 qdisc fq_codel state UNKNOWN mode DEFAULT "
            "group default qlen 500\n    link/none \n")
    gre, tun = parse_ip_link(text)
    assert (gre["ifname"], gre["link"], gre["link_type"], gre["address"], gre["broadcast"], gre["kind_hint"]) == \
        ("gre1", "NONE", "gre", "192.0.2.20", "198.51.100.1", None)
    assert (tun["ifname"], tun["kind_hint"]) == ("tailscale0", "l3_tunnel")


def test_non_text_is_refused_naming_its_type():
    with pytest.raises(ParseError) as err:
        parse_ip_link(b"")
    assert re.search(r"(?<!\w)bytes(?!\w)", str(err.value))
