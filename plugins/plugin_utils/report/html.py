# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The before/after report as one self-contained HTML page, and as a JSON document.

Input, shared by both functions:

``rows``: rows in the shape of ``_report.before_after_rows`` / ``health_check_rows`` and the
sweep filter::

    {"host": "owrt", "test": "TCP single flow owrt -> hub",
     "before": "1.83 Mbit/s (25 retransmits, cubic)", "after": "36.6 Mbit/s (94 retransmits, cubic)",
     "reference": "40.0 Mbit/s",
     "before_value": 1831610.75, "after_value": 36600000.0, "reference_value": 40000000.0,
     "unit": "bits_per_second"}

``host`` and ``test`` are required; the strings default to "n/a" (before, after) and ""
(reference); each ``*_value`` is a finite number >= 0 or None (missing or failed), in ``unit``:
"bits_per_second", "percent", "count" or "ms" (another unit is printed after the number).

``findings``: diagnose's findings (``_findings.find_findings``, reports/findings.json), a list of
``{"id", "severity", "host", "fix_role", "evidence": {...}, "explanation"}``; None when there
is no findings file (shown as such, unlike ``[]``: "No finding.").

``checks``: what diagnose judged (reports/findings.json's ``checks``: ``{host: {fault id: {status,
reason}}}``, plugin_utils/report/coverage.py), or None for a findings file without them.

``meta``: ``{"generated": "2026-11-30T14:00:00Z", "collection_version": "0.1.0", "command":
"ansible-playbook ..."}``, any further keys are shown too; None reads as ``{}``.

Both functions raise ValueError naming the argument, the row index and the key for anything
else (``rows[2].after_value must be a finite number >= 0 or None, got 'fast'``). Pure: no I/O.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from html import escape

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import format_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import check_checks, coverage_rows
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import measurement_note, outcome_text
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.tunnel_graph import GRAPH_CSS, graph_svg

SCHEMA_VERSION = 1
COLOURS = {"before": "#9ca3af", "after": "#2563eb", "reference": "#d97706"}
SEVERITIES = ("critical", "high", "medium", "low", "info")
_TEXT_DEFAULTS = (("before", "n/a"), ("after", "n/a"), ("reference", ""))
_VALUE_KEYS = ("before_value", "after_value", "reference_value")

# Chart geometry in CSS pixels: side label | bar (longest = BAR_MAX) | room for the value label.
# TOP leaves room above the bars for the reference line's label, when there is one.
WIDTH, BAR_X, BAR_MAX, BAR_H, GAP, TOP, TOP_PLAIN, BOTTOM = 720, 64, 500, 24, 8, 24, 6, 6
INSIDE_LABEL_MIN_WIDTH = 120  # a bar at least this wide carries its value label inside


def _e(value):
    return escape("" if value is None else str(value), quote=True)


def _breakable(value):
    """Escaped, with a line-break opportunity after each _ and . (long finding ids and role names)."""
    return _e(value).replace("_", "_<wbr>").replace(".", ".<wbr>")


def _value(index, key, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("rows[%d].%s must be a finite number >= 0 or None, got %r" % (index, key, value))
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or number < 0:
        raise ValueError("rows[%d].%s must be a finite number >= 0 or None, got %r" % (index, key, value))
    return number


def check_rows(rows):
    """Validated copies of ``rows``: strings filled in, values as floats; ValueError otherwise."""
    if not isinstance(rows, list):
        raise ValueError("rows must be a list of rows, got %s" % type(rows).__name__)
    checked = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError("rows[%d] must be a dict (a row), got %s %r" % (index, type(row).__name__, row))
        missing = [key for key in ("host", "test") if row.get(key) in (None, "")]
        if missing:
            raise ValueError("rows[%d] lacks %s: %r" % (index, " and ".join(missing), row))
        out = dict(row)
        out["host"], out["test"] = str(row["host"]), str(row["test"])
        for key, default in _TEXT_DEFAULTS:
            out[key] = default if row.get(key) is None else str(row[key])
        for key in _VALUE_KEYS:
            out[key] = _value(index, key, row.get(key))
        unit = row.get("unit")
        if unit is not None and not isinstance(unit, str):
            raise ValueError("rows[%d].unit must be a string, got %r" % (index, unit))
        out["unit"] = unit
        checked.append(out)
    return checked


def _check_findings(findings):
    if findings is None:
        return None
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise ValueError("findings must be a list of findings (reports/findings.json), got %s"
                         % type(findings).__name__)
    return findings


def _check_meta(meta):
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise ValueError("meta must be a dict (generated, collection_version, command), got %s"
                         % type(meta).__name__)
    return meta


def _three_digits(number):
    return "%.0f" % number if abs(number) >= 100 else "%.3g" % number


def format_value(value, unit):
    """``36.6e6, "bits_per_second"`` → "36.6 Mbit/s"; ``100.0, "percent"`` → "100 %"; ``10.0,
    "count"`` → "10"; ``52.1, "ms"`` → "52.1 ms"; None → "n/a"; another unit: number and unit."""
    if value is None:
        return "n/a"
    if unit == "bits_per_second":
        return format_bits_per_second(value)
    if unit == "percent":
        return "%s %%" % _three_digits(value)
    if unit == "count" or not unit:
        return _three_digits(value)
    return "%s %s" % (_three_digits(value), unit)


def _has_numbers(row):
    """Charted: a number on either side and a reference to read it against (jitter has none: a table line)."""
    return (row["before_value"] is not None or row["after_value"] is not None) and row.get("reference_value") is not None


def _bar(row, side, y, scale):
    """The side's label, bar (only for a number) and value label, as SVG elements."""
    value = row[side + "_value"]
    width = 0.0 if value is None or scale == 0 else BAR_MAX * value / scale
    label = format_value(value, row["unit"])
    parts = ['<text class="side" x="0" y="%d">%s</text>' % (y + BAR_H / 2 + 4, side)]
    if value is not None:
        parts.append('<rect class="bar %s" x="%d" y="%d" width="%.1f" height="%d" fill="%s" data-host="%s" '
                     'data-test="%s" data-side="%s" data-value="%r" data-unit="%s"><title>%s %s</title></rect>'
                     % (side, BAR_X, y, width, BAR_H, COLOURS[side], _e(row["host"]), _e(row["test"]), side,
                        value, _e(row["unit"]), side, _e(label)))
    if width >= INSIDE_LABEL_MIN_WIDTH:
        parts.append('<text class="value inside %s" x="%.1f" y="%d" text-anchor="end">%s</text>'
                     % (side, BAR_X + width - 8, y + BAR_H / 2 + 5, _e(label)))
    else:
        parts.append('<text class="value" x="%.1f" y="%d">%s</text>' % (BAR_X + width + 6, y + BAR_H / 2 + 5, _e(label)))
    return parts


def _chart(row):
    """An inline SVG: before and after bars on one scale, the reference as a dashed line when > 0."""
    reference = row["reference_value"] if row["reference_value"] else None
    scale = max(v for v in (row["before_value"], row["after_value"], reference, 0.0) if v is not None)
    summary = "%s: before %s, after %s" % (row["test"], format_value(row["before_value"], row["unit"]),
                                           format_value(row["after_value"], row["unit"]))
    top = TOP if reference is not None else TOP_PLAIN
    height = top + 2 * BAR_H + GAP + BOTTOM
    parts = ['<svg class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">'
             % (WIDTH, height, WIDTH, height, _e(summary)),
             # the zero line, one pixel left of the bars so that a bar of 0 still has an anchor
             '<line class="axis" x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#6b7280" stroke-width="1"/>'
             % (BAR_X - 0.5, BAR_X - 0.5, top - 3, height - BOTTOM + 3)]
    parts += _bar(row, "before", top, scale)
    parts += _bar(row, "after", top + BAR_H + GAP, scale)
    if reference is not None:
        x = BAR_X + BAR_MAX * reference / scale
        parts.append('<line class="reference" x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="2" '
                     'stroke-dasharray="5 4" data-value="%r"/>'
                     % (x, x, top - 6, height - 2, COLOURS["reference"], reference))
        parts.append('<text class="reference-label" x="%.1f" y="%d" text-anchor="middle">%s</text>'
                     % (x, top - 10, _e(format_value(reference, row["unit"]))))
    parts.append("</svg>")
    return "".join(parts)


def _host_section(host, rows):
    out = ['<section class="host" data-host="%s">' % _e(host), "<h2>%s</h2>" % _e(host)]
    for row in (r for r in rows if _has_numbers(r)):
        out.append('<figure class="test" data-test="%s"><figcaption>%s</figcaption>%s'
                   '<p class="detail"><span>before: %s</span><span>after: %s</span>%s</p></figure>'
                   % (_e(row["test"]), _e(row["test"]), _chart(row), _e(row["before"]), _e(row["after"]),
                      "<span>bottleneck / target: %s</span>" % _e(row["reference"]) if row["reference"] else ""))
    plain = [r for r in rows if not _has_numbers(r)]
    if plain:
        out.append('<table class="plain"><thead><tr><th>test</th><th>before</th><th>after</th>'
                   "<th>bottleneck / target</th></tr></thead><tbody>")
        out += ["<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                % tuple(_e(r[key]) for key in ("test", "before", "after", "reference")) for r in plain]
        out.append("</tbody></table>")
    out.append("</section>")
    return out


def _evidence_json(evidence):
    """Evidence as indented JSON, keys sorted when they can be (keys of mixed types, 1 and "a", cannot)."""
    try:
        return json.dumps(evidence, indent=2, sort_keys=True, default=str)
    except TypeError:
        return json.dumps(evidence, indent=2, default=str)


def _findings_section(findings):
    out = ["<section class=\"findings\"><h2>What diagnose found</h2>"]
    if findings is None:
        return out + ["<p>No findings file (diagnose.yml writes reports/findings.json).</p></section>"]
    if not findings:
        return out + ["<p>No finding.</p></section>"]
    verified = any("outcome" in finding for finding in findings)
    out.append("<table><thead><tr><th>host</th><th>severity</th><th>finding</th><th>fixed by</th>"
               + ("<th>after verify</th>" if verified else "")
               + '<th class="explanation">explanation</th></tr></thead><tbody>')
    for finding in findings:
        severity = str(finding.get("severity") or "-")
        css = "sev-" + severity if severity in SEVERITIES else "sev-other"
        evidence = finding.get("evidence")
        details = ("<details><summary>evidence</summary><pre>%s</pre></details>"
                   % _e(_evidence_json(evidence)) if evidence else "")
        outcome = ('<td class="outcome">%s</td>' % _e(outcome_text(finding))) if verified else ""
        out.append('<tr data-finding="%s"><td>%s</td><td><span class="severity %s">%s</span></td><td><code>%s</code>'
                   "</td><td><code>%s</code></td>%s<td>%s%s</td></tr>"
                   % (_e(finding.get("id")), _e(finding.get("host") or "-"), css, _e(severity),
                      _breakable(finding.get("id") or "-"), _breakable(finding.get("fix_role") or "-"), outcome,
                      _e(finding.get("explanation") or ""), details))
    return out + ["</tbody></table></section>"]


def _coverage_section(checks):
    """One row per fault: the hosts it was found on, not checked on (grouped by reason) and the count of clear ones."""
    if checks is None:
        return []
    out = ["<section class=\"coverage\"><h2>What diagnose judged</h2>",
           "<p>Per fault, the hosts of this run: found, not checked (and why), clear. A not-checked fault is not a clean one.</p>",
           "<table><thead><tr><th>finding</th><th>found</th><th>not checked</th><th>clear</th></tr></thead><tbody>"]
    for fault_id, found, unchecked, clear in coverage_rows(checks):
        cells = ["<br>".join(_e(text) for text in texts) or "-" for texts in (found, unchecked)]
        out.append('<tr data-coverage="%s"><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>'
                   % (_e(fault_id), _breakable(fault_id), cells[0], cells[1], "-" if clear is None else _e(clear)))
    return out + ["</tbody></table></section>"]


_CSS = """
body{font:15px/1.45 system-ui,"DejaVu Sans",sans-serif;color:#111827;background:#fff;margin:24px auto;max-width:1040px;padding:0 16px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
.meta{color:#4b5563;font-size:13px;margin:0 0 12px}.meta span{margin-right:16px}.meta code{font-size:12px}
.legend{font-size:13px;color:#374151}.legend span{margin-right:18px;white-space:nowrap}
.swatch{display:inline-block;width:14px;height:10px;margin-right:5px;vertical-align:baseline}
.dash{display:inline-block;width:18px;margin-right:5px;vertical-align:middle;border-top:2px dashed %(reference)s}
figure.test{margin:10px 0 16px}figcaption{font-weight:600;margin-bottom:2px}
svg.chart{display:block}svg.chart text{font:13px system-ui,"DejaVu Sans",sans-serif;fill:#111827}
svg.chart text.side{fill:#4b5563}svg.chart text.inside.after{fill:#fff}
svg.chart text.value{paint-order:stroke;stroke:#fff;stroke-width:3px}svg.chart text.inside{stroke:none}
svg.chart text.reference-label{fill:#92400e;font-size:12px}
.detail{margin:2px 0 0;color:#4b5563;font-size:13px}.detail span{margin-right:18px}
table{border-collapse:collapse;width:100%%;font-size:14px}th,td{border:1px solid #e5e7eb;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6}th.explanation{width:44%%}td code{font-size:12px}code{font-size:13px}pre{font-size:12px;background:#f9fafb;padding:6px;overflow-x:auto}
.severity{padding:1px 7px;border-radius:9px;font-size:12px;font-weight:600;white-space:nowrap}
.sev-critical{background:#fee2e2;color:#991b1b}.sev-high{background:#ffedd5;color:#9a3412}
.sev-medium{background:#fef9c3;color:#854d0e}.sev-low,.sev-info,.sev-other{background:#e5e7eb;color:#374151}
""" % COLOURS + GRAPH_CSS


def _check_graph(graph):
    if graph is None:
        return None
    if not isinstance(graph, Mapping):
        raise ValueError("graph must be reports/findings.json's tunnel_graph (a dict), got %s" % type(graph).__name__)
    return _plain(graph)


def render_report_html(rows, findings=None, meta=None, checks=None, graph=None):
    """Render the report as one self-contained HTML page (str).

    One section per host (in the order hosts first appear in ``rows``): for each row with a
    number and a reference (``reference_value`` not None), an inline SVG with a grey before bar
    and a blue after bar on one scale (value labels in human units: Mbit/s, %, ms) and the
    reference as a dashed line when it is > 0; other rows (jitter, verdicts) as a table. The
    findings (host, severity, id, fixing role, explanation, evidence folded) come first, after
    ``meta``, then the fleet's tunnel graph (``graph``: reports/findings.json's ``tunnel_graph``; None leaves it out;
    report/tunnel_graph.py ``graph_svg``), then what diagnose judged per fault (``checks``), then ``measurement_note``'s
    sentence when there is no
    measurement or none after the fix yet. No script, no external resource (a
    Content-Security-Policy forbids both); every piece of input text is HTML-escaped.

    Bars carry ``class="bar before"``/``"bar after"``, ``data-host``, ``data-test``,
    ``data-side``, ``data-value`` (the float, in ``data-unit``) and ``width`` (CSS pixels,
    proportional to the value). Raises ValueError for bad input (see the module docstring).
    """
    rows, findings, meta = check_rows(rows), _check_findings(findings), _check_meta(meta)
    checks, graph = None if checks is None else check_checks(checks), _check_graph(graph)
    hosts = {}
    for row in rows:
        hosts.setdefault(row["host"], []).append(row)
    meta_line = "".join("<span>%s: <code>%s</code></span>" % (_e(str(key).replace("_", " ")), _e(value))
                        for key, value in meta.items())
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>tunnelfix.fleet report%s</title>" % (" " + _e(meta["generated"]) if meta.get("generated") else ""),
           "<style>%s</style></head><body>" % _CSS,
           "<h1>tunnelfix.fleet: before and after</h1>",
           '<p class="meta">%s</p>' % meta_line,
           '<p class="legend"><span><i class="swatch" style="background:%s"></i>before</span>'
           '<span><i class="swatch" style="background:%s"></i>after</span>'
           '<span><i class="dash"></i>bottleneck / target (for UDP loss: the 1 %% the sweep calls lossy)</span></p>' % (COLOURS["before"], COLOURS["after"])]
    # What was wrong first, then the measurements that show the fix.
    out += _findings_section(findings)
    if graph is not None:
        out.append(graph_svg(graph))
    out += _coverage_section(checks)
    note = measurement_note(rows)  # no row at all, or no after side yet: a sentence saying why, not an empty page
    if note:
        out.append('<p class="measurement-note">%s</p>' % _e(note))
    for host, host_rows in hosts.items():
        out += _host_section(host, host_rows)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def report_document(rows, findings=None, meta=None, checks=None, graph=None):
    """The report as a JSON-ready dict (reports/report.json)::

        {"schema_version": 1, "generated": meta["generated"] or None,
         "rows": [validated rows: strings filled in, values as float or None, unit],
         "findings": [...as given, None when there is no findings file...], "meta": {...as given...},
         "checks": {host: {fault id: {status, reason}}} as given, or None,
         "tunnel_graph": reports/findings.json's tunnel_graph as given (faults/tunnel_graph/export.py), or None}

    Raises ValueError for bad input (see the module docstring).
    """
    rows, findings, meta = check_rows(rows), _check_findings(findings), _check_meta(meta)
    checks, graph = None if checks is None else check_checks(checks), _check_graph(graph)
    return {"schema_version": SCHEMA_VERSION, "generated": meta.get("generated"), "rows": rows,
            "findings": _plain(findings), "meta": _plain(meta), "checks": _plain(checks), "tunnel_graph": graph}


def _plain(value):
    """A copy of JSON-shaped ``value`` made of plain dicts and lists.

    Not ``copy.deepcopy``: a filter's arguments are ansible-core's lazy containers, whose deep copy
    copies their templar and with it the filter and test plugin loaders, which ansible-core 2.21
    reports as a deprecation ("Instantiating filter PluginLoader with aliases is deprecated").
    """
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
