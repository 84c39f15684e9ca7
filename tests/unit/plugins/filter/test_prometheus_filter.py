# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The prometheus_textfile filter: same text as render_textfile, defaults, error translation."""

import time

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.prometheus import FilterModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.prometheus import render_textfile

TEXTFILE = FilterModule().filters()["prometheus_textfile"]
A = "A" * 43 + "="
WG = {"available": True, "interfaces": {"wg0": {"peers": [
    {"public_key": A, "latest_handshake_epoch": 1796041221, "persistent_keepalive_s": None}]}}}
RECORD = {"hub": "hub", "iperf3": {"valid": True, "bits_per_second": 35e6}}
FINDINGS = [{"id": "nat_peer_without_keepalive", "severity": "critical", "host": "peer"}]


@pytest.mark.parametrize("args, expected_lines", [
    ((), ['tunnelfix_wireguard_keepalive_enabled{interface="wg0",peer="%s"} 0' % A]),
    ((RECORD,), ['tunnelfix_tunnel_verified_bits_per_second{hub="hub",test="tcp_single_flow"} 35000000']),
    ((None, FINDINGS), ['tunnelfix_findings{id="nat_peer_without_keepalive",severity="critical"} 1']),
    ((RECORD, FINDINGS, 1796041300), ['tunnelfix_findings{id="nat_peer_without_keepalive",severity="critical"} 1',
                                      'tunnelfix_tunnel_verified_bits_per_second{hub="hub",test="tcp_single_flow"} 35000000']),
])
def test_same_text_as_the_renderer(args, expected_lines):
    full = (list(args) + [None, None, 0][len(args):])  # the handshake time is there: the clock does not matter
    text = TEXTFILE(WG, *args)
    assert text == render_textfile(WG, *full)
    assert all(line in text.splitlines() for line in expected_lines)


def test_the_floor_is_passed_on():
    text = TEXTFILE(WG, RECORD, None, None, "20M")
    assert 'tunnelfix_tunnel_floor_bits_per_second{hub="hub",test="tcp_single_flow"} 20000000' in text.splitlines()
    assert "tunnelfix_tunnel_floor_bits_per_second" not in TEXTFILE(WG, RECORD)


def test_the_clock_defaults_to_the_controllers():
    only_age = {"interfaces": {"wg0": {"peers": [{"public_key": A, "handshake_age_s": 100}]}}}
    before = int(time.time())
    text = TEXTFILE(only_age)
    after = int(time.time())
    stamp = int(next(line for line in text.splitlines()
                     if line.startswith("tunnelfix_wireguard_latest_handshake_timestamp_seconds")).split()[-1])
    assert before - 100 <= stamp <= after - 100


@pytest.mark.parametrize("args, message", [
    (("wg0",), "prometheus_textfile: wireguard_facts must be a dict, got str"),
    ((WG, "x"), "prometheus_textfile: measurement must be a dict, got str"),
    ((WG, None, [{"id": ""}]), "prometheus_textfile: findings[0].id must be a non-empty string"),
    ((WG, None, None, "now"), "prometheus_textfile: now_epoch_s must be a whole number of seconds >= 0"),
])
def test_errors_become_filter_errors(args, message):
    with pytest.raises(AnsibleFilterError) as err:
        TEXTFILE(*args)
    assert message in str(err.value)
