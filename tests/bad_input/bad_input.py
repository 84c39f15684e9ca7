# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad-input table runner: write the playbook for cases.yml, then judge ansible-playbook's JSON output.

    bad_input.py playbook RUN CASES OUT.yml    one block/rescue per case of run RUN (main, notools)
    bad_input.py check CASES VARS RESULT...    VARS: JSON of the run's extra vars (bad_input_closed_port, ...)
                                               RESULT = RUN:STDOUT_JSON:STDERR; one PASS/FAIL line per case

A case passes when its task FAILED (not ok, not skipped, not unreachable), every collected ``msg`` of
the failure together contains each ``expect`` substring (the option's name and the offending value),
and neither the messages nor the run's whole output shows a Python traceback or an unexpected error.
"""

from __future__ import annotations

import json
import sys

import yaml

NS = "tunnelfix.fleet."
# A task result or the run's output containing one of these is a crash, not a validation message.
FORBIDDEN = (
    "Traceback (most recent call last)",
    "MODULE FAILURE",
    "Unexpected failure",
    "unexpected exception",
    "An unhandled exception",
    "<<caused by>>",
    "TypeError",
    "ValueError",
    "KeyError",
    "AttributeError",
    "IndexError",
    "NameError",
    "ZeroDivisionError",
    "object has no attribute",
    "NoneType",
    "unhashable",
)
KINDS = ("role", "action", "filter")
TARGETS = ("nohost", "localhost")
RUNS = ("main", "notools")


def load_cases(path):
    """The cases of ``path`` (a YAML list), checked: unique ids, known kind/target/run, expect given."""
    with open(path, encoding="utf-8") as handle:
        cases = yaml.safe_load(handle)
    seen = set()
    for case in cases:
        problems = [key for key in ("id", "kind", "name", "target", "expect") if key not in case]
        if problems or case["id"] in seen or case["kind"] not in KINDS or case["target"] not in TARGETS \
                or case.get("run", "main") not in RUNS or not case["expect"]:
            raise SystemExit("cases.yml: bad case %r (missing %s, or duplicate id, or unknown kind/target/run)"
                             % (case, problems))
        seen.add(case["id"])
    return cases


def case_task(case):
    """The task that feeds the case's bad input to its role, module/action or filter."""
    task = {"name": "bad_input case %s" % case["id"], "register": "__bad_input_result"}
    args = case.get("args") or {}
    if case["kind"] == "role":
        task["ansible.builtin.include_role"] = {"name": NS + case["name"]}
        task["vars"] = args
    elif case["kind"] == "action":
        task[NS + case["name"]] = args
        task["check_mode"] = case.get("check_mode", True)
    else:
        arg = args.get("arg")
        task["vars"] = {"value": args.get("value"),
                        "filter_args": [] if "arg" not in args else (arg if isinstance(arg, list) else [arg])}
        task["ansible.builtin.debug"] = {"msg": "{{ value | %s%s(*filter_args) }}" % (NS, case["name"])}
    return task


def case_block(case):
    """block: the case's task, then report it was accepted; rescue: report the failure."""
    block = {
        "name": "bad_input block %s" % case["id"],
        "block": [
            case_task(case),
            {"name": "bad_input accepted %s" % case["id"], "ansible.builtin.debug": {"var": "__bad_input_result"}},
        ],
        "rescue": [
            {"name": "bad_input failed %s" % case["id"], "ansible.builtin.debug": {"var": "ansible_failed_result"}},
        ],
        # nothing reaches the closed port; a bad value that got past validation shows up as unreachable
        "ignore_unreachable": True,
    }
    if case["target"] == "localhost" and case.get("check_mode", True):
        block["check_mode"] = True  # the controller: never change anything on it
    return block


def write_playbook(run, cases_path, out_path):
    cases = [case for case in load_cases(cases_path) if case.get("run", "main") == run]
    plays = []
    for target in TARGETS:
        mine = [case_block(case) for case in cases if case["target"] == target]
        if mine:
            plays.append({"name": "bad input on %s" % target, "hosts": "bad_input_" + target,
                          "gather_facts": False, "tasks": mine})
    with open(out_path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(plays, handle, sort_keys=False, width=200)
    return len(cases)


def _messages(value):
    """Every ``msg`` string anywhere in a task result (loop items, nested results)."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "msg" and isinstance(item, str):
                found.append(item)
            else:
                found.extend(_messages(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_messages(item))
    return found


def _outcomes(stdout_json):
    """``{case id: ("failed"|"accepted", result)}`` from the json callback's output."""
    outcomes = {}
    for play in stdout_json.get("plays", []):
        for task in play.get("tasks", []):
            name = task.get("task", {}).get("name", "")
            for prefix, status, key in (("bad_input failed ", "failed", "ansible_failed_result"),
                                        ("bad_input accepted ", "accepted", "__bad_input_result")):
                if name.startswith(prefix):
                    for result in task.get("hosts", {}).values():
                        outcomes[name[len(prefix):]] = (status, result.get(key))
    return outcomes


def _expand(word, extra_vars):
    """``word`` with each ``{{ NAME }}`` of ``extra_vars`` (the run's -e values) put in."""
    word = str(word)
    for name, value in extra_vars.items():
        word = word.replace("{{ %s }}" % name, str(value))
    return word


def judge(case, outcome, extra_vars):
    """``(passed, text)`` for one case; ``extra_vars`` fills ``{{ NAME }}`` in its ``expect`` words."""
    expect = [_expand(word, extra_vars) for word in case["expect"]]
    if outcome is None:
        return False, "no result (the play stopped before this case?)"
    status, result = outcome
    result = result if isinstance(result, dict) else {"msg": str(result)}
    text = " | ".join(_messages(result)) or json.dumps(result)[:300]
    if status != "failed":
        how = "unreachable: reached the host" if result.get("unreachable") else \
              "skipped" if result.get("skipped") else "accepted"
        return False, "bad input %s (%s): %s" % (how, result.get("msg", ""), text[:300])
    crash = [word for word in FORBIDDEN if word in json.dumps(result)]
    if crash:
        return False, "crash (%s): %s" % (", ".join(crash), text[:500])
    exception = result.get("exception")
    if exception not in (None, "(traceback unavailable)"):
        return False, "exception in the result: %s" % str(exception)[:300]
    missing = [word for word in expect if word not in text]
    if missing:
        return False, "message lacks %s: %s" % (", ".join(json.dumps(w) for w in missing), text[:500])
    return True, text


def check(cases_path, extra_vars, results):
    cases = load_cases(cases_path)
    outcomes, crashes = {}, []
    for spec in results:
        run, stdout_path, stderr_path = spec.split(":")
        with open(stdout_path, encoding="utf-8") as handle:
            raw = handle.read()
        with open(stderr_path, encoding="utf-8") as handle:
            raw_err = handle.read()
        for word in ("Traceback (most recent call last)", "MODULE FAILURE", "Unexpected failure"):
            if word in raw or word in raw_err:
                crashes.append("%s run: %r in the output" % (run, word))
        try:
            outcomes.update(_outcomes(json.loads(raw[raw.index("{"):])))
        except ValueError as exc:
            crashes.append("%s run: no JSON output (%s); stderr: %s" % (run, exc, raw_err[-1000:]))
    failed = 0
    for case in cases:
        passed, text = judge(case, outcomes.get(case["id"]), extra_vars)
        failed += not passed
        print("%s %s: %s" % ("PASS" if passed else "FAIL", case["id"], " ".join(text.split())))
    for crash in crashes:
        failed += 1
        print("FAIL %s" % crash)
    print("bad input: %d cases, %d passed, %d failed" % (len(cases), len(cases) - failed + len(crashes), failed))
    return 1 if failed else 0


def main(argv):
    if len(argv) == 4 and argv[0] == "playbook":
        write_playbook(argv[1], argv[2], argv[3])
        return 0
    if len(argv) >= 4 and argv[0] == "check":
        return check(argv[1], json.loads(argv[2]), argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
