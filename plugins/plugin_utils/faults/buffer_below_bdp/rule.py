# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``buffer_below_bdp``'s rule: a tcp_wmem/tcp_rmem maximum below the path's bandwidth-delay product (parse/tcp_model.py)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import is_router, not_checked, unmeasured
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes


def bdp_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): its TCP buffers, the path's rate and an RTT."""
    measurement = view.get("measurement") or {}
    if not (view.get("tunnelfix") or {}).get("tcp"):
        return not_checked("the TCP stack was not read (openwrt_facts does not read it)" if is_router(view)
                           else "the TCP stack was not read")
    if not view.get("path_bits_per_second"):
        return not_checked("the path's rate is unknown (tunnelfix_path_bits_per_second)")
    if not ((measurement.get("ping") or {}).get("rtt_avg_ms") or (measurement.get("iperf3") or {}).get("mean_rtt_ms")):
        return not_checked(unmeasured(view, "no RTT was measured on this host in this run"))
    return None


def buffers_below_bdp(host, view, views):
    """One (evidence, explanation) per tcp_wmem/tcp_rmem whose maximum is below the path's bandwidth-delay product."""
    tcp = (view.get("tunnelfix") or {}).get("tcp") or {}
    measurement = view.get("measurement") or {}
    rtt = ((measurement.get("ping") or {}).get("rtt_avg_ms") or (measurement.get("iperf3") or {}).get("mean_rtt_ms"))
    path = view.get("path_bits_per_second")
    if not (tcp and path and rtt):
        return []
    need = bdp_bytes(path, rtt)
    out = []
    for key in ("tcp_wmem", "tcp_rmem"):
        fields = str(tcp.get(key) or "").split()
        if len(fields) == 3 and fields[2].isdigit() and int(fields[2]) < need:
            evidence = {"sysctl": "net.ipv4.%s" % key, "max_bytes": int(fields[2]), "bdp_bytes": need,
                        "path_bits_per_second": path, "rtt_ms": rtt}
            out.append((evidence, """
                net.ipv4.%s allows at most %s bytes per socket, below the %.0f bytes a flow needs in flight to
                fill %.1f Mbit/s at %.0f ms; one flow is capped near %.1f Mbit/s.""" % (
                key, fields[2], need, path / 1e6, rtt, int(fields[2]) * 8 / (rtt / 1000) / 1e6)))
    return out
