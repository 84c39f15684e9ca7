# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The guarded_apply action's decisions against a scripted target (no shell runs here; the scripts
themselves run under dash, bash and BusyBox in tests/unit/plugins/module_utils/test_rollback.py,
and the whole flow in the lab: tests/rollback/run.sh)."""

import re
from types import SimpleNamespace

import pytest
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.tunnelfix.fleet.plugins.action import guarded_apply
from ansible_collections.tunnelfix.fleet.plugins.action.guarded_apply import ActionModule

SHA = "a" * 64
OTHER = "b" * 64
ARGS = {"name": "wg0", "files": ["/etc/config/network"], "apply": "ifup wg0", "rollback_timeout_s": 30,
        "reconnect_timeout_s": 12, "connect_timeout_s": 2}


class Scripted(ActionModule):
    """Answers each script by what it is; ``reachable`` says per confirm attempt whether the host answers."""

    def __init__(self, args, check_mode=False, reachable=(True,), confirm="state confirmed\n", verify=None):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=False,
                               action="tunnelfix.fleet.guarded_apply")
        super().__init__(task, SimpleNamespace(_shell=SimpleNamespace(tmpdir=None)), None, None, None)
        self._load_name = "tunnelfix.fleet.guarded_apply"
        self.reachable, self.confirm, self.verify = list(reachable), confirm, verify
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
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
    assert result["changed"] and "would apply 'ifup wg0'" in result["msg"] and action.ran == []


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


def test_busy_guard_applies_nothing():
    class Busy(Scripted):
        def _low_level_execute_command(self, cmd, **kwargs):
            return {"rc": 0, "stdout": "busy armed\n", "stderr": ""}
    result = Busy(ARGS).run(task_vars={})
    assert result["failed"] and "name=wg0: a rollback of that name is armed" in result["msg"]


def test_launch_that_never_arrived_applied_nothing():
    class Lost(Scripted):
        def _low_level_execute_command(self, cmd, **kwargs):
            if "apply started" in cmd:
                raise AnsibleConnectionFailure("ssh: Connection reset by peer")
            return super()._low_level_execute_command(cmd, **kwargs)
    result = Lost(ARGS, confirm="state unarmed\n").run(task_vars={})
    assert result["failed"] and "nothing applied" in result["msg"] and "did not reach the host" in result["msg"]
