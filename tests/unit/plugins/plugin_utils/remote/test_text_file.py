# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_file_probe, normalize_mode, marked_block; WRITE_PROBE_SCRIPT (run by dash, bash, BusyBox), parse_write_probe, unwritable."""

import shutil
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.text_file import (
    EOF_MARK, WRITE_PROBE_SCRIPT, marked_block, normalize_mode, parse_file_probe, parse_write_probe, unwritable)

# Every shell must be there (make deps installs busybox): a missing one fails, never skips.
HOST_COMMANDS = ("dash", "bash", "busybox")
SYSCTL_FILE, MODULES_FILE = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf", "/etc/modules-load.d/tunnelfix-bbr.conf"

RC_LOCAL = "# Put your custom commands here\n\nexit 0\n"
BLOCK = "/usr/sbin/tunnelfix-bridge-offload br-lan"
WITH_BLOCK = ("# Put your custom commands here\n\n# BEGIN tf\n/usr/sbin/tunnelfix-bridge-offload br-lan\n"
              "# END tf\nexit 0\n")


@pytest.mark.parametrize("text, expected", [
    ("present\n644\n#!/bin/sh\n" + EOF_MARK, {"exists": True, "mode": "0644", "content": "#!/bin/sh\n"}),
    ("present\n755\n" + EOF_MARK, {"exists": True, "mode": "0755", "content": ""}),
    ("present\n4755\nno newline" + EOF_MARK + "\n", {"exists": True, "mode": "4755", "content": "no newline"}),
    ("absent\n", {"exists": False, "mode": None, "content": None}),
])
def test_parse_file_probe(text, expected):
    assert parse_file_probe(text) == expected


@pytest.mark.parametrize("text, message", [
    ("present\n644\n#!/bin/sh\n", "does not end with"),
    ("present\nrw-r--r--\nx" + EOF_MARK, "octal mode on line 2"),
    ("sh: stat: not found\n", "expected 'present' or 'absent'"),
    (None, "must be text"),
])
def test_parse_file_probe_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_file_probe(text)


@pytest.mark.parametrize("mode, expected", [("755", "0755"), ("0644", "0644"), ("4755", "4755")])
def test_normalize_mode(mode, expected):
    assert normalize_mode(mode) == expected


@pytest.mark.parametrize("mode", ["rwx", "0999", "7", 755, None])
def test_normalize_mode_errors(mode):
    with pytest.raises(ParseError, match="mode must be an octal string"):
        normalize_mode(mode)


@pytest.mark.parametrize("text, block, insert_before, expected", [
    (RC_LOCAL, BLOCK, "^exit 0", WITH_BLOCK),
    (WITH_BLOCK, BLOCK, "^exit 0", WITH_BLOCK),  # idempotent
    (WITH_BLOCK, "/usr/sbin/tunnelfix-bridge-offload br-lan br-guest", "^exit 0",
     WITH_BLOCK.replace("br-lan\n", "br-lan br-guest\n")),
    ("# no exit\n", BLOCK, "^exit 0", "# no exit\n# BEGIN tf\n%s\n# END tf\n" % BLOCK),
    ("", BLOCK, None, "# BEGIN tf\n%s\n# END tf\n" % BLOCK),
    ("exit 0", "a\nb\n", "^exit 0", "# BEGIN tf\na\nb\n# END tf\nexit 0\n"),
])
def test_marked_block(text, block, insert_before, expected):
    assert marked_block(text, block, "tf", insert_before) == expected


@pytest.mark.parametrize("text, insert_before, message", [
    ("# BEGIN tf\nx\n", None, "1 '# BEGIN tf' and 0 '# END tf' lines"),
    ("# END tf\n# BEGIN tf\n", None, "expected one of each, in that order"),
    ("# BEGIN tf\n# END tf\n# BEGIN tf\n# END tf\n", None, "2 '# BEGIN tf'"),
    ("exit 0\n", "(", "insert_before '\\(' is not a regular expression"),
])
def test_marked_block_errors(text, insert_before, message):
    with pytest.raises(ParseError, match=message):
        marked_block(text, BLOCK, "tf", insert_before)


# the write probe -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case, expected", [
    ("dash_writable_modules_dir_missing.txt", {SYSCTL_FILE: ("/etc/sysctl.d", True, None), MODULES_FILE: ("/etc", True, None)}),
    ("dash_read_only_etc.txt", {SYSCTL_FILE: ("/etc/sysctl.d", False, "read_only"),
                                MODULES_FILE: ("/etc/modules-load.d", False, "read_only")}),
    ("busybox_read_only_rom.txt", {SYSCTL_FILE: ("/etc/sysctl.d", False, "read_only"),
                                   "/etc/modules.d/60-tunnelfix-bbr": ("/etc/modules.d", False, "read_only")}),
    ("bash_immutable_sysctl_d.txt", {SYSCTL_FILE: ("/etc/sysctl.d", False, "permission_denied"), MODULES_FILE: ("/etc", True, None)}),
])
def test_parse_write_probe(load_fixture, case, expected):
    probe = parse_write_probe(load_fixture("write_probe", case))
    assert {path: (entry["directory"], entry["writable"], entry["reason"]) for path, entry in probe.items()} == expected
    assert all((entry["message"] is None) == entry["writable"] for entry in probe.values())


def test_unwritable_names_path_directory_and_why(load_fixture):
    failed = unwritable(parse_write_probe(load_fixture("write_probe", "bash_immutable_sysctl_d.txt")))
    assert failed == [{"path": SYSCTL_FILE, "directory": "/etc/sysctl.d", "reason": "permission_denied", "message": (
        "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf cannot be written: /etc/sysctl.d refuses new files "
        "(sh: line 1: /etc/sysctl.d/.tunnelfix-write-probe: Operation not permitted)")}]
    assert unwritable(parse_write_probe(load_fixture("write_probe", "dash_writable_modules_dir_missing.txt"))) == []


def test_a_message_over_two_lines_and_an_unknown_errno():
    probe = parse_write_probe("/a/b.conf\t/a\tsh: 1: cannot create /a/.tunnelfix-write-probe: Input/output\nerror\n\n")
    assert probe["/a/b.conf"] == {"directory": "/a", "writable": False, "reason": "unknown",
                                  "message": "sh: 1: cannot create /a/.tunnelfix-write-probe: Input/output error"}


@pytest.mark.parametrize("text, message", [
    ("ok\n", "line 1: expected 'PATH<TAB>DIRECTORY<TAB>ok or error'"),
    ("/a/b.conf\t/a\n", "line 1: expected"),
    ("/a/b.conf\ta\tok\n", "line 1: expected"),
    ("/a/b.conf\t/a\t \n", "line 1: expected"),
    (None, "must be text"),
])
def test_parse_write_probe_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_write_probe(text)


@pytest.mark.parametrize("shell", [["dash"], ["bash"], ["busybox", "sh"]], ids=lambda shell: shell[0])
def test_the_probe_leaves_nothing_and_climbs_to_a_directory_that_exists(shell, tmp_path):
    (tmp_path / "etc" / "sysctl.d").mkdir(parents=True)
    paths = [str(tmp_path / "etc" / "sysctl.d" / "60-x.conf"), str(tmp_path / "etc" / "modules-load.d" / "x" / "y.conf")]
    done = subprocess.run([shutil.which(shell[0])] + shell[1:] + ["-c", WRITE_PROBE_SCRIPT, "sh"] + paths,
                          capture_output=True, text=True, check=False, timeout=30, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stderr == ""
    probe = parse_write_probe(done.stdout)
    assert [(entry["directory"], entry["writable"]) for entry in probe.values()] == [
        (str(tmp_path / "etc" / "sysctl.d"), True), (str(tmp_path / "etc"), True)]
    assert sorted(path.name for path in tmp_path.rglob("*")) == ["etc", "sysctl.d"]


def test_the_probe_reads_alike_on_every_host():
    """No PID in the probe's name: the same read-only /etc gives the same message, one notice for the fleet."""
    assert "$$" not in WRITE_PROBE_SCRIPT and ".tunnelfix-write-probe" in WRITE_PROBE_SCRIPT
