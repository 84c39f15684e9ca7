# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's view of banIP: whether its ICMP limiter is in force, the load mwan3's tracking puts on it, and the
probe's pace inside it. Used by the rule, the plan and the fixing role (its filters banip_inactive_reason and
health_check_probe, plugins/filter/role_support.py), so all three decide alike.

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
be the cause of what it measures. The limiter is a
token bucket: ``rate`` tokens/s (banIP's limit L, read from the loaded rule), at most ``burst`` B
tokens (nft's default 5), one per packet, a packet over it dropped. The probe sends one-shot pings
one after another, ``interval`` apart; their replies come back as far apart. With ``interval >=
1000 / (L x PROBE_SHARE_OF_LIMIT)`` ms (PROBE_SHARE_OF_LIMIT = 1/5: 200 ms at 25/s, 500 ms at 10/s)
the probe takes a fifth of the rate, and the token a reply takes is back after a fifth of the
interval: the probe alone never holds more than 1 of the B tokens. A probe reply dropped therefore
means the router's other ICMP took the rest of the bucket at that moment (``probe_interval_ms`` gives the
interval, never shorter than the role's own).
"""

from __future__ import annotations

import math

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import BANIP_INIT
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import whole_number

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
