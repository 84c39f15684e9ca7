# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_uci_bool and parse_uci_int: uci option values as config_get_bool and mwan3/banIP read them."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_bool, parse_uci_int


@pytest.mark.parametrize("value, expected", [
    ("1", True), ("yes", True), ("on", True), ("true", True), ("enabled", True), ("TRUE", True),
    ("0", False), ("no", False), ("off", False), ("false", False), ("disabled", False), ("Off", False),
    (None, None),
])
def test_parse_uci_bool(value, expected):
    assert parse_uci_bool(value) is expected


@pytest.mark.parametrize("value, message", [
    ("2", "banip.global.ban_enabled: expected a uci boolean .*, got '2'"),
    ("", "got ''"),
    (["1", "0"], "got \\['1', '0'\\]"),
    (1, "got 1"),
])
def test_parse_uci_bool_errors(value, message):
    with pytest.raises(ParseError, match=message):
        parse_uci_bool(value, "banip.global.ban_enabled")


@pytest.mark.parametrize("value, minimum, expected", [
    ("25", 0, 25), ("0", 0, 0), (" 7 ", 0, 7), ("-1", -1, -1), (None, 0, None), ("10000", 1, 10000),
])
def test_parse_uci_int(value, minimum, expected):
    assert parse_uci_int(value, "x", minimum) == expected


@pytest.mark.parametrize("value, minimum, message", [
    ("2s", 0, "mwan3.wan.interval: expected a whole number >= 0, got '2s'"),
    ("-1", 0, "got '-1'"),
    ("0", 1, ">= 1, got '0'"),
    ("", 0, "got ''"),
    (["1", "2"], 0, "got \\['1', '2'\\]"),
    (5, 0, "got 5"),
])
def test_parse_uci_int_errors(value, minimum, message):
    with pytest.raises(ParseError, match=message):
        parse_uci_int(value, "mwan3.wan.interval", minimum)
