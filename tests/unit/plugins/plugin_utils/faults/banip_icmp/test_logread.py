# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""mwan3track's failures in logread output, and their count inside a window."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.logread import failures_in_window, parse_mwan3track_log

WAN, WANB = {"interface": "wan", "device": "eth1"}, {"interface": "wanb", "device": "wwan0"}


def test_case05_with_times(load_fixture):
    events = parse_mwan3track_log(load_fixture("logread", "case05_mwan3_t.txt"))
    assert events == [
        dict(WAN, time_s=1772442843, kind="check_failed", target="208.67.220.220", lost_pings=None),
        dict(WAN, time_s=1772442844, kind="check_failed", target="1.1.1.1", lost_pings=None),
        dict(WAN, time_s=1772442845, kind="lost", target=None, lost_pings=4),
        dict(WANB, time_s=1772442845, kind="check_failed", target="1.0.0.1", lost_pings=None),
        dict(WAN, time_s=1772442847, kind="disconnecting", target=None, lost_pings=None),
        # check_quality's form of a failed check
        dict(WANB, time_s=1772442871, kind="check_failed", target="1.1.1.1", lost_pings=None),
        dict(WANB, time_s=1772442880, kind="offline", target=None, lost_pings=None),
        # left out: a successful check, mwan3's (not mwan3track's) line naming mwan3track, an ifup event
    ]


def test_case05_verbatim_has_no_times(load_fixture):
    events = parse_mwan3track_log(load_fixture("logread", "case05_mwan3.txt"))
    assert [(e["kind"], e["interface"], e["time_s"]) for e in events] == [
        ("check_failed", "wan", None), ("check_failed", "wan", None), ("lost", "wan", None),
        ("check_failed", "wanb", None), ("disconnecting", "wan", None)]


@pytest.mark.parametrize("text", ["", "\n"])
def test_nothing_logged_is_no_event(text):
    assert parse_mwan3track_log(text) == []


@pytest.mark.parametrize("text, error", [
    ("logread: invalid option -- 't'\n", "logread line 1: expected 'Www Mmm dd hh:mm:ss yyyy [s.ms] facility.priority message'"),
    ("Mar  2 09:14:03 owrt user.info mwan3track[1873]: Lost 1 ping(s) on interface wan (eth1).\n",  # BusyBox syslogd's shape
     "logread line 1"),
    (None, "logread output must be text, got NoneType"),
])
def test_output_not_in_logreads_shape(text, error):
    with pytest.raises(ParseError, match=re.escape(error)):
        parse_mwan3track_log(text)


def test_the_busybox_logread_message_is_not_log_output(load_fixture):
    with pytest.raises(ParseError, match="logread line 1"):
        parse_mwan3track_log(load_fixture("logread_stderr", "busybox_1.35_t_e.txt"))


@pytest.mark.parametrize("start, end, expected", [
    # the whole fixture
    (1772442800, 1772442900, {"failed_checks": 4, "lost_pings": 4, "offline_events": 2, "interfaces": ["wan", "wanb"]}),
    # both ends included: the second the window starts and the one it ends
    (1772442845, 1772442847, {"failed_checks": 1, "lost_pings": 4, "offline_events": 1, "interfaces": ["wan", "wanb"]}),
    (1772442846, 1772442846, {"failed_checks": 0, "lost_pings": 0, "offline_events": 0, "interfaces": []}),
    # just before and just after the failures
    (1772442830, 1772442842, {"failed_checks": 0, "lost_pings": 0, "offline_events": 0, "interfaces": []}),
    (1772442881, 1772442911, {"failed_checks": 0, "lost_pings": 0, "offline_events": 0, "interfaces": []}),
    (1772442843, 1772442843, {"failed_checks": 1, "lost_pings": 0, "offline_events": 0, "interfaces": ["wan"]}),
])
def test_failures_in_window(load_fixture, start, end, expected):
    events = parse_mwan3track_log(load_fixture("logread", "case05_mwan3_t.txt"))
    assert failures_in_window(events, start, end) == expected


def test_a_line_without_a_time_cannot_be_placed(load_fixture):
    events = parse_mwan3track_log(load_fixture("logread", "case05_mwan3.txt"))
    with pytest.raises(ParseError, match="mwan3track's log line for wan has no time"):
        failures_in_window(events, 0, 2 ** 40)
    assert failures_in_window([], 0, 1) == {"failed_checks": 0, "lost_pings": 0, "offline_events": 0, "interfaces": []}


# Each release's own mwan3track run against loopback targets (fixtures/README.md): two targets, reliability 1,
# down 2, up 2; both dropped, one back, ifdown, ifup. The texts are the same on every release.
RECORDED_EVENTS = [
    ("check_failed", "10.99.0.1", None), ("check_failed", "10.99.0.2", None), ("disconnecting", None, None),
    ("check_failed", "10.99.0.1", None), ("check_failed", "10.99.0.2", None), ("offline", None, None),
    # score at or under `up`: failed checks are not logged, the next passing round logs them all as lost
    ("lost", None, 13), ("lost", None, 1),
    # online again with one target down: each round pings the dead one first, logs it and reaches the live one
    ("check_failed", "10.99.0.1", None), ("check_failed", "10.99.0.1", None), ("check_failed", "10.99.0.1", None),
    ("check_failed", "10.99.0.1", None),
    ("offline", None, None),  # after "Detect ifdown event": an ifdown, counted like a failure (see the report)
    ("lost", None, 1),
    ("check_failed", "10.99.0.1", None), ("check_failed", "10.99.0.1", None), ("check_failed", "10.99.0.1", None),
]


@pytest.mark.parametrize("release", ["23.05", "24.10", "25.12", "master"])
def test_each_releases_mwan3track(load_fixture, release):
    text = load_fixture("logread", "%s_mwan3track.txt" % release)
    events = parse_mwan3track_log(text)
    assert [(e["kind"], e["target"], e["lost_pings"]) for e in events] == RECORDED_EVENTS
    assert {(e["interface"], e["device"]) for e in events} == {("wan", "eth1")}
    times = [e["time_s"] for e in events]
    assert times == sorted(times) and all(isinstance(t, int) for t in times)
    assert failures_in_window(events, times[0], times[-1]) == {"failed_checks": 11, "lost_pings": 15, "offline_events": 3,
                                                               "interfaces": ["wan"]}
    # left out: the online/connecting changes, successful checks, ifdown/ifup and the stop message
    assert len(text.splitlines()) == 28 and len(events) == 17
