# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Apply a change that may cut the management connection, with an automatic rollback armed first.

Documentation: plugins/modules/guarded_apply.py (``ansible-doc tunnelfix.fleet.guarded_apply``).
The scripts and their output format are the pure ``plugin_utils/remote/rollback.py``; this file sends
them and keeps the time. Python-free: plain sh over the connection (OpenWrt, BusyBox, systemd
Linux alike).

state=applied: snapshot (unless ``use_snapshot``), arm the revert and start ``apply`` detached
(one execution that returns at once), reset the connection, then try to reach the host with a
short connect timeout per attempt until ``reconnect_timeout_s``: the first connection that gets
through confirms (disarms) the revert. When none does, wait for the revert's deadline, reach the
host again, compare every file's sha256 with this run's snapshot's (both computed on the target) and fail
the host saying it was rolled back.

Every snapshot belongs to one run: a new run id (16 hex digits) names its directory on the target, and the
run holds the guard of the name (an atomic ``mkdir``) from the snapshot to its confirm, discard or revert; a
second run meanwhile fails naming the holder. A ``state=snapshot`` task records its run id and sha256 in the
host fact ``tunnelfix_rollback_snapshots`` (``{NAME: {"run_id": str, "sha256": {path: HEX|"absent"}}}``),
where the later ``use_snapshot`` and ``state=discarded`` tasks of the same name find them.
"""

from __future__ import annotations

import re
import secrets
import shlex
import time

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.connection import ConnectionBase

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.rollback import (
    arm_and_apply_script, check_command, check_files, check_name, check_run_id, check_timeouts, confirm_script,
    describe_busy, describe_stale, discard_script, guard_dir, lock_dir, parse_status, READ_AND_RUN, redact, snapshot_script,
    verify_script)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase

SHOWN = "sh -c '<guarded_apply: %s>'"
POLL_S = 1.0      # pause between two connection attempts, or two reads of a running apply
SETTLE_S = 2.0    # the apply starts 1 s after the launch returns; give it that and a little more
FACT = "tunnelfix_rollback_snapshots"   # {NAME: {"run_id": str, "sha256": {path: str}}}, set by state=snapshot
_ALIVE = re.compile(r"-o\s*ServerAlive(Interval|CountMax)=\S+")


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.guarded_apply`` action."""

    ARGUMENT_SPEC = {
        "name": {"type": "str", "default": "default"},
        "state": {"type": "str", "default": "applied", "choices": ["applied", "snapshot", "discarded"]},
        "files": {"type": "list", "elements": "str", "default": []},
        "apply": {"type": "str", "no_log": True},
        "restore": {"type": "str", "no_log": True},
        "use_snapshot": {"type": "bool", "default": False},
        "run_id": {"type": "str"},
        "rollback_timeout_s": {"type": "int", "default": 90},
        "reconnect_timeout_s": {"type": "int", "default": 60},
        "connect_timeout_s": {"type": "int", "default": 5},
        # what the apply changes, as the caller knows it (guarded_apply cannot tell from a shell command): for --diff
        "diff_before": {"type": "str"},
        "diff_after": {"type": "str"},
    }
    REQUIRED_IF = [("state", "applied", ("apply", "files")), ("state", "snapshot", ("files",))]
    REQUIRED_TOGETHER = [["diff_before", "diff_after"]]

    # ---- connection handling -------------------------------------------------------------------
    def _short_timeouts(self, connect_timeout_s):
        """Make every later command give up after about ``connect_timeout_s`` without an answer (ssh only).

        ssh uses the first value it is given for an option, and Ansible puts ``ssh_args`` first: the
        keepalive options are taken out of it and ours added. Returns the options to put back.
        """
        conn = self._connection
        saved = {}
        alive = "-o ServerAliveInterval=1 -o ServerAliveCountMax=%d" % connect_timeout_s
        for option in ("timeout", "ssh_args"):
            try:
                saved[option] = conn.get_option(option)
            except (KeyError, AttributeError):
                continue
        if "timeout" in saved:
            conn.set_option("timeout", connect_timeout_s)
        if "ssh_args" in saved:
            kept = _ALIVE.sub(" ", saved["ssh_args"] or "")
            conn.set_option("ssh_args", " ".join((kept + " " + alive).split()))
        return saved

    def _restore_timeouts(self, saved):
        for option, value in saved.items():
            self._connection.set_option(option, value)

    def _reset(self):
        """Drop the (possibly dead) persistent connection so the next command must connect anew."""
        if getattr(type(self._connection), "reset", ConnectionBase.reset) is not ConnectionBase.reset:
            try:
                self._connection.reset()
            except AnsibleConnectionFailure:
                pass

    def _try(self, script, what, secret=False):
        """Run ``script``; None when the host could not be reached (connection failure, ssh rc 255).

        A ``secret`` script (it holds the apply and restore commands) goes on standard input, so that
        neither ``-vvv`` (which prints the command line) nor the target's process list shows it.
        """
        if secret:
            cmd, in_data = shlex.join(["sh", "-c", READ_AND_RUN]), script.encode("utf-8", "surrogateescape")
        else:
            cmd, in_data = shlex.join(["sh", "-c", script]), None
        try:
            res = self._low_level_execute_command(cmd, sudoable=False, in_data=in_data)
        except AnsibleConnectionFailure:
            return None
        if res.get("rc") == 255:
            return None
        return self.check_rc({"cmd": SHOWN % what, "rc": res.get("rc"), "stdout": res.get("stdout", ""),
                              "stderr": res.get("stderr", "")}, (0,))

    def _status(self, res, files):
        return self.parse_output(res, lambda text: parse_status(text, files))

    # ---- states ----------------------------------------------------------------------------------
    def _snapshot(self, name, files, run_id):
        """Take the guard and this run's snapshot; return ``(sha256 per path, [warnings])`` or fail naming why."""
        res = self.run_command(["sh", "-c", snapshot_script(name, files, run_id)], shown=SHOWN % "snapshot")
        status = self._status(res, files)
        words = status["words"]
        if "unsafe_base" in words:
            raise AnsibleActionFail("name=%s: nothing done, the rollback directory %s on the host is not a directory "
                                    "owned by this user with mode 0700 (or is a symlink); remove it"
                                    % (name, words["unsafe_base"]))
        if "notfile" in words and words["notfile"].strip().isdigit() and int(words["notfile"]) < len(files):
            raise AnsibleActionFail("files: %s exists but is not a regular file (a directory, FIFO or a symlink that "
                                    "does not lead to a file); the snapshot cannot restore it"
                                    % files[int(words["notfile"])])
        if "busy" in words:
            raise AnsibleActionFail("name=%s: nothing done, another run is changing this host: %s; run again when it "
                                    "is done" % (name, describe_busy(name, words)),
                                    result={"holder_run_id": words["busy"].split()[0]})
        if "snapshot" not in words or set(status["sha256"]) != set(files):
            raise AnsibleActionFail("the snapshot of %s did not complete: %s" % (", ".join(files), res["stdout"][-300:]),
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
        return status["sha256"], ([describe_stale(name, words)] if "stale" in words else [])

    @staticmethod
    def _known(name, args, task_vars):
        """This run's snapshot of ``name``: ``{"run_id": str, "sha256": dict|None}`` from the option ``run_id`` or
        the fact a ``state=snapshot`` task set; None when there is none."""
        facts = (task_vars.get("ansible_facts") or {}).get(FACT) or {}
        known = facts.get(name) if isinstance(facts, dict) else None
        if not isinstance(known, dict) or not isinstance(known.get("run_id"), str):
            known = None
        if args.get("run_id"):
            run_id = check_run_id(args["run_id"])
            sha = known.get("sha256") if known and known["run_id"] == run_id else None
            return {"run_id": run_id, "sha256": sha}
        if known is None:
            return None
        return {"run_id": check_run_id(known["run_id"]),
                "sha256": known.get("sha256") if isinstance(known.get("sha256"), dict) else None}

    def run_openwrt(self, args, task_vars):
        name = check_name(args["name"])
        state = args["state"]
        if state == "discarded":
            known = self._known(name, args, task_vars)
            if known is None:
                return {"changed": False, "state": "missing",
                        "msg": "no snapshot of name=%s was taken by this run: nothing to discard" % name}
            if self.check_mode:
                return {"changed": False, "msg": "would remove the snapshot %s" % guard_dir(name, known["run_id"])}
            res = self.run_command(["sh", "-c", discard_script(name, known["run_id"])], shown=SHOWN % "discard")
            found = self._status(res, [])["state"]
            if found == "busy":
                raise AnsibleActionFail("name=%s: the rollback of this run is armed; not discarding it" % name)
            return {"changed": False, "state": found, "run_id": known["run_id"]}

        files = check_files(args["files"])
        if state == "snapshot":
            if self.check_mode:
                return {"changed": False, "msg": "would snapshot %s" % ", ".join(files)}
            run_id = secrets.token_hex(8)
            sha, warnings = self._snapshot(name, files, run_id)
            facts = dict((task_vars.get("ansible_facts") or {}).get(FACT) or {})
            facts[name] = {"run_id": run_id, "sha256": sha}
            result = {"changed": False, "snapshot_dir": guard_dir(name, run_id), "run_id": run_id, "sha256": sha,
                      "ansible_facts": {FACT: facts}}
            if warnings:
                result["warnings"] = warnings
            return result

        rollback_s, reconnect_s, connect_s = (args["rollback_timeout_s"], args["reconnect_timeout_s"],
                                              args["connect_timeout_s"])
        check_timeouts(rollback_s, reconnect_s, connect_s)
        apply = check_command("apply", args["apply"])
        restore = apply if args["restore"] is None else check_command("restore", args["restore"])
        known = self._known(name, args, task_vars) if args["use_snapshot"] else None
        if self.check_mode:
            # apply and restore are never returned: they may hold keys (uci set ...private_key=...); a check-mode
            # snapshot task took no snapshot, so use_snapshot has none here
            msg = "would apply the change with a rollback of %s armed for %d s" % (", ".join(files), rollback_s)
            return dict({"changed": True, "files": files, "msg": msg}, **self._diff(name, args))
        if args["use_snapshot"] and known is None:
            raise AnsibleActionFail("name=%s: nothing applied, no snapshot of this name was taken by this run "
                                    "(use_snapshot needs a state=snapshot task of the same name before it, or run_id)" % name)
        warnings = []
        if known is not None:
            run_id, before = known["run_id"], known["sha256"]
        else:
            run_id = secrets.token_hex(8)
            before, warnings = self._snapshot(name, files, run_id)
        token = secrets.token_hex(8)
        saved = self._short_timeouts(connect_s)
        try:
            result = self._apply(name, files, apply, restore, rollback_s, reconnect_s, token, run_id, before)
        except AnsibleActionFail:
            # nothing applied: a snapshot this task took itself guards nothing now, give the guard back (one an
            # earlier task took stays: the tasks between may have changed the files, it is their only copy)
            if known is None:
                self._try(discard_script(name, run_id), "discard")
            raise
        finally:
            self._restore_timeouts(saved)
        if warnings:
            result["warnings"] = warnings
        # a rolled-back change changed nothing that stays: no diff for it
        return dict(result, **self._diff(name, args)) if result.get("confirmed") else result

    def _diff(self, name, args):
        """``{"diff": {...}}`` under --diff with ``diff_before``/``diff_after`` (keys redacted as in every output), else {}."""
        if not self.diff_mode or args.get("diff_before") is None:
            return {}
        return {"diff": {"before": redact(args["diff_before"]), "after": redact(args["diff_after"]),
                         "before_header": "%s (before)" % name, "after_header": "%s (after)" % name}}

    def _apply(self, name, files, apply, restore, rollback_s, reconnect_s, token, run_id, before):
        """Arm, start the apply, reconnect and confirm; or wait for the rollback and verify it."""
        start = time.monotonic()
        # the apply waits 1 s so that this execution's answer leaves before the connection may go
        script = arm_and_apply_script(name, files, "sleep 1; " + apply, restore, rollback_s, token, run_id)
        launched = self._try(script, "arm the rollback and start the apply", secret=True)
        result = {"files": files, "rollback_timeout_s": rollback_s, "run_id": run_id}
        if launched is not None:
            launch = self._status(launched, files)
            words = launch["words"]
            if "mismatch" in words:
                raise AnsibleActionFail("name=%s: nothing applied, files must be the snapshot's files in the same order "
                                        "(use_snapshot): files are %s, the snapshot has %s"
                                        % (name, files, launch["snapshot_paths"]))
            if "unsafe_base" in words:
                raise AnsibleActionFail("name=%s: nothing applied, the rollback directory %s on the host is not a "
                                        "directory owned by this user with mode 0700 (or is a symlink); remove it"
                                        % (name, words["unsafe_base"]))
            if "lost" in words:
                raise AnsibleActionFail("name=%s: nothing applied, the guard %s is no longer this run's (%s): another run "
                                        "took it over as stale; this run's snapshot is left in %s"
                                        % (name, lock_dir(name), "held by run %s now" % words["lost"]
                                           if words["lost"] != "-" else "nobody holds it", guard_dir(name, run_id)))
            if "missing" in words:
                raise AnsibleActionFail("name=%s: nothing applied, this run's snapshot %s is not on the host"
                                        % (name, guard_dir(name, run_id)))
            for problem in ("busy", "arm"):
                if problem in words:
                    raise AnsibleActionFail("name=%s: nothing applied, the rollback could not be armed: %s %s"
                                            % (name, problem, words[problem]))
            result["timer"] = words.get("timer")
        time.sleep(SETTLE_S)
        self._reset()
        running = False   # the last confirm reached the host and found the apply still running
        while time.monotonic() - start < reconnect_s:
            attempt = time.monotonic()
            res = self._try(confirm_script(name, run_id), "confirm")
            running = res is not None
            if res is not None:
                status = self._status(res, files)
                running = status["state"] == "running"
                if status["state"] == "confirmed":
                    return dict(result, changed=True, confirmed=True, rolled_back=False,
                                elapsed_s=round(time.monotonic() - start, 1))
                if status["state"] == "failed":
                    return self._verify(name, run_id, files, result, start, rollback_s + reconnect_s, before,
                                        "the apply exited with rc=%s (%s)" % (
                                            status["apply_rc"], redact(status["words"].get("apply_out", "").strip())))
                if status["state"] == "unarmed":
                    raise AnsibleActionFail("name=%s: nothing applied, the command that arms the rollback and "
                                            "starts the apply did not reach the host" % name)
                if status["state"] in ("rolled-back", "missing"):
                    return self._verify(name, run_id, files, result, start, rollback_s + reconnect_s, before,
                                        "the host was reached only after its revert had run")
            else:
                self._reset()
            time.sleep(max(0.0, POLL_S - (time.monotonic() - attempt)) if res is None else POLL_S)
        reason = ("apply still running after %d s" % reconnect_s if running
                  else "not reachable within %d s after apply" % reconnect_s)
        # the revert fires rollback_s after arming; give it reconnect_s more to run and the host to come back
        time.sleep(max(0.0, start + rollback_s - time.monotonic()))
        return self._verify(name, run_id, files, result, start, rollback_s + reconnect_s, before, reason)

    def _verify(self, name, run_id, files, result, start, budget_s, before, reason):
        """Reach the host until ``start + budget_s``; fail it naming the rollback and the sha256 comparison."""
        status = None
        while time.monotonic() - start < budget_s:
            self._reset()
            res = self._try(verify_script(name, run_id), "verify the rollback")
            if res is not None:
                status = self._status(res, files)
                if status["state"] in ("rolled-back", "missing"):
                    break
            time.sleep(POLL_S)
        elapsed = round(time.monotonic() - start, 1)
        result.update(changed=True, failed=True, confirmed=False, elapsed_s=elapsed)
        if status is None:
            result.update(rolled_back=None, msg="change not confirmed: %s; the host is still not reachable %.0f s "
                                                "after apply (its revert was due after %d s)"
                                                % (reason, elapsed, result["rollback_timeout_s"]))
            return result
        # this run's snapshot: the hashes the controller got when it took it, else its directory's on the target
        mine = before or status["before"] or {}
        after = status["sha256"]
        same = bool(after) and all(after.get(path) == mine.get(path) for path in files)
        before = mine
        result.update(rolled_back=status["state"] == "rolled-back", sha256_before=before, sha256_after=after,
                      files_identical=same, restore_rc=status["restore_rc"])
        if status["state"] != "rolled-back":
            result["msg"] = ("change not confirmed: %s; the rollback state on the host is %r %.0f s after apply"
                             % (reason, status["state"], elapsed))
            return result
        problems = []
        if before and status["before"] and any(status["before"].get(path) != before.get(path) for path in files):
            problems.append("the snapshot on the host is not the one this run took (its sha256 %s)" % status["before"])
        if status["files_rc"] not in (0, None):
            problems.append("copying the files back failed")
        if status["restore_rc"] not in (0, None):
            problems.append("the restore command exited with rc=%s: %s" % (
                status["restore_rc"], redact(status["words"].get("restore_out", "").strip())))
        result["msg"] = "change rolled back: %s; %s restored, sha256 %s%s" % (
            reason, ", ".join(files), "identical" if same else "DIFFERENT",
            "; " + "; ".join(problems) if problems else "")
        return result
