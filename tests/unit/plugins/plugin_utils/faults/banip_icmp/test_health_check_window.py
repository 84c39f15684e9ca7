# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The passive window's steps and the reading of their results: counter growth and mwan3track's failures."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.health_check_window import (
    LOG_STEP, MAX_WINDOW_S, SLEEP_STEP, read_window, step_names, window_steps)

START = 1772442840   # logread/case05_mwan3_t.txt: failures from 1772442843 to 1772442880
NO_TABLE = "nft_stderr/netns_no_banip_table.txt"   # nft's answer without the table: rc 1, this stderr


def ok(stdout):
    return {"rc": 0, "stdout": stdout, "stderr": ""}


def steps(load_fixture, start=START, end=START + 30, first="netns_banip_counters_410.txt", last="netns_banip_counters_468.txt",
          log=None):
    """The batch's results: JSON counter listings at both ends (the text fallback skipped), the case 05 log."""
    out = {}
    for side, clock, fixture in (("start", start, first), ("end", end, last)):
        names = step_names(side)
        out[names[0]] = ok("%d\n" % clock)
        out[names[1]] = ok(load_fixture("nft_j_list", fixture)) if isinstance(fixture, str) else fixture
    out[SLEEP_STEP] = ok("")
    out[LOG_STEP] = log or ok(load_fixture("logread", "case05_mwan3_t.txt"))
    return out


def test_the_steps_sleep_between_two_readings():
    names = [step.name for step in window_steps(30)]
    assert names == ["clock at the start", "banIP's counters at the start", "banIP's counters at the start (text)",
                     SLEEP_STEP, "clock at the end", "banIP's counters at the end", "banIP's counters at the end (text)", LOG_STEP]
    assert window_steps(30)[3].argv == ["sleep", "30"]
    assert [step.after_failure for step in window_steps(1)] == [False, False, True, False, False, False, True, False]


@pytest.mark.parametrize("window_s", [0, MAX_WINDOW_S + 1, -1, True, "30", 1.5])
def test_a_bad_window_is_refused(window_s):
    with pytest.raises(ValueError, match="window_s must be a whole number 1-600 seconds, got"):
        window_steps(window_s)


def test_growth_and_failures_in_the_window(load_fixture):
    got = read_window(steps(load_fixture), 30)
    assert got == {"window_s": 30, "measured_s": 30, "started_epoch_s": START, "ended_epoch_s": START + 30,
                   "icmp_counter_name": "cnt_icmpflood", "icmp_counter_start_packets": 410, "icmp_counter_end_packets": 468,
                   "icmp_flood_growth_packets": 58, "icmp_counter_note": None,
                   # 09:14:03-09:14:10 of case 05: wan's 2 failed checks and 4 lost pings, wanb's 1, one disconnecting
                   "mwan3_failed_checks": 3, "mwan3_lost_pings": 4, "mwan3_offline_events": 1,
                   "mwan3_failed_interfaces": ["wan", "wanb"], "mwan3_log_note": None}


def test_a_static_counter_and_a_quiet_log(load_fixture):
    got = read_window(steps(load_fixture, start=START - 100, end=START - 70, last="netns_banip_counters_410.txt"), 30)
    assert (got["icmp_flood_growth_packets"], got["mwan3_failed_checks"], got["mwan3_lost_pings"]) == (0, 0, 0)


def test_the_text_listing_when_nft_has_no_json(load_fixture):
    batch = steps(load_fixture, first={"rc": 1, "stdout": "", "stderr": "Error: JSON support not compiled-in\n"})
    batch["banIP's counters at the start (text)"] = ok(load_fixture("nft_list", "netns_banip_counters_410.txt"))
    assert read_window(batch, 30)["icmp_flood_growth_packets"] == 58


@pytest.mark.parametrize("first, last, note", [
    (NO_TABLE, "netns_banip_counters_468.txt", "banIP's nft table inet banIP is not loaded"),
    ("netns_banip_counters_410.txt", NO_TABLE, "banIP's nft table inet banIP is not loaded"),
    ({"rc": 127, "stdout": "", "stderr": "sh: nft: not found\n"}, {"rc": 127, "stdout": "", "stderr": "sh: nft: not found\n"},
     "nft is not installed"),
    ("netns_banip_counters_468.txt", "netns_banip_counters_12_reloaded.txt",
     "banIP's ICMP flood counter went from cnt_icmpflood 468 to cnt_icmpflood 12 packets: banIP was reloaded in the window"),
    # a table without the counter (recorded listing of all tables, banIPold's only)
    (ok('{"nftables": [{"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}}]}'),
     "netns_banip_counters_468.txt", "banIP's table has no ICMP flood counter"),
])
def test_no_growth_without_the_counter_at_both_ends(load_fixture, first, last, note):
    first, last = ({"rc": 1, "stdout": "", "stderr": load_fixture(*NO_TABLE.split("/"))} if listing == NO_TABLE else listing
                   for listing in (first, last))
    got = read_window(steps(load_fixture, first=first, last=last), 30)
    assert got["icmp_flood_growth_packets"] is None and got["icmp_counter_note"] == note


@pytest.mark.parametrize("log, note", [
    ({"rc": 127, "stdout": "", "stderr": "sh: logread: not found\n"}, "logread is not installed"),
    # a log line in a shape not known: the counts are unknown, the counter's growth still stands
    (ok("this is not a log\n"), "mwan3track's log did not parse: logread line 1"),
    ("busybox", "logread -t -e mwan3track failed with rc=1 (a logread without -t and -e?): logread: invalid option -- 't'"),
])
def test_no_mwan3_counts_without_a_usable_logread(load_fixture, log, note):
    if log == "busybox":   # recorded: BusyBox 1.35's logread, rc 1
        log = {"rc": 1, "stdout": "", "stderr": load_fixture("logread_stderr", "busybox_1.35_t_e.txt")}
    got = read_window(steps(load_fixture, log=log), 30)
    assert got["mwan3_failed_checks"] is None and got["mwan3_lost_pings"] is None and got["mwan3_failed_interfaces"] == []
    assert got["mwan3_log_note"].startswith(note) and got["icmp_flood_growth_packets"] == 58


@pytest.mark.parametrize("change, error", [
    ({"clock at the end": ok("%d\n" % (START - 1))},
     "the router's clock went back during the window (1772442840 at the start, 1772442839 at the end)"),
    ({"clock at the start": ok("Mon Mar  2 09:14:00 UTC 2026\n")}, "date +%s: expected the epoch seconds"),
    ({"clock at the start": {"rc": 127, "stdout": "", "stderr": "sh: date: not found"}}, "date +%s: expected the epoch seconds, got rc=127"),
    ({"banIP's counters at the start": {"rc": 1, "stdout": "", "stderr": "Error: Operation not permitted\n"}},
     "nft list counters table inet banIP failed with rc=1: Error: Operation not permitted"),
])
def test_what_cannot_be_true_fails_naming_it(load_fixture, change, error):
    batch = dict(steps(load_fixture), **change)
    with pytest.raises(ParseError, match=re.escape(error)):
        read_window(batch, 30)
