# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_hook_probe: how the role udp_gro_forwarding re-applies its change on a Linux host (moved from test_plan.py)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.hook_probe import parse_hook_probe


# ---- the Linux hook probe --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, method", [
    ("systemd-networkd running\nnetworkd-dispatcher running\nNetworkManager\nifupdown no\n", "networkd-dispatcher"),
    ("systemd-networkd running\nnetworkd-dispatcher dead\nNetworkManager\nifupdown yes\n", None),   # networkd, no dispatcher
    ("systemd-networkd dead\nnetworkd-dispatcher\nNetworkManager running\nifupdown yes\n", "networkmanager"),
    ("systemd-networkd dead\nnetworkd-dispatcher\nNetworkManager dead\nifupdown yes\n", "ifupdown"),
    ("systemd-networkd \nnetworkd-dispatcher \nNetworkManager \nifupdown yes\n", "ifupdown"),             # no systemd at all
    ("systemd-networkd dead\nnetworkd-dispatcher\nNetworkManager dead\nifupdown no\n", None),
])
def test_hook_probe(text, method):
    got = parse_hook_probe(text)
    assert got["method"] == method and got["reason"]


@pytest.mark.parametrize("text, message", [
    ("systemd-networkd running\n", "no networkd-dispatcher, NetworkManager, ifupdown line"),
    ("systemd-networkd running\nnetworkd-dispatcher running\nNetworkManager\nifupdown maybe\n", "line 4"),
    ("hello\n", "line 1"),
])
def test_hook_probe_refuses(text, message):
    with pytest.raises(ParseError, match=message):
        parse_hook_probe(text)


@pytest.mark.parametrize("text, method, reason", [
    ("systemd-networkd running\r\nnetworkd-dispatcher running\r\n\r\nNetworkManager\r\nifupdown no\r\n", "networkd-dispatcher",
     "systemd-networkd and networkd-dispatcher run"),
    ("ifupdown no\nNetworkManager running\nnetworkd-dispatcher running\nsystemd-networkd dead\n", "networkmanager",
     "NetworkManager runs"),
    ("systemd-networkd running\nnetworkd-dispatcher exited\nNetworkManager running\nifupdown yes\n", None,
     "systemd-networkd runs without networkd-dispatcher, which would re-apply the setting when the NIC comes up: install "
     "networkd-dispatcher"),
    ("systemd-networkd\nnetworkd-dispatcher running\nNetworkManager\nifupdown yes", "ifupdown", "ifupdown brings the network up"),
    ("systemd-networkd dead\nnetworkd-dispatcher running\nNetworkManager dead\nifupdown no\n", None,
     "neither systemd-networkd with networkd-dispatcher, NetworkManager nor ifupdown brings the network up here"),
    # the last line of a unit counts
    ("systemd-networkd running\nsystemd-networkd dead\nnetworkd-dispatcher\nNetworkManager running\nifupdown no\n",
     "networkmanager", "NetworkManager runs"),
])
def test_hook_probe_word_for_word(text, method, reason):
    assert parse_hook_probe(text) == {"method": method, "reason": reason}


@pytest.mark.parametrize("text, message", [
    (None, "^hook probe output must be text, got NoneType$"),
    (b"ifupdown yes\n", "^hook probe output must be text, got bytes$"),
    ("", r"^hook probe: no systemd-networkd, networkd-dispatcher, NetworkManager, ifupdown line \(output cut short\?\)$"),
    ("systemd-networkd running extra\n", r"^hook probe line 1: expected 'UNIT SUBSTATE' \(systemd-networkd, "
                                         r"networkd-dispatcher, NetworkManager\) or 'ifupdown yes\|no', got "
                                         r"'systemd-networkd running extra'$"),
    ("\nifupdown\n", "^hook probe line 2: "),
    ("ifupdown yes no\n", "^hook probe line 1: "),
    ("ifupdown yes\r\nhello\r\n", "^hook probe line 2: .* got 'hello'$"),     # CRLF: the line quoted without its CR
    ("x" * 300, "got '%s'$" % ("x" * 200)),
    ("systemd-networkd running\nnetworkd-dispatcher running\nNetworkManager\n", r"^hook probe: no ifupdown line"),
])
def test_hook_probe_refuses_word_for_word(text, message):
    with pytest.raises(ParseError, match=message):
        parse_hook_probe(text)
