"""scripts/check_host_packages.py: the install guard of make deps, on this repository and on scratch copies.

The tests that read this machine's dpkg database need what make deps installs (make unit depends on it).
"""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))

import check_host_packages as chp  # noqa: E402

APT = REPO / "requirements-apt.txt"
PIP = REPO / "requirements.txt"
TABLE = REPO / "scripts" / "host-commands.txt"


def without_line(tmp_path, source, line):
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    assert line + "\n" in lines, "%s is not a line of %s" % (line, source.name)
    copy = tmp_path / source.name
    copy.write_text("".join(x for x in lines if x != line + "\n"), encoding="utf-8")
    return copy


def test_this_repository_passes():
    problems, summary = chp.check(REPO, APT, PIP, TABLE)
    assert problems == []
    assert "iputils-ping" in summary["requirements-apt"] and "coreutils" in summary["required"]
    assert summary["commands"] > 50


def test_removing_iputils_ping_fails_naming_ping_and_the_package(tmp_path, capsys):
    scratch = without_line(tmp_path, APT, "iputils-ping")
    assert chp.main(["--requirements-apt", str(scratch)]) == 1
    out = capsys.readouterr().out
    fails = [line for line in out.splitlines() if "FAIL" in line]
    assert len(fails) == 1
    assert fails[0].startswith("host packages: FAIL ping (lab/up.sh:")
    assert "Debian package iputils-ping is not in requirements-apt.txt (priority important" in fails[0]


def test_a_missing_package_is_named_even_where_it_is_not_installed(tmp_path):
    """On a bare machine ping is absent and dpkg knows nothing of it: the table still names the package."""
    scratch = without_line(tmp_path, APT, "iputils-ping")
    problems, _summary = chp.check(
        REPO, scratch, PIP, TABLE, priority=lambda package: None,
        locate=lambda command, *a: None if command == "ping" else "/usr/bin/" + command,
        dpkg_search=lambda paths: "")
    assert any(p.startswith("ping (lab/up.sh:") and "iputils-ping is not in requirements-apt.txt "
               "(priority unknown: not installed" in p for p in problems)


def test_removing_a_venv_tool_fails(tmp_path):
    scratch = without_line(tmp_path, PIP, next(x for x in PIP.read_text().splitlines() if x.startswith("molecule==")))
    problems, _summary = chp.check(REPO, APT, scratch, TABLE)
    runner = REPO / "tests" / "molecule" / "run.sh"   # make molecule and molecule-openwrt run it
    assert problems == ["molecule (tests/molecule/run.sh:%d): its Python distribution molecule is not in requirements.txt: "
                        "add it there (pinned)" % next(i for i, line in enumerate(
                            runner.read_text().splitlines(), 1) if "molecule test -s \"$1\"" in line)]


def scratch_repo(tmp_path, script, table, apt="iputils-ping\n"):
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "x.sh").write_text(script, encoding="utf-8")
    (tmp_path / "lab" / "owrt").mkdir()
    (tmp_path / "lab" / "owrt" / "hook").write_text("#!/bin/sh\nuci commit\n", encoding="utf-8")  # container side
    (tmp_path / "t.txt").write_text(table, encoding="utf-8")
    (tmp_path / "a.txt").write_text(apt, encoding="utf-8")
    (tmp_path / "p.txt").write_text("", encoding="utf-8")
    return chp.check(tmp_path, tmp_path / "a.txt", tmp_path / "p.txt", tmp_path / "t.txt")


def test_a_new_command_and_a_stale_line_fail(tmp_path):
    problems, _summary = scratch_repo(tmp_path, "#!/bin/bash\nping -c 1 x\nnot-a-real-tool --x\n",
                                      "ping iputils-ping\nwg wireguard-tools\n")
    assert problems == [
        "not-a-real-tool (lab/x.sh:3): not in %s" % (tmp_path / "t.txt") + ": add 'not-a-real-tool PACKAGE' "
        "(find its Debian package (apt-file search)) and the package to a.txt",
        "wg: listed in %s but" % (tmp_path / "t.txt") + " no host-side script runs it: remove the line"]


def test_a_wrong_package_in_the_table_fails(tmp_path):
    problems, _summary = scratch_repo(tmp_path, "ping -c 1 x\n", "ping iproute2\n", apt="iproute2\n")
    assert problems == ["ping: %s says Debian" % (tmp_path / "t.txt") + " package iproute2, but /usr/bin/ping comes "
                        "from iputils-ping: correct the line"]


def test_a_program_installed_by_hand_fails(tmp_path):
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "x.sh").write_text("ping x\n", encoding="utf-8")
    (tmp_path / "t.txt").write_text("ping iputils-ping\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("iputils-ping\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("", encoding="utf-8")
    problems, _summary = chp.check(
        tmp_path, tmp_path / "a.txt", tmp_path / "p.txt", tmp_path / "t.txt",
        locate=lambda command, path=chp.host_packages.SYSTEM_PATH:
        "/usr/local/bin/ping" if path != chp.host_packages.SYSTEM_PATH else None)
    assert problems == ["ping (lab/x.sh:1): not installed from any Debian package (found only at "
                        "/usr/local/bin/ping, installed by hand): install Debian package iputils-ping "
                        "(make deps installs a.txt)"]


def test_unparsable_shell_is_reported(tmp_path):
    problems, _summary = scratch_repo(tmp_path, "ping x\nfi )\n", "ping iputils-ping\n")
    assert problems == ["lab/x.sh:2: tree-sitter-bash cannot parse this line: commands on it are not checked; "
                        "write it another way"]


@pytest.mark.parametrize("table, error", [("ping\n", "t.txt:1: want 'COMMAND PACKAGE'")])
def test_a_malformed_table_fails_with_its_line(tmp_path, table, error, capsys):
    (tmp_path / "t.txt").write_text(table, encoding="utf-8")
    assert chp.main(["--table", str(tmp_path / "t.txt")]) == 1
    assert error in capsys.readouterr().out


def test_a_file_that_is_not_utf8_is_reported_not_a_traceback(tmp_path):
    problems, _summary = scratch_repo(tmp_path, "ping x\n", "ping iputils-ping\n")
    (tmp_path / "lab" / "bad.sh").write_bytes(b"#!/bin/sh\necho caf\xe9\n")
    problems, _summary = chp.check(tmp_path, tmp_path / "a.txt", tmp_path / "p.txt", tmp_path / "t.txt")
    assert len(problems) == 1 and problems[0].startswith("lab/bad.sh: cannot be read as UTF-8 text")


def test_a_venv_program_missing_from_the_venv_is_reported(tmp_path):
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "x.sh").write_text("molecule test\n", encoding="utf-8")
    (tmp_path / "t.txt").write_text("molecule pip:ansible-core\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("", encoding="utf-8")
    (tmp_path / "p.txt").write_text("ansible-core==2.19.14\n", encoding="utf-8")
    problems, _summary = chp.check(tmp_path, tmp_path / "a.txt", tmp_path / "p.txt", tmp_path / "t.txt")
    assert problems == ["molecule (lab/x.sh:1): .venv/bin/molecule is missing although ansible-core is in p.txt: "
                        "is ansible-core the distribution that installs it? rerun scripts/bootstrap.sh"]
