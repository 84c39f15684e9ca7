# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer-3 tunnels from ``ip -d -j link show``; net.ipv4.ip_forward; the router's combined read.

Recorded 2026-11-30 (Debian 12, Linux 6.18, iproute2-6.1.0) in a throwaway namespace tfh1-rec
(IPv6 off, no traffic, deleted afterwards): bridge br-lan (MTU 1500) with veth port lan1 (peer
lan1p), ``ip tuntap add mode tun`` tailscale0 (MTU 1280), ``ip tuntap add mode tap`` tap0, all
set up. ``netns_bridge_veth_tun1280_no_carrier_tap.txt``: nothing attached to tailscale0
(NO-CARRIER, DOWN); ``netns_bridge_veth_tun1280_owned_tap.txt``: recorded while a process held
tailscale0 open with TUNSETIFF (IFF_TUN | IFF_NO_PI), as tailscaled does (LOWER_UP, UP).
``proc_sys_net_ipv4_ip_forward/netns_on.txt``, ``netns_off.txt``: ``cat
/proc/sys/net/ipv4/ip_forward`` there (inherited 1, then after ``sysctl -w
net.ipv4.ip_forward=0``). Other kinds are recorded links with ``info_kind`` changed: this kernel
has no WireGuard, GRE or IPIP driver.
"""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    FORWARD_AND_LINKS_ARGV, TUNNEL_KINDS, UP_OPERSTATES, parse_ip_forward, parse_ip_link_tunnels,
    split_forward_and_links)

OWNED = "netns_bridge_veth_tun1280_owned_tap.txt"
NO_CARRIER = "netns_bridge_veth_tun1280_no_carrier_tap.txt"


@pytest.mark.parametrize("case, expected", [
    (OWNED, {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UP"}}),       # tap0 is layer 2: left out
    (NO_CARRIER, {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "DOWN"}}),
    ("openwrt_image_bridge_two_veth.txt", {}),                                       # bridge and veths only
])
def test_recorded_links(load_fixture, case, expected):
    assert parse_ip_link_tunnels(load_fixture("ip_d_j_link_show", case)) == expected


def test_up_is_what_the_recorded_states_say(load_fixture):
    owned = parse_ip_link_tunnels(load_fixture("ip_d_j_link_show", OWNED))["tailscale0"]
    no_carrier = parse_ip_link_tunnels(load_fixture("ip_d_j_link_show", NO_CARRIER))["tailscale0"]
    assert owned["operstate"] in UP_OPERSTATES and no_carrier["operstate"] not in UP_OPERSTATES


def _relabel(links, name, **changes):
    """The recorded link ``name`` with its linkinfo (and top-level keys) replaced."""
    for link in links:
        if link["ifname"] == name:
            linkinfo = changes.pop("linkinfo", None)
            if linkinfo is not None:
                link["linkinfo"] = linkinfo
            link.update(changes)
    return links


@pytest.mark.parametrize("name, changes, expected", [
    # layer 3: listed with their kind
    ("tailscale0", {"linkinfo": {"info_kind": "wireguard"}, "mtu": 1420, "operstate": "UNKNOWN"},
     {"kind": "wireguard", "mtu": 1420, "operstate": "UNKNOWN"}),
    ("lan1p", {"linkinfo": {"info_kind": "gre", "info_data": {"local": "192.0.2.1"}}, "mtu": 1476},
     {"kind": "gre", "mtu": 1476, "operstate": "UP"}),
    ("lan1p", {"linkinfo": {"info_kind": "ipip"}, "mtu": 1480}, {"kind": "ipip", "mtu": 1480, "operstate": "UP"}),
    ("lan1p", {"linkinfo": {"info_kind": "sit"}}, {"kind": "sit", "mtu": 1500, "operstate": "UP"}),
    ("lan1p", {"linkinfo": {"info_kind": "ip6tnl"}}, {"kind": "ip6tnl", "mtu": 1500, "operstate": "UP"}),
    ("lan1p", {"linkinfo": {"info_kind": "vti"}}, {"kind": "vti", "mtu": 1500, "operstate": "UP"}),
    ("lan1p", {"linkinfo": {"info_kind": "xfrm"}}, {"kind": "xfrm", "mtu": 1500, "operstate": "UP"}),
    # a tun without info_data (an ip that does not print it): link_type "none" tells tun mode
    ("tailscale0", {"linkinfo": {"info_kind": "tun"}}, {"kind": "tun", "mtu": 1280, "operstate": "DOWN"}),
    # layer 2: not tunnels into a routed LAN
    ("lan1p", {"linkinfo": {"info_kind": "gretap"}}, None),
    ("lan1p", {"linkinfo": {"info_kind": "vxlan"}}, None),
    ("tap0", {"linkinfo": {"info_kind": "tun"}}, None),            # no info_data, link_type ether: a tap
    ("tailscale0", {"linkinfo": {"info_kind": "tun", "info_data": {"type": "tap"}}}, None),
])
def test_kinds(load_fixture, name, changes, expected):
    links = _relabel(json.loads(load_fixture("ip_d_j_link_show", NO_CARRIER)), name, **changes)
    tunnels = parse_ip_link_tunnels(json.dumps(links))
    others = {key: value for key, value in tunnels.items() if key != name}
    assert tunnels.get(name) == expected
    assert others == ({} if name == "tailscale0" else {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "DOWN"}})


def test_every_kind_is_listed_once():
    assert len(set(TUNNEL_KINDS)) == len(TUNNEL_KINDS) and "tap" not in TUNNEL_KINDS and "gretap" not in TUNNEL_KINDS


@pytest.mark.parametrize("text, message", [
    ("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536\n", "is not JSON"),
    ('[{"mtu": 1280}]', "JSON list of links"),
    (None, "must be text"),
])
def test_bad_link_output(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ip_link_tunnels(text)


@pytest.mark.parametrize("case, expected", [("netns_on.txt", 1), ("netns_off.txt", 0)])
def test_recorded_ip_forward(load_fixture, case, expected):
    assert parse_ip_forward(load_fixture("proc_sys_net_ipv4_ip_forward", case)) == expected


@pytest.mark.parametrize("text, expected", [("", None), ("  \n", None), ("1", 1), ("2\n", 2)])
def test_ip_forward_values(text, expected):
    assert parse_ip_forward(text) == expected


@pytest.mark.parametrize("text, message", [("on\n", "whole number"), ("1 0\n", "whole number"), (None, "must be text")])
def test_ip_forward_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ip_forward(text)


def test_split_recorded_forward_and_links(load_fixture):
    links = load_fixture("ip_d_j_link_show", OWNED)
    text = load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt") + links  # what the sh -c prints
    forward, rest = split_forward_and_links(text)
    assert (forward, rest) == (1, links)
    assert list(parse_ip_link_tunnels(rest)) == ["tailscale0"]


@pytest.mark.parametrize("text, expected", [
    ("\n[]\n", (None, "[]\n")),        # ip_forward unreadable: the script's echo
    ("0\n", (0, "")),                  # ip printed nothing (it failed: the caller checks rc)
    ("", (None, "")),
])
def test_split_edge_cases(text, expected):
    assert split_forward_and_links(text) == expected


def test_split_refuses_a_bad_first_line():
    with pytest.raises(ParseError, match="whole number"):
        split_forward_and_links('[{"ifname": "lo"}]\n')
    with pytest.raises(ParseError, match="must be text"):
        split_forward_and_links(None)


def test_the_router_script_reads_forwarding_then_execs_ip():
    assert FORWARD_AND_LINKS_ARGV[:2] == ["sh", "-c"]
    script = FORWARD_AND_LINKS_ARGV[2]
    assert script.index("/proc/sys/net/ipv4/ip_forward") < script.index("exec ip -d -j link show")


def test_ip_forward_negative_is_a_whole_number():
    # ip-sysctl.rst: 0 is off, any other value on; the file reads back what was written
    assert parse_ip_forward("-1\n") == -1


@pytest.mark.parametrize("function", [parse_ip_forward, split_forward_and_links])
def test_non_text_is_refused_naming_its_type(function):
    with pytest.raises(ParseError) as err:
        function(b"1\n")
    assert re.search(r"(?<!\w)bytes(?!\w)", str(err.value))
