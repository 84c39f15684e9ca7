# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plain_file action against a fake target: read, compare, write on stdin, check mode, failures."""

from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.plain_file import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.text_file import EOF_MARK

RC_LOCAL = "# Put your custom commands here\nexit 0\n"
BLOCK_ARGS = {"path": "/etc/rc.local", "block": "/usr/sbin/tunnelfix-bridge-offload br-lan",
              "marker": "tf", "insert_before": "^exit 0"}
WITH_BLOCK = "# Put your custom commands here\n# BEGIN tf\n/usr/sbin/tunnelfix-bridge-offload br-lan\n# END tf\nexit 0\n"


class FakeFileAction(ActionModule):
    def __init__(self, args, probe, write=(0, "", ""), check_mode=False, diff=False, keeps_writes=True):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff,
                               action="tunnelfix.fleet.plain_file")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.plain_file"
        self.probe, self.write = probe, write
        self.keeps_writes = keeps_writes
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append((cmd, in_data))
        if "mv -f" not in cmd:
            rc, stdout, stderr = self.probe
            return {"rc": rc, "stdout": stdout, "stderr": stderr}
        rc, stdout, stderr = self.write
        if rc == 0 and self.keeps_writes:  # the target now holds what was written (read back)
            mode = cmd.rsplit(" ", 1)[1].lstrip("0")
            self.probe = present((in_data or b"").decode(), mode)
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


def present(content, mode="644"):
    return (0, "present\n%s\n%s%s" % (mode, content, EOF_MARK), "")


def test_block_is_inserted_before_exit_0_and_written_on_stdin():
    action = FakeFileAction(BLOCK_ARGS, present(RC_LOCAL), diff=True)
    result = action.run(task_vars={})
    assert result["changed"] is True and result["mode"] == "0644" and result["created"] is False
    assert len(action.ran) == 3  # read, write, read back
    assert action.ran[1][1] == WITH_BLOCK.encode()
    assert action.ran[1][0].endswith("sh /etc/rc.local 0644")
    assert result["diff"]["before"] == RC_LOCAL and result["diff"]["after"] == WITH_BLOCK


def test_second_run_is_unchanged_and_writes_nothing():
    action = FakeFileAction(BLOCK_ARGS, present(WITH_BLOCK))
    result = action.run(task_vars={})
    assert result["changed"] is False and len(action.ran) == 1


def test_check_mode_writes_nothing():
    action = FakeFileAction(BLOCK_ARGS, present(RC_LOCAL), check_mode=True)
    result = action.run(task_vars={})
    assert result["changed"] is True and len(action.ran) == 1


@pytest.mark.parametrize("args, probe, changed, mode", [
    ({"path": "/etc/hotplug.d/iface/99-x", "content": "a\n"}, (0, "absent\n", ""), True, "0644"),
    ({"path": "/usr/sbin/x", "content": "a\n", "mode": "755"}, present("a\n", "644"), True, "0755"),
    ({"path": "/usr/sbin/x", "content": "a\n", "mode": "0755"}, present("a\n", "755"), False, "0755"),
    ({"path": "/usr/sbin/x", "content": "a\n"}, present("a\n", "700"), False, "0700"),
])
def test_content_and_mode(args, probe, changed, mode):
    result = FakeFileAction(args, probe).run(task_vars={})
    assert (result["changed"], result["mode"]) == (changed, mode)


@pytest.mark.parametrize("args, probe, message", [
    ({"path": "/etc/rc.local"}, present(""), "state is present but any of the following are missing: content, block"),
    ({"path": "/etc/rc.local", "content": "", "block": "x"}, present(""), "mutually exclusive: content|block"),
    ({"path": "etc/rc.local", "content": "x"}, present(""), "path: must be an absolute file path, got 'etc/rc.local'"),
    ({"path": "/x", "content": "x", "mode": "rwx"}, present(""), "mode: mode must be an octal string such as '0755', got 'rwx'"),
    ({"path": "/etc", "content": "x"}, (3, "not a regular file\n", ""), "path: '/etc' exists and is not a regular file"),
    (BLOCK_ARGS, present("# BEGIN tf\n"), "/etc/rc.local: the file has 1 '# BEGIN tf' and 0 '# END tf' lines"),
    (BLOCK_ARGS, (0, "present\n644\ncut", ""), "does not end with"),
])
def test_failures(args, probe, message):
    action = FakeFileAction(args, probe)
    result = action.run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert all("mv -f" not in cmd for cmd, _stdin in action.ran)


def test_write_failure_reports_cmd_rc_stderr():
    action = FakeFileAction(BLOCK_ARGS, present(RC_LOCAL), write=(1, "", "mv: can't rename: Read-only file system\n"))
    result = action.run(task_vars={})
    assert result["failed"] is True and result["rc"] == 1
    assert result["cmd"] == "write /etc/rc.local (mode 0644)"
    assert "Read-only file system" in result["msg"]


def test_empty_content_is_written_without_stdin():
    action = FakeFileAction({"path": "/etc/x", "content": ""}, present("old\n"))
    result = action.run(task_vars={})
    assert result["changed"] is True
    assert ": > " in action.ran[1][0] and action.ran[1][1] is None


def test_write_that_did_not_arrive_fails():
    # podman exec without -i drops stdin: the file stays as it was, so the task must not pass.
    action = FakeFileAction(BLOCK_ARGS, present(RC_LOCAL), keeps_writes=False)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert "does not hold the new content" in result["msg"]


class FakeRemoveAction(FakeFileAction):
    """Removes the file when the remove script (read, then rm -f) runs."""

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append((cmd, in_data))
        rc, stdout, stderr = self.probe
        if "rm -f" in cmd and rc == 0:
            self.probe = (0, "absent\n", "")
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


@pytest.mark.parametrize("probe, check_mode, changed, removed_now", [
    (present("tcp_bbr\n"), False, True, True),
    (present("tcp_bbr\n"), True, True, False),
    ((0, "absent\n", ""), False, False, False),
    ((0, "absent\n", ""), True, False, False),
])
def test_absent_removes_in_one_round_trip(probe, check_mode, changed, removed_now):
    action = FakeRemoveAction({"path": "/etc/modules.d/60-x", "state": "absent"}, probe, check_mode=check_mode, diff=True)
    result = action.run(task_vars={})
    assert (result["changed"], result["removed"]) == (changed, changed)
    assert len(action.ran) == 1
    assert ("rm -f" in action.ran[0][0]) == (not check_mode)
    assert (action.probe == (0, "absent\n", "")) == (removed_now or probe[1] == "absent\n")
    if changed:
        assert result["diff"]["before"] == "tcp_bbr\n" and result["diff"]["after"] == ""
    else:
        assert "diff" not in result


@pytest.mark.parametrize("args, probe, message", [
    ({"path": "/x", "state": "absent", "content": "a"}, present(""), "content, block and mode must not be set"),
    ({"path": "/etc", "state": "absent"}, (3, "not a regular file\n", ""), "path: '/etc' exists and is not a regular file"),
    ({"path": "/x", "state": "gone"}, present(""), "state"),
    ({"path": "/x", "state": "absent"}, (1, "present\n644\n", "rm: can't remove '/x': Read-only file system"),
     "remove /x failed with rc=1"),
])
def test_absent_failures(args, probe, message):
    result = FakeRemoveAction(args, probe).run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
