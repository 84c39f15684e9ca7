# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_wg_quick_peers, set_wg_quick_keepalive, redact_wg_quick."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import (
    parse_wg_quick_peers,
    redact_wg_quick,
    set_wg_quick_keepalive,
)


def key(letter):
    return letter * 43 + "="


def after_key(text, public_key, line):
    """``text`` with ``line`` inserted right after ``PublicKey = <public_key>`` (exactly once)."""
    anchor = "PublicKey = %s\n" % public_key
    assert text.count(anchor) == 1
    return text.replace(anchor, anchor + line + "\n")


# (fixture dir, case, [(public_key, endpoint, persistent_keepalive_s, allowed_ips, has_preshared_key)])
PEER_CASES = [
    ("wg_quick_conf", "case10_spoke.txt", [(key("H"), "203.0.113.20:51820", None, ["10.20.0.0/24"], False)]),
    ("wg_quick_conf", "case11_hub.txt", [
        (key("D"), None, None, ["10.30.0.2/32", "192.168.31.0/24"], False),
        (key("E"), "198.51.100.40:51820", None, ["10.30.0.3/32"], True),
    ]),
    ("wg_showconf", "case11_wg0.txt", [
        (key("D"), "192.0.2.61:37120", None, ["10.30.0.2/32", "192.168.31.0/24"], False),
        (key("E"), "198.51.100.40:51820", None, ["10.30.0.3/32"], True),
    ]),
    ("wg_showconf", "hub_wg0.txt", [
        (key("B"), "10.199.0.2:34897", None, ["10.20.0.2/32", "192.168.50.0/24"], False),
        (key("C"), "[fd99:1::3]:51820", 25, ["10.20.0.3/32", "fd20::3/128"], True),
        (key("D"), None, None, ["10.20.0.9/32"], False),
    ]),
    ("wg_showconf", "spoke_wg0.txt", [(key("A"), "10.199.0.1:51820", None, ["10.20.0.0/24"], False)]),
]


@pytest.mark.parametrize("command, case, expected", PEER_CASES)
def test_parse_peers(load_fixture, command, case, expected):
    peers = parse_wg_quick_peers(load_fixture(command, case))
    assert [(p["public_key"], p["endpoint"], p["persistent_keepalive_s"], p["allowed_ips"], p["has_preshared_key"])
            for p in peers] == expected


@pytest.mark.parametrize("command, case", [(c[0], c[1]) for c in PEER_CASES])
def test_parse_peers_returns_no_secret(load_fixture, command, case):
    text = repr(parse_wg_quick_peers(load_fixture(command, case)))
    for secret in (key("K"), key("P"), key("Q")):
        assert secret not in text


SPELLING_CASES = [
    # keys and section names are case-insensitive, comments anywhere, AllowedIPs may repeat
    ("[interface]\nprivatekey=%s\n[peer] # dc\npublickey=%s # yes\npersistentkeepalive = off\n"
     "allowedips = 10.0.0.1/32\nAllowedIPs=10.0.0.2/32 , fd00::2/128\n" % (key("K"), key("A")),
     [(key("A"), None, None, ["10.0.0.1/32", "10.0.0.2/32", "fd00::2/128"])]),
    ("[Peer]\r\nPublicKey = %s\r\nEndpoint = vpn.example.net:51820\r\nPersistentKeepalive = 0\r\n" % key("A"),
     [(key("A"), "vpn.example.net:51820", None, [])]),
    ("[Peer]\nPublicKey = %s\nPersistentKeepalive = 25\nAllowedIPs =\n" % key("A"), [(key("A"), None, 25, [])]),
    ("# only comments\n\n[Interface]\nListenPort = 51820\n", []),
    ("", []),
]


@pytest.mark.parametrize("text, expected", SPELLING_CASES)
def test_parse_peers_spellings(text, expected):
    assert [(p["public_key"], p["endpoint"], p["persistent_keepalive_s"], p["allowed_ips"])
            for p in parse_wg_quick_peers(text)] == expected


PARSE_ERRORS = [
    ("[Peer]\nEndpoint = 192.0.2.1:51820\n", "line 1: [Peer] has no PublicKey"),
    ("[Peer]\nPublicKey = %s\nPublicKey = %s\n" % (key("A"), key("B")),
     "line 3: second PublicKey in the [Peer] at line 1"),
    ("[Peer]\nPublicKey = %s\n[Peer]\nPublicKey = %s\n" % (key("A"), key("A")),
     "line 3: PublicKey %s is already used by the [Peer] at line 1" % key("A")),
    ("[Peer]\nPublicKey = %s\nPersistentKeepalive = 70000\n" % key("A"),
     "line 3: PersistentKeepalive must be 'off' or 0-65535"),
    ("[Peer]\nPublicKey = %s\nPersistentKeepalive = soon\n" % key("A"), "got 'soon'"),
    ("[Peer]\nPublicKey = shortkey\n", "line 2: PublicKey is not a base64 WireGuard key"),
    ("[Interface]\nthis is not a setting\n", "line 2: expected '[Section]' or 'Key = Value'"),
]


@pytest.mark.parametrize("text, message", PARSE_ERRORS)
def test_parse_peers_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_wg_quick_peers(text)
    assert message in str(err.value)


def set_cases():
    """(command, case, keepalive_s, public_keys, expected text builder, expected changed keys)."""
    return [
        # case 10: the NATed spoke gets keepalive towards the hub (the only peer with an Endpoint)
        ("wg_quick_conf", "case10_spoke.txt", 25, None,
         lambda t: after_key(t, key("H"), "PersistentKeepalive = 25"), [key("H")]),
        # case 11: default selection skips the peer without Endpoint ...
        ("wg_quick_conf", "case11_hub.txt", 25, None,
         lambda t: after_key(t, key("E"), "PersistentKeepalive = 25"), [key("E")]),
        # ... but an explicit list may name it (valid; useful only if that side is NATed)
        ("wg_quick_conf", "case11_hub.txt", 25, [key("D")],
         lambda t: after_key(t, key("D"), "PersistentKeepalive = 25"), [key("D")]),
        ("wg_quick_conf", "case11_hub.txt", 15, [key("E"), key("D")],
         lambda t: after_key(after_key(t, key("D"), "PersistentKeepalive = 15"), key("E"),
                             "PersistentKeepalive = 15"), [key("D"), key("E")]),
        ("wg_quick_conf", "case11_hub.txt", 25, [], lambda t: t, []),
        ("wg_quick_conf", "case11_hub.txt", 0, None, lambda t: t, []),
        # recorded `wg showconf`: C already has 25 (unchanged), D has no Endpoint (not selected)
        ("wg_showconf", "hub_wg0.txt", 25, None,
         lambda t: after_key(t, key("B"), "PersistentKeepalive = 25"), [key("B")]),
        ("wg_showconf", "hub_wg0.txt", 10, [key("C")],
         lambda t: t.replace("PersistentKeepalive = 25\n", "PersistentKeepalive = 10\n"), [key("C")]),
        ("wg_showconf", "hub_wg0.txt", 0, None, lambda t: t.replace("PersistentKeepalive = 25\n", ""), [key("C")]),
    ]


@pytest.mark.parametrize("command, case, keepalive, keys, build, changed", set_cases())
def test_set_keepalive(load_fixture, command, case, keepalive, keys, build, changed):
    original = load_fixture(command, case)
    new_text, new_changed = set_wg_quick_keepalive(original, keepalive, keys)
    assert new_text == build(original)
    assert new_changed == changed


@pytest.mark.parametrize("command, case, keepalive, keys, build, changed", set_cases())
def test_set_keepalive_is_idempotent(load_fixture, command, case, keepalive, keys, build, changed):
    once, _changed = set_wg_quick_keepalive(load_fixture(command, case), keepalive, keys)
    assert set_wg_quick_keepalive(once, keepalive, keys) == (once, [])


INLINE_SET_CASES = [
    # an existing line keeps its spelling, indentation and comment; only the value changes
    ("[Peer]\n  PublicKey = %s\n  persistentkeepalive=15  # CGNAT\nEndpoint = h:1\n" % key("A"), 25, None,
     "[Peer]\n  PublicKey = %s\n  persistentkeepalive=25  # CGNAT\nEndpoint = h:1\n" % key("A")),
    # a new line copies the PublicKey line's indentation
    ("[Peer]\n\tPublicKey = %s\n\tEndpoint = h:1\n" % key("A"), 25, None,
     "[Peer]\n\tPublicKey = %s\n\tPersistentKeepalive = 25\n\tEndpoint = h:1\n" % key("A")),
    # CRLF file: the new line gets CRLF too, nothing else moves
    ("[Interface]\r\nListenPort = 1\r\n\r\n[Peer]\r\nPublicKey = %s\r\nEndpoint = h:1\r\n" % key("A"), 25, None,
     "[Interface]\r\nListenPort = 1\r\n\r\n[Peer]\r\nPublicKey = %s\r\nPersistentKeepalive = 25\r\n"
     "Endpoint = h:1\r\n" % key("A")),
    # no newline at end of file stays that way
    ("[Peer]\nEndpoint = h:1\nPublicKey = %s" % key("A"), 25, None,
     "[Peer]\nEndpoint = h:1\nPublicKey = %s\nPersistentKeepalive = 25" % key("A")),
    # "off" means off: setting 0 removes the line
    ("[Peer]\nPublicKey = %s\nPersistentKeepalive = off\nEndpoint = h:1\n" % key("A"), 0, None,
     "[Peer]\nPublicKey = %s\nEndpoint = h:1\n" % key("A")),
    # a misplaced PersistentKeepalive in [Interface] is left alone; the peer gets its own
    ("[Interface]\nPersistentKeepalive = 5\n[Peer]\nPublicKey = %s\nEndpoint = h:1\n" % key("A"), 25, None,
     "[Interface]\nPersistentKeepalive = 5\n[Peer]\nPublicKey = %s\nPersistentKeepalive = 25\nEndpoint = h:1\n"
     % key("A")),
]


@pytest.mark.parametrize("text, keepalive, keys, expected", INLINE_SET_CASES)
def test_set_keepalive_keeps_everything_else(text, keepalive, keys, expected):
    new_text, changed = set_wg_quick_keepalive(text, keepalive, keys)
    assert (new_text, changed) == (expected, [key("A")])
    assert set_wg_quick_keepalive(new_text, keepalive, keys) == (new_text, [])


SET_ERRORS = [
    (70000, None, "keepalive_s must be 0-65535, got 70000"),
    (-1, None, "keepalive_s must be 0-65535, got -1"),
    ("25", None, "keepalive_s must be 0-65535, got '25'"),
    (True, None, "keepalive_s must be 0-65535, got True"),
    (25, [key("Z"), key("D"), key("Y")], "no [Peer] with PublicKey %s, %s in this file" % (key("Z"), key("Y"))),
    (25, key("D"), "public_keys must be a list of public keys or None"),
]


@pytest.mark.parametrize("keepalive, keys, message", SET_ERRORS)
def test_set_keepalive_errors(load_fixture, keepalive, keys, message):
    with pytest.raises(ParseError) as err:
        set_wg_quick_keepalive(load_fixture("wg_quick_conf", "case11_hub.txt"), keepalive, keys)
    assert message in str(err.value)


def test_set_keepalive_refuses_two_keepalive_lines():
    text = "[Peer]\nPublicKey = %s\nPersistentKeepalive = 5\nPersistentKeepalive = 9\nEndpoint = h:1\n" % key("A")
    with pytest.raises(ParseError, match=r"line 1 .* has 2 PersistentKeepalive lines \(3, 4\)"):
        set_wg_quick_keepalive(text, 25, None)


REDACT_CASES = [
    ("wg_quick_conf", "case11_hub.txt",
     lambda t: t.replace("PrivateKey = %s" % key("K"), "PrivateKey = <redacted>")
                .replace("PresharedKey = %s" % key("P"), "PresharedKey = <redacted>")),
    ("wg_quick_conf", "case10_spoke.txt", lambda t: t.replace(key("K"), "<redacted>")),
    ("wg_showconf", "hub_wg0.txt", lambda t: t.replace(key("K"), "<redacted>").replace(key("P"), "<redacted>")),
    # networkd .netdev: only *File= paths here, nothing secret to hide
    ("systemd_netdev", "case11_wg0.txt", lambda t: t),
]


@pytest.mark.parametrize("command, case, build", REDACT_CASES)
def test_redact(load_fixture, command, case, build):
    text = load_fixture(command, case)
    redacted = redact_wg_quick(text)
    assert redacted == build(text)
    for secret in (key("K"), key("P"), key("Q")):
        assert secret not in redacted


@pytest.mark.parametrize("text, expected", [
    ("privatekey=%s#x\r\n" % key("K"), "privatekey=<redacted>#x\r\n"),
    ("# PrivateKey = %s (old key)\n" % key("K"), "# PrivateKey = <redacted> (old key)\n"),
    ("PrivateKeyFile = /etc/wireguard/wg0.key\n", "PrivateKeyFile = /etc/wireguard/wg0.key\n"),
    ("PublicKey = %s\n" % key("A"), "PublicKey = %s\n" % key("A")),
    ("not even a config\n", "not even a config\n"),
])
def test_redact_lines(text, expected):
    assert redact_wg_quick(text) == expected
