# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_wg_dump, parse_wg_keepalive, is_wg_public_key, classify_handshake."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import (
    classify_handshake,
    is_wg_public_key,
    parse_wg_dump,
    parse_wg_keepalive,
)


def key(letter):
    """The fake 44-character key the fixtures use: KKKK…K= private, PPPP…P= preshared."""
    return letter * 43 + "="


CASE_NOW = 1767225600  # /work/shared/cases now.txt (2026-01-01T00:00:00Z)
LAB_NOW = 1796029496  # `date +%s` taken right after recording the lab dumps

DUMP_FIXTURES = [
    "case01_endpoint_hostroute.txt",
    "case04_full_tunnel_never.txt",
    "case10_hub.txt",
    "case10_spoke.txt",
    "hub_two_interfaces.txt",
    "hub_unconfigured_second_interface.txt",
    "ipv6_endpoint_psk_keepalive.txt",
    "nat_peer_no_keepalive.txt",
    "no_interfaces.txt",
]


def secrets_in(text):
    """Private keys (interface line, field 2) and preshared keys (peer line, field 3) of a dump."""
    found = set()
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) == 5 and fields[1] != "(none)":
            found.add(fields[1])
        elif len(fields) == 9 and fields[2] != "(none)":
            found.add(fields[2])
    return found


@pytest.mark.parametrize("case", DUMP_FIXTURES)
def test_dump_never_returns_private_or_preshared_keys(load_fixture, case):
    text = load_fixture("wg_show_all_dump", case)
    parsed = json.dumps(parse_wg_dump(text, CASE_NOW))
    for secret in secrets_in(text):
        assert secret not in parsed


def test_secret_finder_sees_the_secrets(load_fixture):
    # guards the test above: it must have something to look for
    text = load_fixture("wg_show_all_dump", "case10_hub.txt")
    assert secrets_in(text) == {key("K"), key("P")}


def test_case10_hub_nat_peer_is_stale_without_keepalive(load_fixture):
    parsed = parse_wg_dump(load_fixture("wg_show_all_dump", "case10_hub.txt"), CASE_NOW)
    wg0 = parsed["interfaces"]["wg0"]
    assert (wg0["public_key"], wg0["has_private_key"], wg0["listen_port"], wg0["fwmark"]) == (
        key("H"), True, 51820, None)
    assert wg0["peers"][0] == {
        "public_key": key("S"),
        "has_preshared_key": False,
        "endpoint": "192.0.2.77:41862",
        "endpoint_host": "192.0.2.77",
        "endpoint_port": 41862,
        "allowed_ips": ["10.20.0.2/32", "192.168.50.0/24"],
        "latest_handshake_epoch": 1767225040,
        "handshake_age_s": 560,
        "handshake_state": "stale",
        "persistent_keepalive_s": None,
        "rx_bytes": 18222010,
        "tx_bytes": 2230911,
    }


# (fixture, now, interface, peer index, expected subset of the peer)
PEER_CASES = [
    ("case10_hub.txt", CASE_NOW, "wg0", 1,
     {"public_key": key("T"), "endpoint": None, "endpoint_host": None, "endpoint_port": None,
      "latest_handshake_epoch": None, "handshake_age_s": None, "handshake_state": "never",
      "rx_bytes": 0, "tx_bytes": 0}),
    ("case10_hub.txt", CASE_NOW, "wg0", 2,
     {"public_key": key("U"), "has_preshared_key": True, "handshake_age_s": 12, "handshake_state": "fresh",
      "persistent_keepalive_s": 25, "rx_bytes": 991022334}),
    ("case10_spoke.txt", CASE_NOW, "wg0", 0,
     {"public_key": key("H"), "endpoint": "203.0.113.20:51820", "persistent_keepalive_s": None,
      "handshake_state": "stale"}),
    ("case01_endpoint_hostroute.txt", CASE_NOW, "wg0", 0,
     {"endpoint_host": "203.0.113.10", "endpoint_port": 51820, "handshake_age_s": 29,
      "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"], "persistent_keepalive_s": 25}),
    ("case04_full_tunnel_never.txt", CASE_NOW, "wg0", 0,
     {"allowed_ips": ["0.0.0.0/1", "128.0.0.0/1"], "handshake_state": "never", "rx_bytes": 0, "tx_bytes": 5736}),
    # recorded: hub learned the NATed spoke's source port, no keepalive configured on either side
    ("hub_two_interfaces.txt", LAB_NOW, "wg0", 0,
     {"public_key": key("B"), "endpoint": "10.199.0.2:34897", "handshake_age_s": 78,
      "handshake_state": "fresh", "persistent_keepalive_s": None, "rx_bytes": 276918620,
      "tx_bytes": 679874316}),
    ("hub_two_interfaces.txt", LAB_NOW, "wg0", 1,
     {"public_key": key("C"), "has_preshared_key": True, "endpoint": "[fd99:1::3]:51820",
      "endpoint_host": "fd99:1::3", "endpoint_port": 51820, "allowed_ips": ["10.20.0.3/32", "fd20::3/128"],
      "persistent_keepalive_s": 25}),
    ("hub_two_interfaces.txt", LAB_NOW, "wg0", 2,
     {"public_key": key("D"), "endpoint": None, "handshake_state": "never"}),
    ("ipv6_endpoint_psk_keepalive.txt", LAB_NOW, "wg0", 0,
     {"endpoint_host": "fd99:1::1", "has_preshared_key": True, "allowed_ips": ["10.20.0.0/24", "fd20::/64"]}),
    ("nat_peer_no_keepalive.txt", LAB_NOW, "wg0", 0,
     {"public_key": key("A"), "endpoint": "10.199.0.1:51820", "persistent_keepalive_s": None,
      "rx_bytes": 479130612, "tx_bytes": 313460612}),
    # the same recorded dump read 4 minutes later: the session is gone
    ("nat_peer_no_keepalive.txt", 1796029418 + 240, "wg0", 0, {"handshake_age_s": 240, "handshake_state": "stale"}),
    ("nat_peer_no_keepalive.txt", 1796029418 + 150, "wg0", 0, {"handshake_state": "aging"}),
    # a handshake "in the future" (clock skew) is age 0, not negative
    ("nat_peer_no_keepalive.txt", 1796029418 - 30, "wg0", 0, {"handshake_age_s": 0, "handshake_state": "fresh"}),
]


@pytest.mark.parametrize("case, now, ifname, index, expected", PEER_CASES)
def test_dump_peer_fields(load_fixture, case, now, ifname, index, expected):
    peer = parse_wg_dump(load_fixture("wg_show_all_dump", case), now)["interfaces"][ifname]["peers"][index]
    assert {name: peer[name] for name in expected} == expected


# (fixture, {interface: (public_key, has_private_key, listen_port, fwmark, peer count)})
INTERFACE_CASES = [
    ("hub_two_interfaces.txt", {"wg0": (key("A"), True, 51820, 0x1234, 3), "wg1": (key("E"), True, 51821, None, 0)}),
    ("hub_unconfigured_second_interface.txt",
     {"wg0": (key("A"), True, 51820, 0x1234, 3), "wg1": (None, False, 47449, None, 0)}),
    ("nat_peer_no_keepalive.txt", {"wg0": (key("B"), True, 34897, None, 1)}),
    ("case10_hub.txt", {"wg0": (key("H"), True, 51820, None, 3)}),
    ("no_interfaces.txt", {}),
]


@pytest.mark.parametrize("case, expected", INTERFACE_CASES)
def test_dump_interfaces(load_fixture, case, expected):
    interfaces = parse_wg_dump(load_fixture("wg_show_all_dump", case), LAB_NOW)["interfaces"]
    assert {name: (i["public_key"], i["has_private_key"], i["listen_port"], i["fwmark"], len(i["peers"]))
            for name, i in interfaces.items()} == expected


IFACE = "wg0\t%s\t%s\t51820\toff" % (key("K"), key("A"))
PEER = "wg0\t%s\t%s\t192.0.2.1:51820\t10.0.0.2/32\t1767225000\t10\t20\t25" % (key("B"), key("P"))

DUMP_ERRORS = [
    ("wg0\t%s\t%s\t51820" % (key("K"), key("A")), 1, "line 1: expected 5 tab-separated fields"),
    (PEER, 1, "line 1: peer of interface 'wg0' before that interface's line"),
    (IFACE + "\n" + IFACE, 1, "line 2: interface 'wg0' appears twice"),
    (IFACE.replace("51820", "port"), 1, "line 1: listen-port must be an integer, got 'port'"),
    (IFACE.replace("off", "mark"), 1, "line 1: fwmark must be 'off' or a number"),
    (IFACE + "\n" + PEER.replace("192.0.2.1:51820", "192.0.2.1"), 1, "line 2: endpoint must be host:port"),
    (IFACE + "\n" + PEER.replace(":51820", ":70000"), 1, "line 2: endpoint port out of range"),
    (IFACE + "\n" + PEER.replace("1767225000", "-5"), 1, "line 2: latest-handshake must be an integer"),
    (IFACE + "\n" + PEER.replace("\t10\t", "\t1_0\t"), 1, "line 2: transfer-rx must be an integer"),
    (IFACE + "\n" + PEER.replace("\t25", "\tevery"), 1, "line 2: persistent-keepalive must be an integer"),
    (IFACE + "\n" + PEER.replace(key("B"), "not-a-key"), 1, "line 2: peer public-key is not a base64 WireGuard key"),
    (IFACE + "\n\n" + PEER + "\nwg0\tbroken", 1, "line 4: expected 5"),
    (IFACE, "1767225600", "now_epoch must be an integer Unix time"),
    (IFACE, True, "now_epoch must be an integer Unix time"),
]


@pytest.mark.parametrize("text, now, message", DUMP_ERRORS)
def test_dump_errors_name_the_line_and_never_the_secret(text, now, message):
    with pytest.raises(ParseError) as err:
        parse_wg_dump(text, now)
    assert message in str(err.value)
    assert key("K") not in str(err.value) and key("P") not in str(err.value)


def test_dump_listen_port_zero_is_unknown():
    # the kernel prints 0 while the interface is down and no port was configured
    assert parse_wg_dump(IFACE.replace("51820", "0"), 1767225600)["interfaces"]["wg0"]["listen_port"] is None


def test_dump_tolerates_crlf_and_trailing_blank_lines():
    parsed = parse_wg_dump(IFACE + "\r\n" + PEER + "\r\n\r\n", 1767225600)
    assert parsed["interfaces"]["wg0"]["peers"][0]["handshake_age_s"] == 600


@pytest.mark.parametrize("age, state", [
    (None, "never"), (0, "fresh"), (120, "fresh"), (121, "aging"), (180, "aging"), (181, "stale"), (86400, "stale"),
])
def test_classify_handshake(age, state):
    assert classify_handshake(age) == state


KEEPALIVE_CASES = [
    ("hub_mixed.txt", {key("D"): None, key("B"): None, key("C"): 25}),
    ("spoke_off.txt", {key("A"): None}),
    ("no_peers.txt", {}),
]


@pytest.mark.parametrize("case, expected", KEEPALIVE_CASES)
def test_keepalive(load_fixture, case, expected):
    assert parse_wg_keepalive(load_fixture("wg_show_persistent_keepalive", case)) == expected


@pytest.mark.parametrize("text, message", [
    ("wg0\t%s\t25\n" % key("A"), "line 1: expected '<public-key>\\t<seconds|off>'"),
    ("%s\t25\n%s\tsoon\n" % (key("A"), key("B")), "line 2: persistent-keepalive must be an integer, got 'soon'"),
    ("%s\t70000\n" % key("A"), "line 1: persistent-keepalive out of range"),
    ("wg0\t25\n", "line 1: public-key is not a base64 WireGuard key"),
])
def test_keepalive_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_wg_keepalive(text)
    assert message in str(err.value)


@pytest.mark.parametrize("value, expected", [
    (key("A"), True),
    (key("H"), True),  # fixture keys have non-zero padding bits; accepted on purpose
    ("YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY=", True),  # base64("abcdefghijklmnopqrstuvwxyz123456")
    ("A" * 42 + "==", False),  # 31 bytes
    ("A" * 43, False),
    ("A" * 44, False),
    ("A" * 42 + "!=", False),
    ("(none)", False),
    ("wg0", False),
    ("", False),
    (None, False),
    (12345, False),
])
def test_is_wg_public_key(value, expected):
    assert is_wg_public_key(value) is expected
