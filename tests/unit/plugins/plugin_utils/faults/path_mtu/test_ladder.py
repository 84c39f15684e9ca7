# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU ladder: its parse on recorded runs, the snippet on recorded ping outputs, and the snippet run for real
under dash (iputils ping) and BusyBox sh (BusyBox ping) through network namespaces with a black hole."""

import os
import shutil
import subprocess
import uuid

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import pause_snippet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import (
    DEFAULT_INTERVAL_MS, ICMP_HEADER_BYTES, ladder_bounds, ladder_script, parse_ladder)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ping import parse_ping_summary

HEADER4 = "ladder tool=iputils family=4 target=10.0.0.1 low=1200 high=1472 interval_ms=200 attempts=2\n"


@pytest.mark.parametrize("case, tool, family, largest, path_mtu, reported, sent", [
    ("iputils_v4_black_hole_1400.txt", "iputils", 4, 1372, 1400, None, 18),
    ("iputils_v6_black_hole_1400.txt", "iputils", 6, 1352, 1400, None, 17),
    ("busybox_v4_black_hole_1400.txt", "busybox", 4, 1372, 1400, None, 18),
    ("busybox_v6_black_hole_1400.txt", "busybox", 6, 1352, 1400, None, 17),
    ("iputils_v4_frag_needed_1400.txt", "iputils", 4, 1372, 1400, 1400, 10),
    ("iputils_v6_packet_too_big_1400.txt", "iputils", 6, 1352, 1400, 1400, 10),
    ("busybox_v4_frag_needed_1400.txt", "busybox", 4, 1372, 1400, None, 10),
    ("busybox_v6_packet_too_big_1400.txt", "busybox", 6, 1352, 1400, None, 10),
])
def test_recorded_ladders_find_the_1400_byte_path(load_fixture, case, tool, family, largest, path_mtu, reported, sent):
    got = parse_ladder(load_fixture("pmtu_ladder", case))
    assert (got["tool"], got["family"], got["largest_passing_payload_bytes"], got["path_mtu_bytes"]) == (tool, family, largest, path_mtu)
    assert (got["reported_mtu_bytes"], got["pings_sent"], got["invalid"], got["at_high_bound"]) == (reported, sent, None, False)
    assert got["interval_ms"] == DEFAULT_INTERVAL_MS
    assert all(p["packet_bytes"] == p["payload_bytes"] + ICMP_HEADER_BYTES[family] for p in got["probes"])


def test_a_recorded_ladder_reads_into_the_whole_measurement(load_fixture):
    got = parse_ladder(load_fixture("pmtu_ladder", "iputils_v6_black_hole_1400.txt"))
    assert len(got.pop("probes")) == 11
    assert got == {"tool": "iputils", "family": 6, "target": "fd98:2::2", "low_payload_bytes": 1232, "high_payload_bytes": 1452,
                   "interval_ms": 200, "largest_passing_payload_bytes": 1352, "path_mtu_bytes": 1400, "at_high_bound": False,
                   "reported_mtu_bytes": None, "pings_sent": 17, "invalid": None}


def test_the_black_hole_ladder_rechecks_the_last_lost_size(load_fixture):
    probes = parse_ladder(load_fixture("pmtu_ladder", "iputils_v4_black_hole_1400.txt"))["probes"]
    assert [(p["payload_bytes"], p["result"], p["attempts"]) for p in probes[-2:]] == [(1373, "failed", 2), (1373, "failed", 2)]


def test_a_chance_loss_that_steered_the_bisection_is_named_not_reported(load_fixture):
    """Recorded with R dropping the first two 1364-byte packets: 1336 was lost twice, then passed on the recheck."""
    got = parse_ladder(load_fixture("pmtu_ladder", "iputils_v4_black_hole_chance_loss.txt"))
    assert got["invalid"] == ("the probes to 10.198.2.2 contradict each other: 1336 payload bytes passed but 1336 were lost "
                              "without an answer, so the losses are not about size (loss on the path: measure again)")
    assert (got["largest_passing_payload_bytes"], got["path_mtu_bytes"]) == (None, None)


def test_a_probe_reads_into_its_sizes_and_result(load_fixture):
    probes = parse_ladder(load_fixture("pmtu_ladder", "iputils_v4_frag_needed_1400.txt"))["probes"]
    assert probes[:2] == [{"payload_bytes": 1200, "packet_bytes": 1228, "result": "passed", "mtu_bytes": None, "attempts": 1},
                          {"payload_bytes": 1472, "packet_bytes": 1500, "result": "too-big-remote", "mtu_bytes": 1400, "attempts": 1}]


@pytest.mark.parametrize("case, invalid", [
    ("iputils_v4_unreachable_peer.txt", "no probe to 10.198.2.9 was answered, not even the smallest (1200 payload bytes, a 1228-byte "
                                        "packet): the peer is unreachable or drops ICMP echo, which is not a PMTU finding"),
    ("busybox_v4_unreachable_peer.txt", "not even the smallest (1200 payload bytes"),
])
def test_an_unreachable_peer_is_no_measurement(load_fixture, case, invalid):
    got = parse_ladder(load_fixture("pmtu_ladder", case))
    assert invalid in got["invalid"]
    assert (got["largest_passing_payload_bytes"], got["path_mtu_bytes"]) == (None, None)


def test_the_smallest_mtu_a_probe_named_is_reported():
    got = parse_ladder(HEADER4 + "probe 1200 passed attempts=1\nprobe 1472 too-big-remote mtu=1400 attempts=1\n"
                       "probe 1336 too-big-local mtu=1380 attempts=1\nprobe 1268 passed attempts=1\nresult largest=1268\n")
    assert (got["reported_mtu_bytes"], got["path_mtu_bytes"], got["pings_sent"]) == (1380, 1296, 4)


@pytest.mark.parametrize("body, largest, path_mtu, at_high, invalid", [
    ("probe 1200 passed attempts=1\nprobe 1472 passed attempts=1\nresult largest=1472\n", 1472, 1500, True, None),
    ("probe 1200 passed attempts=1\nprobe 1472 failed attempts=2\nprobe 1471 passed attempts=1\nresult largest=1471\n",
     1471, 1499, False, None),
    # a size passed above one that was silently lost: the loss is not about size
    ("probe 1200 passed attempts=1\nprobe 1472 failed attempts=2\nprobe 1300 failed attempts=2\nprobe 1350 passed attempts=1\n"
     "result largest=1350\n", None, None, False, "1350 payload bytes passed but 1300 were lost"),
    # too big where a larger one passed is the kernel's reading (a learned MTU), not a contradiction
    ("probe 1200 passed attempts=1\nprobe 1300 too-big-local attempts=1\nprobe 1350 passed attempts=1\nresult largest=1350\n",
     1350, 1378, False, None),
    ("probe 1200 error attempts=1\nresult error rc=2\n", None, None, False,
     "ping could not probe 10.0.0.1 (exit status 2 at 1200 payload bytes: no route, a bad address or no ping)"),
    ("probe 1200 passed attempts=1\nprobe 1472 error attempts=1\nresult error rc=127\n", None, None, False, "exit status 127 at 1472"),
    ("probe 1200 icmp-error attempts=1\nresult none\n", None, None, False, "not even the smallest (1200 payload bytes, a 1228-byte"),
    ("result error rc=2\n", None, None, False,
     "ping could not probe 10.0.0.1 (exit status 2 at 1200 payload bytes: no route, a bad address or no ping); not a PMTU measurement"),
])
def test_results_and_what_cannot_be_true(body, largest, path_mtu, at_high, invalid):
    got = parse_ladder(HEADER4 + body)
    assert (got["largest_passing_payload_bytes"], got["path_mtu_bytes"], got["at_high_bound"]) == (largest, path_mtu, at_high)
    assert (got["invalid"] is None) if invalid is None else (invalid in got["invalid"])


HEADER548 = "ladder tool=iputils family=4 target=10.0.0.1 low=548 high=1472 interval_ms=200 attempts=2\n"


@pytest.mark.parametrize("body, invalid", [
    # above the high bound (the link's MTU minus the headers): a path MTU above the link MTU
    ("probe 548 passed attempts=1\nprobe 1600 passed attempts=1\nresult largest=1600\n",
     "1600 payload bytes passed, outside the ladder's bounds 548-1472"),
    # below the low bound: a path under the least every path carries
    ("probe 500 passed attempts=1\nresult largest=500\n", "500 payload bytes passed, outside the ladder's bounds 548-1472"),
    # a hop's ICMP answer, or an ICMP error with the probe lost, at a size below one that passed: the path changed meanwhile
    ("probe 548 passed attempts=1\nprobe 1472 passed attempts=1\nprobe 600 too-big-remote mtu=576 attempts=1\nresult largest=1472\n",
     "1472 payload bytes passed but 600 did not (too-big-remote)"),
    ("probe 548 passed attempts=1\nprobe 1472 passed attempts=1\nprobe 600 icmp-error attempts=1\nresult largest=1472\n",
     "1472 payload bytes passed but 600 did not (icmp-error)"),
    ("probe 548 passed attempts=1\nprobe 1472 passed attempts=1\nprobe 600 failed attempts=2\nresult largest=1472\n",
     "1472 payload bytes passed but 600 were lost without an answer"),
])
def test_a_result_that_cannot_be_true_is_named_invalid(body, invalid):
    """Fails before: the first four read as path MTUs of 1628, 528, 1500 and 1500 bytes."""
    got = parse_ladder(HEADER548 + body)
    assert got["path_mtu_bytes"] is None and invalid in got["invalid"]


NO_HEADER = "no 'ladder tool=... family=...' line at the start of the PMTU ladder output: "
NOT_A_LINE = "PMTU ladder output line %d is not a probe or the one result line: %r"


@pytest.mark.parametrize("text, message", [
    ("", NO_HEADER + "''"),
    (None, NO_HEADER + "''"),
    ("x" * 300, NO_HEADER + repr("x" * 200)),
    ("probe 1200 passed attempts=1\nresult largest=1200\n", NO_HEADER + repr("probe 1200 passed attempts=1\nresult largest=1200\n")),
    (HEADER4.replace("family=4", "family=5"), NO_HEADER + repr(HEADER4.replace("family=4", "family=5"))),
    (HEADER4 + "probe 1200 passed attempts=1\n", "the PMTU ladder output has no result line (the snippet was cut short)"),
    (HEADER4 + "probe 1200 maybe attempts=1\nresult none\n", NOT_A_LINE % (2, "probe 1200 maybe attempts=1")),
    (HEADER4 + "probe 1200 passed\nresult none\n", NOT_A_LINE % (2, "probe 1200 passed")),
    (HEADER4 + "ping: sendto: Network unreachable\nresult none\n", NOT_A_LINE % (2, "ping: sendto: Network unreachable")),
    (HEADER4 + "probe 1200 passed attempts=1\nresult largest=1200\nresult largest=1200\n", NOT_A_LINE % (4, "result largest=1200")),
    (HEADER4 + "probe 1200 passed attempts=1\nresult largest=1200\nprobe 1300 passed attempts=1\n",
     NOT_A_LINE % (4, "probe 1300 passed attempts=1")),
    (HEADER4 + "probe 1200 passed attempts=1\nprobe 1300 passed attempts=1\nresult largest=1200\n",
     "the PMTU ladder's result largest=1200 is not its largest passing probe (1300)"),
    (HEADER4 + "probe 1200 failed attempts=2\nresult largest=1200\n",
     "the PMTU ladder's result largest=1200 is not its largest passing probe (none passed)"),
])
def test_output_the_snippet_does_not_print_is_a_parse_error(text, message):
    with pytest.raises(ParseError) as err:
        parse_ladder(text)
    assert str(err.value) == message


@pytest.mark.parametrize("kwargs, named", [
    ({"target": "10.0.0.1", "family": 6}, "target must be an IPv6 address, got '10.0.0.1'"),
    ({"target": "fd00::1", "family": 4}, "target must be an IPv4 address, got 'fd00::1'"),
    ({"target": "10.0.0.1; reboot"}, "target must be an IPv4 address, got '10.0.0.1; reboot'"),
    ({"target": "example.org"}, "target must be an IPv4 address, got 'example.org'"),
    ({"target": None}, "target must be an IPv4 address, got None"),
    ({"target": "fe80::1%wg0", "family": 6}, "target must be an IPv6 address, got 'fe80::1%wg0'"),
    ({"target": "fe80::1%a b", "family": 6}, "target must be an IPv6 address, got 'fe80::1%a b'"),
    ({"family": 5}, "family must be 4 or 6, got 5"),
    ({"family": True}, "family must be 4 or 6, got True"),
    ({"low": -1}, "low must be a whole number 0-65507, got -1"),
    ({"low": 1300, "high": 1299}, "high must be a whole number 1300-65507, got 1299"),
    ({"high": 65508}, "high must be a whole number 1200-65507, got 65508"),
    ({"target": "fd00::1", "family": 6, "high": 65488}, "high must be a whole number 1200-65487, got 65488"),
    ({"interval_ms": 10001}, "interval_ms must be a whole number 0-10000, got 10001"),
    ({"timeout_s": 0}, "timeout_s must be a whole number 1-60, got 0"),
    ({"attempts": 6}, "attempts must be a whole number 1-5, got 6"),
    ({"attempts": "2"}, "attempts must be a whole number 1-5, got '2'"),
    ({"ping_command": "ping; reboot"}, "ping_command must be one of ping, busybox ping, got 'ping; reboot'"),
])
def test_bad_arguments_are_refused_naming_them(kwargs, named):
    args = dict({"target": "10.0.0.1", "family": 4, "low": 1200, "high": 1472}, **kwargs)
    with pytest.raises(ValueError) as err:
        ladder_script(**args)
    assert str(err.value) == named


@pytest.mark.parametrize("family, link_mtu, bounds", [
    (4, 1500, (548, 1472)), (6, 1500, (1232, 1452)), (4, 1420, (548, 1392)), (6, 1420, (1232, 1372)),
    (4, 576, (548, 548)), (6, 1280, (1232, 1232)), (4, 65535, (548, 65507)), (6, 65535, (1232, 65487)),
])
def test_the_bounds_run_from_the_smallest_path_to_the_link(family, link_mtu, bounds):
    assert ladder_bounds(family, link_mtu) == bounds
    low, high = bounds
    assert ladder_script("10.0.0.1" if family == 4 else "fd00::1", family, low, high)  # always a valid ladder


@pytest.mark.parametrize("family, link_mtu, named", [
    (4, 575, "link_mtu_bytes must be a whole number 576-65535, got 575"),
    (6, 1279, "link_mtu_bytes must be a whole number 1280-65535, got 1279"),
    (4, 65536, "link_mtu_bytes must be a whole number 576-65535, got 65536"),
    (4, "1500", "link_mtu_bytes must be a whole number 576-65535, got '1500'"),
    (4, True, "link_mtu_bytes must be a whole number 576-65535, got True"),
    (5, 1500, "family must be 4 or 6, got 5"), (True, 1500, "family must be 4 or 6, got True"),
])
def test_bad_bounds_are_refused_naming_them(family, link_mtu, named):
    with pytest.raises(ValueError) as err:
        ladder_bounds(family, link_mtu)
    assert str(err.value) == named


@pytest.mark.parametrize("kwargs", [
    {"low": 0, "high": 0}, {"low": 65507, "high": 65507}, {"interval_ms": 10000}, {"interval_ms": 0},
    {"timeout_s": 1}, {"timeout_s": 60}, {"attempts": 1}, {"attempts": 5}, {"ping_command": "busybox ping"},
])
def test_arguments_at_their_limits_are_taken(kwargs):
    args = dict({"target": "10.0.0.1", "family": 4, "low": 1200, "high": 1472}, **kwargs)
    script = ladder_script(**args)
    assert all("%s_=%s" % (key, value) in script for key, value in kwargs.items() if key != "ping_command")
    assert "ping_() { LC_ALL=C %s \"$@\"; }" % args.get("ping_command", "ping") in script


def test_the_pacing_is_the_shared_pause_of_the_interval():
    assert pause_snippet(1250) in ladder_script("10.0.0.1", 4, 1200, 1472, interval_ms=1250)
    assert pause_snippet(200) in ladder_script("fd00::1", 6, 1200, 1452)


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="shellcheck is not installed")
@pytest.mark.parametrize("target, family, command", [("10.0.0.1", 4, "ping"), ("fd00::1", 6, "busybox ping")])
def test_the_snippet_passes_shellcheck(tmp_path, target, family, command):
    path = tmp_path / "ladder.sh"
    path.write_text(ladder_script(target, family, 1200, 1400, ping_command=command))
    res = subprocess.run(["shellcheck", "-s", "sh", str(path)], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout


@pytest.mark.parametrize("family", ["v4", "v6"])
def test_busybox_ping_keeps_df_until_the_kernel_learns_a_smaller_mtu(load_fixture, family):
    """Why the BusyBox ladder reads the kernel's fragment counter: the same size, recorded twice over a 1400-byte hop."""
    first = "v4_frag_needed_first.txt" if family == "v4" else "v6_packet_too_big_first.txt"
    assert parse_ping_summary(load_fixture("busybox_ping", first))["packets_received"] == 0
    assert parse_ping_summary(load_fixture("busybox_ping", family + "_after_learned_pmtu_fragmented.txt"))["packets_received"] == 1


# --- the snippet on recorded iputils outputs: a ping on PATH that replays them ---------------------------------------

def replaying_ping(tmp_path, load_fixture, fits, too_big, largest, command="ping_M_do", version=None):
    """A ``ping`` that replays recorded output (``command``'s fixtures): ``fits`` for payloads up to ``largest``,
    ``too_big`` above, and for ``-V`` iputils' version line or the recorded ``version`` case."""
    for name, case in (("fits", fits), ("too_big", too_big), ("version", version)):
        text = load_fixture(command, case) if case else "ping from iputils 20221126\nrc=0\n"
        body, rc = text.rsplit("rc=", 1)
        (tmp_path / name).write_text(body)
        (tmp_path / (name + ".rc")).write_text(rc.strip())
    fake = tmp_path / "ping"
    fake.write_text('#!/bin/sh\nif [ "$1" = -V ]; then f=version; else\n'
                    'while [ "$1" != -s ]; do shift; done\n'
                    'if [ "$2" -le %d ]; then f=fits; else f=too_big; fi; fi\n'
                    'cat "%s/$f"; exit "$(cat "%s/$f.rc")"\n' % (largest, tmp_path, tmp_path))
    fake.chmod(0o755)
    return {"PATH": "%s:/usr/bin:/bin" % tmp_path}


@pytest.mark.parametrize("family, target, fits, too_big, result, mtu", [
    (4, "10.0.0.1", "v4_black_hole_fits.txt", "v4_local_message_too_long.txt", "too-big-local", 1500),
    (6, "fd00::1", "v6_black_hole_fits.txt", "v6_local_message_too_long.txt", "too-big-local", 1500),
    (4, "10.0.0.1", "v4_black_hole_fits.txt", "v4_frag_needed.txt", "too-big-remote", 1400),
    (6, "fd00::1", "v6_black_hole_fits.txt", "v6_packet_too_big.txt", "too-big-remote", 1400),
    (4, "10.0.0.1", "v4_black_hole_fits.txt", "v4_after_learned_pmtu_local.txt", "too-big-local", 1400),
    (6, "fd00::1", "v6_black_hole_fits.txt", "v6_after_learned_pmtu_local.txt", "too-big-local", 1400),
    (4, "10.0.0.1", "v4_black_hole_fits.txt", "v4_black_hole_lost.txt", "failed", None),
])
@pytest.mark.parametrize("shell", [["dash"], ["busybox", "sh"]])
def test_the_snippet_reads_each_recorded_iputils_answer(tmp_path, load_fixture, shell, family, target, fits, too_big, result, mtu):
    env = replaying_ping(tmp_path, load_fixture, fits, too_big, 1300)
    script = ladder_script(target, family, 1200, 1400, interval_ms=0)
    out = subprocess.run([shutil.which(shell[0])] + shell[1:] + ["-c", script], capture_output=True, text=True, check=True,
                         env=env).stdout
    got = parse_ladder(out)
    assert (got["tool"], got["largest_passing_payload_bytes"]) == ("iputils", 1300)
    assert {(p["result"], p["mtu_bytes"]) for p in got["probes"] if p["payload_bytes"] > 1300} == {(result, mtu)}


@pytest.mark.parametrize("interval_ms, pauses, header", [
    (200, "1", "interval_ms=1000"), (1000, "1", "interval_ms=1000"), (1001, "2", "interval_ms=2000"), (0, "0", "interval_ms=0")])
def test_without_a_fractional_sleep_the_pause_rounds_up_to_whole_seconds(tmp_path, load_fixture, interval_ms, pauses, header):
    """OpenWrt's BusyBox: no usleep, and ``sleep 0.001`` fails ("invalid number", libbb/duration.c without
    FLOAT_DURATION); a ``sleep`` on PATH that does the same and logs what it was asked for."""
    env = replaying_ping(tmp_path, load_fixture, "v4_black_hole_fits.txt", "v4_local_message_too_long.txt", 1300)
    log = tmp_path / "sleeps"
    (tmp_path / "sleep").write_text('#!/bin/sh\ncase "$1" in *[!0-9]*) echo "sleep: invalid number \'$1\'" >&2; exit 1 ;; esac\n'
                                    'echo "$1" >>"%s"\n' % log)
    (tmp_path / "sleep").chmod(0o755)
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 1200, 1400, interval_ms=interval_ms)],
                         capture_output=True, text=True, check=True, env=env).stdout
    got = parse_ladder(out)
    assert header in out.splitlines()[0] and got["largest_passing_payload_bytes"] == 1300
    assert set(log.read_text().split()) == {pauses} and len(log.read_text().split()) == got["pings_sent"] - 1


def test_a_fractional_sleep_is_used_where_there_is_one(tmp_path, load_fixture):
    env = replaying_ping(tmp_path, load_fixture, "v4_black_hole_fits.txt", "v4_local_message_too_long.txt", 1300)
    log = tmp_path / "sleeps"
    (tmp_path / "sleep").write_text('#!/bin/sh\necho "$1" >>"%s"\n' % log)
    (tmp_path / "sleep").chmod(0o755)
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 1200, 1400, interval_ms=200)],
                         capture_output=True, text=True, check=True, env=env).stdout
    assert "interval_ms=200 " in out.splitlines()[0]
    assert log.read_text().split() == ["0.001"] + ["0.200"] * (parse_ladder(out)["pings_sent"] - 1)


def test_a_lost_probe_is_retried_up_to_attempts(tmp_path, load_fixture):
    env = replaying_ping(tmp_path, load_fixture, "v4_black_hole_fits.txt", "v4_black_hole_lost.txt", 1300)
    out = subprocess.run(["dash", "-c", ladder_script("10.0.0.1", 4, 1200, 1400, interval_ms=0, attempts=3)],
                         capture_output=True, text=True, check=True, env=env).stdout
    got = parse_ladder(out)
    assert {p["attempts"] for p in got["probes"] if p["result"] == "failed"} == {3}
    assert {p["attempts"] for p in got["probes"] if p["result"] == "passed"} == {1}


@pytest.mark.parametrize("command, case, version, tool, rc", [
    ("ping_M_do", "v4_no_route.txt", None, "iputils", 2),                   # ping: connect: Network is unreachable
    ("busybox_ping", "no_route.txt", "V_option.txt", "busybox", 1),          # ping: sendto: Network is unreachable, exit 1
])
def test_a_probe_ping_never_sent_stops_the_ladder(tmp_path, load_fixture, command, case, version, tool, rc):
    env = replaying_ping(tmp_path, load_fixture, case, case, 1300, command=command, version=version)
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 1200, 1400, interval_ms=0)],
                         capture_output=True, text=True, check=True, env=env).stdout
    assert out.splitlines()[1:] == ["probe 1200 error attempts=1", "result error rc=%d" % rc]
    got = parse_ladder(out)
    assert got["tool"] == tool and "exit status %d at 1200 payload bytes" % rc in got["invalid"]


def test_a_ping_that_cannot_run_stops_the_ladder(tmp_path):
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 1200, 1400, interval_ms=0)], capture_output=True,
                         text=True, check=True, env={"PATH": str(tmp_path)}).stdout
    assert out.splitlines()[1:] == ["probe 1200 error attempts=1", "result error rc=127"]
    assert "exit status 127" in parse_ladder(out)["invalid"]


# older iputils releases write "Message" with a capital M (the s2016 releases' ping.c and ping6_common.c)
OLD_LOCAL_ERROR = ("PING 10.0.0.1 (10.0.0.1) 1373(1401) bytes of data.\nping: local error: Message too long, mtu=1400\n\n"
                   "--- 10.0.0.1 ping statistics ---\n1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n\n")


def test_an_older_iputils_local_error_is_too_big_local_not_a_loss(tmp_path, load_fixture):
    """Fails before: the capital M missed the case pattern, so the refused probe counted as silently lost (retried,
    no mtu, reported as a black hole)."""
    env = replaying_ping(tmp_path, load_fixture, "v4_black_hole_fits.txt", "v4_local_message_too_long.txt", 1372)
    (tmp_path / "too_big").write_text(OLD_LOCAL_ERROR)
    (tmp_path / "too_big.rc").write_text("1")
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 548, 1472, interval_ms=0)],
                         capture_output=True, text=True, check=True, env=env).stdout
    got = parse_ladder(out)
    assert (got["invalid"], got["path_mtu_bytes"], got["reported_mtu_bytes"]) == (None, 1400, 1400)
    assert {(p["result"], p["attempts"]) for p in got["probes"] if p["payload_bytes"] > 1372} == {("too-big-local", 1)}


def flapping_ping(tmp_path, load_fixture, up_pings):
    """An iputils ``ping`` over a path that carries 1400 bytes (a black hole above) for its first ``up_pings`` pings, then loses
    every probe (the link went down)."""
    for name, case in (("up", "v4_black_hole_fits.txt"), ("down", "v4_black_hole_lost.txt")):
        body, rc = load_fixture("ping_M_do", case).rsplit("rc=", 1)
        (tmp_path / name).write_text(body)
        (tmp_path / (name + ".rc")).write_text(rc.strip())
    fake = tmp_path / "ping"
    fake.write_text('#!/bin/sh\nif [ "$1" = -V ]; then echo "ping from iputils 20221126"; exit 0; fi\n'
                    'echo x >>"%s/count"; n=$(wc -l <"%s/count")\n'
                    'while [ "$1" != -s ]; do shift; done\n'
                    'if [ "$n" -le %d ] && [ "$2" -le 1372 ]; then f=up; else f=down; fi\ncat "%s/$f"; exit "$(cat "%s/$f.rc")"\n'
                    % (tmp_path, tmp_path, up_pings, tmp_path, tmp_path))
    fake.chmod(0o755)
    return {"PATH": "%s:/usr/bin:/bin" % tmp_path}


@pytest.mark.parametrize("up_pings", [1, 4])   # down after the smallest size; after 1472 was lost twice and 1010 passed
def test_a_path_that_goes_down_during_the_ladder_is_no_measurement(tmp_path, load_fixture, up_pings):
    """Fails without the last check of the largest passing size: the ladder read a path MTU at the floor (576, or what passed
    before the link went down), which the rule took for a black hole and fixed with a tiny MTU."""
    env = flapping_ping(tmp_path, load_fixture, up_pings)
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 548, 1472, interval_ms=0)],
                         capture_output=True, text=True, check=True, env=env).stdout
    got = parse_ladder(out)
    assert got["path_mtu_bytes"] is None and "contradict each other" in got["invalid"]


def test_a_black_hole_still_reads_its_size_after_the_last_check(tmp_path, load_fixture):
    env = replaying_ping(tmp_path, load_fixture, "v4_black_hole_fits.txt", "v4_black_hole_lost.txt", 1372)
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 548, 1472, interval_ms=0)],
                         capture_output=True, text=True, check=True, env=env).stdout
    got = parse_ladder(out)
    assert (got["invalid"], got["path_mtu_bytes"]) == (None, 1400)
    assert [p["payload_bytes"] for p in got["probes"]][-2:] == [1373, 1372]   # the recheck of the lost size, the largest again


# iputils built with NLS (setlocale(LC_ALL, "")) prints its messages in the operator's language, which ssh forwards
# (SendEnv LANG LC_*): the German texts of iputils po/de.po. A ping on PATH that answers as gettext would: German
# unless LC_ALL (then LC_MESSAGES, then LANG) is C.
GERMAN = {
    "fits": "PING 10.0.0.1 (10.0.0.1) 1200(1228) Bytes an Daten.\n1208 Bytes von 10.0.0.1: icmp_seq=1 ttl=63 Zeit=0.101 ms\n\n"
            "--- 10.0.0.1 ping-Statistik ---\n1 Pakete \u00fcbertragen, 1 empfangen, 0% Paketverlust, Zeit 0ms\n",
    "lost": "PING 10.0.0.1 (10.0.0.1) 1373(1401) Bytes an Daten.\n\n"
            "--- 10.0.0.1 ping-Statistik ---\n1 Pakete \u00fcbertragen, 0 empfangen, 100% Paketverlust, Zeit 0ms\n",
    "local": "PING 10.0.0.1 (10.0.0.1) 1473(1501) Bytes an Daten.\nping: lokaler Fehler: Nachricht zu lang, MTU=1500\n\n"
             "--- 10.0.0.1 ping-Statistik ---\n1 Pakete \u00fcbertragen, 0 empfangen, +1 Fehler, 100% Paketverlust, Zeit 0ms\n",
}


@pytest.mark.parametrize("too_big, recorded, result", [
    ("lost", "v4_black_hole_lost.txt", "failed"), ("local", "v4_local_message_too_long.txt", "too-big-local")])
def test_the_snippet_reads_ping_in_c_whatever_the_callers_language(tmp_path, load_fixture, too_big, recorded, result):
    """Fails without LC_ALL=C: the lost probe has no 'transmitted' line and stops the ladder as a ping that never ran."""
    env = replaying_ping(tmp_path, load_fixture, "v4_black_hole_fits.txt", recorded, 1300)
    for name in ("fits", too_big):
        (tmp_path / ("de_" + name)).write_text(GERMAN[name], encoding="utf-8")
    german = tmp_path / "ping_de"
    german.write_text('#!/bin/sh\nlang=${LC_ALL:-${LC_MESSAGES:-$LANG}}\ncase "$lang" in de*) ;; *) exec "%s/ping" "$@" ;; esac\n'
                      'if [ "$1" = -V ]; then echo "ping von iputils 20221126"; exit 0; fi\n'
                      'while [ "$1" != -s ]; do shift; done\n'
                      'if [ "$2" -le 1300 ]; then cat "%s/de_fits"; exit 0; fi\ncat "%s/de_%s"; exit 1\n'
                      % (tmp_path, tmp_path, tmp_path, too_big))
    german.chmod(0o755)
    (tmp_path / "ping").rename(tmp_path / "ping_c")
    german.rename(tmp_path / "ping")
    (tmp_path / "ping").write_text((tmp_path / "ping").read_text().replace('"%s/ping"' % tmp_path, '"%s/ping_c"' % tmp_path))
    env.update(LANG="de_DE.UTF-8", LC_MESSAGES="de_DE.UTF-8")
    out = subprocess.run([shutil.which("dash"), "-c", ladder_script("10.0.0.1", 4, 1200, 1400, interval_ms=0)],
                         capture_output=True, text=True, check=True, env=env).stdout
    got = parse_ladder(out)
    assert (got["invalid"], got["largest_passing_payload_bytes"]) == (None, 1300)
    assert {p["result"] for p in got["probes"] if p["payload_bytes"] > 1300} == {result}


# --- the snippet run for real through namespaces: senders -- R -- B (black hole over 1300) and R -- C (a 1350 link) -------

NEEDS = ("ip", "nft", "ping", "dash", "busybox")
SHELLS = {"iputils": (["dash"], "ping"), "busybox": (["busybox", "sh"], "busybox ping")}
# run id -> (tool, target, family, low, high): each run from a sender namespace of its own, all at once (the silent
# losses make a black-hole ladder take seconds; BusyBox's reading needs the sender's counters to itself)
REAL_RUNS = {
    "iputils_v4_black_hole": ("iputils", "10.197.2.2", 4, 1200, 1472),
    "busybox_v4_black_hole": ("busybox", "10.197.2.2", 4, 1200, 1472),
    "iputils_v6_black_hole": ("iputils", "fd97:2::2", 6, 1200, 1452),
    "busybox_v6_black_hole": ("busybox", "fd97:2::2", 6, 1200, 1452),
    "iputils_v4_icmp": ("iputils", "10.197.3.2", 4, 1200, 1472),
    "busybox_v4_icmp": ("busybox", "10.197.3.2", 4, 1200, 1472),
    "iputils_v6_icmp": ("iputils", "fd97:3::2", 6, 1200, 1452),
    "busybox_v6_icmp": ("busybox", "fd97:3::2", 6, 1200, 1452),
    "iputils_v4_nobody": ("iputils", "10.197.2.9", 4, 1200, 1472),
}


def _run(*argv, **kwargs):
    subprocess.run(argv, check=True, capture_output=True, text=True, **kwargs)


def _link(ns, left, right, mtu, net):
    """A veth between namespaces ``left`` and ``right`` with MTU ``mtu`` and 10.197.NET.0/24, fd97:NET::/64 (R is .1)."""
    _run("ip", "-n", ns[left], "link", "add", "v" + right, "mtu", str(mtu), "type", "veth", "peer", "name", "v" + left,
         "netns", ns[right])
    _run("ip", "-n", ns[right], "link", "set", "v" + left, "mtu", str(mtu))
    for side, dev in ((left, "v" + right), (right, "v" + left)):
        host = 1 if side == "r" else 2
        _run("ip", "-n", ns[side], "addr", "add", "10.197.%d.%d/24" % (net, host), "dev", dev)
        _run("ip", "-n", ns[side], "addr", "add", "fd97:%d::%d/64" % (net, host), "dev", dev, "nodad")
        _run("ip", "-n", ns[side], "link", "set", dev, "up")
        if side != "r":
            _run("ip", "-n", ns[side], "route", "add", "default", "via", "10.197.%d.1" % net)
            _run("ip", "-n", ns[side], "-6", "route", "add", "default", "via", "fd97:%d::1" % net)


@pytest.fixture(scope="module")
def real_runs():
    """The ladder's output of each REAL_RUNS run, through namespaces this fixture creates and deletes. Each sender's
    link has MTU 1400; R drops forwarded packets over 1300 bytes to B (nft ``meta length``, no ICMP) and forwards to
    C over a 1350-byte link (ICMP "fragmentation needed" / "packet too big" as usual)."""
    missing = [c for c in NEEDS if not shutil.which(c)]
    if os.geteuid() != 0 or missing:
        pytest.skip("needs root and %s to build network namespaces" % ", ".join(missing or NEEDS))
    tag = uuid.uuid4().hex[:6]
    senders = {run: "s%d" % i for i, run in enumerate(REAL_RUNS)}
    ns = {n: "tfpm%s-%s" % (tag, n) for n in ["r", "b", "c"] + list(senders.values())}
    try:
        for name in ns.values():
            _run("ip", "netns", "add", name)
            _run("ip", "-n", name, "link", "set", "lo", "up")
        _link(ns, "r", "b", 1500, 2)
        _link(ns, "r", "c", 1350, 3)
        for i, sender in enumerate(senders.values()):
            _link(ns, sender, "r", 1400, 10 + i)
        _run("ip", "netns", "exec", ns["r"], "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
        _run("ip", "netns", "exec", ns["r"], "nft", "-f", "-", input='table inet tfpm {\n chain forward {\n'
             '  type filter hook forward priority 0; policy accept;\n  oifname "vb" meta length > 1300 drop\n }\n}\n')
        for target in ("10.197.2.2", "fd97:2::2", "10.197.3.2", "fd97:3::2"):  # R learns its neighbours before measuring
            subprocess.run(["ip", "netns", "exec", ns["s0"], "ping", "-c", "1", "-W", "2", target], capture_output=True, check=False)
        started = {}
        for run, (tool, target, family, low, high) in REAL_RUNS.items():
            shell, command = SHELLS[tool]
            script = ladder_script(target, family, low, high, interval_ms=20, attempts=1, ping_command=command)
            started[run] = subprocess.Popen(["ip", "netns", "exec", ns[senders[run]]] + shell + ["-c", script],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        yield {run: proc.communicate(timeout=120)[0] for run, proc in started.items()}
    finally:
        for name in ns.values():
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


@pytest.mark.parametrize("run, largest, path_mtu", [
    ("iputils_v4_black_hole", 1272, 1300),   # the black hole: silent loss over 1300
    ("busybox_v4_black_hole", 1272, 1300),
    ("iputils_v6_black_hole", 1252, 1300),
    ("busybox_v6_black_hole", 1252, 1300),
    ("iputils_v4_icmp", 1322, 1350),         # ICMP answered: the kernel learns 1350 on the way
    ("busybox_v4_icmp", 1322, 1350),
    ("iputils_v6_icmp", 1302, 1350),
    ("busybox_v6_icmp", 1302, 1350),
])
def test_the_snippet_finds_the_path_mtu_for_real(real_runs, run, largest, path_mtu):
    out = real_runs[run]
    got = parse_ladder(out)
    assert (got["tool"], got["invalid"]) == (REAL_RUNS[run][0], None), out
    assert (got["largest_passing_payload_bytes"], got["path_mtu_bytes"]) == (largest, path_mtu), out
    # the larger sizes never passed: over the sender's own 1400-byte link they were refused or fragmented, never sent whole
    assert all(p["result"] != "passed" for p in got["probes"] if p["payload_bytes"] > largest)


def test_an_address_nobody_answers_is_no_measurement_for_real(real_runs):
    got = parse_ladder(real_runs["iputils_v4_nobody"])
    assert got["path_mtu_bytes"] is None and "not even the smallest" in got["invalid"]


@pytest.mark.parametrize("body, invalid", [
    ("probe 1200 passed attempts=1\nprobe 1472 failed attempts=2\nprobe 1336 error attempts=1\nresult error rc=2\n",
     "ping could not probe 10.0.0.1 (exit status 2 at 1336 payload bytes: no route, a bad address or no ping); "
     "not a PMTU measurement"),      # the size of the last probe, the one ping could not send
    ("probe 1200 failed attempts=2\nresult none\n",
     "no probe to 10.0.0.1 was answered, not even the smallest (1200 payload bytes, a 1228-byte packet): the peer is "
     "unreachable or drops ICMP echo, which is not a PMTU finding"),
    ("probe 1200 passed attempts=1\nprobe 1500 passed attempts=1\nresult largest=1500\n",
     "1500 payload bytes passed, outside the ladder's bounds 1200-1472 (1472 is the link's MTU minus the headers): a result "
     "that cannot be true, not a PMTU measurement"),
    ("probe 1200 passed attempts=1\nprobe 1472 passed attempts=1\nprobe 1300 too-big-remote mtu=1280 attempts=1\n"
     "probe 1250 icmp-error attempts=1\nresult largest=1472\n",
     "the probes to 10.0.0.1 contradict each other: 1472 payload bytes passed but 1300 did not (too-big-remote), so the "
     "path changed during the ladder (measure again)"),     # the first such probe is named
])
def test_why_a_ladder_is_no_measurement_is_said_whole(body, invalid):
    got = parse_ladder(HEADER4 + body)
    assert (got["invalid"], got["path_mtu_bytes"], got["largest_passing_payload_bytes"]) == (invalid, None, None)


def test_a_v6_ladder_that_nothing_answered_names_the_v6_packet_size():
    got = parse_ladder("ladder tool=busybox family=6 target=fd00::1 low=1232 high=1452 interval_ms=1000 attempts=1\n"
                       "probe 1232 failed attempts=1\nresult none\n")
    assert got["invalid"] == ("no probe to fd00::1 was answered, not even the smallest (1232 payload bytes, a 1280-byte packet): "
                              "the peer is unreachable or drops ICMP echo, which is not a PMTU finding")
    assert (got["tool"], got["family"], got["interval_ms"], got["pings_sent"]) == ("busybox", 6, 1000, 1)
