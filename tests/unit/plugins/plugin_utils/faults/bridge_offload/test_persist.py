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


@pytest.mark.parametrize("text, message", [
    (None, "persist probe output must be text, got NoneType"),
    ("ifupdown maybe\nnetworkd dead\n", "line 1: expected 'ifupdown yes|no'"),
    ("ifupdown no\nnetworkd dead\nunit u enabled\n", "line 3: expected"),
    ("ifupdown no\n", "persist probe: no 'networkd' line"),
    ("", "no 'ifupdown' and no 'networkd' line"),
])
def test_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_persist_probe(text)
