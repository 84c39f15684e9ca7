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

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import KEY_SHAPED
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import opt_ins_left
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import md_cell
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import compact_hosts, compact_parts, opt_in_advice

STATUS_ORDER = ("found", "not_checked", "clear")
STATUS_WORDS = {"found": "found on", "not_checked": "not checked on", "clear": "clear on"}
# A host's line under a finding id: its key evidence, cut to this many characters (reports/findings.json has it all).
EVIDENCE_CHARS = 100
FULL_TEXT = "each host's full explanation and evidence: reports/findings.json (the report: playbooks/report.yml)"


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
    """``a, web-[01:20], c`` (``compact_parts``: a run of numbered names in Ansible's range notation) or, past
    ``max_hosts`` parts, ``a, b, ... and 12 more`` (hosts); every part when ``max_hosts`` is None."""
    parts = compact_parts(hosts)
    shown = ", ".join(text for text, _number in parts[:max_hosts])
    more = sum(number for _text, number in parts[max_hosts:]) if max_hosts is not None else 0
    return shown + (" and %d more" % more if more else "")


def key_evidence(evidence, limit=EVIDENCE_CHARS) -> str:
    """``name=value`` for the evidence's plain values (numbers rounded to 4 significant digits, lists of names joined
    with ``+``), in its order, cut to ``limit`` characters with ``...``; nested records and key-shaped values left out."""
    parts = []
    for name, value in (evidence or {}).items() if isinstance(evidence, dict) else ():
        if isinstance(value, float):
            value = "%.4g" % value
        elif isinstance(value, list) and value and all(isinstance(item, (str, int)) and not isinstance(item, bool) for item in value):
            value = "+".join(str(item) for item in value)
        elif not isinstance(value, (str, int)) or value == "" or KEY_SHAPED.search(str(value)):
            continue
        parts.append("%s=%s" % (name, " ".join(str(value).split())))
    text = " ".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def finding_lines(findings) -> list:
    """The findings for the console, sized for a fleet: per finding id (in order of first appearance) one line
    ``SEVERITY id (fix: role, or "see the explanation") on N hosts: a, web-[01:20]``, its explanation once (the first
    host's: the numbers in it are that host's), then one short line per host (``  host: key evidence``); the last line
    says where each host's full text is."""
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise ValueError("findings must be a list of findings, got %s" % type(findings).__name__)
    by_id = {}
    for finding in findings:
        by_id.setdefault(str(finding.get("id")), []).append(finding)
    lines = []
    for fault_id, group in by_id.items():
        first, hosts = group[0], list(dict.fromkeys(str(f.get("host")) for f in group))
        lines.append("%s %s (fix: %s) on %d host%s: %s" % (
            str(first.get("severity") or "-").upper(), fault_id, first.get("fix_role") or "see the explanation",
            len(hosts), "" if len(hosts) == 1 else "s", compact_hosts(hosts)))
        lines.append("  %s%s" % (" ".join(str(first.get("explanation") or "").split()),
                                 " (as on %s)" % first.get("host") if len(hosts) > 1 else ""))
        lines.extend("  %s: %s" % (f.get("host"), key_evidence(f.get("evidence")) or "-") for f in group)
    if lines:
        lines.append(FULL_TEXT)
    return lines


def _unread_hosts(checks):
    """``{reason: [host, ...]}``: hosts none of whose faults could be checked, all for one reason (no facts were read
    from them: unreachable, failed); said once per host, not once per fault."""
    unread = {}
    for host, entries in checks.items():
        statuses = {(entry["status"], entry["reason"] or "no reason given") for entry in entries.values()}
        if len(statuses) == 1 and next(iter(statuses))[0] == "not_checked":
            unread.setdefault(next(iter(statuses))[1], []).append(host)
    return {reason: sorted(hosts) for reason, hosts in sorted(unread.items())}


def _next_step_lines(document, plans):
    """What remediate would do with the findings (``plans``: remediate_plans of the run's hosts, or None: every
    fixable finding counts), as the last lines of the console summary."""
    findings = document["findings"]
    if plans is None:
        running, advice = sorted({f.get("fix_role") for f in findings if f.get("fix_role")}), []
    else:
        running = sorted({role for plan in plans.values() for role in (plan or {}).get("roles") or []})
        advice = [opt_in_advice(entry) for entry in opt_ins_left(findings, plans)]
    if running:
        return (["next: remediate.yml with the same inventory runs %s on the hosts with findings" % ", ".join(running)]
                + ["note: %s" % text for text in advice])
    if advice:
        return ["next: nothing for remediate to run: %s" % "; ".join(advice)]
    return []


def _group_text(group, max_hosts):
    reason = " (%s)" % group["reason"] if group["reason"] and group["status"] != "clear" else ""
    return "%s %d%s: %s" % (STATUS_WORDS[group["status"]], len(group["hosts"]), reason, host_list(group["hosts"], max_hosts))


def coverage_lines(document, max_hosts=8, plans=None, with_next=True) -> list:
    """The console summary of diagnose's document (reports/findings.json): one line per fault, then what to do next.

    ``<fault>: found on 2: a, b; not checked on 3 (reason): c, d, e; clear on 35``. A host none of whose faults could
    be checked for one reason (no facts: unreachable) is one line ``every fault not checked on 1 (reason): host``, and
    left out of the fault lines. A fault clear on every other host is one short line. The last lines say which faults
    could not be judged anywhere and what remediate would run (``plans``: remediate_plans of the run's hosts; an
    opt-in fix whose variable a host does not set is named, not proposed; None: every fixable finding counts).
    ``with_next`` false: without those next-step lines (the callback fleet_summary prints the one next step).
    """
    if not isinstance(document, dict) or not isinstance(document.get("findings"), list):
        raise ValueError("document must be reports/findings.json's document (format, hosts, checks, findings)")
    if plans is not None and not isinstance(plans, dict):
        raise ValueError("plans must be remediate_plans' {host: {roles, skipped, ...}}, got %s" % type(plans).__name__)
    checks = check_checks(document.get("checks") or {})
    hosts = sorted(checks)
    lines = ["%d finding(s) on %d of the %d host(s) of this run (%s)" % (
        len(document["findings"]), len({f.get("host") for f in document["findings"]}), len(hosts), host_list(hosts, max_hosts))]
    unread = _unread_hosts(checks)
    lines.extend("every fault not checked on %d (%s): %s" % (len(names), reason, host_list(names, max_hosts))
                 for reason, names in unread.items())
    unread_hosts = {host for names in unread.values() for host in names}
    read = {host: entries for host, entries in checks.items() if host not in unread_hosts}
    by_fault = {}
    for group in coverage_groups(read):
        by_fault.setdefault(group["fault"], []).append(group)
    for fault_id, groups in by_fault.items():
        if all(group["status"] == "clear" for group in groups):
            lines.append("%s: clear on all %d%s" % (fault_id, len(read), " read" if unread_hosts else ""))
            continue
        clear = sum(len(group["hosts"]) for group in groups if group["status"] == "clear")
        parts = [_group_text(group, max_hosts) for group in groups if group["status"] != "clear"]
        lines.append("%s: %s%s" % (fault_id, "; ".join(parts), "; clear on %d" % clear if clear else ""))
    unjudged = [fault_id for fault_id, groups in by_fault.items() if all(group["status"] == "not_checked" for group in groups)]
    if unjudged:
        lines.append("not checked on any host: %s (the reasons above say what was missing)" % ", ".join(unjudged))
    step = _next_step_lines(document, plans) if with_next else []
    lines.extend(step)
    if not with_next:
        lines.append("next step and report: in the TUNNELFIX SUMMARY after the play recap")
    elif not step and not document["findings"]:
        unchecked = any(entry["status"] == "not_checked" for entries in checks.values() for entry in entries.values())
        lines.append("no finding%s" % ("; a not-checked fault is not a clean one" if unchecked else ""))
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
