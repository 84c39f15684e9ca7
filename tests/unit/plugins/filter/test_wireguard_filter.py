# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The uci_wireguard_keepalive_targets filter: input checks, CRLF, error translation."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.wireguard import FilterModule

TARGETS = FilterModule().filters()["uci_wireguard_keepalive_targets"]
E = "E" * 43 + "="


@pytest.mark.parametrize("crlf", [False, True])
def test_case11(load_fixture, crlf):
    text = load_fixture("uci_show", "case11_network_wg.txt")
    if crlf:
        text = text.replace("\n", "\r\n")
    assert [(t["ref"], t["public_key"]) for t in TARGETS(text, ["wg0"], [])] == [("dc", E)]


ERRORS = [
    (None, None, None, "expects the text of uci show, got NoneType"),
    ("", "wg0", None, "interfaces must be a list of strings, got 'wg0'"),
    ("", None, [1], "public_keys must be a list of strings"),
    ("", ["wg0"], None, "no uci interface with proto 'wireguard' named wg0"),
    ("not uci\n", None, None, "line 1: expected config.section[.option]=value"),
]


@pytest.mark.parametrize("text, interfaces, public_keys, message", ERRORS)
def test_errors(text, interfaces, public_keys, message):
    with pytest.raises(AnsibleFilterError) as err:
        TARGETS(text, interfaces, public_keys)
    assert message in str(err.value)
