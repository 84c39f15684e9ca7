# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: role_option_errors, wireguard_config_plan, wireguard_unmatched, bridge_persist_probe, banip_icmp_report,
banip_inactive_reason, banip_icmp_live, banip_icmp_replace_script, health_check_probe (docs in the .yml twins)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.limiter import banip_inactive, banip_limiter
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.icmp_pacing import probe_interval_ms
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.plan import live_limit_change
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import whole_number
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.persist import parse_persist_probe
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.role_options import option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.banip import banip_icmp_report as _banip_icmp_report
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.flood_rule import (
    live_icmp_limit, live_icmp_limit_text, replace_script, shell_quote)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.config_files import (
    config_plan, parse_config_listing, unmatched_messages)


def role_option_errors(options, role):
    """``{option: value}`` → the list of messages for the bad ones (see _role_options)."""
    try:
        return option_errors(role, options)
    except ParseError as exc:
        raise AnsibleFilterError("role_option_errors: %s" % exc) from exc


def banip_icmp_report(before, after, wanted_per_second, check_mode, init_script, version_defaults, would_change=None,
                      apply="replace_rule"):
    """banIP's facts before and after -> the role's report lines (see plugin_utils/report/banip.py)."""
    try:
        return _banip_icmp_report(before, after, wanted_per_second, check_mode, init_script, version_defaults, would_change,
                                  apply)
    except ValueError as exc:
        raise AnsibleFilterError("banip_icmp_report: %s" % exc) from None


def banip_icmp_live(result, wanted_per_second=None):
    """A raw result of ``nft -t -a list chain inet banIP pre-routing`` -> banIP's live ICMP flood limit (faults/banip_icmp/flood_rule.py),
    with ``text`` in words, and with ``wanted_per_second`` (packets/s) ``stale``: whether the live rule(s) must change, the
    fault's own decision (faults/banip_icmp/plan.py live_limit_change)."""
    if not isinstance(result, dict) or "rc" not in result:
        raise AnsibleFilterError("banip_icmp_live: expected the registered result of a raw nft list (with rc and stdout), got %r"
                                 % (type(result).__name__,))
    wanted = whole_number(wanted_per_second)
    if wanted_per_second is not None and wanted is None:
        raise AnsibleFilterError("banip_icmp_live: wanted_per_second must be a whole number, got %r" % (wanted_per_second,))
    try:
        live = live_icmp_limit(result.get("rc"), result.get("stdout") or "")
    except ParseError as exc:
        raise AnsibleFilterError("banip_icmp_live: %s" % exc) from None
    live = dict(live, text=live_icmp_limit_text(live))
    return live if wanted is None else dict(live, stale=live_limit_change(live["rates_per_second"], wanted))


def banip_icmp_replace_script(live, rate_per_second):
    """banip_icmp_live's answer and the wanted limit -> one shell command that rewrites the flood rule(s) in place (nft -f -)."""
    try:
        script = replace_script((live or {}).get("rules") or [], int(rate_per_second))
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError("banip_icmp_replace_script: %s" % exc) from None
    if not script:
        raise AnsibleFilterError("banip_icmp_replace_script: banIP's live chain has no ICMP flood rule to replace")
    return "printf '%%s\\n' %s | nft -f -" % " ".join(shell_quote(line) for line in script)


def banip_inactive_reason(banip):
    """openwrt_facts' banip facts -> why banIP must be left alone (not installed, disabled, table not loaded), or ""."""
    if not isinstance(banip, dict) or not isinstance(banip.get("installed"), bool):
        raise AnsibleFilterError("banip_inactive_reason: expected openwrt_facts' banip facts (a dict with installed), got %r"
                                 % (banip,))
    inactive = banip_inactive(banip)
    return inactive[1] if inactive else ""


def health_check_probe(banip, interval_ms):
    """openwrt_facts' banip facts and the role's interval -> the probe's interval inside banIP's limit (``banip_limiter``'s
    rule, faults/banip_icmp/limiter.py; the pacing: measure/icmp_pacing.py)."""
    if banip is not None and not isinstance(banip, dict):
        raise AnsibleFilterError("health_check_probe: expected openwrt_facts' banip facts (a dict) or null, got %r" % (banip,))
    try:
        return probe_interval_ms(banip_limiter(banip or {})[0], interval_ms)
    except ValueError as exc:
        raise AnsibleFilterError("health_check_probe: %s" % exc) from None


def wireguard_config_plan(text, interfaces, config_dir, networkd_dir):
    """The listing command's output → the wg-quick and .netdev files to change (see faults/nat_peer_keepalive/config_files.py)."""
    if not isinstance(interfaces, list) or not all(isinstance(name, str) for name in interfaces):
        raise AnsibleFilterError("wireguard_config_plan: interfaces must be a list of strings, got %r" % (interfaces,))
    try:
        return config_plan(parse_config_listing(text), interfaces, config_dir, networkd_dir)
    except ParseError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def wireguard_unmatched(wanted, matched, host, config_dir, networkd_dir):
    """What the options name but the host's configuration lacks → messages (see faults/nat_peer_keepalive/config_files.py)."""
    for name, value in (("wanted", wanted), ("matched", matched)):
        if not isinstance(value, dict) or not all(isinstance(value.get(k), list) for k in ("interfaces", "public_keys")):
            raise AnsibleFilterError("wireguard_unmatched: %s must be a dict with the lists interfaces and public_keys, "
                                     "got %r" % (name, value))
    return unmatched_messages(wanted, matched, host, config_dir, networkd_dir)


def bridge_persist_probe(text):
    """The persist probe's output → method, networkd state and unit states (faults/bridge_offload/persist.py)."""
    try:
        return parse_persist_probe(text)
    except ParseError as exc:
        raise AnsibleFilterError("bridge_persist_probe: %s" % exc) from exc


class FilterModule:
    """tunnelfix.fleet filters behind the roles' checks and probes."""

    def filters(self):
        return {
            "role_option_errors": role_option_errors,
            "wireguard_config_plan": wireguard_config_plan,
            "wireguard_unmatched": wireguard_unmatched,
            "bridge_persist_probe": bridge_persist_probe,
            "banip_icmp_report": banip_icmp_report,
            "banip_inactive_reason": banip_inactive_reason,
            "banip_icmp_live": banip_icmp_live,
            "banip_icmp_replace_script": banip_icmp_replace_script,
            "health_check_probe": health_check_probe,
        }
