# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: batch_progress, before_after_rows, coverage_table, diagnosis_summary, findings_table, health_check_rows, markdown_table,
finding_lines, limit_with_localhost, outcome_lines, ping_summary, redact_command_words, remediate_summary, report_document, report_html, run_summary,
terminal_text, tunnel_graph_table (docs in the .yml twins)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ping import parse_ping_summary
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import (
    before_after_rows,
    findings_table,
    health_check_rows,
    markdown_table,
    redact_command_words,
    terminal_text,
)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import coverage_lines, coverage_table, finding_lines
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.remediate_summary import remediate_summary_lines
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import batch_progress, limit_with_localhost, outcome_lines, stage_summary
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.tunnel_graph import problem_table
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.html import (
    render_report_html,
    report_document,
)


def _checked(name, func, expected_input):
    """Wrap a pure function as a filter: wrong input types and parse errors become AnsibleFilterError."""
    def run(value, *args):
        if not isinstance(value, expected_input):
            raise AnsibleFilterError("%s expects %s as input, got %s"
                                     % (name, expected_input.__name__, type(value).__name__))
        try:
            return func(value, *args)
        except (ParseError, TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
            raise AnsibleFilterError("%s: bad input: %s" % (name, exc)) from exc
    run.__doc__ = func.__doc__
    return run


_MARKDOWN_KEYS = ("host", "test", "before", "after", "reference")


def _markdown_table(rows):
    """markdown_table, refusing rows it cannot print (naming the row) before a KeyError or TypeError could.

    Same input and output as module_utils._report.markdown_table (list of row dicts -> Markdown text).
    """
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or any(key not in row for key in _MARKDOWN_KEYS):
            raise ValueError("rows[%d] must be a row (a dict with %s), got %r" % (index, ", ".join(_MARKDOWN_KEYS), row))
    return markdown_table(rows)


class FilterModule:
    """tunnelfix.fleet report filters."""

    def filters(self):
        return {
            "before_after_rows": _checked("before_after_rows", before_after_rows, dict),
            "health_check_rows": _checked("health_check_rows", health_check_rows, dict),
            "findings_table": _checked("findings_table", findings_table, list),
            "coverage_table": _checked("coverage_table", coverage_table, dict),
            "diagnosis_summary": _checked("diagnosis_summary", coverage_lines, dict),
            "finding_lines": _checked("finding_lines", finding_lines, list),
            "remediate_summary": _checked("remediate_summary", remediate_summary_lines, dict),
            "markdown_table": _checked("markdown_table", _markdown_table, list),
            "ping_summary": _checked("ping_summary", parse_ping_summary, str),
            "redact_command_words": _checked("redact_command_words", redact_command_words, list),
            "terminal_text": _checked("terminal_text", terminal_text, str),
            "report_document": _checked("report_document", report_document, list),
            "report_html": _checked("report_html", render_report_html, list),
            "outcome_lines": _checked("outcome_lines", outcome_lines, list),
            "run_summary": _checked("run_summary", stage_summary, object),
            "batch_progress": _checked("batch_progress", batch_progress, list),
            "limit_with_localhost": _checked("limit_with_localhost", limit_with_localhost, str),
            "tunnel_graph_table": _checked("tunnel_graph_table", problem_table, dict),
        }
