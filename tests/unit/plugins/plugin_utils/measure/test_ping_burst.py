# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The mwan3-like ping burst: the script it builds and the reading of its recorded output."""

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
    assert out.splitlines() == ["10.0.0.1 0", "10.0.0.2 1"] * 3
    assert parse_ping_burst(out)["failed_pings"] == 3


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
