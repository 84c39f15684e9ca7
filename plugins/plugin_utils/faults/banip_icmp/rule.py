# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2: banIP's ICMP flood limit drops mwan3's health-check replies.

banIP limits ICMP on the WAN devices to ``ban_icmplimit`` packets/s (burst 5; one bucket per family in 1.0.x, one shared from 1.5.3),
counted in ``cnt_icmpflood``; mwan3track's pings and any monitoring pinger share it, so a healthy
uplink can be marked offline. Reads openwrt_facts' ``banip`` and ``mwan3`` and
health_check_measure's record. mwan3track's defaults (reliability 1, count 1, interval 10 s) are its own
(``config_get`` defaults in net/mwan3/files/usr/sbin/mwan3track).

The limiter is in force only where banIP is installed, not disabled (``ban_enabled '0'``) and its
nft table ``inet banIP`` is loaded with an ICMP limit rule (``ban_icmplimit`` 0 builds none).
Elsewhere nothing is found and the fixing role changes nothing; banip_inactive says why, in terms
of what banIP itself does (banip.init and banip-functions.sh, openwrt/packages openwrt-23.05@16c320b7fd,
openwrt-24.10@42525d32c4, openwrt-25.12@57654a9f48, alike in this): with ``ban_enabled '0'`` every
start, restart and reload ends at banIP's own check, which deletes its table and exits 1, so a
reload applies nothing; with its autostart off (no ``/etc/rc.d/S95banip``, ``/etc/init.d/banip
enabled`` fails) start, restart and reload refuse the same way; a banIP enabled in both but stopped
(no table) is started by a reload, which would switch on what the operator stopped. What is in force
is the LIVE rule: banIP rebuilds it from ``ban_icmplimit`` only when it builds its table, never on a
reload with the table loaded, so the plan compares the live rule as well as uci (limit_plan).

The measurement must not cause what it measures. A burst of 100 pings/s overflows a 10/s or 25/s
bucket by itself, so the evidence is passive first: health_check_measure's window (action
health_check_window) sends nothing and reads how much the flood counter grew and which checks
mwan3track logged as failed (``logread``). The finding needs both in that window: the router's
own ICMP (mwan3 tracking, a monitoring pinger) overflowed the limit while checks failed. A static
counter, a grown counter without a failed check, or failed checks on a clean limiter (an uplink
really down) are no finding.

The probe that follows stays inside the limit, so it cannot be the cause either. The limiter is a
token bucket: ``rate`` tokens/s (banIP's limit L, read from the loaded rule), at most ``burst`` B
tokens (nft's default 5), one per packet, a packet over it dropped. The probe sends one-shot pings
one after another, ``interval`` apart; their replies come back as far apart. With ``interval >=
1000 / (L x PROBE_SHARE_OF_LIMIT)`` ms (PROBE_SHARE_OF_LIMIT = 1/5: 200 ms at 25/s, 500 ms at 10/s)
the probe takes a fifth of the rate, and the token a reply takes is back after a fifth of the
interval: the probe alone never holds more than 1 of the B tokens. A probe reply dropped therefore
means the router's other ICMP took the rest of the bucket at that moment; such a loss counts as a
failed check only while the counter grew during the probe, and only for a probe recorded inside
that share (``probe_interval_ms`` gives the interval, never shorter than the role's own).
"""

from __future__ import annotations

import math

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Fault, Proof, does_not_apply, is_router, needs_own, not_checked, partly, role_setting, whole_number)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import BANIP, BANIP_INIT, MWAN3
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

# banip_icmp's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("banip_icmp")
# How banip_icmp gets the limit into banIP's live rule, and what that costs (the plan says it)
APPLY_PLAN = {
    "replace_rule": "rewritten in place with nft replace rule; banIP's sets stay loaded",
    "restart": "banIP restarted: its table is rebuilt and its blocklist sets are empty until its feeds load again",
}
MWAN3_DEFAULT_COUNT = 1
MWAN3_DEFAULT_RELIABILITY = 1
MWAN3_DEFAULT_INTERVAL_S = 10
# nft's burst when a packet limit names none (banIP's rule names none; nft list hides it)
NFT_DEFAULT_BURST_PACKETS = 5
# The probe's rate: at most this share of banIP's limit (module doc)
PROBE_SHARE_OF_LIMIT = 0.2


def mwan3_ping_budget_per_second(tracking):
    """Echo replies per second mwan3track expects from a healthy uplink, summed over the enabled ping-tracked interfaces.

    ``tracking``: openwrt_facts' ``mwan3.tracking`` ({interface: {enabled, track_method, track_ip, reliability,
    count, interval_s}}). Per interface: ``min(reliability, len(track_ip)) x count / interval_s``.

    Why: mwan3track (openwrt/packages ``net/mwan3/files/usr/sbin/mwan3track``, the same loop on openwrt-23.05
    @16c320b7fd, openwrt-24.10 @42525d32c4, openwrt-25.12 @57654a9f48 and master @0521bb5679) pings the targets
    in order, ``count`` pings each, and skips the rest of the round once ``reliability`` targets answered; it then
    sleeps ``interval``. Assumed: the uplink is healthy (every target pinged answers, so exactly ``reliability``
    targets are pinged, all of them when there are fewer) and the tracker online, so the round repeats every
    ``interval``. A failing target makes mwan3track ping the next ones, and while an uplink fails or recovers it
    waits ``failure_interval``/``recovery_interval`` instead: the healthy case is the floor of what the limiter sees
    from mwan3, the load it must pass for no check to fail. Unset options are mwan3track's defaults (reliability 1,
    count 1, interval 10 s); reliability 0 pings nothing.
    """
    budget = 0.0
    for entry in tracking.values():
        if entry.get("enabled") is not True or entry.get("track_method") not in (None, "ping"):
            continue
        reliability = entry.get("reliability")
        reliability = MWAN3_DEFAULT_RELIABILITY if reliability is None else reliability
        targets = max(0, min(reliability, len(entry.get("track_ip") or [])))
        budget += targets * (entry.get("count") or MWAN3_DEFAULT_COUNT) / (entry.get("interval_s") or MWAN3_DEFAULT_INTERVAL_S)
    return budget


# banip_inactive's reasons (the module doc says what banIP does in each state)
DISABLED_REASON = ("banIP is disabled in uci (banip.global.ban_enabled '0'): its start, restart and reload stop at that "
                   "setting and delete its nft table, so a reload cannot apply a new limit")
AUTOSTART_OFF_REASON = ("banIP's autostart is off (%s enabled fails: no /etc/rc.d/S95banip): its start, restart "
                        "and reload refuse and delete its nft table, so a reload cannot apply a new limit" % BANIP_INIT)
NOT_LOADED_REASON = ("banIP's nft table inet banIP is not loaded (banIP is stopped, failed or still starting): where its "
                     "autostart is on, a reload would start it, switching on what was stopped; where it is off, a reload "
                     "refuses and starts nothing")


def banip_inactive(banip):
    """Why banIP cannot drop anything now and its role must leave it alone, or None when it is active.

    ``banip``: openwrt_facts' ``banip`` (installed, enabled, nft_installed, nft_table_loaded; an
    ``autostart`` bool where known, for ``/etc/rc.d/S95banip``). Active: installed, ``enabled``
    not False (banip_settings: only ``ban_enabled '0'`` stops banIP), autostart not False, and its
    table ``inet banIP`` loaded. ``("absent", reason)`` when it cannot drop: not installed,
    DISABLED_REASON, AUTOSTART_OFF_REASON, NOT_LOADED_REASON (each says what a reload would do
    there; module doc); ``("unknown", reason)`` when the facts cannot tell (no nft to list the table).
    """
    if not banip.get("installed"):
        return ("absent", "banIP is not installed (no %s)" % BANIP_INIT)
    if banip.get("enabled") is False:
        return ("absent", DISABLED_REASON)
    if banip.get("autostart") is False:
        return ("absent", AUTOSTART_OFF_REASON)
    if banip.get("nft_installed") is False:
        return ("unknown", "nft is not installed, so banIP's nft table cannot be read")
    if banip.get("nft_table_loaded") is None:
        return ("unknown", "openwrt_facts did not read banIP's nft table")
    if banip.get("nft_table_loaded") is not True:
        return ("absent", NOT_LOADED_REASON)
    return None


def banip_limiter(banip):
    """``(rule, None)`` with the loaded ICMP limit rule when banIP's limiter is in force, else ``(None, (kind, reason))``.

    ``rule``: ``{"rate_per_second", "burst_packets", "counter"}`` (burst nft's default 5 where the
    listing hides it). A loaded table without the rule (``ban_icmplimit`` 0) limits nothing.
    """
    inactive = banip_inactive(banip)
    if inactive:
        return None, inactive
    rule = banip.get("icmp_limit_rule")
    if not isinstance(rule, dict) or not rule.get("rate_per_second"):
        return None, ("absent", "banIP's nft table has no ICMP limit rule (ban_icmplimit 0)")
    return dict(rule, burst_packets=rule.get("burst_packets") or NFT_DEFAULT_BURST_PACKETS), None


def probe_interval_ms(banip, wanted_interval_ms):
    """The pause between the probe's one-shot pings: ``wanted_interval_ms``, longer where banIP's limit needs it (module doc).

    ``banip``: openwrt_facts' ``banip`` (None or {} when not read); ``wanted_interval_ms``: the role's
    interval (0-10000). → ``{"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25,
    "burst_packets": 5}`` for a 25/s limit and 100 ms wanted; without a limiter in force the wanted
    interval, limit and burst None. ``rate_per_second`` is None for 0 ms. Raises ValueError naming
    ``wanted_interval_ms`` when it is not a whole number 0-10000.
    """
    wanted = whole_number(wanted_interval_ms)
    if wanted is None or not 0 <= wanted <= 10000:
        raise ValueError("wanted_interval_ms must be a whole number 0-10000, got %r" % (wanted_interval_ms,))
    rule, _why = banip_limiter(banip or {})
    interval = wanted
    if rule:
        interval = max(wanted, int(math.ceil(1000.0 / (rule["rate_per_second"] * PROBE_SHARE_OF_LIMIT))))
    return {"interval_ms": interval, "rate_per_second": round(1000.0 / interval, 3) if interval else None,
            "limit_per_second": rule["rate_per_second"] if rule else None, "burst_packets": rule["burst_packets"] if rule else None}


def _count(value):
    """A count from the record (an int, or the digits a role's template made of it), else None."""
    return whole_number(value)


def _probe_inside(checks, limit):
    """Whether the recorded probe ran at most PROBE_SHARE_OF_LIMIT of ``limit`` (packets/s)."""
    rate = checks.get("rate_per_second")
    try:
        return rate not in (None, "") and float(rate) <= limit * PROBE_SHARE_OF_LIMIT + 1e-9
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


def _shown(value):
    return "an unknown number of" if value is None else value


def _probe_text(checks, limit):
    """The probe's part of the explanation: its losses, and whether it ran inside the limit's share."""
    return "%s of %s probe pings sent at %s/s failed (%s)" % (
        _shown(_count(checks.get("failed_pings"))), _shown(_count(checks.get("sent"))), checks.get("rate_per_second"),
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


def limit_plan(view, role_vars):
    """What banip_icmp would change: ``banip.global.ban_icmplimit`` (uci) when it is not the wanted limit, and the LIVE
    ICMP flood rule when its limit is not the wanted one, whatever uci says.

    banIP writes the rule only when it builds its nft table (start, restart, or a reload that finds the
    chain missing; a reload with the table loaded keeps the old rule: banip-service.sh in openwrt/packages
    23.05 @16c320b7fd, 24.10 @42525d32c4, 25.12 @57654a9f48), so a router whose uci is right can still
    drop at the old limit. The live rule is openwrt_facts' ``icmp_limit_rule`` (read from nft); the
    role's ``banip_icmp_apply`` says how it changes (APPLY_PLAN). ``[]`` where banIP is not installed,
    is disabled (``ban_enabled '0'``) or its nft table is not loaded, or nft is missing (the role leaves
    banIP alone there), or uci and the live rule already carry the limit; None without openwrt_facts'
    ``banip`` or with a limit or apply method the role refuses (it fails naming it).
    """
    banip = (view.get("openwrt") or {}).get("banip")
    if not isinstance(banip, dict) or not isinstance(banip.get("installed"), bool):
        return None
    if banip_inactive(banip):
        return []
    wanted = whole_number(role_setting(role_vars, "banip_icmp_limit_per_second", FIX_DEFAULTS))
    apply = role_setting(role_vars, "banip_icmp_apply", FIX_DEFAULTS)
    if wanted is None or apply not in APPLY_PLAN:
        return None
    plan = []
    current = banip.get("ban_icmplimit")
    if current is None or str(current) != str(wanted):
        plan.append("banip.global.ban_icmplimit: %s -> %d" % ("unset" if current is None else "'%s'" % current, wanted))
    rule = banip.get("icmp_limit_rule")
    live = rule.get("rate_per_second") if isinstance(rule, dict) else None
    if live is not None and live != wanted:
        plan.append("live ICMP flood rule: %s/s -> %d/s (%s)" % (live, wanted, APPLY_PLAN[apply]))
    return plan


BANIP_ICMP_LIMIT = Fault(
    id="banip_icmp_limit_drops_health_checks",
    number=2,
    title="mwan3 marks a healthy uplink offline",
    severity="high",
    hosts="OpenWrt router",
    reads=("openwrt.banip", "openwrt.mwan3", "health_checks"),
    facts=(BANIP, MWAN3),
    rule=limit_drops_health_checks,
    coverage=limit_coverage,
    fires_when="banIP is enabled with its nft table and ICMP limit rule loaded, mwan3 tracks by ping, and in a passive "
               "window (nothing sent) banIP's ICMP flood counter grew while mwan3 logged failed checks, or a probe "
               "inside a fifth of the limit lost pings while the counter grew",
    symptom="mwan3 flaps or marks an uplink offline while it works; banIP's cnt_icmpflood counter grows.",
    fix="Raise banip.global.ban_icmplimit (250 packets/s) and the live ICMP flood rule with it (rewritten in place, or banIP "
        "restarted); a disabled or stopped banIP is left alone (a reload or restart would apply nothing to a disabled one "
        "and would start a stopped one).",
    fix_role="tunnelfix.fleet.banip_icmp",
    fix_groups=("tunnelfix_openwrt",),
    rechecked=needs_own("health_checks"),
    plan=limit_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify watches the same passive window and sends the same probe inside the limit "
                    "(health_check_measure, enforced): no probe ping may fail, and the rule re-run on the new window "
                    "(the flood counter no longer grows) no longer fires."),
    files=("plugins/plugin_utils/faults/banip_icmp_limit.py", "roles/banip_icmp/tasks/icmplimit.yml",
           "roles/health_check_measure/tasks/main.yml"),
    evidence=(
        (("icmplimit_per_second", "burst_packets"), "the loaded rule's limit and burst (5 where nft's text hides it)"),
        ("counter", "the flood counter's name"),
        (("window_s", "window_icmp_flood_growth_packets"), "the window by the router's clock, and the counter's growth in it"),
        (("mwan3_failed_checks", "mwan3_lost_pings", "mwan3_failed_interfaces"),
         "what mwan3track logged in the window (null without a usable logread)"),
        ("mwan3_ping_budget_per_second", "the replies per second mwan3's tracking expects from healthy uplinks (min(reliability, "
         "targets) x count / interval: mwan3track stops a round once `reliability` targets answered)"),
        (("probe_rate_per_second", "probe_pings_sent", "probe_pings_failed", "probe_icmp_flood_drops_packets"),
         "the probe, and the counter's growth during it"),
    ),
)
