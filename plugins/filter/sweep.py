# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: sweep_plan, sweep_result, sweep_conclusion, sweep_rows.

Documentation in the .yml twins; the plan, the rules and the row shapes are in plugin_utils/measure/sweep.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep import sweep_plan, sweep_result
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.sweep_rows import sweep_rows
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep_verdict import sweep_conclusion


def _filter(name, func):
    """Wrap a pure function: its ValueError (ParseError is one) becomes AnsibleFilterError naming the filter."""
    def run(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ValueError as exc:
            raise AnsibleFilterError("%s: %s" % (name, exc)) from None
    run.__doc__ = func.__doc__
    return run


class FilterModule:
    """tunnelfix.fleet measurement sweep filters."""

    def filters(self):
        return {
            "sweep_plan": _filter("sweep_plan", sweep_plan),
            "sweep_result": _filter("sweep_result", sweep_result),
            "sweep_conclusion": _filter("sweep_conclusion", sweep_conclusion),
            "sweep_rows": _filter("sweep_rows", sweep_rows),
        }
