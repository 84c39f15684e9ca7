# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Byte counters per device from ``ip -s -j link show`` (the uplinks' evidence of fault 1)."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.link_counters import parse_link_counters


def test_recorded_two_uplinks_after_traffic(load_fixture):
    counters = parse_link_counters(load_fixture("ip_s_j_link_show", "two_uplinks_after_traffic.txt"))
    assert list(counters) == ["lo", "eth1", "wwan0", "wg0p", "wg0", "br-lan", "lan1p", "lan1"]
    assert counters["eth1"] == {"rx_bytes": 1838, "tx_bytes": 1838}
    assert counters["wwan0"] == {"rx_bytes": 21468, "tx_bytes": 21468}
    assert counters["lo"] == {"rx_bytes": 0, "tx_bytes": 0}     # zero is a count, not unknown


def test_a_device_without_stats_is_unknown_not_zero():
    assert parse_link_counters('[{"ifindex": 2, "ifname": "eth1", "mtu": 1500}]') == {
        "eth1": {"rx_bytes": None, "tx_bytes": None}}


@pytest.mark.parametrize("text, expected", [("", {}), ("[]", {})])
def test_no_links(text, expected):
    assert parse_link_counters(text) == expected


def _one(rx):
    return json.dumps([{"ifname": "wwan0", "stats64": {"rx": {"bytes": rx}, "tx": {"bytes": 0}}}])


@pytest.mark.parametrize("text, message", [
    (None, "ip -s -j link show output must be text"),
    ("Usage: ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]\n", "ip -s -j link show output is not JSON"),
    ('{"ifname": "eth1"}', "must be a JSON list of links"),
    ('[{"mtu": 1500}]', "must be a JSON list of links with an 'ifname'"),
    (_one(-1), "wwan0 rx bytes: a byte counter must be a whole number >= 0, got -1"),
    (_one("12"), "wwan0 rx bytes: a byte counter must be a whole number >= 0, got '12'"),
    (_one(True), "got True"),
    (_one(1.5), "got 1.5"),
])
def test_what_cannot_be_a_counter_is_named(text, message):
    with pytest.raises(ParseError, match=message.replace("[", r"\[").replace("|", r"\|").replace("(", r"\(")):
        parse_link_counters(text)


def test_the_busybox_usage_is_not_a_listing(load_fixture):
    with pytest.raises(ParseError, match="is not JSON"):
        parse_link_counters(load_fixture("ip_s_j_link_show_stderr", "busybox_ip.txt"))


@pytest.mark.parametrize("text", ["[" * 100000, '[{"ifname": "eth1", "stats64": {"rx": {"bytes": %s}}}]' % ("9" * 5000)],
                         ids=["deep", "5000_digits"])
def test_hostile_json_is_a_parse_error_naming_the_command(text):
    """Issue 30.10: never RecursionError or a bare ValueError (more than 4300 digits)."""
    with pytest.raises(ParseError, match=r"^ip -s -j link show output (is JSON nested|holds a value that cannot be read)"):
        parse_link_counters(text)


@pytest.mark.parametrize("stats, message", [
    ({"rx": {"bytes": -1}, "tx": {"bytes": 0}}, "eth1 rx bytes: a byte counter must be a whole number >= 0, got -1"),
    ({"rx": {"bytes": 0}, "tx": {"bytes": True}}, "eth1 tx bytes: a byte counter must be a whole number >= 0, got True"),
])
def test_the_exact_error_names_the_device_and_direction(stats, message):
    with pytest.raises(ParseError) as error:
        parse_link_counters(json.dumps([{"ifname": "eth1", "stats64": stats}]))
    assert str(error.value) == message
