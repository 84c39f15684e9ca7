# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hub's start and stop scripts run for real, in dash, bash and BusyBox sh, on loopback (issue 30.8).

The stop once killed any process whose command line held "iperf3": after a pid reuse, an admin's own
``iperf3 -s``. Now it kills the process the start recorded (its pid and its start time) and nothing else.
A decoy is a process of this test whose command line reads ``... iperf3 -s``; a pid reuse is played by
giving the stop the decoy's pid with another start time (the server that held the pid before).
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_server import (
    START_SCRIPT, STOP_SCRIPT, parse_server_start, parse_server_stop)

# The host programs the scripts run here (scripts/check_host_packages.py): the shells, what START_SCRIPT and
# STOP_SCRIPT call, and the copy of sleep below.
HOST_COMMANDS = ("dash", "bash", "busybox", "iperf3", "ss", "timeout", "setsid", "awk", "sed", "tr", "mktemp", "head", "rm",
                 "cat", "sleep")
SHELLS = ("dash", "bash", "busybox")
# BusyBox sh gets BusyBox's own applets (a hub like OpenWrt's); ss and iperf3 are the host's
APPLETS = ("awk", "sed", "tr", "mktemp", "head", "rm", "cat", "sleep", "timeout", "setsid")


@pytest.fixture(params=SHELLS)
def shell(request, tmp_path):
    """``run(script, *args) -> stdout`` in the shell under test (a failure of the script fails the test)."""
    if request.param == "busybox":
        tools = tmp_path / "bin"
        tools.mkdir()
        for applet in APPLETS:
            (tools / applet).symlink_to(shutil.which("busybox"))
        for program in ("ss", "iperf3"):
            (tools / program).symlink_to(shutil.which(program))
        argv, env = [shutil.which("busybox"), "sh"], {"PATH": str(tools)}
    else:
        argv, env = [request.param], {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def run(script, *args):
        done = subprocess.run(argv + ["-c", script, "sh"] + [str(arg) for arg in args], env=dict(env, LC_ALL="C"),
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done
        return done.stdout
    return run


def start_time(pid):
    """Field 22 of /proc/PID/stat, counted after the last ')' (the name may hold one); None when it has ended."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def wait_started(process):
    """Wait until ``process`` runs its own program (not the fork of this test), and return its start time."""
    for _attempt in range(100):
        with open("/proc/%d/cmdline" % process.pid, "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
            if argv[-2:] == [b"120", b""] or argv[-3:] == [b"iperf3", b"-s", b""]:  # exec'd the program
                return start_time(process.pid)
        time.sleep(0.02)
    raise AssertionError("process %d did not start" % process.pid)


@pytest.fixture
def decoy():
    """An admin's own server, as a command line sees it: ``python3 -c ... iperf3 -s`` (it only sleeps)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "iperf3", "-s"])  # pylint: disable=consider-using-with
    try:
        yield process, wait_started(process)
    finally:
        process.kill()
        process.wait()


def test_a_pid_that_is_another_process_now_is_left_running_and_named(shell, decoy):
    """The pid of our ended server, given since to an admin's ``iperf3 -s``: nothing is killed."""
    process, started = decoy
    report = parse_server_stop(shell(STOP_SCRIPT, process.pid, started - 1))
    time.sleep(0.2)
    assert process.poll() is None, "the decoy was killed"
    assert report["state"] == "not_ours" and report["start_time"] == started
    with open("/proc/%d/comm" % process.pid, encoding="utf-8") as comm:
        assert report["command"] == comm.read().strip() and "-s" not in report["command"]  # its name, never its arguments


def test_a_pid_that_has_ended_is_gone_and_kills_nothing(shell):
    process = subprocess.Popen(["sleep", "0"])  # pylint: disable=consider-using-with
    process.wait()
    assert parse_server_stop(shell(STOP_SCRIPT, process.pid, 1))["state"] == "gone"


def test_ours_is_stopped_whatever_its_name_holds(shell, tmp_path):
    """The process with the recorded pid and start time gets SIGTERM, even when its name holds ') ' and numbers
    that a naive field count of /proc/PID/stat would take for the start time."""
    program = tmp_path / "iperf3) R 1 2"
    shutil.copy(shutil.which("sleep"), program)
    process = subprocess.Popen([str(program), "120"])  # pylint: disable=consider-using-with
    try:
        started = wait_started(process)
        assert parse_server_stop(shell(STOP_SCRIPT, process.pid, started))["state"] == "stopped"
        assert process.wait(timeout=5) == -signal.SIGTERM
    finally:
        process.kill()
        process.wait()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_server_the_start_recorded_is_stopped_and_the_decoy_lives_on(shell, decoy):
    """A real ``iperf3 --server`` on loopback: the start reports its wrapper's pid and start time, the stop ends it."""
    process, _started = decoy
    port = free_port()
    report = parse_server_start(shell(START_SCRIPT, "127.0.0.1", port, 10))
    assert report["state"] == "listening" and report["ours"] is True, report
    pid = report["pid"]
    try:
        assert report["start_time"] == start_time(pid)
        assert parse_server_stop(shell(STOP_SCRIPT, pid, report["start_time"]))["state"] == "stopped"
        assert start_time(pid) is None  # ended (or ended and not reaped yet)
        assert process.poll() is None, "the decoy was killed"
        assert parse_server_stop(shell(STOP_SCRIPT, pid, report["start_time"]))["state"] == "gone"
    finally:
        if start_time(pid) == report["start_time"]:
            os.kill(pid, signal.SIGKILL)
