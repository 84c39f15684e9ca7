#!/usr/bin/env python
"""Remote executions per task and host from an `ansible-playbook -vvv` log (one `SSH: EXEC` line
each; the counting shell of bench/fleet.sh agrees with it). Usage: bench/exec_by_task.py LOG
Prints `count host task`, most expensive first, then the totals per role (the part of the task
name before ' : ')."""

import collections
import re
import sys

TASK = re.compile(r"^TASK \[(.*)\]")
EXEC = re.compile(r"^<([^>]+)> SSH: EXEC ")


def count(lines):
    """-vvv log lines -> Counter{(host address, task name): executions}."""
    task, out = None, collections.Counter()
    for line in lines:
        m = TASK.match(line)
        if m:
            task = m.group(1)
            continue
        m = EXEC.match(line)
        if m:
            out[(m.group(1), task)] += 1
    return out


def main(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        per_task = count(f)
    for (host, task), n in per_task.most_common():
        print(f"{n:4d} {host} {task}")
    roles = collections.Counter()
    for (host, task), n in per_task.items():
        roles[(host, task.split(" : ")[0] if " : " in task else "(play) " + task)] += n
    print("\nper role:")
    for (host, role), n in sorted(roles.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print(f"{n:4d} {host} {role}")


if __name__ == "__main__":
    main(sys.argv[1])
