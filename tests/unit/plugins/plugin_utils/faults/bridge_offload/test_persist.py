# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge_gso_off persist probe (fixtures: bridge_persist_probe/)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.persist import parse_persist_probe
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

UNIT = "tunnelfix-bridge-offload@br0.service"


@pytest.mark.parametrize("case, method, networkd, units, ready", [
    ("lab_peer_no_unit.txt", "systemd", False, {UNIT: {"enabled": "-", "active": "inactive"}}, False),
    ("molecule_systemd_units_enabled.txt", "systemd", False,
     {"tunnelfix-bridge-offload@br-lan.service": {"enabled": "enabled", "active": "active"}}, True),
])
@pytest.mark.parametrize("crlf", [False, True])
def test_recorded(load_fixture, case, method, networkd, units, ready, crlf):
    text = load_fixture("bridge_persist_probe", case)
    probe = parse_persist_probe(text.replace("\n", "\r\n") if crlf else text)
    assert (probe["method"], probe["networkd_running"], probe["units"], probe["units_ready"]) == (method, networkd, units, ready)


@pytest.mark.parametrize("text, method, ready", [
    ("ifupdown yes\nnetworkd dead\n", "ifupdown", True),
    ("ifupdown yes\nnetworkd running\n", "systemd", True),
    ("ifupdown yes\nnetworkd\n", "ifupdown", True),  # no systemctl: empty substate
    ("ifupdown no\nnetworkd dead\nunit u enabled failed\n", "systemd", False),
])
def test_method(text, method, ready):
    probe = parse_persist_probe(text)
    assert (probe["method"], probe["units_ready"]) == (method, ready)


EXPECTED = "expected 'ifupdown yes|no', 'networkd SUBSTATE' or 'unit NAME ENABLED ACTIVE', got "


@pytest.mark.parametrize("text, message", [
    (None, "persist probe output must be text, got NoneType"),
    (b"ifupdown no\nnetworkd dead\n", "persist probe output must be text, got bytes"),
    ("ifupdown maybe\nnetworkd dead\n", "persist probe line 1: " + EXPECTED + "'ifupdown maybe'"),
    ("ifupdown no\nnetworkd dead\nunit u enabled\n", "persist probe line 3: " + EXPECTED + "'unit u enabled'"),
    # raw under a tty ends lines with CRLF: the line is quoted without its \r
    ("ifupdown no\r\nnetworkd dead\r\nunit u enabled\r\n", "persist probe line 3: " + EXPECTED + "'unit u enabled'"),
    ("ifupdown no\nnetworkd running degraded\n", "persist probe line 2: " + EXPECTED + "'networkd running degraded'"),
    # a line is quoted up to its 200th character
    ("ifupdown no\nnetworkd dead\nunit u enabled active " + "x" * 300 + "\n",
     "persist probe line 3: " + EXPECTED + repr("unit u enabled active " + "x" * 178)),
    ("ifupdown no\n", "persist probe: no 'networkd' line (output cut short?)"),
    ("networkd dead\n", "persist probe: no 'ifupdown' line (output cut short?)"),
    ("", "persist probe: no 'ifupdown' and no 'networkd' line (output cut short?)"),
])
def test_errors(text, message):
    with pytest.raises(ParseError) as error:
        parse_persist_probe(text)
    assert str(error.value) == message


def test_blank_lines_are_skipped():
    probe = parse_persist_probe("\nifupdown yes\n\n\nnetworkd dead\n\nunit u enabled active\n\n")
    assert probe == {"ifupdown": True, "networkd_running": False, "method": "ifupdown",
                     "units": {"u": {"enabled": "enabled", "active": "active"}}, "units_ready": True}
