# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The MTU edits of wg_config_mtu: wg-quick ``MTU =`` in [Interface], networkd ``MTUBytes=`` in [NetDev], every other byte kept."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._networkd_netdev import set_netdev_mtu
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import redact_wg_quick, set_wg_quick_mtu

# obviously fake, but key-shaped (the redaction must catch it)
PRIVATE = "K" * 43 + "="
HUB = "H" * 43 + "="
CONF = ("# branch\n[Interface]\nPrivateKey = %s\nAddress = 10.77.0.2/24\n# ListenPort = 1\nListenPort = 51820\n\n"
        "[Peer]\nPublicKey = %s\nEndpoint = 192.0.2.10:51820\nAllowedIPs = 10.77.0.1/32\n" % (PRIVATE, HUB))


@pytest.mark.parametrize("text, mtu, expected, old", [
    # no MTU: after the section's last setting (not after a comment, not into [Peer])
    (CONF, 1340, CONF.replace("ListenPort = 51820\n", "ListenPort = 51820\nMTU = 1340\n"), None),
    # an MTU: only its value, the comment and the key's spelling kept
    (CONF.replace("Address", "mtu=1420 # auto\nAddress"), 1340, CONF.replace("Address", "mtu=1340 # auto\nAddress"), "1420"),
    # CRLF and indentation of the last setting kept
    ("[Interface]\r\n  PrivateKey = %s\r\n" % PRIVATE, 1340, "[Interface]\r\n  PrivateKey = %s\r\n  MTU = 1340\r\n" % PRIVATE, None),
    # no newline at the end stays so
    ("[Interface]\nAddress = 10.77.0.2/24", 1280, "[Interface]\nAddress = 10.77.0.2/24\nMTU = 1280", None),
    # an empty section: right after its header
    ("[Interface]\n[Peer]\nPublicKey = %s\n" % HUB, 1340, "[Interface]\nMTU = 1340\n[Peer]\nPublicKey = %s\n" % HUB, None),
    ("[interface]\nMTU = 1340\n", 1340, "[interface]\nMTU = 1340\n", "1340"),   # already so: the same text
])
def test_set_wg_quick_mtu(text, mtu, expected, old):
    new, before = set_wg_quick_mtu(text, mtu)
    assert new == expected and before == old
    assert set_wg_quick_mtu(new, mtu)[0] is new   # idempotent: the same object, nothing to write


@pytest.mark.parametrize("text, mtu, message", [
    ("[Peer]\nPublicKey = %s\n" % HUB, 1340, r"the wg-quick file has no \[Interface\] section"),
    ("[Interface]\n[Interface]\n", 1340, r"has 2 \[Interface\] sections \(lines 1, 2\)"),
    ("[Interface]\nMTU = 1\nMtu = 2\n", 1340, r"sets it 2 times \(lines 2, 3\)"),
    ("[Interface]\nnonsense\n", 1340, "line 2: expected"),
    (CONF, 67, "mtu_bytes must be 68-65535, got 67"),
    (CONF, 65536, "mtu_bytes must be 68-65535, got 65536"),
    (CONF, True, "mtu_bytes must be 68-65535, got True"),
])
def test_set_wg_quick_mtu_refuses(text, mtu, message):
    with pytest.raises(ParseError, match=message):
        set_wg_quick_mtu(text, mtu)


def test_the_diff_of_an_mtu_edit_shows_no_key():
    new, _old = set_wg_quick_mtu(CONF, 1340)
    assert PRIVATE not in redact_wg_quick(new) and "MTU = 1340" in redact_wg_quick(new)


NETDEV = ("[NetDev]\nName=wg0\nKind=wireguard\n\n[WireGuard]\nPrivateKeyFile=/etc/systemd/network/wg0.key\n\n"
          "[WireGuardPeer]\nPublicKey=%s\nEndpoint=192.0.2.10:51820\n" % HUB)


@pytest.mark.parametrize("text, expected, old", [
    (NETDEV, NETDEV.replace("Kind=wireguard\n", "Kind=wireguard\nMTUBytes=1340\n"), None),
    (NETDEV.replace("Kind=", "MTUBytes = 1420\nKind="), NETDEV.replace("Kind=", "MTUBytes = 1340\nKind="), "1420"),
    (NETDEV.replace("Kind=", "MTUBytes=1340\nKind="), NETDEV.replace("Kind=", "MTUBytes=1340\nKind="), "1340"),
    # a comment line that names MTUBytes is not the setting
    (NETDEV.replace("Kind=", "# MTUBytes=9000\nKind="), NETDEV.replace("Kind=wireguard\n", "Kind=wireguard\nMTUBytes=1340\n")
     .replace("Kind=", "# MTUBytes=9000\nKind=", 1), None),
])
def test_set_netdev_mtu(text, expected, old):
    new, before = set_netdev_mtu(text, 1340)
    assert new == expected and before == old


@pytest.mark.parametrize("text, message", [
    ("[WireGuard]\nListenPort=1\n", r"the .netdev file has no \[NetDev\] section"),
    ("[netdev]\nName=wg0\n", r"the .netdev file has no \[NetDev\] section"),   # section names are case-sensitive
    ("[NetDev]\nMTUBytes=1\nMTUBytes=2\n", "sets it 2 times"),
    ("[NetDev]\nName=wg0 \\\n", "line continuation"),
])
def test_set_netdev_mtu_refuses(text, message):
    with pytest.raises(ParseError, match=message):
        set_netdev_mtu(text, 1340)
