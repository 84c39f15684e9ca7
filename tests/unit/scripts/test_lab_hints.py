"""lab/common.sh: a failing lab step says what to do, and a missing host program names its package.

Runs the real functions in bash with a PATH that has only the few programs they use (no ping).
"""

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
HOST_COMMANDS = ("bash", "dirname", "awk", "tail", "sed")


@pytest.fixture
def lab_shell(tmp_path):
    for tool in HOST_COMMANDS:
        (tmp_path / tool).symlink_to(shutil.which(tool))

    def run(script):
        return subprocess.run([str(tmp_path / "bash"), "-c", 'source "$1"; fail=0\n' + script, "t",
                               str(REPO / "lab" / "common.sh")], capture_output=True, text=True,
                              env={"PATH": str(tmp_path)}, check=False, timeout=30)
    return run


def test_need_commands_names_the_package(lab_shell):
    res = lab_shell("need_commands dirname ping")
    assert res.returncode == 1
    assert res.stderr == ("[lab] ERROR: ping is not installed: it comes from Debian package iputils-ping; run make "
                          "deps (scripts/bootstrap.sh installs requirements-apt.txt) or apt-get install iputils-ping\n")


def test_need_commands_unlisted_program(lab_shell):
    res = lab_shell("need_commands no-such-tool")
    assert res.returncode == 1
    assert "no-such-tool is not installed and not in scripts/host-commands.txt" in res.stderr


def test_check_missing_program_behind_nsx_names_the_package(lab_shell):
    res = lab_shell('nsx() { shift; "$@"; }\ncheck "peer -> nat (lan)" "the veth is missing" nsx peer ping -c 1 x\n'
                    'echo "fail=$fail"')
    assert res.stdout == "fail=1\n"
    lines = res.stderr.splitlines()
    assert lines[0] == "[lab] FAIL peer -> nat (lan): exit 127 from: nsx peer ping -c 1 x"
    assert lines[-1] == ("[lab]      what to do: ping is not installed: it comes from Debian package iputils-ping; "
                         "run make deps (scripts/bootstrap.sh installs requirements-apt.txt) or apt-get install "
                         "iputils-ping")


def test_check_failure_gives_the_hint_and_the_output(lab_shell):
    res = lab_shell('check "relay active" "see journalctl -u relay" bash -c "echo inactive; exit 3"\necho "fail=$fail"')
    assert res.stdout == "fail=1\n"
    assert res.stderr.splitlines() == [
        '[lab] FAIL relay active: exit 3 from: bash -c echo inactive; exit 3',
        "[lab]        inactive",
        "[lab]      what to do: see journalctl -u relay"]


def test_check_success(lab_shell):
    res = lab_shell('check "fine" "never shown" true\necho "fail=$fail"')
    assert (res.stdout, res.stderr) == ("fail=0\n", "[lab] ok   fine\n")
