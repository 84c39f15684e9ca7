# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""is_interface_name, parse_brif_listing, offload_plan, ethtool_set_argv, describe_states."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.ethtool_plan import (
    describe_states, ethtool_set_argv, is_interface_name, offload_plan, parse_brif_listing)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features

GSO, TSO, GRO = "generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"


@pytest.mark.parametrize("name, expected", [
    ("br-lan", True), ("eth0.2", True), ("wlan0-1", True), ("a" * 15, True),
    ("a" * 16, False), ("", False), ("br/lan", False), ("br lan", False), ("..", False), (None, False), (3, False),
])
def test_is_interface_name(name, expected):
    assert is_interface_name(name) is expected


@pytest.mark.parametrize("text, expected", [
    ("lan1\nlan2\n", ["lan1", "lan2"]),
    ("wlan0\nlan1\n", ["lan1", "wlan0"]),
    ("", []),
    ("\n", []),
])
def test_parse_brif_listing(text, expected):
    assert parse_brif_listing(text) == expected


@pytest.mark.parametrize("text, message", [
    ("lan1\nls: cannot access 'x': No such file\n", "line 2: expected an interface name"),
    (None, "must be text, got NoneType"),
])
def test_parse_brif_listing_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_brif_listing(text)


PLAN_CASES = [
    # (fixture, wanted, state, to_change, skipped_fixed, already, after)
    ("case12_br-lan_before.txt", ["gso", "tso", "gro"], "off", [GSO, TSO, GRO], [], [],
     {GSO: False, TSO: False, GRO: False}),
    ("netns_veth_port.txt", ["gso", "tso", "gro"], "off", [GSO, TSO], [], [GRO], {GSO: False, TSO: False, GRO: False}),
    ("netns_bridge_after_tso_gso_gro_off.txt", ["gso", "tso", "gro"], "off", [], [], [GSO, TSO, GRO],
     {GSO: False, TSO: False, GRO: False}),
    ("netns_bridge_after_tso_gso_gro_off.txt", ["tso", "gro"], "on", [TSO, GRO], [], [], {TSO: True, GRO: True}),
    ("case12_br-lan_before.txt", ["netns-local", "gso"], "off", [GSO], ["netns-local"], [],
     {"netns-local": True, GSO: False}),
    ("case12_br-lan_before.txt", ["lro", "gso"], "on", [], ["large-receive-offload"], [GSO],
     {"large-receive-offload": False, GSO: True}),
]


@pytest.mark.parametrize("case, wanted, state, to_change, skipped, already, after", PLAN_CASES)
def test_offload_plan(load_fixture, case, wanted, state, to_change, skipped, already, after):
    features = parse_ethtool_features(load_fixture("ethtool_k", case))["features"]
    plan = offload_plan(features, wanted, state)
    assert (plan["to_change"], plan["skipped_fixed"], plan["already"]) == (to_change, skipped, already)
    assert plan["after"] == after
    assert plan["before"] == {name: features[name]["enabled"] for name in after}


@pytest.mark.parametrize("wanted, state, message", [
    (["gso-offload"], "off", "'gso-offload' is not in the ethtool -k output"),
    (["ufo"], "on", "'ufo' is not in the ethtool -k output"),
    (["gso"], "maybe", "state must be one of off, on, got 'maybe'"),
])
def test_offload_plan_errors(load_fixture, wanted, state, message):
    features = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    with pytest.raises(ParseError, match=message):
        offload_plan(features, wanted, state)


@pytest.mark.parametrize("device, names, state, expected", [
    ("br-lan", [GSO, TSO, GRO], "off", ["ethtool", "-K", "br-lan", "gso", "off", "tso", "off", "gro", "off"]),
    ("lan1", ["rx-gro-list"], "on", ["ethtool", "-K", "lan1", "rx-gro-list", "on"]),
    ("lan1", [], "off", ["ethtool", "-K", "lan1"]),
])
def test_ethtool_set_argv(device, names, state, expected):
    assert ethtool_set_argv(device, names, state) == expected


@pytest.mark.parametrize("states, expected", [
    ({"lan1": {GSO: True}, "br-lan": {GSO: False, TSO: True}},
     "lan1 %s: on\nbr-lan %s: off\nbr-lan %s: on\n" % (GSO, GSO, TSO)),
    ({}, ""),
])
def test_describe_states(states, expected):
    assert describe_states(states) == expected
