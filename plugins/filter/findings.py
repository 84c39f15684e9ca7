# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins over the fault registry (plugin_utils/faults/registry.py): findings, diagnosis, fix_roles_by_host,
fix_vars_by_host, remediate_plans, finding_outcomes, unfixed_by_host, verify_floor,
health_check_allowance, host_view, host_summary.
Documentation in the .yml twins."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.host_summary import host_summary_lines
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import host_view


def _wrap(name, function):
    """``function`` with its ValueError/TypeError turned into AnsibleFilterError naming the filter."""
    def filter_function(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise AnsibleFilterError("%s: %s" % (name, exc)) from None
    filter_function.__name__ = name
    filter_function.__doc__ = function.__doc__
    return filter_function


def _host_view(host_vars, phase=None):
    """One host's view (faults/view.py) holding the measurement records the registry's faults declare."""
    return host_view(host_vars, phase, registry.view_records())


class FilterModule:
    """tunnelfix.fleet fault registry filters."""

    def filters(self):
        return {
            "findings": _wrap("findings", registry.find_findings),
            "diagnosis": _wrap("diagnosis", registry.diagnosis),
            "fix_roles_by_host": _wrap("fix_roles_by_host", registry.fix_roles_by_host),
            "fix_vars_by_host": _wrap("fix_vars_by_host", registry.fix_vars_by_host),
            "remediate_plans": _wrap("remediate_plans", registry.remediate_plans),
            "finding_outcomes": _wrap("finding_outcomes", registry.finding_outcomes),
            "unfixed_by_host": _wrap("unfixed_by_host", registry.unfixed_by_host),
            "verify_floor": _wrap("verify_floor", registry.verify_floor),
            "health_check_allowance": _wrap("health_check_allowance", registry.health_check_allowance),
            "host_summary": _wrap("host_summary", host_summary_lines),
            "host_view": _host_view,
        }
