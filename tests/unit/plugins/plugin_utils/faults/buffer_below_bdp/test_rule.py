# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""buffer_below_bdp: the buffer's maximum against the bandwidth-delay product, both sides of the edge, with its exact evidence."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.buffer_below_bdp.rule import bdp_coverage, buffers_below_bdp
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import NO_HUB
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes


@pytest.mark.parametrize("wmem_max, fires", [(int(bdp_bytes(40e6, 50.0)) - 1, True), (int(bdp_bytes(40e6, 50.0)), False)])
def test_buffer_below_bdp_edge(wmem_max, fires):
    v = {"path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": 50.0}},
         "tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 %d" % wmem_max, "tcp_rmem": "4096 131072 %d" % (10 ** 9)}}}
    found = buffers_below_bdp("h", v, {})
    assert [evidence["sysctl"] for evidence, _text in found] == (["net.ipv4.tcp_wmem"] if fires else [])


def test_buffer_rule_needs_path_and_rtt():
    v = {"tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 1000"}}, "measurement": {"ping": {"rtt_avg_ms": 50.0}}}
    assert buffers_below_bdp("h", v, {}) == []


def test_the_buffer_finding_exact_evidence_and_cap():
    v = {"path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": None}, "iperf3": {"mean_rtt_ms": 50.0}},
         "tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 100000", "tcp_rmem": "4096 131072 200000"}}}
    found = buffers_below_bdp("h", v, {})
    assert [evidence for evidence, _text in found] == [
        {"sysctl": "net.ipv4.tcp_wmem", "max_bytes": 100000, "bdp_bytes": 250000.0, "path_bits_per_second": 40e6, "rtt_ms": 50.0},
        {"sysctl": "net.ipv4.tcp_rmem", "max_bytes": 200000, "bdp_bytes": 250000.0, "path_bits_per_second": 40e6, "rtt_ms": 50.0}]
    text = " ".join(found[0][1].split())
    assert "allows at most 100000 bytes per socket, below the 250000 bytes" in text
    assert "fill 40.0 Mbit/s at 50 ms; one flow is capped near 16.0 Mbit/s" in text


@pytest.mark.parametrize("value", ["4096 16384", "4096 16384 lots", "", None])
def test_a_buffer_that_is_not_three_numbers_is_no_finding(value):
    v = {"path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": 50.0}}, "tunnelfix": {"tcp": {"tcp_wmem": value}}}
    assert buffers_below_bdp("h", v, {}) == []


def test_the_explanation_of_a_fast_short_path():
    """100 Gbit/s at 1 ms: 12.5 MB in flight; a 12 MB maximum caps one flow at 96 Gbit/s (the numbers to the tenth)."""
    v = {"path_bits_per_second": 1e11, "measurement": {"ping": {"rtt_avg_ms": 1.0}},
         "tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 12000000", "tcp_rmem": "4096 131072 12500000"}}}
    found = buffers_below_bdp("h", v, {})
    assert [evidence["max_bytes"] for evidence, _text in found] == [12000000]
    text = " ".join(found[0][1].split())
    assert text == ("net.ipv4.tcp_wmem allows at most 12000000 bytes per socket, below the 12500000 bytes a flow needs in "
                    "flight to fill 100000.0 Mbit/s at 1 ms; one flow is capped near 96000.0 Mbit/s.")


def test_the_ping_rtt_goes_before_iperf3s():
    v = {"path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": 10.0}, "iperf3": {"mean_rtt_ms": 50.0}},
         "tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 100000"}}}
    assert [evidence["rtt_ms"] for evidence, _text in buffers_below_bdp("h", v, {})] == []      # 100000 >= 50000 at 10 ms
    v["measurement"]["ping"]["rtt_avg_ms"] = 30.0
    assert [(evidence["rtt_ms"], evidence["bdp_bytes"]) for evidence, _text in buffers_below_bdp("h", v, {})] == [(30.0, 150000.0)]


TCP = {"tcp_wmem": "4096 16384 4194304", "tcp_rmem": "4096 131072 6291456"}


@pytest.mark.parametrize("view, expected", [
    ({"groups": ["tunnelfix_openwrt"], "openwrt": {}}, ("not_checked", "the TCP stack was not read (openwrt_facts does not read it)")),
    ({"groups": ["linux"], "tunnelfix": {"tcp": {}}}, ("not_checked", "the TCP stack was not read")),
    ({"tunnelfix": {"tcp": TCP}}, ("not_checked", "the path's rate is unknown (tunnelfix_path_bits_per_second)")),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 0}, ("not_checked", "the path's rate is unknown (tunnelfix_path_bits_per_second)")),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 40e6},
     ("not_checked", "no RTT was measured on this host in this run")),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": None}, "iperf3": {}}},
     ("not_checked", "no RTT was measured on this host in this run")),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 40e6, "groups": ["tunnelfix_wireguard_peers"]}, ("not_checked", NO_HUB)),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": 20.0}}}, None),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 40e6, "measurement": {"iperf3": {"mean_rtt_ms": 20.0}}}, None),
    ({"tunnelfix": {"tcp": TCP}, "path_bits_per_second": 40e6, "measurement": {"ping": {}, "iperf3": {"mean_rtt_ms": 20.0}}}, None),
])
def test_coverage(view, expected):
    """Judged with the TCP buffers, the path's rate and an RTT (ping's, else iperf3's); else which one is missing."""
    assert bdp_coverage("h", view, {}) == expected
