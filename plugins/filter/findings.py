# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: findings, fix_roles_by_host, fix_vars_by_host, host_view, host_summary (documentation in the
.yml twins; rules in module_utils/_findings.py, the views in _host_view.py, the overview in _host_summary.py)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._findings import find_findings, fix_roles_by_host, fix_vars_by_host
from ansible_collections.tunnelfix.fleet.plugins.module_utils._host_summary import host_summary_lines
from ansible_collections.tunnelfix.fleet.plugins.module_utils._host_view import host_view


def findings(views):
    """``{host: view}`` → the list of findings (see module_utils/_findings.py)."""
    try:
        return find_findings(views)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise AnsibleFilterError("findings: bad host views: %s" % exc) from None


def roles_by_host(found):
    """findings → ``{host: [fix role, ...]}`` (see module_utils/_findings.py)."""
    try:
        return fix_roles_by_host(found)
    except ValueError as exc:
        raise AnsibleFilterError("fix_roles_by_host: %s" % exc) from None


def vars_by_host(found):
    """findings → ``{host: {role variable: value}}`` (see module_utils/_findings.py)."""
    try:
        return fix_vars_by_host(found)
    except ValueError as exc:
        raise AnsibleFilterError("fix_vars_by_host: %s" % exc) from None


def host_summary(views):
    """``{host: view}`` → overview lines, one per host and topic (see module_utils/_host_summary.py)."""
    try:
        return host_summary_lines(views)
    except ValueError as exc:
        raise AnsibleFilterError("host_summary: %s" % exc) from None


class FilterModule:
    """tunnelfix.fleet findings filters."""

    def filters(self):
        return {"findings": findings, "fix_roles_by_host": roles_by_host, "fix_vars_by_host": vars_by_host,
                "host_summary": host_summary, "host_view": host_view}
