# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Callback: one summary at the end of every tunnelfix playbook (plugin_utils/report/run_summary.py renders it)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: fleet_summary
type: aggregate
short_description: One summary at the end of a tunnelfix run - findings per id, changes per role, failures, next command
version_added: 0.2.0
description:
  - After the play recap, prints one block for the whole fleet, whatever its size.
  - Per finding id, the hosts it was found on (diagnose), fixed on or still present on (verify), from the fact
    C(tunnelfix_run_summary) the playbooks set on localhost; per fault, the hosts it could not be checked on and why.
  - Per role, the hosts on which it changed something, or would have in check mode.
  - Each host that failed or was unreachable, with the task and the first line of its message. Failures that a
    rescue or C(ignore_errors) absorbed are left out, as in the play recap.
  - Notices that apply to many hosts alike (a container lacks a host-level sysctl, banIP is not installed),
    once each with the hosts, from the host facts named C(ROLE_notices) (a list of texts) the roles set.
  - The next command, with the run's inventory and C(--limit) (localhost in it once), in the form the playbook was
    started with (C(tunnelfix.fleet.NAME) or a path), and only what it will really do - an opt-in fix a host has not
    opted into is named with its variable, not proposed; an C(-e) a check rejected (C(NAME must ...)) is left out, and
    said; after a failure, the failed hosts again in the same mode, never the real run or the other hosts; after a
    C(--limit) without localhost, the same run with it.
  - Host lists use Ansible's inventory range notation for numbered names (C(tfb-lnx-[01:20])).
  - Prints nothing when the stdout callback writes JSON (its output must stay one JSON document).
requirements:
  - Enable it, e.g. C(callbacks_enabled = tunnelfix.fleet.fleet_summary) in the [defaults] section of ansible.cfg,
    or C(ANSIBLE_CALLBACKS_ENABLED=tunnelfix.fleet.fleet_summary).
"""

EXAMPLES = r"""
# ansible.cfg
# [defaults]
# callbacks_enabled = tunnelfix.fleet.fleet_summary
#
# or for one run:
# ANSIBLE_CALLBACKS_ENABLED=tunnelfix.fleet.fleet_summary ansible-playbook -i inventory.yml tunnelfix.fleet.diagnose
"""

RETURN = r"""
# A callback returns nothing; it prints the summary after the play recap.
"""

import os

from ansible import constants as C
from ansible import context
from ansible.plugins.callback import CallbackBase

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import RunTally, summary_lines

# A role's notices: the host fact <role>_notices, a list of texts (ansible-lint wants a role's facts prefixed).
NOTICES_SUFFIX = "_notices"
STAGE_FACT = "tunnelfix_run_summary"


def _message(result_data):
    """The failure message of a task result; a loop's first failed item's message over the generic one."""
    for item in result_data.get("results") or []:
        if isinstance(item, dict) and item.get("failed") and item.get("msg"):
            return item["msg"]
    return result_data.get("msg") or result_data.get("stderr") or result_data.get("reason") or "failed"


def _as_given(path):
    """An inventory path as the user most likely typed it: relative when it is under the current directory
    (ansible-playbook makes every -i path absolute)."""
    cwd = os.getcwd()
    return os.path.relpath(path, cwd) if str(path).startswith(cwd + os.sep) else path


class CallbackModule(CallbackBase):
    """Collects failures, changes per role, notices and the playbooks' stage summaries; prints them at the end."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "tunnelfix.fleet.fleet_summary"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._tally = RunTally()
        # (host, task uuid) -> the first failed loop item's message: a loop task's own result says only "One or more
        # items failed", and ansible-core 2.21's item results in it carry no "failed" key to find the failed one by
        self._item_failures = {}

    def v2_runner_item_on_failed(self, result):
        task = result.task
        key = (result.host.get_name(), getattr(task, "_uuid", None))
        self._item_failures.setdefault(key, _message(result.result))

    def _task_label(self, result):
        task = result.task
        return task.get_name().strip() if task is not None else "?"

    def v2_runner_on_ok(self, result):
        data = result.result
        facts = data.get("ansible_facts") or {}
        host = result.host.get_name()
        for name, value in facts.items():
            if name.endswith(NOTICES_SUFFIX) and isinstance(value, list):
                self._tally.record_notices(host, value)
        if isinstance(facts.get(STAGE_FACT), dict):
            try:
                self._tally.record_stage(facts[STAGE_FACT])
            except ValueError as exc:
                self._display.warning("tunnelfix.fleet.fleet_summary: %s" % exc)
        role = getattr(result.task, "_role", None)
        if data.get("changed") and role is not None:
            self._tally.record_change(host, role.get_name())

    def v2_runner_on_failed(self, result, ignore_errors=False):
        key = (result.host.get_name(), getattr(result.task, "_uuid", None))
        item_message = self._item_failures.pop(key, None)
        if not ignore_errors:
            self._tally.record_failure(result.host.get_name(), self._task_label(result), item_message or _message(result.result))

    def v2_runner_on_unreachable(self, result):
        self._tally.record_failure(result.host.get_name(), self._task_label(result), _message(result.result), unreachable=True)

    def v2_playbook_on_stats(self, stats):
        self._tally.forget_failures_of([host for host in list(self._tally.failed) if not stats.failures.get(host)])
        self._tally.hosts_run = set(stats.processed)
        if "json" in str(C.DEFAULT_STDOUT_CALLBACK).rpartition(".")[2]:
            return
        args = context.CLIARGS
        playbooks = list(args.get("args") or [])
        invocation = {
            "playbook": playbooks[-1] if playbooks else None,
            "inventory": [_as_given(path) for path in args.get("inventory") or []],
            "limit": args.get("subset"),
            "check": bool(args.get("check")),
            "extra_vars": list(args.get("extra_vars") or ()),
        }
        self._display.banner("TUNNELFIX SUMMARY")
        for line in summary_lines(self._tally, invocation):
            self._display.display(line)
        self._display.display("")
