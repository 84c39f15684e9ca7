# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2: banIP's ICMP flood limit drops mwan3's health-check replies.

banIP limits ICMP on the WAN devices to ``ban_icmplimit`` packets/s in one shared bucket (burst 5),
counted in ``cnt_icmpflood``; mwan3track's pings (and any monitoring pinger) share it, so a healthy
uplink can be marked offline. Reads openwrt_facts' ``banip`` and ``mwan3`` and
health_check_measure's record. mwan3track's defaults (count 1, interval 10 s) are from its UCI
documentation.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Fault, Proof, does_not_apply, is_router, needs_own, not_checked, partly, role_setting, whole_number)

# banip_icmp's defaults/main.yml (tests/unit/.../test_fault_plans.py pins them)
FIX_DEFAULTS = {"banip_icmp_limit_per_second": 250}
MWAN3_DEFAULT_COUNT = 1
MWAN3_DEFAULT_INTERVAL_S = 10


def mwan3_ping_budget_per_second(tracking):
    """Echo replies per second mwan3track expects: sum over enabled ping-tracked interfaces of targets x count / interval.

    ``tracking``: openwrt_facts' ``mwan3.tracking`` ({interface: {enabled, track_method, track_ip,
    count, interval_s, failure_interval_s, recovery_interval_s}}). The shortest of the intervals
    counts (mwan3track switches to it while an uplink fails or recovers).
    """
    budget = 0.0
    for entry in tracking.values():
        if entry.get("enabled") is not True or entry.get("track_method") not in (None, "ping"):
            continue
        intervals = [v for v in (entry.get("interval_s"), entry.get("failure_interval_s"), entry.get("recovery_interval_s")) if v]
        interval = min(intervals) if intervals else MWAN3_DEFAULT_INTERVAL_S
        budget += len(entry.get("track_ip") or []) * (entry.get("count") or MWAN3_DEFAULT_COUNT) / interval
    return budget


def limit_drops_health_checks(host, view, views):
    """One (evidence, explanation) when mwan3 tracks by ping and banIP's limit drops, or can drop, its replies.

    Fires when banIP is installed, some interface is ping-tracked, a limit is known, and the burst
    lost a ping, or the flood counter counted drops, or mwan3's average budget is over half the limit.
    """
    facts = view.get("openwrt") or {}
    banip, mwan3 = facts.get("banip") or {}, facts.get("mwan3") or {}
    checks = view.get("health_checks") or {}
    if not banip.get("installed") or not mwan3.get("tracking"):
        return []
    rule = banip.get("icmp_limit_rule") or {}
    limit = rule.get("rate_per_second") or banip.get("icmplimit_per_second")
    budget = mwan3_ping_budget_per_second(mwan3["tracking"])
    drops, failed = checks.get("icmp_flood_drops_packets"), checks.get("failed_pings")
    if budget == 0 or not limit or not ((drops or 0) > 0 or (failed or 0) > 0 or budget * 2 > limit):
        return []
    return [({
        "icmplimit_per_second": limit, "mwan3_ping_budget_per_second": round(budget, 2),
        "health_check_pings_sent": checks.get("sent"), "health_check_pings_failed": failed,
        "icmp_flood_drops_packets": drops, "counter": rule.get("counter")}, """
        banIP drops ICMP above %s packets/s in one shared bucket (burst 5) on the WAN devices, before
        established traffic is accepted. mwan3 tracks uplinks by ping (about %.1f replies/s on average, in
        bursts): %s of %s bursty one-shot health-check pings failed and the flood counter counted %s drops, so
        mwan3 can mark a healthy uplink offline. Raise banip.global.ban_icmplimit (250)."""
        % (limit, budget, failed, checks.get("sent"), drops))]


def limit_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): a router with banIP, mwan3 tracking and a known limit."""
    if not is_router(view):
        return does_not_apply("not an OpenWrt router")
    facts = view.get("openwrt") or {}
    banip, mwan3 = facts.get("banip"), facts.get("mwan3")
    if not isinstance(banip, dict) or not isinstance(banip.get("installed"), bool):
        return not_checked("openwrt_facts read no banIP state")
    if not banip["installed"]:
        return does_not_apply("banIP is not installed")
    if not isinstance(mwan3, dict):
        return not_checked("openwrt_facts read no mwan3 state")
    if not mwan3.get("tracking") or mwan3_ping_budget_per_second(mwan3["tracking"]) == 0:
        return does_not_apply("mwan3 tracks no uplink by ping")
    if not ((banip.get("icmp_limit_rule") or {}).get("rate_per_second") or banip.get("icmplimit_per_second")):
        return not_checked("banIP's ICMP limit could not be read (no ban_icmplimit, no limit rule in its nft table)")
    if view.get("health_checks") is None:
        return partly("the health-check burst (not measured in this run): from the flood counter and the ping budget")
    return None


def limit_plan(view, role_vars):
    """What banip_icmp would change: ``banip.global.ban_icmplimit`` (uci) when it is not the wanted limit, then a reload.

    ``[]`` where banIP is not installed (the role changes nothing there) or the limit is already set;
    None without openwrt_facts' ``banip`` or with a limit that is not a whole number (the role fails naming it).
    """
    banip = (view.get("openwrt") or {}).get("banip")
    if not isinstance(banip, dict) or not isinstance(banip.get("installed"), bool):
        return None
    if not banip["installed"]:
        return []
    wanted = whole_number(role_setting(role_vars, "banip_icmp_limit_per_second", FIX_DEFAULTS))
    if wanted is None:
        return None
    current = banip.get("ban_icmplimit")
    if current is not None and str(current) == str(wanted):
        return []
    return ["banip.global.ban_icmplimit: %s -> %d, then reload banIP" % ("unset" if current is None else "'%s'" % current, wanted)]


BANIP_ICMP_LIMIT = Fault(
    id="banip_icmp_limit_drops_health_checks",
    number=2,
    title="mwan3 marks a healthy uplink offline",
    severity="high",
    hosts="OpenWrt router",
    reads=("openwrt.banip", "openwrt.mwan3", "health_checks"),
    rule=limit_drops_health_checks,
    coverage=limit_coverage,
    fires_when="mwan3 tracks by ping, and the burst lost pings / the flood counter counted drops / "
               "the ping budget is over half the limit",
    symptom="mwan3 flaps or marks an uplink offline while it works; banIP's cnt_icmpflood counter grows.",
    fix="Raise banip.global.ban_icmplimit (250 packets/s) and reload banIP.",
    fix_role="tunnelfix.fleet.banip_icmp",
    fix_groups=("tunnelfix_openwrt",),
    rechecked=needs_own("health_checks"),
    plan=limit_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify sends the same bursty health-check pings (health_check_measure, enforced): none may "
                    "fail, and the rule re-run on the new counters and limit no longer fires."),
    files=("plugins/plugin_utils/faults/banip_icmp_limit.py", "roles/banip_icmp/tasks/icmplimit.yml",
           "roles/health_check_measure/tasks/main.yml"),
)
