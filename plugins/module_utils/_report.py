# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before/after comparison of tunnel measurements, as rows and as a Markdown table."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._bitrate import (
    format_bits_per_second,
    to_bits_per_second,
)


def _loss(record):
    ping = (record or {}).get("ping") or {}
    loss = ping.get("loss_percent")
    return None if loss is None else "%g %%" % loss


def _throughput(record):
    result = (record or {}).get("iperf3") or {}
    bps = result.get("bits_per_second")
    if bps is None:
        return "failed: %s" % result.get("msg", "no result") if result else None
    retransmits = result.get("retransmits")
    cc = result.get("sender_congestion_control")
    extra = ", ".join(part for part in (
        None if retransmits is None else "%d retransmits" % retransmits,
        cc) if part)
    return "%s%s" % (format_bits_per_second(bps), " (%s)" % extra if extra else "")


def before_after_rows(before, after, bottleneck_bits_per_second=None):
    """Pair before/after measurements per host.

    ``before``/``after``: ``{host: record}`` where a record is
    ``{"hub": str, "idle_s": int, "ping": parse_ping_summary() output, "iperf3": iperf3 module
    result (bits_per_second, retransmits, sender_congestion_control)}``; either may lack a host.
    Returns a list of ``{"host", "test", "before", "after", "reference"}`` strings ("n/a" where
    a side is missing). ``reference`` carries the path bottleneck for throughput rows.
    """
    rows = []
    bottleneck = format_bits_per_second(to_bits_per_second(bottleneck_bits_per_second)) \
        if bottleneck_bits_per_second else ""
    for host in sorted(set(before or {}) | set(after or {}), key=str):
        b, a = (before or {}).get(host, {}), (after or {}).get(host, {})
        hub = a.get("hub") or b.get("hub") or "hub"
        idle = a.get("idle_s") or b.get("idle_s")
        rows.append({"host": host, "test": "%s -> %s ping loss after %s s idle" % (hub, host, idle),
                     "before": _loss(b) or "n/a", "after": _loss(a) or "n/a", "reference": "0 %"})
        rows.append({"host": host, "test": "TCP single flow %s -> %s" % (host, hub),
                     "before": _throughput(b) or "n/a", "after": _throughput(a) or "n/a",
                     "reference": bottleneck})
    return rows


def markdown_table(rows):
    """Render ``before_after_rows()`` output as a Markdown table (one string, LF line ends)."""
    header = ["host", "test", "before", "after", "bottleneck / target"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [str(row[key]).replace("|", "\\|").replace("\n", " ")
                 for key in ("host", "test", "before", "after", "reference")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
