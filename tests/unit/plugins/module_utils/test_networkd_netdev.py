# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_netdev_wireguard, set_netdev_keepalive."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._networkd_netdev import (
    parse_netdev_wireguard,
    set_netdev_keepalive,
)


def key(letter):
    return letter * 43 + "="


D, E, H = key("D"), key("E"), key("H")


def test_parse_case11(load_fixture):
    parsed = parse_netdev_wireguard(load_fixture("systemd_netdev", "case11_wg0.txt"))
    assert parsed == {"name": "wg0", "kind": "wireguard", "peers": [
        {"public_key": D, "endpoint": None, "persistent_keepalive_s": None,
         "allowed_ips": ["10.30.0.2/32", "192.168.31.0/24"], "line": 10},
        {"public_key": E, "endpoint": "198.51.100.40:51820", "persistent_keepalive_s": None,
         "allowed_ips": ["10.30.0.3/32"], "line": 15},
    ]}


PARSE_CASES = [
    # (text, [(public_key, endpoint, keepalive, allowed_ips)])
    ("[NetDev]\nName=wg1\nKind=wireguard\n", []),
    ("[WireGuardPeer]\n PublicKey = %s \n; comment\n#PersistentKeepalive=9\nPersistentKeepalive=off\n" % H,
     [(H, None, None, [])]),
    ("[WireGuardPeer]\r\nPublicKey=%s\r\nPersistentKeepalive=25\r\nAllowedIPs=10.0.0.1/32,10.0.0.2/32\r\n" % H,
     [(H, None, 25, ["10.0.0.1/32", "10.0.0.2/32"])]),
    ("[WireGuardPeer]\nPublicKey=%s\nAllowedIPs=10.0.0.1/32\nAllowedIPs=\nAllowedIPs=10.9.0.0/16\n" % H,
     [(H, None, None, ["10.9.0.0/16"])]),
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=0\nEndpoint=[fd00::1]:51820" % H,
     [(H, "[fd00::1]:51820", None, [])]),
    # a PublicKey in [WireGuard] is not a peer
    ("[WireGuard]\nPrivateKey=%s\n[wireguardpeer]\nPublicKey=%s\n" % (key("K"), H), []),
]


@pytest.mark.parametrize("text, expected", PARSE_CASES)
def test_parse_peers(text, expected):
    peers = parse_netdev_wireguard(text)["peers"]
    assert [(p["public_key"], p["endpoint"], p["persistent_keepalive_s"], p["allowed_ips"]) for p in peers] == expected


def test_parse_never_returns_private_key():
    text = "[NetDev]\nName=wg0\nKind=wireguard\n[WireGuard]\nPrivateKey=%s\n[WireGuardPeer]\nPublicKey=%s\n" % (
        key("K"), H)
    assert key("K") not in repr(parse_netdev_wireguard(text))


PARSE_ERRORS = [
    ("[WireGuardPeer]\nAllowedIPs=10.0.0.1/32\n", "line 1: [WireGuardPeer] has no PublicKey="),
    ("[WireGuardPeer]\nPublicKey=%s\nPublicKey=%s\n" % (H, D), "line 3: second PublicKey="),
    ("[WireGuardPeer]\nPublicKey=not-a-key\n", "line 2: PublicKey= is not a base64 WireGuard key"),
    ("[WireGuardPeer]\nPublicKey=%s\n[WireGuardPeer]\nPublicKey=%s\n" % (H, H), "already used by the [WireGuardPeer] at line 1"),
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=70000\n" % H, "line 3: PersistentKeepalive= must be"),
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=25s\n" % H, "got '25s'"),
    ("[NetDev]\njust words\n", "line 2: expected '[Section]' or 'Key=Value'"),
    ("[WireGuardPeer]\nAllowedIPs=10.0.0.1/32,\\\n 10.0.0.2/32\n", "line 2: line continuation"),
    (b"[NetDev]\n", "must be text, got bytes"),
]


@pytest.mark.parametrize("text, message", PARSE_ERRORS)
def test_parse_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_netdev_wireguard(text)
    assert message in str(err.value)


def after_key(text, public_key, line):
    anchor = "PublicKey=%s\n" % public_key
    assert text.count(anchor) == 1
    return text.replace(anchor, anchor + line + "\n")


def test_set_case11_default_only_peer_with_endpoint(load_fixture):
    text = load_fixture("systemd_netdev", "case11_wg0.txt")
    new, changed = set_netdev_keepalive(text, 25)
    assert changed == [E]
    assert new == after_key(text, E, "PersistentKeepalive=25")
    assert set_netdev_keepalive(new, 25) == (new, [])


def test_set_case11_listed_peer_without_endpoint(load_fixture):
    text = load_fixture("systemd_netdev", "case11_wg0.txt")
    new, changed = set_netdev_keepalive(text, 15, [D])
    assert changed == [D]
    assert new == after_key(text, D, "PersistentKeepalive=15")
    assert "[WireGuard]\nPrivateKeyFile=/etc/systemd/network/wg0.key\nListenPort=51820\n" in new


SET_CASES = [
    # (text, keepalive_s, public_keys, expected text, expected changed)
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive = 10 \nEndpoint=a:1\n" % H, 25, None,
     "[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive = 25 \nEndpoint=a:1\n" % H, [H]),
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=25\nEndpoint=a:1\n" % H, 25, None,
     "[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=25\nEndpoint=a:1\n" % H, []),
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=25\nEndpoint=a:1\n" % H, 0, None,
     "[WireGuardPeer]\nPublicKey=%s\nEndpoint=a:1\n" % H, [H]),
    ("[WireGuardPeer]\nEndpoint=a:1\n  PublicKey=%s" % H, 5, None,
     "[WireGuardPeer]\nEndpoint=a:1\n  PublicKey=%s\n  PersistentKeepalive=5" % H, [H]),
    ("[WireGuardPeer]\r\nPublicKey=%s\r\nEndpoint=a:1\r\n" % H, 5, [H],
     "[WireGuardPeer]\r\nPublicKey=%s\r\nPersistentKeepalive=5\r\nEndpoint=a:1\r\n" % H, [H]),
    ("[WireGuardPeer]\nPublicKey=%s\n" % H, 0, [H], "[WireGuardPeer]\nPublicKey=%s\n" % H, []),
    ("[WireGuardPeer]\nPublicKey=%s\nEndpoint=a:1\n" % H, 25, [], "[WireGuardPeer]\nPublicKey=%s\nEndpoint=a:1\n" % H, []),
]


@pytest.mark.parametrize("text, keepalive_s, public_keys, expected, changed", SET_CASES)
def test_set(text, keepalive_s, public_keys, expected, changed):
    assert set_netdev_keepalive(text, keepalive_s, public_keys) == (expected, changed)


SET_ERRORS = [
    ("[WireGuardPeer]\nPublicKey=%s\n" % H, 70000, None, "keepalive_s must be 0-65535, got 70000"),
    ("[WireGuardPeer]\nPublicKey=%s\n" % H, True, None, "keepalive_s must be 0-65535, got True"),
    ("[WireGuardPeer]\nPublicKey=%s\n" % H, 25, [D, E], "no [WireGuardPeer] with PublicKey= %s, %s" % (D, E)),
    ("[WireGuardPeer]\nPublicKey=%s\n" % H, 25, H, "public_keys must be a list"),
    ("[WireGuardPeer]\nPublicKey=%s\nPersistentKeepalive=1\nPersistentKeepalive=2\n" % H, 25, [H],
     "has 2 PersistentKeepalive= lines"),
]


@pytest.mark.parametrize("text, keepalive_s, public_keys, message", SET_ERRORS)
def test_set_errors(text, keepalive_s, public_keys, message):
    with pytest.raises(ParseError) as err:
        set_netdev_keepalive(text, keepalive_s, public_keys)
    assert message in str(err.value)


@pytest.mark.parametrize("line, expected", [
    ("PrivateKey=%s\n" % key("K"), "PrivateKey=<redacted>\n"),
    ("PresharedKey=%s\n" % key("P"), "PresharedKey=<redacted>\n"),
    ("PublicKey=%s\n" % H, "PublicKey=%s\n" % H),
    ("PrivateKeyFile=/etc/systemd/network/wg0.key\n", "PrivateKeyFile=/etc/systemd/network/wg0.key\n"),
])
def test_module_diff_redaction_covers_netdev_lines(line, expected):
    """networkd_keepalive redacts its diff with redact_wg_quick; it must understand .netdev spelling."""
    from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import redact_wg_quick

    assert redact_wg_quick("[WireGuard]\n" + line) == "[WireGuard]\n" + expected
