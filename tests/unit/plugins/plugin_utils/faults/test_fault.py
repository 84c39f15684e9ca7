# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""faults/fault.py's shared helpers: the coverage answers, who is a router or a peer without a hub, what verify needs
to re-check a finding, and how a role variable reads (Ansible's ``bool``, a default, a list, a whole number)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    NO_HUB, Fault, Proof, does_not_apply, is_router, is_true, name_list, needs_own, not_checked, one_paragraph, partly,
    role_setting, unmeasured, whole_number, wireguard_interfaces)


def test_the_coverage_answers():
    assert does_not_apply("banIP is not installed") == ("clear", "does not apply: banIP is not installed")
    assert partly("the IPv6 routes") == ("clear", "judged without the IPv6 routes")
    assert not_checked("no RTT was measured") == ("not_checked", "no RTT was measured")


@pytest.mark.parametrize("view, expected", [
    ({"groups": ["tunnelfix_wireguard_peers"]}, NO_HUB),                                 # a peer, no hub named
    ({"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": ""}, NO_HUB),
    ({"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "hub1"}, "no ping ran"),   # a peer with its hub
    ({"groups": ["tunnelfix_wireguard_hubs"]}, "no ping ran"),                        # not a peer
    ({"groups": None}, "no ping ran"),
    ({}, "no ping ran"),
])
def test_unmeasured_names_the_missing_hub_only_for_a_peer_without_one(view, expected):
    assert unmeasured(view, "no ping ran") == expected


@pytest.mark.parametrize("view, expected", [
    ({"groups": ["tunnelfix_openwrt"]}, True),
    ({"groups": ["linux"], "openwrt": {}}, True),             # openwrt_facts read it, even an empty subset
    ({"groups": ["linux"], "openwrt": None}, False),
    ({"groups": ["linux"]}, False),
    ({"groups": None}, False),
    ({}, False),
])
def test_is_router(view, expected):
    assert is_router(view) is expected


def test_the_default_recheck_needs_only_the_host_read_again():
    fault = Fault(id="x", number=None, title="x", severity="low", reads=(), rule=lambda host, view, views: [], symptom="",
                  fix="", proof=Proof(how=""), files=())
    assert fault.rechecked("a", {}, {"a": {}}) is True
    assert fault.rechecked("a", {}, {"b": {}}) is False


@pytest.mark.parametrize("views, expected", [
    ({"a": {"measurement": {"ping": {}}, "path_mtu": {"mtu": 1420}}}, True),
    ({"a": {"measurement": {"ping": {}}, "path_mtu": None}}, False),           # one of the keys not taken
    ({"a": {"measurement": {}}}, False),
    ({"b": {"measurement": {}, "path_mtu": {}}}, False),                      # the host not read again
    ({}, False),
])
def test_needs_own_needs_the_host_and_every_key(views, expected):
    assert needs_own("measurement", "path_mtu")("a", {}, views) is expected


def test_needs_own_says_what_it_needs():
    assert needs_own("measurement", "path_mtu").__doc__ == (
        "Re-checked when verify read the host again and took its measurement, path_mtu.")


@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), ("true", True), ("True", True), (" YES ", True), ("on", True), ("1", True), (1, True),
    ("y", True), ("T", True), ("false", False), ("no", False), ("off", False), ("0", False), (0, False), ("", False),
    (None, False), ("enable", False),
])
def test_is_true_reads_a_variable_as_ansibles_bool(value, expected):
    assert is_true(value) is expected


@pytest.mark.parametrize("role_vars, expected", [
    ({"opt": 5}, 5), ({"opt": 0}, 0), ({"opt": False}, False), ({"opt": ""}, ""),   # set: whatever it is
    ({"opt": None}, 25), ({}, 25), (None, 25),                                        # unset: the role's default
])
def test_role_setting_takes_the_default_only_when_unset(role_vars, expected):
    assert role_setting(role_vars, "opt", {"opt": 25}) == expected


@pytest.mark.parametrize("value, expected", [
    ("wg0, wg1,,", ["wg0", "wg1"]), ("wg0", ["wg0"]), ("", []), (" , ", []),
    (["wg0", 7], ["wg0", "7"]), ([], []), (None, []),
])
def test_name_list(value, expected):
    assert name_list(value) == expected


@pytest.mark.parametrize("value, expected", [
    (25, 25), ("25", 25), (" 25 ", 25), (0, 0), (True, None), ("2.5", None), ("-1", None), ("", None), (None, None),
    (2.0, None),
])
def test_whole_number(value, expected):
    assert whole_number(value) == expected


def test_one_paragraph():
    assert one_paragraph("""
        A finding,
          folded.  """) == "A finding, folded."


@pytest.mark.parametrize("facts, expected", [
    ({"wireguard": {"interfaces": {"wg0": {"peers": []}}}}, {"wg0": {"peers": []}}),
    ({"wireguard": {"interfaces": None}}, {}), ({"wireguard": None}, {}), ({}, {}), (None, {}),
])
def test_wireguard_interfaces(facts, expected):
    assert wireguard_interfaces(facts) == expected
