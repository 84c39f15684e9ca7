# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""is_interface_name, parse_brif_listing, bridge_devices, device_plan, offload_decision, ethtool_set_argv, command_lines,
describe_states."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.ethtool_plan import (
    bridge_devices, command_lines, describe_states, device_plan, ethtool_set_argv, is_interface_name, offload_decision,
    parse_brif_listing)
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
def test_device_plan(load_fixture, case, wanted, state, to_change, skipped, already, after):
    features = parse_ethtool_features(load_fixture("ethtool_k", case))["features"]
    plan = device_plan(features, wanted, state)
    assert (plan["to_change"], plan["skipped_fixed"], plan["already"]) == (to_change, skipped, already)
    assert plan["absent"] == []
    assert plan["after"] == after
    assert plan["before"] == {name: features[name]["enabled"] for name in after}


@pytest.mark.parametrize("wanted, state, absent, after", [
    # a name the device's ethtool -k does not list: nothing to set there, in either state
    (["ufo", "gso"], "off", ["udp-fragmentation-offload"], {GSO: False}),
    (["ufo"], "on", ["udp-fragmentation-offload"], {}),
    (["gso-offload", "gso-offload"], "off", ["gso-offload"], {}),
])
def test_device_plan_leaves_absent_features_alone(load_fixture, wanted, state, absent, after):
    features = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    plan = device_plan(features, wanted, state)
    assert (plan["absent"], plan["after"]) == (absent, after)
    assert plan["to_change"] + plan["skipped_fixed"] + plan["already"] == list(after)


def test_device_plan_refuses_an_unknown_state(load_fixture):
    features = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    with pytest.raises(ParseError, match="state must be one of off, on, got 'maybe'"):
        device_plan(features, ["gso"], "maybe")


@pytest.mark.parametrize("bridge, ports, expected", [
    ("br-lan", ["lan2", "lan1"], ["lan1", "lan2", "br-lan"]),
    ("br-lan", [], ["br-lan"]),
])
def test_bridge_devices_are_ports_first(bridge, ports, expected):
    assert bridge_devices(bridge, ports) == expected


def test_offload_decision_one_command_per_device_in_device_order(load_fixture):
    lan1 = parse_ethtool_features(load_fixture("ethtool_k", "netns_veth_port.txt"))["features"]
    bridge = parse_ethtool_features(load_fixture("ethtool_k", "netns_bridge.txt"))["features"]
    decision = offload_decision({"lan1": lan1, "br-lan": bridge}, ["gro", "tso", "ufo"], "off")
    assert command_lines(decision["commands"]) == ["ethtool -K lan1 tso off", "ethtool -K br-lan gro off tso off"]
    assert list(decision["plans"]) == ["lan1", "br-lan"]
    assert decision["plans"]["lan1"]["absent"] == ["udp-fragmentation-offload"]
    assert offload_decision({"lan1": lan1}, ["gro"], "off") == {"plans": {"lan1": device_plan(lan1, ["gro"])}, "commands": []}


@pytest.mark.parametrize("wanted, state, message", [
    # neither an ethtool short name (or its long form) nor listed by any device: a typo, not a missing feature
    (["gso-offload"], "off", "'gso-offload' is not in the ethtool -k output of lan1, br-lan"),
    (["gos"], "on", "'gos' is not in the ethtool -k output of lan1, br-lan"),
    (["gso"], "maybe", "state must be one of off, on, got 'maybe'"),
])
def test_offload_decision_errors(load_fixture, wanted, state, message):
    features = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    with pytest.raises(ParseError, match=message):
        offload_decision({"lan1": features, "br-lan": features}, wanted, state)


@pytest.mark.parametrize("wanted", [["ufo"], ["udp-fragmentation-offload"], ["netns-local"]])
def test_offload_decision_accepts_a_known_name_some_or_no_device_lists(load_fixture, wanted):
    lan1 = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    bridge = parse_ethtool_features(load_fixture("ethtool_k", "case12_br-lan_before.txt"))["features"]
    assert offload_decision({"lan1": lan1, "br-lan": bridge}, wanted, "off")["commands"] == []


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
