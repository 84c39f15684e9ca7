# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3's rule: a loss-based congestion control (cubic) held back on a long, slightly lossy path.

Mathis et al. 1997: a loss-based TCP flow reaches at most about C * MSS / (RTT * sqrt(p)), with
C = sqrt(3/2) (plugin_utils/parse/tcp_model.py). On a long path with a little random loss
that is far below the path's rate (in the field 27.9 Mbit/s with cubic, 394 Mbit/s with BBR).
Judged from a peer's single flow (peer -> hub) or from its sweep's download flow (hub -> peer: the
hub is the sender); ``buffer_below_bdp`` (faults/buffer_below_bdp/) shares the fix, from the TCP facts.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes, mathis_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, needs_own, not_checked, partly, unmeasured
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_number

LOSS_BASED_CC = ("cubic", "reno", "htcp", "bic", "highspeed", "scalable", "westwood", "illinois")
# A 1420-byte WireGuard MTU leaves 1368 bytes of TCP payload (IPv4, timestamps on): Mathis' MSS.
DEFAULT_MSS_BYTES = 1368
# The rule fires when the flow got no more than the bound times this slack (the estimate is rough) ...
BOUND_SLACK = 1.5
# ... and only where the bound is below this share of the path (else the path, not the loss, limits).
PATH_SHARE = 0.5
# A loaded RTT above idle * QUEUE_FACTOR + QUEUE_MARGIN_MS means the flow filled a queue (a bottleneck).
QUEUE_FACTOR = 1.5
QUEUE_MARGIN_MS = 5
DEFAULT_DURATION_S = 15


def loss_limited_bound(bits_per_second, path_bits_per_second, rtt_ms, loss_ratio):
    """The Mathis bound (bit/s) when a loss-based flow of ``bits_per_second`` is held back by loss, else None.

    Held back: the bound is below ``PATH_SHARE`` of the path, and the flow got less than
    ``BOUND_SLACK`` times the bound. Raises ValueError on a non-positive RTT or loss (_tcp_model).
    """
    bound = mathis_bits_per_second(DEFAULT_MSS_BYTES, rtt_ms, loss_ratio)
    return bound if bound < PATH_SHARE * path_bits_per_second and bits_per_second < BOUND_SLACK * bound else None


def queue_building(idle_rtt_ms, loaded_rtt_ms):
    """True when the flow's own RTT grew well above the idle RTT: it filled a queue at a bottleneck.

    Its losses are then that queue overflowing, not random path loss, and the congestion control
    is not what limits it.
    """
    return bool(idle_rtt_ms and loaded_rtt_ms and loaded_rtt_ms > QUEUE_FACTOR * idle_rtt_ms + QUEUE_MARGIN_MS)


def _single_flow(host, view, views):
    """The peer's own single flow (tunnel_measure, peer -> hub) held back by its loss-based congestion control."""
    tcp = (view.get("tunnelfix") or {}).get("tcp") or {}
    measurement = view.get("measurement") or {}
    iperf3 = measurement.get("iperf3") or {}
    cc = iperf3.get("sender_congestion_control") or tcp.get("congestion_control")
    bps, retransmits = iperf3.get("bits_per_second"), iperf3.get("retransmits")
    duration = iperf3.get("duration_s") or DEFAULT_DURATION_S
    # The path RTT: the idle ping's average, else the single flow's own mean RTT (tcp_info, under load).
    idle_rtt = (measurement.get("ping") or {}).get("rtt_avg_ms")
    loaded_rtt = iperf3.get("mean_rtt_ms")
    path, rtt = view.get("path_bits_per_second"), idle_rtt or loaded_rtt
    if not (cc in LOSS_BASED_CC and bps and retransmits and path and rtt and iperf3.get("valid", True)) \
            or queue_building(idle_rtt, loaded_rtt):
        return []
    segments = bps * duration / 8 / DEFAULT_MSS_BYTES
    loss_ratio = min(1.0, retransmits / segments) if segments else None
    bound = loss_limited_bound(bps, path, rtt, loss_ratio) if loss_ratio else None
    if bound is None:
        return []
    return [({
        "congestion_control": cc, "measured_bits_per_second": bps, "path_bits_per_second": path,
        "rtt_ms": rtt, "retransmits": retransmits, "loss_ratio_estimate": loss_ratio,
        "mathis_bits_per_second": bound, "bdp_bytes": bdp_bytes(path, rtt)}, """
        One TCP flow reached %.1f Mbit/s of a %.1f Mbit/s path with %s, a loss-based congestion control.
        With %.0f ms RTT and about %.3f %% loss (%s retransmits) the Mathis bound for such a flow is
        %.1f Mbit/s: it backs off at every loss. BBR models bandwidth and RTT instead and fills the path."""
        % (bps / 1e6, path / 1e6, cc, rtt, loss_ratio * 100, retransmits, bound / 1e6))]


def _sweep_entry(sweep, name):
    """The valid result ``name`` of a tunnel_sweep record, or None."""
    for entry in (sweep or {}).get("results") or []:
        if isinstance(entry, dict) and entry.get("name") == name and entry.get("valid") is True:
            return entry
    return None


def _udp_loss_ratio(sweep, direction, path):
    """The UDP test with the lowest loss in ``direction`` at a rate below ``path``: (loss ratio 0-1, entry), or (None, None).

    The lowest rate's loss is the path's own (random) loss: well below the bottleneck no queue
    overflows. That is Mathis' p more directly than a retransmit count.
    """
    losses = [(entry["lost_percent"] / 100.0, entry) for entry in (sweep or {}).get("results") or []
              if isinstance(entry, dict) and entry.get("valid") is True and entry.get("protocol") == "udp"
              and entry.get("direction") == direction and is_number(entry.get("lost_percent"))
              and is_number(entry.get("offered_bits_per_second"))
              and entry["offered_bits_per_second"] < path]
    return min(losses, key=lambda item: item[0]) if losses else (None, None)


def _hub_download(host, view, views):
    """On a hub: its peers' sweeps show the hub -> peer direction held back (one finding naming every such peer).

    The hub sends in the download direction (iperf3 -R from the peer), so its own congestion
    control decides that rate. The loss is the sweep's own UDP loss (downloads below the path), the
    RTT the hub's idle ping, else the upload flow's mean RTT (with the NAT fault the ping is lost).
    """
    if "tunnelfix_wireguard_hubs" not in view.get("groups", []):
        return []
    hub_cc = ((view.get("tunnelfix") or {}).get("tcp") or {}).get("congestion_control")
    held_back = []
    for peer in sorted(views):
        peer_view = views[peer]
        flow = _sweep_entry(peer_view.get("sweep"), "tcp_single_download")
        path = peer_view.get("path_bits_per_second")
        upload = _sweep_entry(peer_view.get("sweep"), "tcp_single_upload") or {}
        rtt = (((peer_view.get("measurement") or {}).get("ping") or {}).get("rtt_avg_ms")
               or upload.get("mean_rtt_ms") or ((peer_view.get("measurement") or {}).get("iperf3") or {}).get("mean_rtt_ms"))
        if peer_view.get("tunnel_hub") != host or not flow or not path or not rtt:
            continue
        cc = flow.get("congestion_control") or hub_cc
        loss_ratio, udp = _udp_loss_ratio(peer_view.get("sweep"), "download", path)
        bps = flow.get("bits_per_second")
        if cc not in LOSS_BASED_CC or not loss_ratio or not bps:
            continue
        bound = loss_limited_bound(bps, path, rtt, loss_ratio)
        if bound is not None:
            held_back.append({"peer": peer, "congestion_control": cc, "measured_bits_per_second": bps,
                              "path_bits_per_second": path, "rtt_ms": rtt, "udp_loss_ratio": loss_ratio,
                              "udp_test": udp["name"], "udp_offered_bits_per_second": udp["offered_bits_per_second"],
                              "mathis_bits_per_second": bound, "bdp_bytes": bdp_bytes(path, rtt)})
    if not held_back:
        return []
    worst = min(held_back, key=lambda item: item["measured_bits_per_second"] / item["path_bits_per_second"])
    explanation = """
        This hub sends to %s with %s, a loss-based congestion control: one TCP flow hub -> %s reached %.1f Mbit/s
        of a %.1f Mbit/s path. The peer's sweep lost %.2f %% of UDP sent hub -> peer at %.1f Mbit/s offered (below the
        path's rate; the lowest loss of its UDP tests in that direction), and the RTT is %.0f ms: the Mathis bound for
        such a flow is %.1f Mbit/s. The peer's own congestion control does not help this
        direction: the sender is the hub, and it needs BBR too.""" % (
        ", ".join(item["peer"] for item in held_back), worst["congestion_control"], worst["peer"],
        worst["measured_bits_per_second"] / 1e6, worst["path_bits_per_second"] / 1e6,
        worst["udp_loss_ratio"] * 100, worst["udp_offered_bits_per_second"] / 1e6, worst["rtt_ms"],
        worst["mathis_bits_per_second"] / 1e6)
    return [(dict(worst, direction="download", peers=[item["peer"] for item in held_back]), explanation)]


def held_back_by_loss(host, view, views):
    """Both directions: the host's own single flow, and (on a hub) its peers' download flows."""
    return _single_flow(host, view, views) + _hub_download(host, view, views)


def _single_flow_unjudged(view):
    """Why the peer's own single flow cannot be judged, or None."""
    iperf3 = (view.get("measurement") or {}).get("iperf3")
    if not isinstance(iperf3, dict):
        return unmeasured(view, "no single flow was measured in this run")
    if iperf3.get("valid") is False:
        return "the single flow was invalid (%s)" % (iperf3.get("invalid_reason") or "see the measurement")
    if not view.get("path_bits_per_second"):
        return "the path's rate is unknown (tunnelfix_path_bits_per_second)"
    return None


def cc_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): a peer's single flow, a hub's peers' sweeps."""
    groups = view.get("groups") or []
    parts = []
    if "tunnelfix_wireguard_peers" in groups:
        parts.append(_single_flow_unjudged(view))
    if "tunnelfix_wireguard_hubs" in groups:
        swept = [peer for peer, peer_view in views.items() if peer_view.get("tunnel_hub") == host and peer_view.get("sweep")]
        parts.append(None if swept else "no sweep of this hub's peers in this run")
    if not parts:
        return does_not_apply("neither a peer nor a hub: no flow is measured")
    missing = [part for part in parts if part]
    if not missing:
        return None
    return not_checked("; ".join(missing)) if len(missing) == len(parts) else partly("; ".join(missing))


def above_the_bound(evidence):
    """The peer's single-flow floor after the fix: the rule's own boundary (above it the rule cannot fire).

    None for a hub's download finding: its proof is the re-run of the rule on verify's sweep.
    """
    if evidence.get("direction") == "download" or not is_number(evidence.get("mathis_bits_per_second")):
        return None
    return BOUND_SLACK * evidence["mathis_bits_per_second"]


_OWN_MEASUREMENT = needs_own("measurement")


def flow_rechecked(host, evidence, views):
    """A peer's finding needs its own 'after' single flow; a hub's download finding an 'after' sweep of one of its peers."""
    if evidence.get("direction") == "download":
        return host in views and any(view.get("tunnel_hub") == host and view.get("sweep") is not None for view in views.values())
    return _OWN_MEASUREMENT(host, evidence, views)
