# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Report rows of the sweeps before and after a fix, in the shape of ``_report.before_after_rows``.

Pure functions, no I/O. Bad arguments raise ValueError naming the argument and the value.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import format_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import finite_float
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep import NOT_MEASURED, _check_results, _path
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep_verdict import UDP_MAX_LOST_PERCENT


def _sweep_records(name, value):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("%s must be a dict {host: sweep record}, got %s %r" % (name, type(value).__name__, value))
    records = {}
    for host, record in value.items():
        if record is None:
            record = {}
        if not isinstance(record, dict):
            raise ValueError("%s[%r] must be a sweep record (a dict), got %s %r"
                             % (name, host, type(record).__name__, record))
        _check_results(record.get("results") or [], "%s[%r].results" % (name, host))
        conclusion = record.get("conclusion")
        if conclusion is not None and not (isinstance(conclusion, dict)
                                           and isinstance(conclusion.get("verdict"), (str, type(None)))):
            raise ValueError("%s[%r].conclusion must be a sweep_conclusion result (a dict with a verdict), got %r"
                             % (name, host, conclusion))
        records[host] = record
    return records


def _by_name(record):
    return {entry["name"]: entry for entry in record.get("results") or []}


def _test_label(entry, host, hub):
    ends = (host, hub) if entry.get("direction") == "upload" else (hub, host)
    if entry.get("protocol") == "udp":
        return "UDP at %s %s -> %s" % (format_bits_per_second(entry.get("offered_bits_per_second")), ends[0], ends[1])
    flows = entry.get("parallel") or 1
    return "TCP %d flow%s %s -> %s" % (flows, "" if flows == 1 else "s", ends[0], ends[1])


def _tcp_cell(entry):
    extra = ", ".join(part for part in (
        None if entry.get("retransmits") is None else "%d retransmits" % entry["retransmits"],
        entry.get("congestion_control")) if part)
    return "%s%s" % (format_bits_per_second(entry["bits_per_second"]), " (%s)" % extra if extra else "")


def _cells(entry, key):
    """(text, value) of one side of a row; key is bits_per_second, lost_percent or jitter_ms."""
    if entry is None:
        return "n/a", None
    if not entry.get("valid"):
        reason = entry.get("invalid_reason") or "no reason given"
        return reason if reason.startswith(NOT_MEASURED) else "invalid: %s" % reason, None
    value = finite_float(entry.get(key))
    if value is None:
        return "n/a", None
    if key == "bits_per_second":
        return _tcp_cell(entry), value
    if key == "lost_percent":
        return "%.3g %% (%s received)" % (value, format_bits_per_second(entry.get("bits_per_second"))), value
    return "%.3g ms" % value, value


def sweep_rows(before, after, path_by_host=None):
    """Pair two sweeps per host and test, as report rows (the shape of _report.before_after_rows).

    ``before``/``after``: ``{host: record}`` (None reads as empty), a record being ``{"hub": str,
    "path_bits_per_second": float|None, "results": [sweep_result entries], "conclusion":
    sweep_conclusion output}``; either side may lack a host or a test. ``path_by_host``: the
    path bottleneck, a ``{host: bit/s or "40M"}`` dict or one value for all hosts; a host it does
    not name uses its record's ``path_bits_per_second``.

    Rows, hosts sorted, tests in the order of the before sweep then any new in the after one::

        {"host": "peer", "test": "TCP 4 flows peer -> hub", "name": "tcp_parallel4_upload",
         "before": "9.10 Mbit/s (120 retransmits, cubic)", "after": "36.1 Mbit/s (80 retransmits, bbr)",
         "reference": "40.0 Mbit/s",                    # strings; "n/a" when a side is missing
         "before_value": 9100000.0, "after_value": 36100000.0, "reference_value": 40000000.0,
         "unit": "bits_per_second"}

    A TCP test gives one row (``bits_per_second``, reference the path); a UDP test two, ``"UDP at
    10.0 Mbit/s peer -> hub loss"`` (unit ``percent``, reference ``"1 %"``, the verdict's
    threshold) and ``"... jitter"`` (unit ``ms``, no reference). An invalid result reads
    ``"invalid: <reason>"`` with value None. Last per host, ``"sweep conclusion"``: the verdicts
    as text, values None, unit None. Raises ValueError naming the argument and host for records
    that are not dicts or results that are not lists of entries, or a bad path.
    """
    before, after = _sweep_records("before", before), _sweep_records("after", after)
    rows = []
    for host in sorted(set(before) | set(after), key=str):
        b, a = before.get(host, {}), after.get(host, {})
        raw_path = path_by_host.get(host) if isinstance(path_by_host, dict) else path_by_host
        if raw_path is None or raw_path == "":
            raw_path = a.get("path_bits_per_second") or b.get("path_bits_per_second")
        path = _path(raw_path, "path_by_host[%r]" % (host,))
        hub = a.get("hub") or b.get("hub") or "hub"
        b_tests, a_tests = _by_name(b), _by_name(a)
        names = list(b_tests) + [name for name in a_tests if name not in b_tests]
        for name in names:
            first = b_tests.get(name) or a_tests[name]
            label = _test_label(first, host, hub)
            if first.get("protocol") == "udp":
                metrics = (("lost_percent", " loss", "percent", "%g %%" % UDP_MAX_LOST_PERCENT, UDP_MAX_LOST_PERCENT),
                           ("jitter_ms", " jitter", "ms", "", None))
            else:
                metrics = (("bits_per_second", "", "bits_per_second", "" if path is None else format_bits_per_second(path), path),)
            for key, suffix, unit, reference, reference_value in metrics:
                before_text, before_value = _cells(b_tests.get(name), key)
                after_text, after_value = _cells(a_tests.get(name), key)
                rows.append({"host": host, "test": label + suffix, "name": name,
                             "before": before_text, "after": after_text, "reference": reference,
                             "before_value": before_value, "after_value": after_value,
                             "reference_value": reference_value, "unit": unit})
        rows.append({"host": host, "test": "sweep conclusion", "name": "conclusion",
                     "before": (b.get("conclusion") or {}).get("verdict") or "n/a",
                     "after": (a.get("conclusion") or {}).get("verdict") or "n/a",
                     "reference": "path_limit", "before_value": None, "after_value": None,
                     "reference_value": None, "unit": None})
    return rows
