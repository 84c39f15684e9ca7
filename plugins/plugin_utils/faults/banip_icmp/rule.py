# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's rule: banIP's ICMP flood limit drops mwan3's health-check replies (the finding, and whether the host
could be judged).

The measurement must not cause what it measures. A burst of 100 pings/s overflows a 10/s or 25/s
bucket by itself, so the evidence is passive first: health_check_measure's window (action
health_check_window, ``health_check_window.py``) sends nothing and reads how much the flood counter grew and which checks
mwan3track logged as failed (``logread``). The finding needs both in that window: the router's
own ICMP (mwan3 tracking, a monitoring pinger) overflowed the limit while checks failed. A static
counter, a grown counter without a failed check, or failed checks on a clean limiter (an uplink
really down) are no finding.

The probe that follows stays inside the limit (measure/icmp_pacing.py: PROBE_SHARE_OF_LIMIT, probe_interval_ms), so a probe
reply dropped means the router's other ICMP took the rest of the bucket at that moment; such a loss counts as a
failed check only while the counter grew during the probe, and only for a probe recorded inside that share.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.limiter import banip_limiter, mwan3_ping_budget_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, is_router, not_checked, partly, whole_number
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.icmp_pacing import PROBE_SHARE_OF_LIMIT


def _count(value):
    """A count from the record (an int, or the digits a role's template made of it), else None."""
    return whole_number(value)


def _probe_inside(checks, limit):
    """Whether the recorded probe ran at most PROBE_SHARE_OF_LIMIT of ``limit`` (packets/s)."""
    try:  # None, "" or a word: no rate recorded, so not inside
        return float(checks.get("rate_per_second")) <= limit * PROBE_SHARE_OF_LIMIT + 1e-9
    except (TypeError, ValueError):
        return False


def _probe_failures(checks, limit):
    """The probe's failed pings that count: sent inside PROBE_SHARE_OF_LIMIT of ``limit`` while the counter grew; else 0.
    A counter that fell (banIP restarted and recreated its table during the probe) or is unknown did not grow."""
    if not _probe_inside(checks, limit) or (_count(checks.get("icmp_flood_drops_packets")) or 0) <= 0:
        return 0
    return _count(checks.get("failed_pings")) or 0


def limit_drops_health_checks(host, view, views):
    """One (evidence, explanation) when banIP's limiter is in force, mwan3 tracks by ping, and in the passive window
    the flood counter grew while health checks failed.

    Failed health checks: mwan3track's failed checks or lost pings in the window's log, or the
    probe's lost pings while the counter grew (only a probe inside the limit's share, module doc).
    """
    facts = view.get("openwrt") or {}
    banip, mwan3 = facts.get("banip") or {}, facts.get("mwan3") or {}
    rule, _why = banip_limiter(banip)
    if rule is None or not mwan3.get("tracking"):
        return []
    budget = mwan3_ping_budget_per_second(mwan3["tracking"])
    checks = view.get("health_checks") or {}
    growth = _count(checks.get("window_icmp_flood_growth_packets"))
    mwan3_failed, mwan3_lost = _count(checks.get("mwan3_failed_checks")), _count(checks.get("mwan3_lost_pings"))
    probe_failed = _probe_failures(checks, rule["rate_per_second"])
    if budget == 0 or not growth or not ((mwan3_failed or 0) + (mwan3_lost or 0) + probe_failed):
        return []
    limit, burst = rule["rate_per_second"], rule["burst_packets"]
    window_s = _count(checks.get("window_s"))
    interfaces = checks.get("mwan3_failed_interfaces") or []
    return [({
        "icmplimit_per_second": limit, "burst_packets": burst, "counter": rule.get("counter"),
        "window_s": window_s, "window_icmp_flood_growth_packets": growth,
        "mwan3_failed_checks": mwan3_failed, "mwan3_lost_pings": mwan3_lost, "mwan3_failed_interfaces": list(interfaces),
        "mwan3_ping_budget_per_second": round(budget, 2),
        "probe_rate_per_second": checks.get("rate_per_second"), "probe_pings_sent": _count(checks.get("sent")),
        "probe_pings_failed": _count(checks.get("failed_pings")),
        "probe_icmp_flood_drops_packets": _count(checks.get("icmp_flood_drops_packets"))}, """
        banIP drops ICMP above %s packets/s (burst %s) in %s on the WAN devices, before established
        traffic is accepted. In a %s s window in which diagnose sent nothing, its flood counter %s grew by %s
        packets while mwan3 logged %s failed checks and %s lost pings%s; %s. The router's own ICMP (mwan3 tracking,
        about %.1f replies/s, and any monitoring pinger) overflows the limit, so mwan3 can mark a healthy uplink
        offline. Raise banip.global.ban_icmplimit (250)."""
        % (limit, burst, _buckets(rule), window_s, rule.get("counter"), growth, _shown(mwan3_failed), _shown(mwan3_lost),
           " (%s)" % ", ".join(interfaces) if interfaces else "", _probe_text(checks, limit), budget))]


def _buckets(rule):
    """How many buckets the limit is: banIP 1.0.x writes one rule per family (IPv4 and IPv6 each get the limit),
    1.5.3 and later one rule for both (net/banip/files/banip-functions.sh f_nftinit @16c320b7fd / @42525d32c4)."""
    if (rule.get("rules") or 1) > 1:
        return "one bucket per family (IPv4 and IPv6, %d rules)" % rule["rules"]
    return "one shared bucket for IPv4 and IPv6"


def _shown(value, unknown="an unknown number of"):
    """A count in the explanation; ``unknown`` (read before a noun) when it was not recorded."""
    return unknown if value is None else value


def _probe_text(checks, limit):
    """The probe's part of the explanation: its losses, and whether it ran inside the limit's share."""
    return "%s of %s probe pings sent at %s/s failed (%s)" % (
        _shown(_count(checks.get("failed_pings")), "an unknown number"), _shown(_count(checks.get("sent"))), checks.get("rate_per_second"),
        "inside a fifth of the limit: not the cause" if _probe_inside(checks, limit)
        else "faster than a fifth of the limit: its losses are not counted")


def limit_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): a router with banIP's limiter in force, mwan3
    tracking by ping, and health_check_measure's passive window."""
    if not is_router(view):
        return does_not_apply("not an OpenWrt router")
    facts = view.get("openwrt") or {}
    banip, mwan3 = facts.get("banip"), facts.get("mwan3")
    if not isinstance(banip, dict) or not isinstance(banip.get("installed"), bool):
        return not_checked("openwrt_facts read no banIP state")
    _rule, why = banip_limiter(banip)
    if why:
        kind, reason = why
        return does_not_apply(reason) if kind == "absent" else not_checked(reason)
    if not isinstance(mwan3, dict):
        return not_checked("openwrt_facts read no mwan3 state")
    if not mwan3.get("tracking") or mwan3_ping_budget_per_second(mwan3["tracking"]) == 0:
        return does_not_apply("mwan3 tracks no uplink by ping")
    checks = view.get("health_checks")
    if checks is None:
        return not_checked("no health-check measurement in this run (health_check_measure's passive window and probe)")
    if _count(checks.get("window_icmp_flood_growth_packets")) is None:
        return not_checked("the health-check measurement has no passive window over banIP's ICMP flood counter (%s)"
                           % (checks.get("window_note") or "not measured"))
    if _count(checks.get("mwan3_failed_checks")) is None:
        return partly("mwan3's log (%s): failed checks from the probe only" % (checks.get("mwan3_log_note") or "not read"))
    return None
