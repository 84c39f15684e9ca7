# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What diagnose judged: found, clear or not_checked per fault, grouped for the console, the Markdown and the HTML report.

Input: ``checks``, the ``checks`` of reports/findings.json (``registry.diagnosis``)::

    {host: {fault id: {"status": "found" | "clear" | "not_checked", "reason": str | None}}}

Hosts with the same fault, status and reason are one group, so a fleet of 400 prints one line per
fault and reason, not per host. Only the hosts in ``checks`` are named (the hosts of the run). Pure;
ValueError names the first entry of the wrong shape.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import md_cell

STATUS_ORDER = ("found", "not_checked", "clear")
STATUS_WORDS = {"found": "found on", "not_checked": "not checked on", "clear": "clear on"}


def check_checks(checks) -> dict:
    """``checks`` as given when it has the shape above, else ValueError naming the entry."""
    if not isinstance(checks, dict):
        raise ValueError("checks must be {host: {fault id: {status, reason}}} (reports/findings.json), got %s"
                         % type(checks).__name__)
    for host, faults in checks.items():
        if not isinstance(faults, dict):
            raise ValueError("checks[%r] must be {fault id: {status, reason}}, got %r" % (host, faults))
        for fault_id, entry in faults.items():
            if not isinstance(entry, dict) or entry.get("status") not in STATUS_ORDER \
                    or not isinstance(entry.get("reason"), (str, type(None))):
                raise ValueError("checks[%r][%r] must be {status: found|clear|not_checked, reason: text or null}, got %r"
                                 % (host, fault_id, entry))
    return checks


def coverage_groups(checks) -> list:
    """``[{"fault", "status", "reason", "hosts": [...]}]``: faults in the order of the checks, then found,
    not_checked, clear, then reason; hosts sorted."""
    groups = {}
    faults = []
    for host, entries in check_checks(checks).items():
        for fault_id, entry in entries.items():
            if fault_id not in faults:
                faults.append(fault_id)
            groups.setdefault((fault_id, entry["status"], entry["reason"] or ""), []).append(host)
    return [{"fault": fault_id, "status": status, "reason": reason or None, "hosts": sorted(hosts)}
            for (fault_id, status, reason), hosts in sorted(groups.items(), key=lambda item: (
                faults.index(item[0][0]), STATUS_ORDER.index(item[0][1]), item[0][2]))]


def host_list(hosts, max_hosts=8) -> str:
    """``a, b, c`` or, past ``max_hosts``, ``a, b, ... and 12 more``; every host when ``max_hosts`` is None."""
    hosts = list(hosts)
    shown = ", ".join(hosts[:max_hosts])
    return shown + (" and %d more" % (len(hosts) - max_hosts) if max_hosts is not None and len(hosts) > max_hosts else "")


def finding_lines(findings) -> list:
    """One line per finding: ``SEVERITY host finding-id (fix: fixing role, or "see the explanation"): explanation``."""
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise ValueError("findings must be a list of findings, got %s" % type(findings).__name__)
    return ["%s %s %s (fix: %s): %s" % (str(f.get("severity") or "-").upper(), f.get("host"), f.get("id"),
                                        f.get("fix_role") or "see the explanation", f.get("explanation") or "") for f in findings]


def _group_text(group, max_hosts):
    reason = " (%s)" % group["reason"] if group["reason"] and group["status"] != "clear" else ""
    return "%s %d%s: %s" % (STATUS_WORDS[group["status"]], len(group["hosts"]), reason, host_list(group["hosts"], max_hosts))


def coverage_lines(document, max_hosts=8) -> list:
    """The console summary of diagnose's document (reports/findings.json): one line per fault, then what to do next.

    ``<fault>: found on 2: a, b; not checked on 3 (reason): c, d, e; clear on 35``. A fault clear on every
    host is one short line. The last lines say which faults could not be judged anywhere and the next command.
    """
    if not isinstance(document, dict) or not isinstance(document.get("findings"), list):
        raise ValueError("document must be reports/findings.json's document (format, hosts, checks, findings)")
    checks = check_checks(document.get("checks") or {})
    hosts = sorted(checks)
    lines = ["%d finding(s) on %d of the %d host(s) of this run (%s)" % (
        len(document["findings"]), len({f.get("host") for f in document["findings"]}), len(hosts), host_list(hosts, max_hosts))]
    by_fault = {}
    for group in coverage_groups(checks):
        by_fault.setdefault(group["fault"], []).append(group)
    for fault_id, groups in by_fault.items():
        if all(group["status"] == "clear" for group in groups):
            lines.append("%s: clear on all %d" % (fault_id, len(hosts)))
            continue
        clear = sum(len(group["hosts"]) for group in groups if group["status"] == "clear")
        parts = [_group_text(group, max_hosts) for group in groups if group["status"] != "clear"]
        lines.append("%s: %s%s" % (fault_id, "; ".join(parts), "; clear on %d" % clear if clear else ""))
    fixable = sorted({f.get("fix_role") for f in document["findings"] if f.get("fix_role")})
    unjudged = [fault_id for fault_id, groups in by_fault.items() if all(group["status"] == "not_checked" for group in groups)]
    if unjudged:
        lines.append("not checked on any host: %s (the reasons above say what was missing)" % ", ".join(unjudged))
    if fixable:
        lines.append("next: remediate.yml with the same inventory runs %s on the hosts with findings" % ", ".join(fixable))
    elif not document["findings"]:
        lines.append("no finding%s" % ("" if not any(g["status"] == "not_checked" for gs in by_fault.values() for g in gs)
                                       else "; a not-checked fault is not a clean one"))
    return lines


def coverage_rows(checks, max_hosts=None) -> list:
    """One row per fault for a table: ``(fault id, found texts, not checked texts, clear count or None)``.

    A text is one group: ``"2: a, b"``, or with its reason ``"3 (reason): c, d, e"`` (hosts as
    ``host_list``); the Markdown and HTML reports print the same rows, each escaped its own way.
    """
    by_fault = {}
    for group in coverage_groups(checks):
        by_fault.setdefault(group["fault"], {}).setdefault(group["status"], []).append(group)
    rows = []
    for fault_id, statuses in by_fault.items():
        texts = [["%d%s: %s" % (len(group["hosts"]), " (%s)" % group["reason"] if group["reason"] else "",
                                host_list(group["hosts"], max_hosts)) for group in statuses.get(status) or []]
                 for status in ("found", "not_checked")]
        clear = statuses.get("clear")
        rows.append((fault_id, texts[0], texts[1], sum(len(group["hosts"]) for group in clear) if clear else None))
    return rows


def coverage_table(checks, max_hosts=20) -> str:
    """The Markdown table of ``checks``: one row per fault, its found, not checked (with reasons) and clear hosts."""
    lines = ["| finding | found | not checked | clear |", "|---|---|---|---|"]
    for fault_id, found, unchecked, clear in coverage_rows(checks, max_hosts):
        cells = [fault_id, "; ".join(found) or "-", "; ".join(unchecked) or "-", "-" if clear is None else str(clear)]
        lines.append("| %s |" % " | ".join(md_cell(cell) for cell in cells))
    return "\n".join(lines) + "\n"
