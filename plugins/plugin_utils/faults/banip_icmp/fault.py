# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2 as the registry lists it: its texts, the readings it reads, its rule and its one plan (this folder)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.plan import FIX_DEFAULTS, limit_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import BANIP, MWAN3
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.rule import limit_coverage, limit_drops_health_checks
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, needs_own
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import HEALTH_CHECKS


BANIP_ICMP_LIMIT = Fault(
    id="banip_icmp_limit_drops_health_checks",
    number=2,
    title="mwan3 marks a healthy uplink offline",
    severity="high",
    hosts="OpenWrt router",
    reads=("openwrt.banip", "openwrt.mwan3", "health_checks"),
    records=(HEALTH_CHECKS,),
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
    files=("plugins/plugin_utils/faults/banip_icmp/__init__.py", "roles/banip_icmp/tasks/icmplimit.yml",
           "roles/health_check_measure/tasks/main.yml"),
    evidence=EVIDENCE,
)
