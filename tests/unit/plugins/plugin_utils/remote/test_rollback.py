# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of plugin_utils/remote/rollback.py: the checks, the parser, and the scripts run for real under
dash, bash and BusyBox sh in a temporary directory (never the host's systemd: its directory is
given as a path that does not exist, so the detached-sleep timer is used)."""

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote import rollback as rb
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# Every shell must be there (make deps installs busybox): a missing one fails, never skips.
SHELLS = HOST_COMMANDS = ("dash", "bash", "busybox")
RUN = "0123456789abcdef"      # this run's id
OTHER_RUN = "fedcba9876543210"  # another run's


@pytest.mark.parametrize("name, error", [
    ("", "name must be"), ("a/b", "name must be"), ("..", "name must be"), ("x" * 65, "name must be"),
    ("wg0 x", "'wg0 x'"),
])
def test_check_name_refuses(name, error):
    with pytest.raises(ParseError, match=error):
        rb.check_name(name)


@pytest.mark.parametrize("files, error", [
    ([], "at least one"), (["etc/config/network"], "'etc/config/network'"), (["/etc/"], "absolute file paths"),
    (["/a\nb"], "absolute file paths"), (["/a", "/a"], "twice"), (["/a", "//a"], "twice"),
    (["/etc/x", "/etc/./x"], "twice"), (["/etc/a/../x", "/etc/x"], "twice"),
    (["/a\0b"], "files must be absolute file paths, got '/a.x00b'"),
    (["/a\rb"], "files must be absolute file paths, got '/a.rb'"),
])
def test_check_files_refuses(files, error):
    with pytest.raises(ParseError, match=error):
        rb.check_files(files)


@pytest.mark.parametrize("rollback, reconnect, connect, error", [
    (5, 3, 1, "rollback_timeout_s must be 10-3600, got 5"),
    (60, 30, 0, "connect_timeout_s must be 1-60, got 0"),
    (60, 58, 5, "reconnect_timeout_s must be .* less than .* \\(55\\), got 58"),
    (60, 2, 5, "reconnect_timeout_s must be at least connect_timeout_s \\(5\\).*got 2"),
])
def test_check_timeouts_refuses(rollback, reconnect, connect, error):
    with pytest.raises(ParseError, match=error):
        rb.check_timeouts(rollback, reconnect, connect)


def test_check_timeouts_accepts_the_defaults():
    rb.check_timeouts(90, 60, 5)


@pytest.mark.parametrize("text, expected", [
    ("state confirmed\n", {"state": "confirmed"}),
    ("state failed 3\napply_out boom\nstate rolled-back\n", {"state": "failed", "apply_rc": 3}),
    ("banner line\nstate rolled-back\nrestore_rc 0\nfiles_rc 0\nbefore 0 %s\nsha256 0 absent\n" % ("a" * 64),
     {"state": "rolled-back", "restore_rc": 0, "files_rc": 0, "before": {"/f": "a" * 64},
      "sha256": {"/f": "absent"}}),
])
def test_parse_status(text, expected):
    got = rb.parse_status(text, ["/f"])
    for key, value in expected.items():
        assert got[key] == value


@pytest.mark.parametrize("text", ["sha256 1 %s\n" % ("a" * 64), "sha256 0 nothex\n", "before x %s\n" % ("a" * 64)])
def test_parse_status_refuses_bad_sha_lines(text):
    with pytest.raises(ParseError, match="unexpected line"):
        rb.parse_status(text, ["/f"])


def test_scripts_quote_hostile_names():
    script = rb.snapshot_script("wg0", ["/etc/it's here; rm -rf x"], RUN)
    assert "'/etc/it'\"'\"'s here; rm -rf x'" in script


class Target:
    """A directory standing in for the target: scripts run with ``SHELL -c`` under the shell given."""

    def __init__(self, tmp_path, shell):
        self.base = str(tmp_path / "guards")
        self.conf = tmp_path / "wg0.conf"
        self.absent = tmp_path / "new.conf"
        self.files = [str(self.conf), str(self.absent)]
        self.argv = ["busybox", "sh"] if shell == "busybox" else [shell]
        self.conf.write_text("[Interface]\nListenPort = 51820\n", encoding="utf-8")
        self.before = hashlib.sha256(self.conf.read_bytes()).hexdigest()

    def run(self, script):
        done = subprocess.run(self.argv + ["-c", script], capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0, done.stderr
        return rb.parse_status(done.stdout, self.files), done.stdout

    def arm(self, apply, timeout_s):
        return self.run(rb.arm_and_apply_script("t", self.files, apply, "echo restored > %s/restore.mark" % self.base,
                                                timeout_s, "0123abcd", RUN, base=self.base,
                                                systemd_dir=self.base + "/no-systemd"))

    def wait_for(self, name, seconds=10.0):
        end = time.monotonic() + seconds
        path = "%s/t.%s/%s" % (self.base, RUN, name)
        while time.monotonic() < end:
            if subprocess.run(["test", "-e", path], check=False).returncode == 0:
                return True
            time.sleep(0.05)
        return False


@pytest.fixture(params=SHELLS)
def target(request, tmp_path):
    return Target(tmp_path, request.param)


def test_snapshot_hashes_and_refuses_while_armed(target):
    status, _out = target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    assert status["sha256"] == {target.files[0]: target.before, target.files[1]: "absent"}
    assert "snapshot" in status["words"]
    assert os.stat(target.base + "/t." + RUN).st_mode & 0o777 == 0o700
    target.arm("true", 30)
    status, out = target.run(rb.snapshot_script("t", target.files, OTHER_RUN, base=target.base))
    holder, _age, state, due = status["words"]["busy"].split()
    assert (holder, state) == (RUN, "armed") and 25 <= int(due) <= 30, out
    _status, out = target.run(rb.discard_script("t", RUN, base=target.base))
    assert "state busy" in out
    target.run(rb.confirm_script("t", RUN, base=target.base) if target.wait_for("apply.rc") else "exit 1")


def test_arm_without_snapshot_applies_nothing(target):
    _status, out = target.arm("echo broken > %s" % target.files[0], 1)
    assert "missing snapshot" in out
    time.sleep(0.3)
    assert "broken" not in target.conf.read_text(encoding="utf-8")


def test_unconfirmed_change_is_rolled_back_byte_identical(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    status, _out = target.arm("echo broken > %s && echo new > %s" % tuple(target.files), 1)
    assert status["words"]["timer"] == "sleep"
    assert target.wait_for("rolled-back"), "the timer did not fire"
    status, _out = target.run(rb.verify_script("t", RUN, base=target.base))
    assert status["state"] == "rolled-back"
    assert status["restore_rc"] == 0 and status["files_rc"] == 0
    assert status["sha256"] == status["before"] == {target.files[0]: target.before, target.files[1]: "absent"}
    assert not target.absent.exists()
    assert hashlib.sha256(target.conf.read_bytes()).hexdigest() == target.before
    assert not os.path.exists(target.base + "/t." + RUN), "verify leaves nothing behind"


def test_confirmed_change_is_kept_and_the_timer_disarmed(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    target.arm("echo kept > %s" % target.files[0], 2)
    assert target.wait_for("apply.rc")
    status, _out = target.run(rb.confirm_script("t", RUN, base=target.base))
    assert status["state"] == "confirmed"
    time.sleep(2.5)   # past the deadline: the killed (or orphaned) timer must not restore anything
    assert target.conf.read_text(encoding="utf-8") == "kept\n"
    assert not os.path.exists(target.base + "/t." + RUN)
    assert not os.path.exists(target.base + "/restore.mark")


def test_failed_apply_is_rolled_back_at_the_confirm(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    target.arm("echo broken > %s; echo oops >&2; exit 3" % target.files[0], 30)
    assert target.wait_for("apply.rc")
    status, _out = target.run(rb.confirm_script("t", RUN, base=target.base))
    assert status["state"] == "failed" and status["apply_rc"] == 3
    assert "oops" in status["words"]["apply_out"]
    assert status["words"]["then"] == "firing", "the revert runs detached, not in the confirm's session"
    assert target.wait_for("rolled-back")
    assert hashlib.sha256(target.conf.read_bytes()).hexdigest() == target.before
    status, _out = target.run(rb.verify_script("t", RUN, base=target.base))
    assert status["state"] == "rolled-back" and status["sha256"][target.files[0]] == target.before


@pytest.mark.parametrize("option, text", [("apply", ""), ("restore", "  \n")])
def test_check_command_refuses_blank(option, text):
    with pytest.raises(ParseError, match="%s must be a shell command, got a blank value" % option):
        rb.check_command(option, text)


@pytest.mark.parametrize("text, expected", [
    ("uci set network.wg0.private_key=yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=; ifup wg0",
     "uci set network.wg0.private_key=<redacted>; ifup wg0"),
    ("wg0: PrivateKey = FAKEFAKEprivateKEYforTESTSonly/0123456789ab= bad", "wg0: PrivateKey = <redacted> bad"),
    ("peer FAKEFAKEpublicKEYforTESTSonly/0123456789abc= up", "peer <redacted> up"),
    ("preshared_key 'short-secret'", "preshared_key '<redacted>'"),
    ("ifup wg0: no such interface", "ifup wg0: no such interface"),
])
def test_redact_hides_wireguard_keys(text, expected):
    assert rb.redact(text) == expected


def test_apply_text_with_dollar_d_is_run_unchanged(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    target.arm('D=kept; printf "%%s\\n" "$D" > %s' % target.files[0], 30)
    assert target.wait_for("apply.rc")
    assert target.conf.read_text(encoding="utf-8") == "kept\n"
    target.run(rb.confirm_script("t", RUN, base=target.base))


def test_arm_refuses_files_other_than_the_snapshots(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    swapped = list(reversed(target.files))
    script = rb.arm_and_apply_script("t", swapped, "echo broken > %s" % target.files[0], "true", 1, "0123abcd",
                                     RUN, base=target.base, systemd_dir=target.base + "/no-systemd")
    status, out = target.run(script)
    assert "mismatch" in status["words"] and status["snapshot_paths"] == target.files, out
    time.sleep(1.5)
    assert "broken" not in target.conf.read_text(encoding="utf-8")
    assert not os.path.exists(target.base + "/t.%s/armed" % RUN)


def test_verify_names_the_paths_it_hashed(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    target.arm("true", 1)
    assert target.wait_for("rolled-back")
    done = subprocess.run(target.argv + ["-c", rb.verify_script("t", RUN, base=target.base)], capture_output=True,
                          text=True, timeout=30, check=False)
    status = rb.parse_status(done.stdout, ["/other/1", "/other/2"])
    assert set(status["sha256"]) == set(target.files)


@pytest.mark.parametrize("kind", ["dir", "symlink_to_dir", "dangling", "fifo"])
def test_snapshot_refuses_what_is_not_a_regular_file(target, tmp_path, kind):
    odd = tmp_path / "odd"
    if kind == "dir":
        odd.mkdir()
    elif kind == "symlink_to_dir":
        odd.symlink_to(tmp_path)
    elif kind == "dangling":
        odd.symlink_to(tmp_path / "nowhere")
    else:
        os.mkfifo(str(odd))
    status, out = target.run(rb.snapshot_script("t", [target.files[0], str(odd)], RUN, base=target.base))
    assert status["words"].get("notfile") == "1", out
    assert "snapshot" not in status["words"]
    assert odd.exists() or odd.is_symlink()


@pytest.mark.parametrize("kind", ["symlink", "mode", "file"])
def test_unsafe_base_is_refused(target, tmp_path, kind):
    base = tmp_path / "base"
    if kind == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        base.symlink_to(tmp_path / "elsewhere")
    elif kind == "mode":
        base.mkdir()
        base.chmod(0o777)
    else:
        base.write_text("x", encoding="utf-8")
    status, _out = target.run(rb.snapshot_script("t", target.files, RUN, base=str(base)))
    assert status["words"].get("unsafe_base") == str(base)
    assert "snapshot" not in status["words"]
    status, _out = target.run(rb.arm_and_apply_script("t", target.files, "true", "true", 30, "0123abcd", RUN, base=str(base),
                                                      systemd_dir=str(base) + "/no-systemd"))
    assert status["words"].get("unsafe_base") == str(base) and "apply" not in status["words"]


def test_base_dir_is_not_in_world_writable_tmp():
    assert not rb.BASE_DIR.startswith("/tmp/")


def test_revert_stops_an_apply_still_running(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    target.arm("sleep 4; echo late > %s" % target.files[0], 1)
    assert target.wait_for("rolled-back", 15)
    time.sleep(4.5)
    assert hashlib.sha256(target.conf.read_bytes()).hexdigest() == target.before, "the apply overwrote the revert"


def test_the_arm_script_runs_from_standard_input(target):
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    script = rb.arm_and_apply_script("t", target.files, "echo kept > %s" % target.files[0], "true", 30, "0123abcd",
                                     RUN, base=target.base, systemd_dir=target.base + "/no-systemd")
    done = subprocess.run(target.argv + ["-c", rb.READ_AND_RUN], input=script, capture_output=True, text=True,
                          timeout=30, check=False)
    assert done.returncode == 0 and "apply started" in done.stdout, done.stderr
    assert target.wait_for("apply.rc")
    status, _out = target.run(rb.confirm_script("t", RUN, base=target.base))
    assert status["state"] == "confirmed" and target.conf.read_text(encoding="utf-8") == "kept\n"


def test_revert_at_the_confirm_survives_a_hang_up(target, tmp_path):
    """The apply failed: the confirm starts the revert detached, so a restore that cuts the session
    (here ``kill -HUP 0`` for sshd hanging up) neither kills it half-way nor leaves the guard 'firing'."""
    target.run(rb.snapshot_script("t", target.files, RUN, base=target.base))
    mark = tmp_path / "restore.mark"
    target.run(rb.arm_and_apply_script("t", target.files, "echo broken > %s; exit 3" % target.files[0],
                                       "kill -HUP 0; sleep 1; echo done > %s" % mark, 30, "0123abcd",
                                       RUN, base=target.base, systemd_dir=target.base + "/no-systemd"))
    assert target.wait_for("apply.rc")
    done = subprocess.run(["setsid"] + target.argv + ["-c", rb.confirm_script("t", RUN, base=target.base)],
                          capture_output=True, text=True, timeout=30, check=False)
    assert "state firing" in done.stdout
    assert target.wait_for("rolled-back"), "the revert died half-way"
    assert mark.exists()
    assert hashlib.sha256(target.conf.read_bytes()).hexdigest() == target.before


# ---- issue 30.5: every snapshot is its run's own; one run at a time holds the guard -------------------------

def snapshot(target, run_id):
    return target.run(rb.snapshot_script("t", target.files, run_id, base=target.base))


def holder_of(target):
    return (Path(target.base) / "t.lock" / "holder").read_text(encoding="utf-8").split()


def guards(target):
    """What the scripts left in the base directory (not the test's restore.mark)."""
    return sorted(name for name in os.listdir(target.base) if name != "restore.mark")


def age_guard(target, seconds):
    """Make the guard look taken ``seconds`` earlier (its holder's epoch)."""
    run_id, epoch = holder_of(target)
    (Path(target.base) / "t.lock" / "holder").write_text("%s %d\n" % (run_id, int(epoch) - seconds), encoding="utf-8")


def test_a_second_run_neither_replaces_nor_deletes_the_first_runs_snapshot(target):
    """The lab's finding: run A snapshots and commits its change; run B's snapshot must not replace A's (A's revert
    would then put back A's own change and call it identical), nor may B's discard delete it."""
    snapshot(target, RUN)
    target.conf.write_text("committed by run A\n", encoding="utf-8")
    status, out = snapshot(target, OTHER_RUN)
    assert "snapshot" not in status["words"] and status["sha256"] == {}, out
    holder, age, state, due = status["words"]["busy"].split()
    assert (holder, state, due) == (RUN, "snapshot", "-") and 0 <= int(age) <= 5
    assert not os.path.exists("%s/t.%s" % (target.base, OTHER_RUN)), "the refused run leaves nothing"
    status, _out = target.run(rb.discard_script("t", OTHER_RUN, base=target.base))
    assert status["state"] == "missing" and holder_of(target)[0] == RUN
    target.arm("true", 1)
    assert target.wait_for("rolled-back")
    assert hashlib.sha256(target.conf.read_bytes()).hexdigest() == target.before, "A's original is back"
    status, _out = target.run(rb.verify_script("t", RUN, base=target.base))
    assert status["before"] == status["sha256"] == {target.files[0]: target.before, target.files[1]: "absent"}
    assert guards(target) == [], "the revert gave the guard back, the verify removed A's directory"
    status, _out = snapshot(target, OTHER_RUN)
    assert "snapshot" in status["words"], "the next run takes the guard"


def test_a_late_verify_reads_and_removes_only_its_own_run(target):
    """A's revert ran and gave the guard back; run B took it before A's controller came back to verify."""
    snapshot(target, RUN)
    target.arm("echo broken > %s" % target.files[0], 1)
    assert target.wait_for("rolled-back")
    target.conf.write_text("changed by run B\n", encoding="utf-8")
    snapshot(target, OTHER_RUN)
    status, _out = target.run(rb.verify_script("t", RUN, base=target.base))
    assert status["state"] == "rolled-back" and status["before"][target.files[0]] == target.before
    assert guards(target) == sorted(["t.lock", "t." + OTHER_RUN]) and holder_of(target)[0] == OTHER_RUN


@pytest.mark.parametrize("stale", [False, True])
def test_only_one_of_runs_started_together_takes_the_guard(target, stale):
    """Also when they all find a stale guard (its holder's revert has run) and take it over at once."""
    if stale:
        snapshot(target, OTHER_RUN)
        (Path(target.base) / ("t." + OTHER_RUN) / "rolled-back").touch()
    runs = ["%016x" % (index + 1) for index in range(8)]
    procs = [subprocess.Popen(target.argv + ["-c", rb.snapshot_script("t", target.files, run_id, base=target.base)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for run_id in runs]
    outs = [proc.communicate(timeout=30)[0] for proc in procs]
    winners = [run_id for run_id, out in zip(runs, outs) if "snapshot ok" in out]
    assert len(winners) == 1, outs
    assert sum("busy " in out for out in outs) == 7, outs
    left = ["t.lock", "t." + winners[0]] + (["t." + OTHER_RUN] if stale else [])
    assert guards(target) == sorted(left) and holder_of(target)[0] == winners[0]


@pytest.mark.parametrize("how", ["gone", "rolled-back", "old"])
def test_a_stale_guard_is_taken_over_and_its_runs_directory_kept(target, how):
    snapshot(target, OTHER_RUN)
    other = Path(target.base) / ("t." + OTHER_RUN)
    if how == "gone":
        shutil.rmtree(other)
    elif how == "rolled-back":
        (other / "rolled-back").touch()
    else:
        age_guard(target, rb.STALE_S + 5)
    status, out = snapshot(target, RUN)
    assert "snapshot" in status["words"], out
    holder, age, why = status["words"]["stale"].split()
    assert (holder, why) == (OTHER_RUN, how) and int(age) >= (rb.STALE_S + 5 if how == "old" else 0)
    assert holder_of(target)[0] == RUN
    assert how == "gone" or (other / "sha256").exists(), "the stale run's snapshot is kept"


def test_a_young_unarmed_guard_is_not_stale(target):
    snapshot(target, OTHER_RUN)
    age_guard(target, rb.STALE_S - 60)
    status, out = snapshot(target, RUN)
    holder, age, state, _due = status["words"]["busy"].split()
    assert (holder, state) == (OTHER_RUN, "snapshot") and rb.STALE_S - 60 <= int(age) < rb.STALE_S, out


def test_an_overdue_armed_guard_is_refused_never_taken_over(target):
    """Its revert should have run and did not (its timer is gone): only a person can tell what the files are now."""
    snapshot(target, OTHER_RUN)
    (Path(target.base) / ("t." + OTHER_RUN) / "armed").write_text("1000 1030\n", encoding="utf-8")
    age_guard(target, rb.STALE_S * 2)
    status, out = snapshot(target, RUN)
    holder, _age, state, due = status["words"]["busy"].split()
    assert (holder, state) == (OTHER_RUN, "armed") and int(due) < 0, out
    assert holder_of(target)[0] == OTHER_RUN
    assert "has not run (its timer is gone)" in rb.describe_busy("t", status["words"], base=target.base)


def test_a_run_whose_guard_was_taken_over_applies_nothing(target):
    snapshot(target, RUN)
    (Path(target.base) / "t.lock" / "holder").write_text("%s 1\n" % OTHER_RUN, encoding="utf-8")
    status, out = target.arm("echo broken > %s" % target.files[0], 1)
    assert status["words"].get("lost") == OTHER_RUN and "apply" not in status["words"], out
    time.sleep(1.5)
    assert "broken" not in target.conf.read_text(encoding="utf-8")
    assert not os.path.exists("%s/t.%s/armed" % (target.base, RUN))


def test_a_confirm_gives_the_guard_back(target):
    snapshot(target, RUN)
    target.arm("true", 30)
    assert target.wait_for("apply.rc")
    status, _out = target.run(rb.confirm_script("t", RUN, base=target.base))
    assert status["state"] == "confirmed" and guards(target) == []


@pytest.mark.parametrize("words, expected", [
    ({"busy": RUN + " 42 snapshot -"},
     "the guard is held by run %s (taken 42 s ago): it took its snapshot and has not armed its revert yet; if that run "
     "is gone, the guard is taken over after 3600 s" % RUN),
    ({"busy": RUN + " 42 armed 18"},
     "the guard is held by run %s (taken 42 s ago): its revert is armed and fires in 18 s unless that run confirms "
     "its change" % RUN),
    ({"busy": RUN + " 4000 armed -30"},
     "the guard is held by run {0} (taken 4000 s ago): its revert was due 30 s ago and has not run (its timer is "
     "gone): check the files on the host against /var/run/tunnelfix-rollback/wg0.{0}, then remove "
     "/var/run/tunnelfix-rollback/wg0.{0} and /var/run/tunnelfix-rollback/wg0.lock".format(RUN)),
    ({"busy": "- - unknown -"}, "the guard /var/run/tunnelfix-rollback/wg0.lock has no holder"),
])
def test_describe_busy_names_the_holder_its_age_and_what_to_do(words, expected):
    assert rb.describe_busy("wg0", words).startswith(expected)


def test_describe_stale_says_whose_guard_and_where_its_snapshot_is():
    assert rb.describe_stale("wg0", {"stale": RUN + " 3700 old"}) == (
        "name=wg0: took over the stale guard of run %s (taken 3700 s ago; its snapshot was never armed within 3600 s); "
        "anything of it is left in /var/run/tunnelfix-rollback/wg0.%s" % (RUN, RUN))


@pytest.mark.parametrize("run_id", ["", "0123", "ABCDEF0123", "../x0123456", "0" * 33])
def test_check_run_id_refuses(run_id):
    with pytest.raises(ParseError, match="run_id must be 8-32 lowercase hex digits"):
        rb.check_run_id(run_id)
