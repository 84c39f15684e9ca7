# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's view of banIP: whether its ICMP limiter is in force and its rule (the rate and burst a prober paces
inside: measure/icmp_pacing.py, shared with the PMTU ladders), and the load mwan3's tracking puts on it. Used by the
rule, the plan and the fixing role (its filters banip_inactive_reason and health_check_probe,
plugins/filter/role_support.py), so all three decide alike.

The limiter is in force only where banIP is installed, not disabled (``ban_enabled '0'``) and its
nft table ``inet banIP`` is loaded with an ICMP limit rule (``ban_icmplimit`` 0 builds none).
Elsewhere nothing is found and the fixing role changes nothing; banip_inactive says why, in terms
of what banIP itself does (banip.init and banip-functions.sh, openwrt/packages openwrt-23.05@16c320b7fd,
openwrt-24.10@42525d32c4, openwrt-25.12@57654a9f48, alike in this): with ``ban_enabled '0'`` every
start, restart and reload ends at banIP's own check, which deletes its table and exits 1, so a
reload applies nothing; with its autostart off (no ``/etc/rc.d/S95banip``, ``/etc/init.d/banip
enabled`` fails) start, restart and reload refuse the same way; a banIP enabled in both but stopped
(no table) is started by a reload, which would switch on what the operator stopped.

The probe (health_check_measure's, after the passive window: rule.py) stays inside the limit, so it cannot
be the cause of what it measures: ``measure.icmp_pacing.probe_interval_ms`` of ``banip_limiter``'s rule.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import BANIP_INIT

MWAN3_DEFAULT_COUNT = 1
MWAN3_DEFAULT_RELIABILITY = 1
MWAN3_DEFAULT_INTERVAL_S = 10
# nft's burst when a packet limit names none (banIP's rule names none; nft list hides it)
NFT_DEFAULT_BURST_PACKETS = 5


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
