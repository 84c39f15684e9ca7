# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one base class every python-free OpenWrt action of tunnelfix.fleet shares.

OpenWrt routers often have no Python (small flash), so these actions never send a module:
they run plain commands over the connection (``_low_level_execute_command``, one shell-quoted
argv each) and parse the output on the controller with the pure parsers in module_utils.
An action that needs many commands runs them in one remote execution with ``run_batch``
(plugin_utils/remote/batch.py) and reads each result with ``batch_step``, which checks the
exit code exactly as run_command does.

A subclass sets ``ARGUMENT_SPEC`` (and optionally ``REQUIRED_IF`` and friends) and implements
``run_openwrt(args, task_vars) -> dict``. The base validates the task's arguments, turns every
``ParseError`` and every failed command into a normal failed result (``msg``, ``cmd``, ``rc``,
``stderr``), never a traceback.
"""

from __future__ import annotations

import shlex

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_bytes
from ansible.plugins.action import ActionBase

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import (
    batch_script, new_nonce, split_batch_output, step_name)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import NOT_FOUND
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import (
    uci_changes_redacted_argv, uci_show_redacted_argv)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_changes, staged_change_names


class OpenWrtActionBase(ActionBase):
    """Validate args, run commands on the target without Python, parse their output."""

    TRANSFERS_FILES = False
    _requires_connection = True
    _supports_check_mode = True
    _supports_async = False

    ARGUMENT_SPEC: dict = {}
    MUTUALLY_EXCLUSIVE: list = []
    REQUIRED_IF: list = []
    REQUIRED_TOGETHER: list = []
    REQUIRED_ONE_OF: list = []
    # The results of this action's batch (run_batch), read by step(); None until a batch ran.
    batch = None
    # The host the commands run on (the delegated one, else inventory_hostname), set by run(); None unknown.
    host_name = None

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        self.host_name = getattr(self._task, "delegate_to", None) or (task_vars or {}).get("inventory_hostname")
        try:
            _validation, args = self.validate_argument_spec(
                argument_spec=self.ARGUMENT_SPEC,
                mutually_exclusive=self.MUTUALLY_EXCLUSIVE or None,
                required_if=self.REQUIRED_IF or None,
                required_together=self.REQUIRED_TOGETHER or None,
                required_one_of=self.REQUIRED_ONE_OF or None,
            )
            result.update(self.run_openwrt(args, task_vars or {}))
        except ParseError as exc:
            result.update(failed=True, msg=str(exc))
        except AnsibleActionFail as exc:
            # Spelled out: exc.result carries failed/msg on ansible-core 2.19/2.20 but not on 2.21, where
            # the task executor adds them (as_task_result); an action that catches it must add them itself.
            result.update(exc.result, failed=True, msg=str(exc.message))
        return result

    def run_openwrt(self, args: dict, task_vars: dict) -> dict:
        """Do the action's work with validated ``args``; return the result keys to add."""
        raise NotImplementedError

    @property
    def check_mode(self) -> bool:
        return bool(self._task.check_mode)

    @property
    def diff_mode(self) -> bool:
        return bool(self._task.diff)

    def run_command(self, argv, ok_rcs=(0,), shown=None, stdin=None) -> dict:
        """Run ``argv`` (a list of words) on the target; return ``{cmd, rc, stdout, stderr}``.

        The words are joined with ``shlex.join`` so the remote shell sees them unchanged.
        ``shown`` is the command to report instead (an argv, or a string), for example with
        secret values replaced. ``stdin`` is sent to the command's standard input: the way to
        pass secrets, which on the command line would show in ``-vvv`` logs and in the
        target's process list. Raises AnsibleActionFail with ``cmd``, ``rc`` and ``stderr``
        when rc is not in ``ok_rcs``.
        """
        cmd = shlex.join(str(word) for word in argv)
        if shown is None:
            shown_cmd = cmd
        else:
            shown_cmd = shown if isinstance(shown, str) else shlex.join(str(word) for word in shown)
        in_data = None if stdin is None else to_bytes(stdin, errors="surrogate_or_strict")
        # sudoable=False unless become is on: for a sudoable command the ssh connection asks for a
        # terminal (-tt), which turns every LF into CRLF and mixes stderr into stdout.
        sudoable = getattr(self._connection, "become", None) is not None
        res = self._low_level_execute_command(cmd, sudoable=sudoable, in_data=in_data)
        rc = res.get("rc")
        stdout, stderr = res.get("stdout", ""), res.get("stderr", "")
        if sudoable:  # become (e.g. su on a router) may still give a terminal
            stdout, stderr = stdout.replace("\r\n", "\n"), stderr.replace("\r\n", "\n")
        return self.check_rc({"cmd": shown_cmd, "rc": rc, "stdout": stdout, "stderr": stderr}, ok_rcs)

    @staticmethod
    def check_rc(res, ok_rcs) -> dict:
        """Return ``res`` (``{cmd, rc, stdout, stderr}``); raise AnsibleActionFail naming ``cmd`` if rc is not ok.

        The message and result keys are run_command's, so a command read from a batch fails alike.
        """
        if res["rc"] not in ok_rcs:
            raise AnsibleActionFail(
                "%s failed with rc=%s: %s" % (res["cmd"], res["rc"],
                                              (res["stderr"] or res["stdout"] or "no output").strip()[:500]),
                result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
        return res

    def run_batch(self, steps, shown, environment=None) -> dict:
        """Run ``steps`` (``_remote_batch.Step``/``ForEachLine``) in ONE remote execution.

        Returns ``{name: {cmd, rc, stdout, stderr}}`` (``cmd`` is the step's name), the steps'
        exit codes not checked yet: see ``batch_step``. The script is reported as ``shown``; a
        script that cannot start (no ``mktemp``, no writable /tmp) fails as run_command does, and
        broken framing (truncated output) fails naming ``shown``. ``environment``: batch_script's (``{NAME: value}``
        exported to every step).
        """
        nonce = new_nonce()
        res = self.run_command(["sh", "-c", batch_script(steps, nonce, environment)], shown=shown)
        steps_out = self.parse_output(res, lambda text: split_batch_output(text, nonce))
        return {name: dict(got, cmd=name) for name, got in steps_out.items()}

    def step(self, argv, ok_rcs=(0,), name=None) -> dict:
        """The result of ``argv`` in this action's batch (``self.batch``, from run_batch), checked like run_command.

        ``name``: the step's name when it is not ``step_name(argv)`` (a redacted command shown by its
        plain name). When the batch lacks it, ``argv`` runs on its own, reported as ``step_name(argv)``.
        """
        shown = step_name(argv)
        return self.batch_step(self.batch or {}, shown if name is None else name, argv, ok_rcs, shown=shown)

    def batch_step(self, batch, name, argv, ok_rcs=(0,), shown=None) -> dict:
        """The result of step ``name`` in run_batch's ``batch``, checked against ``ok_rcs`` as run_command does.

        When the batch has no such step (a name only the controller knew, a skipped fallback),
        ``argv`` runs on its own with run_command, reported as ``shown`` or ``name``.
        """
        if name in batch:
            return self.check_rc(batch[name], ok_rcs)
        return self.run_command(argv, ok_rcs=ok_rcs, shown=name if shown is None else shown)

    def read_uci_show(self, target, ok_rcs=(0,)) -> dict:
        """``uci -q show TARGET`` with every secret value replaced by ``'<redacted>'`` on the router.

        Never run plain ``uci show`` from an action: the connection prints raw output at -vvv, so
        keys would reach the operator's log (plugin_utils/remote/redact.py). Reported as
        ``uci -q show TARGET``; returns run_command's dict.
        """
        return self.run_command(uci_show_redacted_argv(target), ok_rcs=ok_rcs, shown=["uci", "-q", "show", target])

    def read_uci_changes(self, config) -> dict:
        """``uci changes CONFIG`` with secret values replaced on the router, as read_uci_show."""
        return self.run_command(uci_changes_redacted_argv(config), shown=["uci", "changes", config])

    def refuse_foreign_staged_changes(self, config, commit_staged, changes=None):
        """Before a ``uci commit CONFIG``: fail when CONFIG holds staged changes the task did not make
        (the commit would take them along silently), unless ``commit_staged``; then warn.

        ``changes``: the result of ``read_uci_changes(config)`` when already read (a batch step);
        read now otherwise. The message names each change by path and operation, never a value
        (values are redacted on the router anyway). Raises AnsibleActionFail.
        """
        res = self.read_uci_changes(config) if changes is None else changes
        pending = self.parse_output(res, parse_uci_changes)
        if not pending:
            return
        named = staged_change_names(pending)
        if not commit_staged:
            raise AnsibleActionFail(
                "uci: %s has %d staged change(s) this task did not make: %s (values not shown). 'uci commit %s' "
                "would commit them with this change, so nothing was changed. Commit or revert them first "
                "('uci changes %s', then 'uci commit %s' or 'uci revert %s'), or let this run commit them: "
                "tunnelfix_uci_commit_staged: true in the inventory (option commit_staged)"
                % (config, len(pending), named, config, config, config, config))
        self._display.warning("uci: %s had %d staged change(s) before this task (%s); commit_staged is set, so "
                              "'uci commit %s' commits them too" % (config, len(pending), named, config))

    def command_exists(self, name) -> bool:
        """Tell whether ``name`` is a command on the target (``command -v NAME`` in its shell).

        Read from the batch when it holds that step, else run on its own. BusyBox ash and dash
        answer 127 (NOT_FOUND) for a missing command, bash 1; both mean absent. Any other exit code
        fails as run_command does.
        """
        return self.step(["command", "-v", name], ok_rcs=(0, 1, NOT_FOUND))["rc"] == 0

    def run_and_parse(self, argv, parser, ok_rcs=(0,)):
        """Run ``argv`` and return ``parser(stdout)``; a ParseError fails naming the command."""
        return self.parse_output(self.run_command(argv, ok_rcs), parser)

    def parse_output(self, res, parser):
        """Return ``parser(res["stdout"])`` for a run_command result; ParseError fails naming the command and the host.

        ``"cannot read the output of ip -j route show on owrt1: ip -j route show output is JSON nested more than 100
        levels deep ..."`` (`` on HOST`` when ``host_name`` is known).
        """
        try:
            return parser(res["stdout"])
        except ParseError as exc:
            where = " on %s" % self.host_name if self.host_name else ""
            raise AnsibleActionFail("cannot read the output of %s%s: %s" % (res["cmd"], where, exc),
                                    result={"cmd": res["cmd"], "rc": res["rc"]}) from None
