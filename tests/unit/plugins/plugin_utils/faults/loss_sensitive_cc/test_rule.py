# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3: the Mathis bound's slack and path share, the queueing bound: both sides of each edge (the buffers: buffer_below_bdp/)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes, mathis_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.rule import (
    BOUND_SLACK, DEFAULT_MSS_BYTES, PATH_SHARE, held_back_by_loss, loss_limited_bound, queue_building)

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


# The hub's finding: its peers' sweeps show the download direction (the hub sends) held back.
def sweep(download_bps=2e6, cc="cubic", loss_percent=0.1, upload_rtt=None, offered=5e6):
    results = [{"name": "tcp_single_download", "valid": True, "bits_per_second": download_bps, "congestion_control": cc},
               {"name": "udp_5M_download", "valid": True, "protocol": "udp", "direction": "download",
                "lost_percent": loss_percent, "offered_bits_per_second": offered}]
    if upload_rtt is not None:
        results.append({"name": "tcp_single_upload", "valid": True, "mean_rtt_ms": upload_rtt})
    return {"results": results}


def hub_views(peers, hub_cc="cubic"):
    views = {"hub": {"groups": ["tunnelfix_wireguard_hubs"], "tunnelfix": {"tcp": {"congestion_control": hub_cc}}}}
    for name, (peer_sweep, ping_rtt, iperf3_rtt, hub) in peers.items():
        views[name] = {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": hub, "path_bits_per_second": 100e6,
                       "sweep": peer_sweep, "measurement": {"ping": {"rtt_avg_ms": ping_rtt}, "iperf3": {"mean_rtt_ms": iperf3_rtt}}}
    return views


def hub_finding(views):
    return held_back_by_loss("hub", views["hub"], views)


def test_the_hub_finding_names_every_held_back_peer_and_the_worst_ones_numbers():
    views = hub_views({"a": (sweep(download_bps=3e6), 100.0, None, "hub"), "b": (sweep(download_bps=2e6), 100.0, None, "hub"),
                       "c": (None, 100.0, None, "hub"), "d": (sweep(), 100.0, None, "other-hub")})
    [(evidence, text)] = hub_finding(views)
    bound = mathis_bits_per_second(DEFAULT_MSS_BYTES, 100.0, 0.001)
    assert evidence == {"peer": "b", "congestion_control": "cubic", "measured_bits_per_second": 2e6, "path_bits_per_second": 100e6,
                        "rtt_ms": 100.0, "udp_loss_ratio": 0.001, "udp_test": "udp_5M_download",
                        "udp_offered_bits_per_second": 5e6, "mathis_bits_per_second": pytest.approx(bound),
                        "bdp_bytes": bdp_bytes(100e6, 100.0), "direction": "download", "peers": ["a", "b"]}
    text = " ".join(text.split())
    assert "This hub sends to a, b with cubic" in text and "hub -> b reached 2.0 Mbit/s of a 100.0 Mbit/s path" in text
    assert "lost 0.10 % of UDP sent hub -> peer at 5.0 Mbit/s offered" in text and "the RTT is 100 ms" in text
    assert "such a flow is %.1f Mbit/s" % (bound / 1e6) in text


@pytest.mark.parametrize("ping_rtt, upload_rtt, iperf3_rtt, rtt", [
    (80.0, 90.0, 95.0, 80.0), (None, 90.0, 95.0, 90.0), (None, None, 95.0, 95.0)])
def test_the_hub_rule_takes_the_ping_rtt_else_the_upload_flows_else_the_single_flows(ping_rtt, upload_rtt, iperf3_rtt, rtt):
    views = hub_views({"p": (sweep(upload_rtt=upload_rtt), ping_rtt, iperf3_rtt, "hub")})
    [(evidence, _text)] = hub_finding(views)
    assert evidence["rtt_ms"] == rtt


@pytest.mark.parametrize("flow_cc, hub_cc, fires", [(None, "cubic", True), (None, "bbr", False), ("bbr", "cubic", False),
                                                    ("cubic", "bbr", True)])
def test_the_flows_own_congestion_control_else_the_hubs(flow_cc, hub_cc, fires):
    views = hub_views({"p": (sweep(cc=flow_cc), 100.0, None, "hub")}, hub_cc=hub_cc)
    assert bool(hub_finding(views)) is fires


@pytest.mark.parametrize("peer_sweep, why", [
    (sweep(loss_percent=0.0), "no UDP loss below the path: no bound"),
    (sweep(offered=100e6), "the UDP test at the path's rate says nothing of random loss"),
    (sweep(download_bps=50e6), "the flow got more than the slack allows"),
    (sweep(download_bps=0), "no flow"),
])
def test_hub_negatives(peer_sweep, why):
    assert hub_finding(hub_views({"p": (peer_sweep, 100.0, None, "hub")})) == [], why


def test_only_hubs_get_the_download_finding():
    views = hub_views({"p": (sweep(), 100.0, None, "hub")})
    views["hub"]["groups"] = ["tunnelfix_wireguard_peers"]
    assert hub_finding(views) == []


def test_the_single_flow_finding_exact_evidence_and_explanation():
    [(evidence, text)] = held_back_by_loss("peer", flow_view(), {})
    loss = 2 / (2e6 * 10 / 8 / DEFAULT_MSS_BYTES)
    bound = mathis_bits_per_second(DEFAULT_MSS_BYTES, RTT_MS, loss)
    assert evidence == {"congestion_control": "cubic", "measured_bits_per_second": 2e6, "path_bits_per_second": 1e9,
                        "rtt_ms": RTT_MS, "retransmits": 2, "loss_ratio_estimate": pytest.approx(loss),
                        "mathis_bits_per_second": pytest.approx(bound), "bdp_bytes": bdp_bytes(1e9, RTT_MS)}
    text = " ".join(text.split())
    assert "reached 2.0 Mbit/s of a 1000.0 Mbit/s path with cubic" in text
    assert "With 100 ms RTT and about %.3f %% loss (2 retransmits)" % (loss * 100) in text
    assert "the Mathis bound for such a flow is %.1f Mbit/s" % (bound / 1e6) in text


def test_the_congestion_control_from_the_tcp_facts_when_iperf3_does_not_say():
    v = flow_view(cc=None)
    assert held_back_by_loss("peer", v, {}) == []
    v["tunnelfix"] = {"tcp": {"congestion_control": "cubic"}}
    assert held_back_by_loss("peer", v, {}) != []
    v["tunnelfix"] = {"tcp": {"congestion_control": "bbr"}}
    assert held_back_by_loss("peer", v, {}) == []


def test_a_flow_not_marked_valid_counts_as_valid_and_loss_is_capped_at_one():
    v = flow_view()
    del v["measurement"]["iperf3"]["valid"]
    assert held_back_by_loss("peer", v, {}) != []
    v = flow_view(bps=1e5, retransmits=10 ** 6, path=1e12)
    [(evidence, _text)] = held_back_by_loss("peer", v, {})
    assert evidence["loss_ratio_estimate"] == 1.0
