# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3: the Mathis bound's slack and path share, the queueing bound, the BDP: both sides of each edge."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes, mathis_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_congestion_control import (
    BOUND_SLACK, DEFAULT_MSS_BYTES, PATH_SHARE, buffers_below_bdp, held_back_by_loss, loss_limited_bound, queue_building)

RTT_MS, LOSS = 100.0, 0.001
BOUND = mathis_bits_per_second(DEFAULT_MSS_BYTES, RTT_MS, LOSS)


@pytest.mark.parametrize("bps, path, held", [
    (BOUND * BOUND_SLACK * 0.999, BOUND / PATH_SHARE * 1.001, True),
    (BOUND * BOUND_SLACK, BOUND / PATH_SHARE * 1.001, False),       # got the slack's worth: not held back
    (BOUND * BOUND_SLACK * 0.999, BOUND / PATH_SHARE, False),        # the bound is half the path: the path limits
    (BOUND * 0.1, BOUND * 100, True),
])
def test_loss_limited_bound_edges(bps, path, held):
    got = loss_limited_bound(bps, path, RTT_MS, LOSS)
    assert (got == pytest.approx(BOUND)) if held else got is None


@pytest.mark.parametrize("idle, loaded, queue", [
    (20.0, 35.0, False), (20.0, 35.01, True), (None, 500.0, False), (20.0, None, False), (0, 50.0, False)])
def test_queue_building_edge(idle, loaded, queue):
    assert queue_building(idle, loaded) is queue


def flow_view(cc="cubic", bps=2e6, retransmits=2, duration=10, path=1e9, idle=RTT_MS, loaded=RTT_MS, valid=True):
    return {"groups": ["tunnelfix_wireguard_peers"], "path_bits_per_second": path,
            "measurement": {"ping": {"rtt_avg_ms": idle},
                            "iperf3": {"bits_per_second": bps, "retransmits": retransmits, "duration_s": duration,
                                       "sender_congestion_control": cc, "mean_rtt_ms": loaded, "valid": valid}}}


def test_a_cubic_flow_far_under_the_path_fires_with_the_bound():
    [(evidence, text)] = held_back_by_loss("peer", flow_view(), {})
    segments = 2e6 * 10 / 8 / DEFAULT_MSS_BYTES
    assert evidence["loss_ratio_estimate"] == pytest.approx(2 / segments)
    assert evidence["mathis_bits_per_second"] == pytest.approx(mathis_bits_per_second(DEFAULT_MSS_BYTES, RTT_MS, 2 / segments))
    assert evidence["bdp_bytes"] == bdp_bytes(1e9, RTT_MS) and "BBR" in text


@pytest.mark.parametrize("changes, why", [
    ({"cc": "bbr"}, "BBR is not loss-based"),
    ({"retransmits": 0}, "no loss: no bound"),
    ({"path": None}, "path unknown"),
    ({"valid": False}, "an invalid measurement never drives a fix"),
    ({"loaded": RTT_MS * 1.5 + 5.01}, "a queue built: a bottleneck, not random loss"),
    ({"bps": 0}, "no flow"),
])
def test_no_finding(changes, why):
    assert held_back_by_loss("peer", flow_view(**changes), {}) == [], why


def test_the_loaded_rtt_stands_in_for_a_lost_ping():
    assert held_back_by_loss("peer", flow_view(idle=None), {}) != []


@pytest.mark.parametrize("wmem_max, fires", [(int(bdp_bytes(40e6, 50.0)) - 1, True), (int(bdp_bytes(40e6, 50.0)), False)])
def test_buffer_below_bdp_edge(wmem_max, fires):
    v = {"path_bits_per_second": 40e6, "measurement": {"ping": {"rtt_avg_ms": 50.0}},
         "tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 %d" % wmem_max, "tcp_rmem": "4096 131072 %d" % (10 ** 9)}}}
    found = buffers_below_bdp("h", v, {})
    assert [evidence["sysctl"] for evidence, _text in found] == (["net.ipv4.tcp_wmem"] if fires else [])


def test_buffer_rule_needs_path_and_rtt():
    v = {"tunnelfix": {"tcp": {"tcp_wmem": "4096 16384 1000"}}, "measurement": {"ping": {"rtt_avg_ms": 50.0}}}
    assert buffers_below_bdp("h", v, {}) == []
