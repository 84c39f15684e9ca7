# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The guarded_apply action's decisions against a scripted target (no shell runs here; the scripts
themselves run under dash, bash and BusyBox in tests/unit/plugins/module_utils/test_rollback.py,
and the whole flow in the lab: tests/rollback/run.sh)."""

import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
import yaml
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.tunnelfix.fleet.plugins.action import guarded_apply
from ansible_collections.tunnelfix.fleet.plugins.action.guarded_apply import ActionModule

SHA = "a" * 64
OTHER = "b" * 64
RUN = "0123456789abcdef"
OTHER_RUN = "fedcba9876543210"
FACT = "tunnelfix_rollback_snapshots"
ARGS = {"name": "wg0", "files": ["/etc/config/network"], "apply": "ifup wg0", "rollback_timeout_s": 30,
        "reconnect_timeout_s": 12, "connect_timeout_s": 2}


class Scripted(ActionModule):
    """Answers each script by what it is; ``reachable`` says per confirm attempt whether the host answers."""

    def __init__(self, args, check_mode=False, reachable=(True,), confirm="state confirmed\n", verify=None, diff=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff,
                               action="tunnelfix.fleet.guarded_apply")
        super().__init__(task, SimpleNamespace(_shell=SimpleNamespace(tmpdir=None)), None, None, None)
        self._load_name = "tunnelfix.fleet.guarded_apply"
        self.reachable, self.confirm, self.verify = list(reachable), confirm, verify
        self.ran, self.sent, self.ran_commands = [], [], []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran_commands.append(cmd)
        if in_data is not None:
            self.sent.append((cmd, in_data))
            cmd = in_data.decode()
        kind = ("snapshot" if "echo snapshot ok" in cmd else "arm" if "apply started" in cmd
                else "confirm" if "state confirmed" in cmd else "verify" if "restore_out" in cmd else "other")
        self.ran.append(kind)
        if kind == "snapshot":
            return {"rc": 0, "stdout": "sha256 0 %s\nsnapshot ok\n" % SHA, "stderr": ""}
        if kind == "arm":
            return {"rc": 0, "stdout": "timer sleep\napply started\n", "stderr": ""}
        if kind == "confirm":
            if self.reachable and not self.reachable.pop(0):
                raise AnsibleConnectionFailure("ssh: connect to host 10.44.0.3 port 22: Connection timed out")
            return {"rc": 0, "stdout": self.confirm, "stderr": ""}
        if kind == "verify":
            return {"rc": 0, "stdout": self.verify, "stderr": ""}
        return {"rc": 0, "stdout": "", "stderr": ""}


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    """Time runs 1 s per sleep and per call of monotonic, without waiting."""
    clock = {"now": 0.0}

    def sleep(seconds):
        clock["now"] += max(seconds, 0)

    def monotonic():
        clock["now"] += 0.5
        return clock["now"]
    monkeypatch.setattr(guarded_apply.time, "sleep", sleep)
    monkeypatch.setattr(guarded_apply.time, "monotonic", monotonic)


def test_check_mode_does_nothing():
    action = Scripted(ARGS, check_mode=True)
    result = action.run(task_vars={})
    assert result["changed"] and "would apply the change with a rollback of /etc/config/network" in result["msg"] and action.ran == []


@pytest.mark.parametrize("change, error", [
    ({"reconnect_timeout_s": 29}, "reconnect_timeout_s must be .*got 29"),
    ({"rollback_timeout_s": 5}, "rollback_timeout_s must be 10-3600, got 5"),
    ({"name": "../x"}, "name must be .*got '../x'"),
    ({"files": ["network"]}, "files must be absolute file paths, got 'network'"),
])
def test_bad_options_fail_naming_option_and_value(change, error):
    action = Scripted(dict(ARGS, **change))
    result = action.run(task_vars={})
    assert result["failed"]
    assert re.search(error, result["msg"]), result["msg"]
    assert action.ran == []


def test_reached_again_is_confirmed():
    action = Scripted(ARGS, reachable=(False, False, True))
    result = action.run(task_vars={})
    assert result["changed"] and result["confirmed"] and not result["rolled_back"]
    assert not result.get("failed")
    assert action.ran == ["snapshot", "arm", "confirm", "confirm", "confirm"]


def test_never_reached_is_rolled_back_and_fails_the_host():
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nrestore_out \nbefore 0 %s\nsha256 0 %s\n" % (SHA, SHA)
    action = Scripted(ARGS, reachable=[False] * 100, verify=verify)
    result = action.run(task_vars={})
    assert result["failed"] and result["rolled_back"] and result["files_identical"]
    assert result["msg"] == ("change rolled back: not reachable within 12 s after apply; /etc/config/network restored, "
                             "sha256 identical")
    assert result["elapsed_s"] >= 30
    assert "verify" in action.ran


def test_rollback_with_a_different_file_says_so():
    verify = "state rolled-back\nrestore_rc 1\nfiles_rc 0\nrestore_out no such interface\nbefore 0 %s\nsha256 0 %s\n" % (
        SHA, OTHER)
    result = Scripted(ARGS, reachable=[False] * 100, verify=verify).run(task_vars={})
    assert result["failed"] and not result["files_identical"]
    assert "sha256 DIFFERENT" in result["msg"] and "restore command exited with rc=1: no such interface" in result["msg"]


def test_failed_apply_is_rolled_back_at_once():
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nbefore 0 %s\nsha256 0 %s\n" % (SHA, SHA)
    result = Scripted(ARGS, confirm="state failed 1\napply_out ifup: bad\nstate rolled-back\n", verify=verify).run(task_vars={})
    assert result["failed"] and result["msg"].startswith("change rolled back: the apply exited with rc=1 (ifup: bad)")


def test_busy_guard_applies_nothing_and_names_the_holder():
    class Busy(Scripted):
        def _low_level_execute_command(self, cmd, **kwargs):
            self.ran.append(cmd)
            return {"rc": 0, "stdout": "busy %s 42 armed 18\n" % RUN, "stderr": ""}
    action = Busy(ARGS)
    result = action.run(task_vars={})
    assert result["failed"] and len(action.ran) == 1
    assert result["msg"] == (
        "name=wg0: nothing done, another run is changing this host: the guard is held by run %s (taken 42 s ago): its "
        "revert is armed and fires in 18 s unless that run confirms its change; run again when it is done" % RUN)
    assert result["holder_run_id"] == RUN


def test_launch_that_never_arrived_applied_nothing():
    class Lost(Scripted):
        def _low_level_execute_command(self, cmd, **kwargs):
            if "apply started" in (kwargs.get("in_data") or b"").decode():
                raise AnsibleConnectionFailure("ssh: Connection reset by peer")
            return super()._low_level_execute_command(cmd, **kwargs)
    action = Lost(ARGS, confirm="state unarmed\n")
    result = action.run(task_vars={})
    assert result["failed"] and "nothing applied" in result["msg"] and "did not reach the host" in result["msg"]
    assert action.ran[-1] == "other" and "release; rm -rf" in action.ran_commands[-1], "its own snapshot is given back"


def test_nothing_applied_keeps_an_earlier_tasks_snapshot():
    """The tasks between that snapshot and this one may have changed the files: it is the only copy of them as they were."""
    task_vars = {"ansible_facts": {FACT: {"wg0": {"run_id": RUN, "sha256": {"/etc/config/network": SHA}}}}}
    action = Answering(dict(ARGS, use_snapshot=True), arm="arm failed no systemd-run\n")
    result = action.run(task_vars=task_vars)
    assert result["failed"] and "nothing applied" in result["msg"] and action.ran == ["arm"]


KEY = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="
SECRET_ARGS = dict(ARGS, apply="uci set network.wg0.private_key=%s; ifup wg0" % KEY,
                   restore="uci set network.wg0.private_key=%s" % KEY)


class Answering(Scripted):
    """Scripted, with the arm and snapshot answered by ``arm`` / ``snapshot`` text."""

    def __init__(self, args, arm=None, snapshot=None, **kwargs):
        super().__init__(args, **kwargs)
        self.arm_text, self.snapshot_text = arm, snapshot

    def _low_level_execute_command(self, cmd, **kwargs):
        if kwargs.get("in_data") is not None:
            cmd = kwargs["in_data"].decode()
        if self.arm_text is not None and "apply started" in cmd:
            self.ran.append("arm")
            return {"rc": 0, "stdout": self.arm_text, "stderr": ""}
        if self.snapshot_text is not None and "echo snapshot ok" in cmd:
            self.ran.append("snapshot")
            return {"rc": 0, "stdout": self.snapshot_text, "stderr": ""}
        return super()._low_level_execute_command(cmd, **kwargs)


def test_use_snapshot_of_other_files_is_refused_naming_both_lists():
    args = dict(ARGS, files=["/etc/config/network", "/etc/config/firewall"], use_snapshot=True)
    action = Answering(args, arm="mismatch\nsnapshot_path /etc/config/firewall\nsnapshot_path /etc/config/network\n")
    result = action.run(task_vars={"ansible_facts": {FACT: {"wg0": {"run_id": RUN}}}})
    assert result["failed"] and "confirm" not in action.ran
    assert result["msg"] == (
        "name=wg0: nothing applied, files must be the snapshot's files in the same order (use_snapshot): files are "
        "['/etc/config/network', '/etc/config/firewall'], the snapshot has ['/etc/config/firewall', '/etc/config/network']")


@pytest.mark.parametrize("snapshot, error", [
    ("notfile 0\n", "files: /etc/config/network exists but is not a regular file"),
    ("unsafe_base /var/run/tunnelfix-rollback\n", "rollback directory /var/run/tunnelfix-rollback on the host is not"),
])
def test_snapshot_refusals_fail_naming_the_path(snapshot, error):
    action = Answering(ARGS, snapshot=snapshot)
    result = action.run(task_vars={})
    assert result["failed"] and error in result["msg"]
    assert action.ran == ["snapshot"]


def test_apply_still_running_is_not_called_unreachable():
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nbefore 0 %s\nsha256 0 %s\n" % (SHA, SHA)
    result = Scripted(ARGS, confirm="state running\n", verify=verify).run(task_vars={})
    assert result["failed"] and result["msg"].startswith("change rolled back: apply still running after 12 s;")
    assert "not reachable" not in result["msg"]


@pytest.mark.parametrize("change, error", [
    ({"apply": " "}, "apply must be a shell command, got a blank value"),
    ({"restore": ""}, "restore must be a shell command, got a blank value"),
    ({"files": ["/etc/config/network", "/etc//config/network"]}, "files lists a path twice"),
    ({"files": ["/etc/config/net\0work"]}, "files must be absolute file paths, got '/etc/config/net\\x00work'"),
    ({"files": ["/etc/config/net\rwork"]}, "files must be absolute file paths, got '/etc/config/net\\rwork'"),
])
def test_bad_commands_and_paths_fail_naming_the_option(change, error):
    for check_mode in (False, True):
        action = Scripted(dict(ARGS, **change), check_mode=check_mode)
        result = action.run(task_vars={})
        assert result["failed"] and error in result["msg"], result["msg"]
        assert "embedded null byte" not in result["msg"] and action.ran == []


@pytest.mark.parametrize("check_mode", [False, True])
def test_apply_restore_and_outputs_are_never_returned_with_a_key(check_mode):
    verify = "state rolled-back\nrestore_rc 1\nfiles_rc 0\nrestore_out bad %s\nbefore 0 %s\nsha256 0 %s\n" % (KEY, SHA, SHA)
    action = Scripted(SECRET_ARGS, check_mode=check_mode, confirm="state failed 1\napply_out set %s\nstate firing\n" % KEY,
                      verify=verify)
    result = action.run(task_vars={})
    assert KEY not in repr(result)
    assert "apply" not in result and "restore" not in result
    for cmd in action.ran_commands:
        assert KEY not in cmd, "the command line (printed at -vvv) holds the key"
    if not check_mode:
        assert "(set <redacted>)" in result["msg"] and "rc=1: bad <redacted>" in result["msg"]


def test_apply_and_restore_are_no_log():
    assert ActionModule.ARGUMENT_SPEC["apply"]["no_log"] and ActionModule.ARGUMENT_SPEC["restore"]["no_log"]


@pytest.mark.parametrize("rollback_s", [10, 90, 3600])
def test_role_gives_the_guarded_task_a_timeout_longer_than_its_wait(rollback_s):
    """roles/openwrt_mwan3_wg/tasks/routes.yml (the ifup): the play's task timeout (default 300 s) must not kill
    the guarded apply before it could wait rollback + reconnect and verify."""
    tasks = yaml.safe_load((Path(__file__).parents[4] / "roles/openwrt_mwan3_wg/tasks/routes.yml").read_text())
    task = next(t for t in tasks if "apply" in t.get("tunnelfix.fleet.guarded_apply", {}))
    env = jinja2.Environment()
    variables = {"openwrt_mwan3_wg_rollback_timeout_s": rollback_s}
    reconnect_s = int(env.from_string(task["tunnelfix.fleet.guarded_apply"]["reconnect_timeout_s"]).render(variables))
    assert "timeout" in task, "the task inherits tunnelfix_task_timeout_s"
    timeout_s = int(env.from_string(task["timeout"]).render(variables))
    assert timeout_s >= rollback_s + reconnect_s + 60


# ---- issue 30.4: under --diff the change shows what it changes (the caller's before/after), in check and real mode
DIFF = dict(ARGS, diff_before="eth0 rx-udp-gro-forwarding: off\neth0 rx-gro-list: on\n",
            diff_after="eth0 rx-udp-gro-forwarding: on\neth0 rx-gro-list: off\n")


@pytest.mark.parametrize("check_mode", [True, False])
def test_diff_mode_shows_what_the_apply_changes(check_mode):
    result = Scripted(DIFF, check_mode=check_mode, diff=True).run(task_vars={})
    assert result["changed"] and not result.get("failed")
    assert result["diff"] == {"before": DIFF["diff_before"], "after": DIFF["diff_after"],
                              "before_header": "wg0 (before)", "after_header": "wg0 (after)"}


def test_no_diff_without_diff_mode_or_for_a_rolled_back_change():
    assert "diff" not in Scripted(DIFF).run(task_vars={})
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nrestore_out \nbefore 0 %s\nsha256 0 %s\n" % (SHA, SHA)
    result = Scripted(DIFF, reachable=[False] * 100, verify=verify, diff=True).run(task_vars={})
    assert result["failed"] and result["rolled_back"] and "diff" not in result


def test_diff_text_is_redacted_and_needs_both_sides():
    result = Scripted(dict(ARGS, diff_before="psk " + KEY, diff_after="psk x"), check_mode=True, diff=True).run(task_vars={})
    assert KEY not in repr(result) and result["diff"]["before"] == "psk <redacted>"
    result = Scripted(dict(ARGS, diff_before="a"), check_mode=True, diff=True).run(task_vars={})
    assert result["failed"] and "diff_before" in result["msg"] and "diff_after" in result["msg"]


# ---- issue 30.5: the snapshot is this run's own --------------------------------------------------------------

def run_ids(texts):
    return {found for text in texts for found in re.findall(r"RUN=([0-9a-f]+)", text)}


def test_the_rollback_is_verified_against_this_runs_snapshot():
    """The lab's finding: the guard directory on the host held another run's snapshot (the file with the first run's
    change committed); the revert put that back and the host said 'identical'. The controller's own hashes decide."""
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nrestore_out \nbefore 0 %s\nsha256 0 %s\n" % (OTHER, OTHER)
    result = Scripted(ARGS, reachable=[False] * 100, verify=verify).run(task_vars={})
    assert result["failed"] and result["rolled_back"] and not result["files_identical"]
    assert result["sha256_before"] == {"/etc/config/network": SHA}
    assert "sha256 DIFFERENT" in result["msg"] and "the snapshot on the host is not the one this run took" in result["msg"]


def test_every_script_of_one_task_names_the_same_new_run():
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nbefore 0 %s\nsha256 0 %s\n" % (SHA, SHA)
    action = Scripted(ARGS, reachable=[False] * 100, verify=verify)
    result = action.run(task_vars={})
    texts = action.ran_commands + [data.decode() for _cmd, data in action.sent]
    assert run_ids(texts) == {result["run_id"]} and re.match(r"^[0-9a-f]{16}$", result["run_id"])
    assert Scripted(ARGS).run(task_vars={})["run_id"] != result["run_id"], "a new id for every run"


def test_snapshot_state_records_its_run_and_hashes_in_a_fact():
    action = Scripted(dict(ARGS, state="snapshot"))
    kept = {"other": {"run_id": OTHER_RUN, "sha256": {}}}
    result = action.run(task_vars={"ansible_facts": {FACT: kept}})
    assert not result.get("failed") and action.ran == ["snapshot"]
    mine = result["ansible_facts"][FACT]
    assert mine["other"] == kept["other"] and mine["wg0"] == {"run_id": result["run_id"], "sha256": {"/etc/config/network": SHA}}
    assert result["snapshot_dir"] == "/var/run/tunnelfix-rollback/wg0." + result["run_id"]


def test_use_snapshot_arms_and_verifies_this_runs_snapshot():
    task_vars = {"ansible_facts": {FACT: {"wg0": {"run_id": RUN, "sha256": {"/etc/config/network": SHA}}}}}
    verify = "state rolled-back\nrestore_rc 0\nfiles_rc 0\nbefore 0 %s\nsha256 0 %s\n" % (OTHER, OTHER)
    action = Scripted(dict(ARGS, use_snapshot=True), reachable=[False] * 100, verify=verify)
    result = action.run(task_vars=task_vars)
    assert "snapshot" not in action.ran and result["run_id"] == RUN
    assert run_ids(action.ran_commands + [data.decode() for _cmd, data in action.sent]) == {RUN}
    assert not result["files_identical"] and result["sha256_before"] == {"/etc/config/network": SHA}


def test_use_snapshot_without_a_snapshot_of_this_run_applies_nothing():
    action = Scripted(dict(ARGS, use_snapshot=True))
    result = action.run(task_vars={"ansible_facts": {FACT: {"other": {"run_id": OTHER_RUN}}}})
    assert result["failed"] and action.ran == []
    assert result["msg"].startswith("name=wg0: nothing applied, no snapshot of this name was taken by this run")


def test_use_snapshot_in_check_mode_needs_no_snapshot():
    """A check-mode state=snapshot task took none: the guarded task after it still says what it would do."""
    action = Scripted(dict(ARGS, use_snapshot=True), check_mode=True)
    result = action.run(task_vars={})
    assert not result.get("failed") and result["msg"].startswith("would apply the change") and action.ran == []


def test_use_snapshot_with_a_guard_taken_over_applies_nothing():
    task_vars = {"ansible_facts": {FACT: {"wg0": {"run_id": RUN, "sha256": {"/etc/config/network": SHA}}}}}
    action = Answering(dict(ARGS, use_snapshot=True), arm="lost %s\n" % OTHER_RUN)
    result = action.run(task_vars=task_vars)
    assert result["failed"] and "confirm" not in action.ran
    assert result["msg"] == (
        "name=wg0: nothing applied, the guard /var/run/tunnelfix-rollback/wg0.lock is no longer this run's (held by run "
        "%s now): another run took it over as stale; this run's snapshot is left in /var/run/tunnelfix-rollback/wg0.%s"
        % (OTHER_RUN, RUN))


def test_a_stale_guard_taken_over_is_a_warning():
    snapshot = "stale %s 3700 old\nsha256 0 %s\nsnapshot ok\n" % (OTHER_RUN, SHA)
    result = Answering(dict(ARGS, state="snapshot"), snapshot=snapshot).run(task_vars={})
    assert not result.get("failed")
    assert result["warnings"] == [
        "name=wg0: took over the stale guard of run %s (taken 3700 s ago; its snapshot was never armed within 3600 s); "
        "anything of it is left in /var/run/tunnelfix-rollback/wg0.%s" % (OTHER_RUN, OTHER_RUN)]


@pytest.mark.parametrize("facts, ran, state", [
    ({FACT: {"wg0": {"run_id": RUN}}}, ["other"], None),
    ({}, [], "missing"),
])
def test_discarded_touches_only_this_runs_snapshot(facts, ran, state):
    action = Scripted({"name": "wg0", "state": "discarded"})
    result = action.run(task_vars={"ansible_facts": facts})
    assert not result.get("failed") and action.ran == ran and result["state"] == state
    assert run_ids(action.ran_commands) == ({RUN} if ran else set())
