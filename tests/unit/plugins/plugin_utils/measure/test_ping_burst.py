# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The mwan3-like ping burst: the script it builds and the reading of its recorded output."""

import os
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.ping_burst import (
    parse_ping_burst, ping_burst_script)


def test_banip_default_limit_drops_half_of_a_100_per_second_burst(load_fixture):
    burst = parse_ping_burst(load_fixture("ping_burst", "banip_limit_25_two_uplinks.txt"))
    assert (burst["sent"], burst["replied"], burst["lost"], burst["errors"], burst["failed_pings"]) == (20, 10, 10, 0, 10)
    assert burst["targets"]["100.64.10.1"] == {"sent": 10, "replied": 4, "lost": 6, "errors": 0}
    assert burst["targets"]["100.64.20.1"] == {"sent": 10, "replied": 6, "lost": 4, "errors": 0}


def test_raised_limit_loses_nothing(load_fixture):
    burst = parse_ping_burst(load_fixture("ping_burst", "banip_limit_250_two_uplinks.txt"))
    assert burst["sent"] == 20 and burst["failed_pings"] == 0 and set(burst["targets"]) == {"100.64.10.1", "100.64.20.1"}


def test_exit_status_two_is_an_error_not_a_loss():
    burst = parse_ping_burst("fd00::1 2\nfd00::1 0\n")
    assert (burst["errors"], burst["lost"], burst["failed_pings"]) == (1, 0, 1)


@pytest.mark.parametrize("text", ["", "\n", "10.0.0.1\n", "10.0.0.1 x\n", "10.0.0.1 0 extra\n"])
def test_unreadable_output_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_ping_burst(text)


@pytest.mark.parametrize("targets, count, interval_ms, timeout_s, named", [
    ([], 10, 10, 1, "targets"),
    (["10.0.0.1; reboot"], 10, 10, 1, "10.0.0.1; reboot"),
    (["$(id)"], 10, 10, 1, "$(id)"),
    (["fd00::zz"], 10, 10, 1, "fd00::zz"),
    (["10.0.0.1"], 0, 10, 1, "count"),
    (["10.0.0.1"], True, 10, 1, "count"),
    (["10.0.0.1"], 10, -1, 1, "interval_ms"),
    (["10.0.0.1"], 10, 10, 0, "timeout_s"),
    (["10.0.0.1", "10.0.0.2"], 600, 10, 1, "1000"),
])
def test_bad_arguments_are_refused_naming_them(targets, count, interval_ms, timeout_s, named):
    with pytest.raises(ValueError) as err:
        ping_burst_script(targets, count, interval_ms, timeout_s)
    assert named in str(err.value)


def test_the_script_is_valid_sh_and_pings_round_robin(tmp_path):
    """Run the script with a fake ping on PATH that answers only 10.0.0.1: the output order and counts."""
    fake = tmp_path / "ping"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do last="$a"; done\n[ "$last" = 10.0.0.1 ]\n')
    fake.chmod(0o755)
    script = ping_burst_script(["10.0.0.1", "10.0.0.2"], 3, 0, 1)
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True,
                         env={"PATH": "%s:/usr/bin:/bin" % tmp_path}).stdout
    assert out.splitlines() == ["interval_ms 0"] + ["10.0.0.1 0", "10.0.0.2 1"] * 3
    assert parse_ping_burst(out)["failed_pings"] == 3


def fake_tools(tmp_path, sleep_takes_fractions, usleep):
    """A PATH holding only a ping that answers, a sleep that records its argument (and refuses a fraction the way
    OpenWrt's BusyBox does, "invalid number"), and a usleep that records its own where there is one."""
    (tmp_path / "ping").write_text("#!/bin/sh\nexit 0\n")
    refuse = "" if sleep_takes_fractions else "case $1 in *.*) echo \"sleep: invalid number '$1'\" >&2; exit 1 ;; esac\n"
    (tmp_path / "sleep").write_text("#!/bin/sh\n%secho \"sleep $1\" >> %s/naps\n" % (refuse, tmp_path))
    names = ["ping", "sleep"]
    if usleep:
        (tmp_path / "usleep").write_text("#!/bin/sh\necho \"usleep $1\" >> %s/naps\n" % tmp_path)
        names.append("usleep")
    for name in names:
        (tmp_path / name).chmod(0o755)


@pytest.mark.parametrize("shell", ["/bin/dash", "/usr/bin/busybox"])
@pytest.mark.parametrize("sleep_takes_fractions, usleep, interval_ms, naps, used_ms", [
    (False, False, 200, ["sleep 1", "sleep 1"], 1000),        # OpenWrt's BusyBox: whole seconds, rounded up, never unpaced
    (False, False, 1000, ["sleep 1", "sleep 1"], 1000),
    (False, False, 1001, ["sleep 2", "sleep 2"], 2000),
    (True, False, 200, ["sleep 0.001", "sleep 0.200", "sleep 0.200"], 200),   # coreutils: the fraction (after its probe)
    (False, True, 200, ["usleep 200000", "usleep 200000"], 200),             # usleep first wherever there is one
])
def test_the_pause_is_one_the_target_can_make_and_the_output_says_which(
        tmp_path, shell, sleep_takes_fractions, usleep, interval_ms, naps, used_ms):
    if not os.path.exists(shell):
        pytest.skip("%s is not installed" % shell)
    fake_tools(tmp_path, sleep_takes_fractions, usleep)
    argv = [shell, "sh", "-c"] if shell.endswith("busybox") else [shell, "-c"]
    out = subprocess.run(argv + [ping_burst_script(["10.0.0.1"], 2, interval_ms, 1)], capture_output=True, text=True,
                         check=True, env={"PATH": str(tmp_path)}).stdout
    burst = parse_ping_burst(out)
    assert burst["interval_ms"] == used_ms and burst["sent"] == 2 and burst["replied"] == 2
    assert (tmp_path / "naps").read_text().split("\n")[:-1] == naps


def test_output_without_the_pause_line_reads_as_an_unknown_pause():
    assert parse_ping_burst("10.0.0.1 0\n")["interval_ms"] is None
    assert parse_ping_burst("interval_ms 1000\n10.0.0.1 0\n")["interval_ms"] == 1000


@pytest.mark.parametrize("target", ["::1", "fd00::1", "::ffff:10.0.0.1", "fe80::1%br-lan"])
def test_ipv6_literals_are_targets(target):
    assert "for t_ in %s; do" % target in ping_burst_script([target], 1, 10, 1)


@pytest.mark.parametrize("target", ["10.0.0.1\n", "fe80::1%a b", "fe80::1%$(id)", "1::::::::1", ":", "-c"])
def test_bad_targets_are_refused_naming_the_option_and_value(target):
    with pytest.raises(ValueError, match=r"^targets: .* is not an IP address or host name$") as err:
        ping_burst_script([target], 1, 10, 1)
    assert repr(target) in str(err.value)


def test_targets_must_be_a_list():
    with pytest.raises(ValueError, match="targets must be a list of addresses, got '10.0.0.1'"):
        ping_burst_script("10.0.0.1", 1, 10, 1)
