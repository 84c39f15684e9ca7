# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The summary that ends every tunnelfix playbook: findings per id, changes per role, failures and why, notices once
for the fleet, and the next command. Pure; the callback ``tunnelfix.fleet.fleet_summary`` collects, this renders.

Two parts:

* ``stage_summary(stage, data, check_mode)``: what a playbook's last controller play publishes as the fact
  ``tunnelfix_run_summary`` (filter ``run_summary``)::

      {"stage": "diagnose" | "remediate" | "verify",
       "sections": [{"heading": str, "groups": [{"label": str, "hosts": [host, ...]}]}],
       "next": {"playbook": "remediate" | "verify" | "diagnose" | None, "check": bool, "why": str,
                "notes": [str, ...] (optional: an opt-in fix left alone, findings outside the run's --limit),
                "hosts": [host, ...] (optional: the hosts it is for - remediate's chosen ones),
                "fixes_failure": bool (optional: the step answers the run's failure - remediate without findings)},
       "report": {"findings": path, "extra_vars": [-e for report.yml, ...]} (optional: where the report is)}

* ``RunTally``: what the callback saw (failures, unreachable hosts, changes per role, notices, stage summaries);
  ``summary_lines(tally, invocation)`` renders it. ``invocation`` is how the playbook was started::

      {"playbook": "playbooks/diagnose.yml" or "tunnelfix.fleet.diagnose", "inventory": [path, ...],
       "limit": str or None, "check": bool, "extra_vars": [each -e as given, ...]}

Host lists are compact: consecutive names that differ only in a trailing number become Ansible's inventory range
notation (``tfb-lnx-[01:20]``). ValueError names an input of the wrong shape.
"""

from __future__ import annotations

import re
import shlex

import yaml
from ansible.inventory.manager import split_host_pattern

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import KEY_SHAPED
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import opt_ins_left
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import SECRET_WORD


STAGES = ("diagnose", "remediate", "verify")
# First line of a failure message kept in the summary; the task's own output above has all of it.
MESSAGE_CHARS = 300
_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def compact_parts(hosts) -> list:
    """``[(text, number of hosts), ...]``: ``hosts`` in the given order, each run of three or more names that share a
    prefix and have consecutive trailing numbers of one width (``web-01, web-02, web-03``) one part in Ansible's
    inventory range notation (``web-[01:03]``), every other name a part of its own."""
    hosts = [str(host) for host in hosts]
    parts, index = [], 0
    while index < len(hosts):
        match = _NUMBERED.match(hosts[index])
        end = index
        if match:
            prefix, number = match.group(1), match.group(2)
            while end + 1 < len(hosts):
                following = _NUMBERED.match(hosts[end + 1])
                if not following or following.group(1) != prefix or len(following.group(2)) != len(number) \
                        or int(following.group(2)) != int(number) + (end + 1 - index):
                    break
                end += 1
        if end - index >= 2:
            parts.append(("%s[%s:%s]" % (match.group(1), match.group(2), _NUMBERED.match(hosts[end]).group(2)), end - index + 1))
        else:
            parts.extend((host, 1) for host in hosts[index:end + 1])
        index = end + 1
    return parts


def compact_hosts(hosts) -> str:
    """``a, web-[01:03], z``: ``compact_parts`` joined - runs of numbered names in Ansible's inventory range notation,
    other names as they are, in the given order."""
    return ", ".join(text for text, _number in compact_parts(hosts))


def _batch_size(value, total):
    """A serial entry as a host count: ``"25%"`` of ``total`` rounded down but at least 1, else the integer."""
    text = str(value).strip()
    if text.endswith("%"):
        return max(1, int(float(text[:-1]) * total / 100))
    return int(text)


def serial_batches(hosts_all, serial) -> list:
    """The batches a play with ``serial`` runs ``hosts_all`` in, as ansible-core's PlaybookExecutor cuts them: each
    entry of ``serial`` (a size or ``"N%"`` of all the play's hosts, at least 1) in turn, the last one repeated; a size
    of 0 or less takes every remaining host. ``serial`` may be one value or a list; empty = one batch."""
    hosts = [str(host) for host in hosts_all]
    sizes = list(serial) if isinstance(serial, (list, tuple)) else [serial]
    sizes = sizes or [0]
    batches, index, total = [], 0, len(hosts)
    while hosts:
        try:
            size = _batch_size(sizes[min(index, len(sizes) - 1)], total)
        except ValueError:
            raise ValueError("serial must be sizes or \"N%%\" values, got %r" % (serial,)) from None
        if size <= 0:
            batches.append(hosts)
            break
        batches.append(hosts[:size])
        hosts = hosts[size:]
        index += 1
    return batches


def batch_progress(batch, hosts_all, serial) -> str:
    """``batch 2/5 of the play's 40 hosts: 8 hosts: tfb-lnx-[06:13]`` for the batch holding the hosts of ``batch``
    (ansible_play_batch: the batch's hosts still active), ``hosts_all`` (ansible_play_hosts_all) cut by ``serial``."""
    batches = serial_batches(hosts_all, serial)
    active = [str(host) for host in batch]
    for number, hosts in enumerate(batches, 1):
        if any(host in hosts for host in active):
            return "batch %d/%d of the play's %s: %s" % (number, len(batches), _count(len(list(hosts_all))), _hosts_text(hosts, keep_order=True))
    raise ValueError("no batch of %r holds %r" % (list(hosts_all), active))


def _group(label, hosts):
    return {"label": str(label), "hosts": sorted(set(hosts))}


def _groups_by(entries, key_of):
    grouped = {}
    for entry in entries:
        grouped.setdefault(key_of(entry), []).append(entry["host"])
    return [_group(label, hosts) for label, hosts in sorted(grouped.items())]


def opt_in_advice(entry) -> str:
    """One entry of ``registry.opt_ins_left`` in words: which variable lets remediate fix which finding on which hosts."""
    variable = entry["variable"]
    return "%s is opt-in: set %s=true (in the inventory, or -e %s=true) for %s to let remediate fix %s" % (
        str(entry["role"]).rpartition(".")[2], variable, variable, _hosts_text(entry["hosts"]), ", ".join(entry["ids"]))


def _not_checked_groups(checks):
    """The not-checked section: per reason, the hosts with the same faults not checked for it, one group each. A host
    none of whose faults could be checked for one reason (no facts were read: unreachable, failed) is one group
    ``every fault (reason)``, not one per fault; faults sharing a reason and hosts share a group."""
    by_reason = {}
    for host, entries in checks.items():
        for fault_id, entry in entries.items():
            if entry.get("status") == "not_checked":
                by_reason.setdefault(entry.get("reason") or "no reason given", {}).setdefault(host, []).append(fault_id)
    grouped = {}
    for reason, hosts in by_reason.items():
        for host, fault_ids in hosts.items():
            label = "every fault" if len(fault_ids) == len(checks[host]) else ", ".join(sorted(fault_ids))
            grouped.setdefault("%s (%s)" % (label, reason), []).append(host)
    return [_group(label, hosts) for label, hosts in sorted(grouped.items())]


def _diagnose(document, check_mode, plans=None):
    if not isinstance(document, dict) or not isinstance(document.get("findings"), list) \
            or not isinstance(document.get("checks", {}), dict):
        raise ValueError("diagnose's summary needs reports/findings.json's document {format, hosts, checks, findings}")
    findings = document["findings"]
    sections = [{"heading": "found (hosts per finding id)", "groups": _groups_by(findings, lambda f: f["id"])}]
    not_checked = _not_checked_groups(document.get("checks") or {})
    if not_checked:
        sections.append({"heading": "not checked (per fault, why)", "groups": not_checked})
    # What remediate would really do with these findings: plans = remediate_plans of this run's hosts (opt-ins read
    # from the inventory and -e); without them every fixable finding counts.
    if plans is None:
        runs, notes = any(f.get("fix_role") for f in findings), []
    else:
        if not isinstance(plans, dict):
            raise ValueError("diagnose's plans must be remediate_plans' {host: {roles, skipped, ...}}, got %r" % (plans,))
        runs = any((plan or {}).get("roles") for plan in plans.values())
        notes = [opt_in_advice(entry) for entry in opt_ins_left(findings, plans)]
    if runs:
        step = _step("remediate", True, "see what the fixes would change, then run it without --check", notes)
    elif notes:
        step = {"playbook": None, "check": False, "why": "nothing for remediate to run: %s" % "; ".join(notes)}
    elif findings:
        step = {"playbook": None, "check": False, "why": "no role fixes these findings: their explanations say what to do"}
    else:
        step = {"playbook": None, "check": False, "why": "nothing found" + (
            "; a fault not checked is not a clean one" if not_checked else "")}
    return sections, step


def _remediate(data, check_mode, plans=None):
    if not isinstance(data, dict) or not isinstance(data.get("plans"), dict) \
            or not isinstance(data.get("hosts", []), (list, type(None))):
        raise ValueError("remediate's summary needs {findings: findings.json's document or none, plans: remediate_plans, "
                         "hosts: the fleet hosts of this run (optional)}")
    document = data.get("findings") or []
    findings = (document.get("findings") or []) if isinstance(document, dict) else document   # findings/2 or findings/1
    run_hosts = data.get("hosts")
    in_run = set(run_hosts) if run_hosts is not None else set(data["plans"]) | {f.get("host") for f in findings}
    plans = {host: plan or {} for host, plan in data["plans"].items() if host in in_run}
    chosen = sorted(host for host, plan in plans.items() if plan.get("roles"))
    sections = [{"heading": "findings it fixes (hosts per finding id)",
                 "groups": _groups_by([f for f in findings if f.get("fix_role") and f.get("host") in chosen
                                       and f["fix_role"] not in _skipped(plans, f)], lambda f: f["id"])}]
    left = [f for f in findings if f.get("fix_role") and f.get("host") in in_run and f["fix_role"] in _skipped(plans, f)]
    if left:
        sections.append({"heading": "findings left alone (hosts per finding id; the role choice above says why)",
                         "groups": _groups_by(left, lambda f: f["id"])})
    opt_ins = [opt_in_advice(entry) for entry in opt_ins_left([f for f in findings if f.get("host") in in_run], plans)]
    outside = sorted({f["host"] for f in findings if f.get("fix_role") and f.get("host") not in in_run})
    notes = opt_ins + (["findings.json also names %s with findings a role fixes, outside this run (--limit): not counted above"
                        % _count(len(outside))] if outside else [])
    if not chosen:
        return sections, _step(None, False, "nothing for remediate to run: %s" % "; ".join(opt_ins) if opt_ins
                               else "no host needed a role", notes[len(opt_ins):])
    if check_mode:
        return sections, dict(_step("remediate", False, "apply the changes listed above", notes), hosts=chosen)
    return sections, dict(_step("verify", False, "re-run the rules and measure again: each finding fixed or still_present", notes),
                          hosts=chosen)


def _step(playbook, check, why, notes=None):
    """A stage's ``next``; ``notes`` only when there are some."""
    step = {"playbook": playbook, "check": check, "why": why}
    if notes:
        step["notes"] = list(notes)
    return step


def _skipped(plans, finding):
    """The roles remediate skips on the finding's host (an opt-in not set, a variable missing, converged)."""
    return ((plans.get(finding.get("host")) or {}).get("skipped")) or {}


def _verify(data, check_mode, plans=None):
    outcomes, outside = (data.get("outcomes"), data.get("outside_hosts") or []) if isinstance(data, dict) else (data, [])
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) and "outcome" in o for o in outcomes) \
            or not isinstance(outside, list):
        raise ValueError("verify's summary needs finding_outcomes' list [{host, id, outcome, rechecked}], or "
                         "{outcomes: that list, outside_hosts: [host, ...]}")
    sections, step = _verify_outcomes(outcomes)
    if outside:
        # a canary's verify: the rest of the fleet was neither verified nor remediated by this run's hosts' fixes
        step = dict(step, notes=list(step.get("notes") or []) + [
            "findings.json also names %s with findings a role fixes, outside this run (--limit): not verified here; "
            "remediate them next when this run's hosts are fixed (docs/rollout.md)" % _count(len(outside))])
    return sections, step


def _verify_outcomes(outcomes):
    sections = [{"heading": "%s (hosts per finding id)" % outcome.replace("_", " "),
                 "groups": _groups_by([o for o in outcomes if o["outcome"] == outcome and not o.get("left_alone")],
                                      lambda o: o["id"])}
                for outcome in ("fixed", "still_present", "new")]
    sections.append({"heading": "not checked: the rule could not judge the host (hosts per reason)",
                     "groups": _groups_by([o for o in outcomes if o["outcome"] == "not_checked"],
                                          lambda o: "%s: %s" % (o["id"], o.get("reason") or "?"))})
    sections.append({"heading": "left alone: an opt-in fix not enabled for the host (hosts per finding id)",
                     "groups": _groups_by([o for o in outcomes if o.get("left_alone")], lambda o: o["id"])})
    sections = [section for section in sections if section["groups"]]   # none: the next line says nothing was found
    if any(o["outcome"] in ("still_present", "new") and not o.get("left_alone") for o in outcomes):
        return sections, {"playbook": None, "check": False,
                          "why": "reports/outcomes.json has the evidence of what is still found; reports/before-after.md the before and after"}
    if any(o["outcome"] == "not_checked" for o in outcomes):
        return sections, {"playbook": None, "check": False,
                          "why": "the findings not checked above could not be judged on this run's facts (their reasons say why); "
                                 "every other finding remediate worked on is fixed"}
    if any(o.get("left_alone") for o in outcomes):
        return sections, {"playbook": None, "check": False,
                          "why": "every finding remediate worked on is fixed; the ones left alone say which variable opts in"}
    return sections, {"playbook": None, "check": False, "why": "every finding is fixed" if outcomes else "nothing was found to fix"}


def outcome_lines(outcomes) -> list:
    """verify's console lines, one per (outcome, finding id, reason) whatever the fleet's size:
    ``STILL_PRESENT some_finding on 40 hosts: tfb-owrt-[01:40] (left alone: ...)``; the reason is the
    outcome's ``reason`` (not_checked), else ``host not re-checked`` when it was not, and ``left alone: ...`` its
    ``left_alone``. In the order of first appearance. ``outcomes``: finding_outcomes' list; ValueError otherwise."""
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) and "outcome" in o for o in outcomes):
        raise ValueError("outcome_lines needs finding_outcomes' list [{host, id, outcome, rechecked}]")
    grouped = {}
    for entry in outcomes:
        reason = ": %s" % entry["reason"] if entry.get("reason") is not None \
            else "" if entry.get("rechecked", True) else " (host not re-checked)"
        reason += " (%s)" % entry["left_alone"] if entry.get("left_alone") is not None else ""
        hosts = grouped.setdefault((str(entry["outcome"]).upper(), str(entry.get("id")), reason), [])
        if str(entry.get("host")) not in hosts:
            hosts.append(str(entry.get("host")))
    return ["%s %s on %s%s" % (outcome, fault_id, _hosts_text(hosts), reason) for (outcome, fault_id, reason), hosts in grouped.items()]


_STAGE_SUMMARIES = {"diagnose": _diagnose, "remediate": _remediate, "verify": _verify}


def stage_summary(data, stage, check_mode=False, plans=None) -> dict:
    """The fact ``tunnelfix_run_summary`` of one playbook (module doc). ``data``: diagnose - findings.json's document;
    remediate - ``{findings, plans, hosts}`` (``hosts``: the fleet hosts of this run, the --limit applied; without it
    every host of the plans and findings counts); verify - finding_outcomes' list, or ``{outcomes: that list,
    outside_hosts: [...]}`` (hosts outside this run's --limit with fixable findings in findings.json: a note). ``plans`` (diagnose only):
    ``remediate_plans`` for this run's hosts, so that the next step says what remediate would really run (an opt-in
    fix the host did not opt into is named, not proposed); None: every fixable finding counts."""
    if stage not in _STAGE_SUMMARIES:
        raise ValueError("stage must be one of %s, got %r" % (", ".join(STAGES), stage))
    if plans is not None and stage != "diagnose":
        raise ValueError("plans are diagnose's (remediate's own are in its data), got them for %s" % stage)
    sections, step = _STAGE_SUMMARIES[stage](data, bool(check_mode), *([plans] if plans is not None else []))
    return {"stage": stage, "sections": sections, "next": step}


class RunTally:
    """What one ``ansible-playbook`` run did, per host: ``failed`` and ``unreachable`` ({host: (task, message)}),
    ``changed`` ({role: [host]}), ``notices`` ({message: [host]}), ``stages`` (stage summaries in arrival order),
    ``hosts_run`` (the hosts any task ran on, from the play recap; None: not known)."""

    def __init__(self):
        self.hosts_run = None
        self.failed = {}
        self.unreachable = {}
        self.changed = {}
        self.notices = {}
        self.stages = []

    def record_failure(self, host, task, message, unreachable=False):
        """The last failure of ``host`` wins (a later task's failure is the one that stopped it)."""
        first_line = (str(message or "").strip().splitlines() or ["no message"])[0]
        if len(first_line) > MESSAGE_CHARS:
            first_line = first_line[:MESSAGE_CHARS - 3] + "..."
        (self.unreachable if unreachable else self.failed)[str(host)] = (str(task), first_line)

    def record_change(self, host, role):
        hosts = self.changed.setdefault(str(role), [])
        if str(host) not in hosts:
            hosts.append(str(host))

    def record_notices(self, host, messages):
        for message in messages or []:
            hosts = self.notices.setdefault(str(message), [])
            if str(host) not in hosts:
                hosts.append(str(host))

    def record_stage(self, summary):
        if not isinstance(summary, dict) or summary.get("stage") not in STAGES:
            raise ValueError("a stage summary must be run_summary's {stage, sections, next}, got %r" % (summary,))
        self.stages = [s for s in self.stages if s["stage"] != summary["stage"]] + [summary]

    def forget_failures_of(self, hosts):
        """Drop the failures of hosts whose failures were rescued or ignored in the end (the play recap's view)."""
        for host in hosts:
            self.failed.pop(host, None)


def _count(number):
    return "%d host%s" % (number, "" if number == 1 else "s")


def _hosts_text(hosts, keep_order=False):
    return "%s: %s" % (_count(len(hosts)), compact_hosts(hosts if keep_order else sorted(hosts)))


def next_command(invocation, playbook, check=False, limit=None) -> str:
    """``ansible-playbook -i INV [--limit ...] NEXT [--check --diff]``: ``NEXT`` in the form the run was started with
    (``tunnelfix.fleet.NAME`` or a path whose file name is replaced); the run's --limit is kept unless ``limit``, with
    localhost in it once (``limit_with_localhost``: the controller's plays must run)."""
    started = str(invocation.get("playbook") or "")
    if re.match(r"^tunnelfix\.fleet\.\w+$", started) or not started:
        target = "tunnelfix.fleet.%s" % playbook
    else:
        head, _sep, _tail = started.rpartition("/")
        target = ("%s/%s.yml" % (head, playbook)) if head else "%s.yml" % playbook
    words = ["ansible-playbook"]
    for inventory in invocation.get("inventory") or []:
        words += ["-i", _quote(inventory)]
    limit = limit if limit is not None else invocation.get("limit")
    if limit:
        words += ["--limit", _quote(limit_with_localhost(limit))]
    words.append(_quote(target))
    for extra in carried_extra_vars(invocation.get("extra_vars")):
        words += ["-e", _quote(extra)]
    if check:
        words += ["--check", "--diff"]
    return " ".join(words)


def _limit_parts(limit):
    return split_host_pattern(str(limit or ""))


def lacks_localhost(limit) -> bool:
    """Whether a --limit leaves localhost out (the controller's plays then do not run): it names no ``localhost``, or
    excludes it (``!localhost``). No limit: False. ``all`` does not hold Ansible's implicit localhost."""
    parts = _limit_parts(limit)
    return bool(parts) and ("localhost" not in parts or "!localhost" in parts)


def limit_with_localhost(limit) -> str:
    """``limit`` (a --limit pattern: ``,`` or ``:`` separated) with ``localhost`` once, as the last pattern, and no
    ``!localhost``: ``lnx-01:!lnx-02`` -> ``lnx-01,!lnx-02,localhost``; ``a,localhost,localhost`` -> ``a,localhost``.
    A pattern with an intersection (``&``) is returned as it is: a union with localhost cannot be added to it."""
    parts = _limit_parts(limit)
    if any(part.startswith("&") for part in parts):
        return str(limit)
    return ",".join([part for part in parts if part.lstrip("!") != "localhost"] + ["localhost"])


def _extra_var_names(extra):
    """The variable names one ``-e`` sets: ``a=1 b=2``, JSON or YAML ``{a: 1}``; none for ``@file`` or what does not parse."""
    text = str(extra).strip()
    if text.startswith("@"):
        return set()
    if text.startswith("{"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return set()
        return {str(name) for name in data} if isinstance(data, dict) else set()
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    return {word.split("=", 1)[0] for word in words if re.match(r"^[A-Za-z_]\w*=", word)}


def rejected_extra_vars(extra_vars, messages) -> dict:
    """The ``-e`` options of a run that a check rejected: ``{-e as given: [its rejected names]}``. A name is rejected
    when a failure message says ``NAME must ...`` (the collection's checks say ``tunnelfix_measure must be true or
    false, got "flase"``). The next command leaves these out: repeating a rejected value fails the same way."""
    rejected = {}
    for extra in extra_vars or ():
        names = sorted(name for name in _extra_var_names(extra)
                       if any(re.search(r"(?<![\w.])%s must\b" % re.escape(name), str(message)) for message in messages))
        if names:
            rejected[str(extra)] = names
    return rejected


def carried_extra_vars(extra_vars) -> list:
    """The run's ``-e`` options as given (``udp_gro_forwarding_enable=true``, ``@vars.yml``, JSON), for the next
    command: without them an opt-in or a setting of this run would be lost. One naming a secret (markdown.SECRET_WORD:
    a password, key, token, PSK, PIN, secret, vault or credential) or holding a WireGuard-key-shaped value is left out
    (the summary goes to logs)."""
    return [str(extra) for extra in extra_vars or ()
            if str(extra).strip() and not SECRET_WORD.search(str(extra)) and not KEY_SHAPED.search(str(extra))]


def _quote(word):
    word = str(word)
    return word if re.match(r"^[\w@%+=:,./-]+$", word) else "'%s'" % word.replace("'", "'\"'\"'")


def summary_lines(tally, invocation) -> list:
    """The end-of-run summary (module doc): one block, whatever the fleet's size - a line per finding id, role,
    distinct notice and failed host."""
    lines = []
    check = bool(invocation.get("check"))
    for stage in tally.stages:
        for section in stage["sections"]:
            if not section["groups"]:
                lines.append("%s %s: none" % (stage["stage"], section["heading"]))
                continue
            lines.append("%s %s:" % (stage["stage"], section["heading"]))
            lines.extend("  %s: %s" % (group["label"], _hosts_text(group["hosts"])) for group in section["groups"])
    verb = "would change (check mode)" if check else "changed"
    if tally.changed:
        lines.append("%s, per role:" % verb)
        lines.extend("  %s: %s" % (role, _hosts_text(hosts)) for role, hosts in sorted(tally.changed.items()))
    else:
        lines.append("%s: nothing" % verb)
    if tally.notices:
        lines.append("notices (once for the fleet):")
        lines.extend("  %s (%s)" % (message, _hosts_text(hosts)) for message, hosts in tally.notices.items())
    for title, entries in (("failed", tally.failed), ("unreachable", tally.unreachable)):
        if entries:
            lines.append("%s: %s" % (title, _hosts_text(list(entries))))
            lines.extend("  %s: [%s] %s" % (host, task, message) for host, (task, message) in sorted(entries.items()))
    lines.extend(_report_lines(tally, invocation))
    lines.extend(_next_lines(tally, invocation))
    return lines


def _report_lines(tally, invocation):
    """Where a stage's report is and the command that writes the page from it, in the form the run was started with:
    a stage summary's optional ``report``: ``{"findings": path, "extra_vars": [-e for report.yml, ...]}``."""
    lines = []
    for stage in tally.stages:
        report = stage.get("report")
        if isinstance(report, dict) and report.get("findings"):
            command = next_command({"playbook": invocation.get("playbook"), "extra_vars": report.get("extra_vars") or []}, "report")
            lines.append("report: %s; for report.html and before-after.md now: %s (verify writes them with the after side)"
                         % (report["findings"], command))
    return lines


def _playbook_name(started):
    """``diagnose`` from ``tunnelfix.fleet.diagnose`` or ``path/to/diagnose.yml``; ``site`` when unknown."""
    started = str(started or "")
    if started.startswith("tunnelfix.fleet."):
        return started.rpartition(".")[2]
    return re.sub(r"\.ya?ml$", "", started.rpartition("/")[2]) or "site"


def _rejection(name, messages):
    """``must be true or false`` from the first message saying ``NAME must be true or false, got "flase"``."""
    for message in messages:
        match = re.search(r"(?<![\w.])%s (must\b[^,;]*)" % re.escape(name), str(message))
        if match:
            return match.group(1).strip().rstrip(".")
    return "rejected"


def _next_lines(tally, invocation):
    """The next command(s). After a failure: the failed hosts again (never a wider or a real run: a failed canary stops
    the rollout there); after a rejected -e, no command (the same one without it would do something else): the -e
    to correct; a --limit without localhost is given back with it; a step that answers the failure itself
    (``fixes_failure``: remediate without findings -> diagnose) instead of the same run again."""
    lines = []
    troubled = sorted(set(tally.failed) | set(tally.unreachable))
    step = tally.stages[-1]["next"] if tally.stages else None
    messages = [message for _task, message in tally.failed.values()]
    rejected = rejected_extra_vars(invocation.get("extra_vars"), messages)
    playbook, check = _playbook_name(invocation.get("playbook")), bool(invocation.get("check"))
    if rejected:
        names = [name for names in rejected.values() for name in names]
        lines.append("next: correct %s and run the same command again" % "; ".join(
            "-e %s (rejected above: %s)" % (name, _rejection(name, messages)) for name in names))
        return lines
    if troubled and step and step.get("playbook") and step.get("fixes_failure"):
        lines.append("next: %s   # %s" % (next_command(invocation, step["playbook"], check=step.get("check", False)),
                                          step.get("why", "")))
        lines.extend("note: %s" % note for note in step.get("notes") or [])
        return lines
    if troubled and not tally.stages and lacks_localhost(invocation.get("limit")) \
            and (tally.hosts_run is None or "localhost" not in tally.hosts_run):
        # the controller's plays (checks, findings, role choice, report) were left out by --limit: the same run with it
        lines.append("next: localhost is not in --limit, so the controller's plays did not run; run again with it: %s" % (
            next_command(invocation, playbook, check=check)))
        return lines
    if troubled:
        # the fleet hosts that failed, plus localhost (the controller's plays); when only the controller's checks
        # failed (a variable, the inventory), the same run again with its own --limit
        hosts = [host for host in troubled if host != "localhost"]
        lines.append("next: fix what failed above, then run again%s: %s" % (" on those hosts" if hosts else "", next_command(
            invocation, playbook, check=check, limit=",".join(hosts) if hosts else None)))
    # the other hosts the step is for (remediate names the ones it chose), else the other hosts the run reached, never
    # the troubled ones nor the controller; None: not known, as if there were some
    among = step.get("hosts") if step and step.get("hosts") is not None else tally.hosts_run
    others = None if among is None else sorted(set(among) - set(troubled) - {"localhost"})
    if step and step.get("playbook") and (not troubled or step.get("check")):
        if not troubled or others is None or others:
            lines.append("next%s: %s   # %s" % (" for the others" if troubled else "", next_command(
                invocation, step["playbook"], check=step.get("check", False)), step.get("why", "")))
    elif step and step.get("playbook"):
        # a real run after a failure would widen it: a failed canary, or a batch over the failure threshold, stopped
        # the rollout before the other hosts, and remediate's choice counted them as if they would run
        if others is None or others:
            why = step.get("why", "")
            if "listed above" in why and not tally.changed:
                why = "run the same check on them (nothing above lists a change for them yet)"
            lines.append("next for the others: nothing yet; once the failed hosts pass, %s" % why)
    elif step:
        lines.append("next: %s" % step.get("why", "nothing to do"))
    lines.extend("note: %s" % note for note in (step or {}).get("notes") or [])
    return lines
