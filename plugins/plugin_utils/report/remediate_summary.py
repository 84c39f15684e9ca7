# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""remediate's role choice for a fleet, in a few lines: per role the hosts it runs on, skips (by reason), and the
changes its plans expect (each distinct change once, with its hosts).

Input: ``plans``, what ``registry.remediate_plans`` returns::

    {host: {"roles": [role, ...], "vars": {...}, "skipped": {role: reason}, "changes": {role: [line, ...]}}}

and optionally ``host_vars`` (``hostvars``: host -> its variables), from which a role that keeps its change only until
reboot on a host (``RUNTIME_ONLY``: its persist variable set false there) gets a line saying so, with the hosts.

Pure; ValueError names an entry of the wrong shape.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import is_true
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FIX_PERSIST
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import host_list

# A role whose change outlives a reboot only through the hook or unit it installs, and the variable that turns that
# off (role default true; the faults declare it, Fault.fix_persist): a host setting it false gets the change for now only.
RUNTIME_ONLY = FIX_PERSIST


def runtime_only_text(variable) -> str:
    """The words every summary uses for a change that a reboot undoes: ``runtime only: lost at reboot (<variable>=false)``."""
    return "runtime only: lost at reboot (%s=false)" % variable


def _runtime_only_hosts(role, hosts, host_vars):
    """The ``hosts`` that set ``role``'s persist variable (``RUNTIME_ONLY``) to something not true; unset is the default, true."""
    variable = RUNTIME_ONLY.get(role)
    if not variable or host_vars is None:
        return []
    found = []
    for host in hosts:
        own = host_vars[host] if host in host_vars else {}
        if variable in own and own[variable] is not None and not is_true(own[variable]):
            found.append(host)
    return found


def _check(plans):
    if not isinstance(plans, dict):
        raise ValueError("plans must be remediate_plans' {host: {roles, vars, skipped, changes}}, got %s" % type(plans).__name__)
    for host, plan in plans.items():
        if not isinstance(plan, dict) or not isinstance(plan.get("roles", []), list) \
                or not isinstance(plan.get("skipped", {}), dict) or not isinstance(plan.get("changes", {}), dict):
            raise ValueError("plans[%r] must be {roles: [...], skipped: {...}, changes: {...}}, got %r" % (host, plan))
    return plans


def remediate_summary_lines(plans, every_role=False, max_hosts=8, host_vars=None) -> list:
    """The lines remediate prints before it changes anything (module doc), in fix order of first appearance.

    With ``host_vars``, under a role of ``RUNTIME_ONLY``: ``  runtime only: lost at reboot (<variable>=false) on N: hosts``
    for the hosts it runs on that set its persist variable false.
    """
    plans = _check(plans)
    chosen = sorted(host for host, plan in plans.items() if plan.get("roles"))
    if not chosen:
        skipped = any(plan.get("skipped") for plan in plans.values())
        head = ("every-role mode (tunnelfix_remediate_all_roles): no role to run, the facts show every host converged"
                if every_role else "no role to run: the roles the findings name are skipped (below), nothing to change"
                if skipped else "no finding names a role: nothing to change")
        lines = [head]
    else:
        lines = ["%s: %d host(s) get a role: %s" % (
            "every role on every host that its facts do not show converged (tunnelfix_remediate_all_roles is set)"
            if every_role else "roles from the findings", len(chosen), host_list(chosen, max_hosts))]
    roles = []
    for plan in plans.values():
        roles.extend(role for role in list(plan.get("roles") or []) + list(plan.get("skipped") or {}) if role not in roles)
    for role in roles:
        runs = sorted(host for host, plan in plans.items() if role in (plan.get("roles") or []))
        skipped = {}
        for host, plan in sorted(plans.items()):
            if role in (plan.get("skipped") or {}):
                skipped.setdefault(plan["skipped"][role], []).append(host)
        parts = ["runs on %d: %s" % (len(runs), host_list(runs, max_hosts))] if runs else []
        parts += ["skipped on %d (%s): %s" % (len(hosts), reason, host_list(hosts, max_hosts)) for reason, hosts in sorted(skipped.items())]
        lines.append("%s: %s" % (role, "; ".join(parts)))
        changes = {}
        for host, plan in sorted(plans.items()):
            for line in (plan.get("changes") or {}).get(role) or []:
                changes.setdefault(str(line), []).append(host)
        lines.extend("  would change %s on %d: %s" % (line, len(hosts), host_list(hosts, max_hosts)) for line, hosts in changes.items())
        runtime_only = _runtime_only_hosts(role, runs, host_vars)
        if runtime_only:
            lines.append("  %s on %d: %s" % (runtime_only_text(RUNTIME_ONLY[role]), len(runtime_only), host_list(runtime_only, max_hosts)))
    return lines
