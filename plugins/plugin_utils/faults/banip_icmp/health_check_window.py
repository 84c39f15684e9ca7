# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A passive window on an OpenWrt router: banIP's ICMP flood counter and mwan3track's failures, nothing sent.

banIP's ICMP flood limit drops what the router's own ICMP traffic sends over it (mwan3track's
pings, a monitoring pinger on the router or the LAN). To see that without causing it, the window
sends nothing: it reads the router's clock and banIP's counters, sleeps ``window_s``, reads both
again, then mwan3track's lines in the system log. One remote execution (the batch of
``remote/batch.py``), the steps ``window_steps`` lists; ``read_window`` turns their results into
the numbers. Pure functions, no I/O.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.logread import failures_in_window, parse_mwan3track_log
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import icmp_flood_counter, parse_nft_counters
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import NOT_FOUND

MAX_WINDOW_S = 600
CLOCK = ["date", "+%s"]
# banIP's counters only (its table also holds the feeds' sets, thousands of elements)
COUNTERS_JSON = ["nft", "-j", "list", "counters", "table", "inet", "banIP"]
COUNTERS_TEXT = ["nft", "list", "counters", "table", "inet", "banIP"]
# ubox logread: -t adds each message's time in epoch seconds, -e keeps the messages matching the pattern
MWAN3_LOG = ["logread", "-t", "-e", "mwan3track"]
START, END = "start", "end"
LOG_STEP = "mwan3track's log"
SLEEP_STEP = "the window"


def step_names(end):
    """The names of one end's steps: ``(clock, counters, counters as text)``."""
    return ("clock at the %s" % end, "banIP's counters at the %s" % end, "banIP's counters at the %s (text)" % end)


def window_steps(window_s: int) -> list:
    """The batch: clock and counters, ``sleep window_s``, clock and counters, mwan3track's log.

    The text listing runs only when the JSON one failed (an nft without JSON support; a missing table
    fails both). Raises ValueError naming ``window_s`` unless it is a whole number 1-MAX_WINDOW_S.
    """
    if isinstance(window_s, bool) or not isinstance(window_s, int) or not 1 <= window_s <= MAX_WINDOW_S:
        raise ValueError("window_s must be a whole number 1-%d seconds, got %r" % (MAX_WINDOW_S, window_s))
    steps = []
    for end in (START, END):
        if end == END:
            steps.append(Step(SLEEP_STEP, ["sleep", str(window_s)]))
        clock, counters, text = step_names(end)
        steps += [Step(clock, CLOCK), Step(counters, COUNTERS_JSON), Step(text, COUNTERS_TEXT, after_failure=True)]
    return steps + [Step(LOG_STEP, MWAN3_LOG)]


def _clock(got):
    text = (got or {}).get("stdout", "").strip()
    if (got or {}).get("rc") != 0 or not text.isdigit():
        raise ParseError("date +%%s: expected the epoch seconds, got rc=%s %r" % ((got or {}).get("rc"), text[:100]))
    return int(text)


def _counter(json_step, text_step):
    """``(counter or None, why None)`` from one end's listings (``{rc, stdout, stderr}``; the text one may be None)."""
    for got in (json_step, text_step):
        if got is not None and got["rc"] == 0:
            counter = icmp_flood_counter(parse_nft_counters(got["stdout"], table="banIP"))
            return counter, None if counter else "banIP's table has no ICMP flood counter"
    last = text_step or json_step
    if last["rc"] == NOT_FOUND:
        return None, "nft is not installed"
    if "No such file or directory" in last["stderr"]:
        return None, "banIP's nft table inet banIP is not loaded"
    raise ParseError("nft list counters table inet banIP failed with rc=%s: %s" % (last["rc"], last["stderr"].strip()[:300]))


def read_window(steps: dict, window_s: int) -> dict:
    """The window's numbers from the batch's results (``{step name: {rc, stdout, stderr}}``, see window_steps).

    → ``{"window_s": 30, "measured_s": 30, "started_epoch_s": 1796033900, "ended_epoch_s": 1796033930,
    "icmp_counter_name": "cnt_icmpflood", "icmp_counter_start_packets": 152, "icmp_counter_end_packets": 170,
    "icmp_flood_growth_packets": 18, "icmp_counter_note": None, "mwan3_failed_checks": 2, "mwan3_lost_pings": 2,
    "mwan3_offline_events": 0, "mwan3_failed_interfaces": ["wan"], "mwan3_log_note": None}``.

    The growth is None, and ``icmp_counter_note`` says why, when the counter was not there at both
    ends (nft not installed, banIP's table not loaded) or went back (banIP reloaded in the window,
    which resets it). The mwan3 counts are None, and ``mwan3_log_note`` says why, when logread is
    missing or failed (BusyBox's logread has no -t or -e) or printed a line in a shape not known. Raises
    ParseError for a clock that is not epoch seconds or went back, an nft listing that failed otherwise, or
    nft output that does not parse.
    """
    start, end = _clock(steps.get(step_names(START)[0])), _clock(steps.get(step_names(END)[0]))
    if end < start:
        raise ParseError("the router's clock went back during the window (%d at the start, %d at the end): the window is "
                         "not measured" % (start, end))
    counters = [_counter(steps[step_names(side)[1]], steps.get(step_names(side)[2])) for side in (START, END)]
    (first, first_note), (last, last_note) = counters
    growth, note = None, first_note or last_note
    if first and last:
        if first["name"] != last["name"] or last["packets"] < first["packets"]:
            note = ("banIP's ICMP flood counter went from %s %s to %s %s packets: banIP was reloaded in the window"
                    % (first["name"], first["packets"], last["name"], last["packets"]))
        else:
            growth = last["packets"] - first["packets"]
    result = {"window_s": window_s, "measured_s": end - start, "started_epoch_s": start, "ended_epoch_s": end,
              "icmp_counter_name": (last or first or {}).get("name"),
              "icmp_counter_start_packets": (first or {}).get("packets"), "icmp_counter_end_packets": (last or {}).get("packets"),
              "icmp_flood_growth_packets": growth, "icmp_counter_note": note}
    result.update(_mwan3_log(steps[LOG_STEP], start, end))
    return result


def _mwan3_log(got, start, end):
    failures = {"mwan3_failed_checks": None, "mwan3_lost_pings": None, "mwan3_offline_events": None,
                "mwan3_failed_interfaces": [], "mwan3_log_note": None}
    if got["rc"] == NOT_FOUND:
        return dict(failures, mwan3_log_note="logread is not installed")
    if got["rc"] != 0:
        return dict(failures, mwan3_log_note="%s failed with rc=%s (a logread without -t and -e?): %s"
                    % (" ".join(MWAN3_LOG), got["rc"], (got["stderr"] or got["stdout"]).strip()[:200]))
    try:
        counts = failures_in_window(parse_mwan3track_log(got["stdout"]), start, end)
    except ParseError as exc:   # a log line in a shape we do not know: the counts are unknown, the window still stands
        return dict(failures, mwan3_log_note="mwan3track's log did not parse: %s" % exc)
    return dict(failures, mwan3_failed_checks=counts["failed_checks"], mwan3_lost_pings=counts["lost_pings"],
                mwan3_offline_events=counts["offline_events"], mwan3_failed_interfaces=counts["interfaces"])
