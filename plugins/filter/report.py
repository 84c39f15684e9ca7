# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: before_after_rows, markdown_table, ping_summary (docs in the .yml twins)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._ping import parse_ping_summary
from ansible_collections.tunnelfix.fleet.plugins.module_utils._report import (
    before_after_rows,
    markdown_table,
)


def ping_summary(text):
    """parse_ping_summary() for Jinja; a ParseError becomes an AnsibleFilterError."""
    try:
        return parse_ping_summary(text)
    except ParseError as exc:
        raise AnsibleFilterError(str(exc)) from exc


class FilterModule:
    """tunnelfix.fleet report filters."""

    def filters(self):
        return {
            "before_after_rows": before_after_rows,
            "markdown_table": markdown_table,
            "ping_summary": ping_summary,
        }
