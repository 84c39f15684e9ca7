# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_ethtool_features, offload_changes, classify_ethtool_k_error."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import (
    classify_ethtool_k_error,
    offload_changes,
    parse_ethtool_features,
)

ON = {"enabled": True, "fixed": False, "requested": True}
OFF = {"enabled": False, "fixed": False, "requested": False}
OFF_FIXED = {"enabled": False, "fixed": True, "requested": None}
OFF_REQUESTED_ON = {"enabled": False, "fixed": False, "requested": True}

FEATURE_CASES = [
    # (command, fixture, interface, feature count, {feature: expected})
    ("ethtool_k", "case12_br-lan_before.txt", "br-lan", 30, {
        "rx-checksumming": OFF_FIXED, "tcp-segmentation-offload": ON, "tx-tcp-segmentation": ON,
        "generic-segmentation-offload": ON, "generic-receive-offload": ON, "netns-local":
        {"enabled": True, "fixed": True, "requested": None}, "rx-gro-list": OFF}),
    ("ethtool_k", "case12_lan1_port.txt", "lan1", 18, {
        "tx-tcp-ecn-segmentation": OFF_FIXED, "tx-tcp-mangleid-segmentation": OFF, "tx-checksum-ipv4": ON}),
    ("ethtool_k", "netns_bridge.txt", "br-lan", 63, {
        "tcp-segmentation-offload": ON, "tx-gso-robust": OFF_REQUESTED_ON, "tx-fcoe-segmentation": OFF_REQUESTED_ON,
        "tx-udp_tnl-segmentation": ON, "hsr-dup-offload": OFF_FIXED}),
    ("ethtool_k", "netns_veth_port.txt", "lan1", 63, {"generic-receive-offload": OFF, "tx-checksum-sctp": ON}),
    ("ethtool_k", "netns_tun_mtu1280.txt", "tailscale0", 63, {
        "tcp-segmentation-offload": OFF, "tx-tcp-segmentation": OFF_REQUESTED_ON,
        "tx-checksum-ip-generic": OFF_REQUESTED_ON, "generic-receive-offload": ON}),
    ("ethtool_k", "netns_bridge_after_tso_gso_gro_off.txt", "br-lan", 63, {
        "tcp-segmentation-offload": OFF, "tx-tcp6-segmentation": OFF, "generic-segmentation-offload": OFF,
        "generic-receive-offload": OFF, "rx-checksumming": OFF_FIXED}),
    # stdout of a refused `ethtool -K tailscale0 tso on`
    ("ethtool_K", "netns_tun_tso_on.txt", None, 5, {"tx-tcp-segmentation": OFF_REQUESTED_ON}),
    ("ethtool_K", "netns_fixed_feature.txt", None, 1, {"tx-checksum-ipv4": OFF_REQUESTED_ON}),
]


@pytest.mark.parametrize("command, case, interface, count, expected", FEATURE_CASES)
def test_parse_ethtool_features(load_fixture, command, case, interface, count, expected):
    parsed = parse_ethtool_features(load_fixture(command, case))
    assert parsed["interface"] == interface
    assert len(parsed["features"]) == count
    assert {name: parsed["features"].get(name) for name in expected} == expected


@pytest.mark.parametrize("text, name, expected", [
    # tags ethtool prints that the recordings above do not show
    ("Features for eth0:\nrx-vlan-filter: on [requested off]\n", "rx-vlan-filter",
     {"enabled": True, "fixed": False, "requested": False}),
    ("Actual changes:\ntx-checksum-ipv4: on [not requested]\n", "tx-checksum-ipv4",
     {"enabled": True, "fixed": False, "requested": None}),
    ("Offload parameters for eth0:\nrx-vlan-filter: off\n", "rx-vlan-filter",
     {"enabled": False, "fixed": False, "requested": False}),
])
def test_parse_ethtool_features_tags(text, name, expected):
    assert parse_ethtool_features(text)["features"] == {name: expected}


@pytest.mark.parametrize("text, message", [
    ("Features for br-lan:\ntcp-segmentation-offload: maybe\n", "line 2: expected 'feature: on|off"),
    ("Features for br-lan:\ngso: on [sometimes]\n", "line 2: expected"),
    ("Features for br-lan:\n", "printed no features"),
    ("", "printed no features"),
    ("netlink error: no device matches name (offset 24)\n", "line 1: expected"),
    (None, "must be text, got NoneType"),
])
def test_parse_ethtool_features_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ethtool_features(text)


CHANGE_CASES = [
    # (fixture, wanted_off or None for the default, expected)
    ("case12_br-lan_before.txt", None, {
        "to_change": ["generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"],
        "skipped_fixed": [], "already_off": []}),
    ("case12_lan1_port.txt", ("tso", "gso", "gro", "tx-tcp-ecn-segmentation"), {
        "to_change": ["tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload"],
        "skipped_fixed": [], "already_off": ["tx-tcp-ecn-segmentation"]}),
    ("case12_br-lan_before.txt", ("tso", "netns-local", "lro", "tcp-segmentation-offload"), {
        "to_change": ["tcp-segmentation-offload"], "skipped_fixed": ["netns-local"],
        "already_off": ["large-receive-offload"]}),
    ("netns_veth_port.txt", ("gso", "tso", "gro"), {
        "to_change": ["generic-segmentation-offload", "tcp-segmentation-offload"], "skipped_fixed": [],
        "already_off": ["generic-receive-offload"]}),
    ("netns_tun_mtu1280.txt", ("tso", "gso", "gro", "highdma"), {
        "to_change": ["generic-segmentation-offload", "generic-receive-offload"], "skipped_fixed": [],
        "already_off": ["tcp-segmentation-offload", "highdma"]}),
    ("netns_bridge_after_tso_gso_gro_off.txt", None, {
        "to_change": [], "skipped_fixed": [],
        "already_off": ["generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"]}),
]


@pytest.mark.parametrize("case, wanted, expected", CHANGE_CASES)
def test_offload_changes(load_fixture, case, wanted, expected):
    features = parse_ethtool_features(load_fixture("ethtool_k", case))["features"]
    result = offload_changes(features) if wanted is None else offload_changes(features, wanted)
    assert result == expected


@pytest.mark.parametrize("wanted, message", [
    (("tso", "gso-offload"), "'gso-offload' is not in the ethtool -k output"),
    (("ufo",), "'ufo' is not in the ethtool -k output .*known short names: gro, gso"),
])
def test_offload_changes_unknown_feature(load_fixture, wanted, message):
    features = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    with pytest.raises(ParseError, match=message):
        offload_changes(features, wanted)


ERROR_CASES = [
    # (fixture, reason, message)
    ("case12_fixed.txt", "fixed", "Could not change any device features"),
    ("netns_fixed_feature.txt", "fixed", "Could not change any device features"),
    ("netns_tun_tso_on.txt", "fixed", "Could not change any device features"),
    ("netns_unknown_feature.txt", "unknown_feature", "netlink error: bit name not found (offset 56)"),
    ("netns_no_device.txt", "no_device", "netlink error: no device matches name (offset 24)"),
]


@pytest.mark.parametrize("case, reason, message", ERROR_CASES)
def test_classify_ethtool_k_error(load_fixture, case, reason, message):
    assert classify_ethtool_k_error(load_fixture("ethtool_K_stderr", case)) == {"reason": reason, "message": message}


@pytest.mark.parametrize("stderr, expected", [
    ("Cannot set device feature settings: Operation not permitted\n",
     {"reason": "permission_denied", "message": "Cannot set device feature settings: Operation not permitted"}),
    ("netlink error: Operation not supported\n",
     {"reason": "unsupported", "message": "netlink error: Operation not supported"}),
    ("something new\nand more\n", {"reason": "unknown", "message": "something new"}),
    ("", {"reason": "unknown", "message": None}),
])
def test_classify_ethtool_k_error_other(stderr, expected):
    assert classify_ethtool_k_error(stderr) == expected


def test_classify_ethtool_k_error_not_text():
    with pytest.raises(ParseError, match="must be text, got bytes"):
        classify_ethtool_k_error(b"Could not change any device features")


@pytest.mark.parametrize("function", [parse_ethtool_features, classify_ethtool_k_error])
def test_non_text_is_refused_naming_its_type(function):
    with pytest.raises(ParseError) as err:
        function(b"Features for br-lan:\n")
    assert re.search(r"(?<!\w)bytes(?!\w)", str(err.value))


def test_blank_lines_between_features_are_skipped():
    parsed = parse_ethtool_features("Features for br-lan:\nrx-checksumming: off [fixed]\n\ntcp-segmentation-offload: on\n")
    assert parsed == {"interface": "br-lan", "features": {
        "rx-checksumming": {"enabled": False, "fixed": True, "requested": None},
        "tcp-segmentation-offload": ON}}


def test_a_name_asked_twice_is_listed_once_and_the_rest_still_sorted(load_fixture):
    features = parse_ethtool_features(load_fixture("ethtool_k", "case12_lan1_port.txt"))["features"]
    result = offload_changes(features, ("gso", "generic-segmentation-offload", "tso", "gro"))
    assert result["to_change"] == ["generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"]
