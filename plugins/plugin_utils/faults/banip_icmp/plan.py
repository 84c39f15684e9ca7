# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's one plan: what banip_icmp changes, ``banip.global.ban_icmplimit`` in uci and the LIVE ICMP flood rule.

What is in force is the live rule: banIP rebuilds it from ``ban_icmplimit`` only when it builds its table, never on a
reload with the table loaded, so the plan compares the live rule as well as uci. Where banIP's limiter cannot drop
anything (``limiter.banip_inactive``) the role leaves banIP alone and the plan is empty.

The role applies this plan's decisions, not its own: whether banIP is left alone is ``banip_inactive`` (its filter
banip_inactive_reason), whether the live rule changes is ``live_limit_change`` (its filter banip_icmp_live, given the
wanted limit), and ``ban_icmplimit`` is set with the uci action, which changes it only where it differs.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.flood_rule import live_icmp_limit_text
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.limiter import banip_inactive
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import role_setting, whole_number
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

# banip_icmp's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("banip_icmp")
# How banip_icmp gets the limit into banIP's live rule, and what that costs (the plan says it)
APPLY_PLAN = {
    "replace_rule": "rewritten in place with nft replace rule; banIP's sets stay loaded",
    "restart": "banIP restarted: its table is rebuilt and its blocklist sets are empty until its feeds load again",
}


def live_limit_change(rates_per_second, wanted) -> bool:
    """Whether banIP's live ICMP flood rule(s) must change: some rule's limit is not ``wanted`` (packets/s).

    ``rates_per_second``: the limits of the loaded flood rules (``[]``: no rule, ``ban_icmplimit`` 0 when banIP built its
    table: nothing live to change, uci only). ``[25], 250`` -> True; ``[250], 250`` -> False; ``[10, 250], 250`` -> True
    (banIP 1.0.x's two rules, one per family, each must carry it).
    """
    return any(rate != wanted for rate in rates_per_second)


def limit_plan(view, role_vars):
    """What banip_icmp would change: ``banip.global.ban_icmplimit`` (uci) when it is not the wanted limit, and the LIVE
    ICMP flood rule when its limit is not the wanted one, whatever uci says.

    banIP writes the rule only when it builds its nft table (start, restart, or a reload that finds the
    chain missing; a reload with the table loaded keeps the old rule: banip-service.sh in openwrt/packages
    23.05 @16c320b7fd, 24.10 @42525d32c4, 25.12 @57654a9f48), so a router whose uci is right can still
    drop at the old limit. The live rules are openwrt_facts' ``icmp_limit_rule`` (read from nft: every rule's limit,
    ``live_rates``, decided by ``live_limit_change`` as the role decides from its own listing); the
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
    rates = live_rates(banip.get("icmp_limit_rule"))
    if live_limit_change(rates, wanted):
        live = live_icmp_limit_text({"chain_loaded": True, "rates_per_second": sorted(set(rates))})
        plan.append("live ICMP flood rule: %s -> %d/s (%s)" % (live, wanted, APPLY_PLAN[apply]))
    return plan


def live_rates(rule):
    """Every live ICMP flood rule's limit (packets/s) from openwrt_facts' ``icmp_limit_rule``: its ``rates_per_second``
    (each rule's, banIP 1.0.x has one per family), or for facts without that key (an older collection) the first rule's
    ``rate_per_second``; ``[]`` without a rule."""
    if not isinstance(rule, dict):
        return []
    if isinstance(rule.get("rates_per_second"), list):
        return list(rule["rates_per_second"])
    return [] if rule.get("rate_per_second") is None else [rule["rate_per_second"]]
