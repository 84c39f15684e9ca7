# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The measurement sweep of one tunnel: which tests to run and how to read each.

What an operator runs by hand on a slow tunnel (tunnelfix.fleet issue "measurement sweep"):
TCP with one flow and with several parallel flows in both directions, UDP at a few fixed
offered rates (loss, jitter), and a conclusion - is one flow held back (congestion control,
buffers) or is the path itself the limit?

Directions are seen from the peer, which runs the iperf3 client: ``upload`` is peer -> hub
(iperf3 without ``-R``, JSON ``direction`` ``client_to_server``), ``download`` is hub -> peer
(``-R``, ``server_to_client``). Rates are bits per second, loss percent, jitter and RTT
milliseconds; unknown is None, never 0. Numbers come from the iperf3 action / ``_iperf3.
parse_iperf3_json`` (iperf3 3.12 JSON: ``end.sum_received.bits_per_second``, ``end.sum_sent.
retransmits``, UDP ``lost_percent`` and ``jitter_ms``).

What the results mean is ``_sweep_verdict.sweep_conclusion``; the report rows are
``_sweep_rows.sweep_rows``.

Pure functions, no I/O. Bad arguments raise ValueError naming the argument and the value.
"""

from __future__ import annotations

import math

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import to_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import finite_float

# UDP offered rates when the operator gives none: shares of the path when it is known ...
PATH_SHARES = (0.25, 0.5, 0.9)
# ... else these (bits per second)
DEFAULT_UDP_BITS_PER_SECOND = (1e6, 10e6, 50e6)
# iperf3 -P accepts 1-128; the parallel test needs at least 2 flows to differ from the single one
PARALLEL_RANGE = (2, 128)

DIRECTIONS = (("upload", False), ("download", True))
_IPERF3_DIRECTION = {"upload": "client_to_server", "download": "server_to_client"}
# the start of a test's invalid_reason when its sweep got no measurement slot (plugin_utils/measure/slots.py)
NOT_MEASURED = "not measured: "
_PLAN_KEYS = ("name", "protocol", "reverse", "parallel", "bitrate")


# --- helpers -----------------------------------------------------------------------------------

def _path(value, name="path_bits_per_second"):
    """The path bottleneck as a float > 0, or None for unknown (None or "")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        path = to_bits_per_second(value)
    except ValueError:
        raise ValueError("%s must be bits per second or a number with k/M/G/T ('40M'), or empty for "
                         "unknown, got %r" % (name, value)) from None
    if path <= 0:
        raise ValueError("%s must be above 0 (empty for unknown), got %r" % (name, value))
    return path


def _three_digits(value):
    """Round to three significant digits (0.9 * 40e6 -> 36000000.0, not 36000000.00000001)."""
    if value <= 0:
        return value
    return round(value, 2 - int(math.floor(math.log10(value))))


def rate_name(bits_per_second):
    """Short name of a rate for a test name: 10e6 -> "10M", 1.5e6 -> "1.5M", 500e3 -> "500k", 900 -> "900"."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if bits_per_second >= scale:
            return "%g%s" % (bits_per_second / scale, prefix)
    return "%g" % bits_per_second


def _udp_rates(udp_rates, path):
    if udp_rates is None or udp_rates == []:
        if path is None:
            return list(DEFAULT_UDP_BITS_PER_SECOND)
        if path * min(PATH_SHARES) < 1:
            # iperf3 -b 0 means "unlimited": a rate rounded down to 0 would flood the path instead
            raise ValueError("path_bits_per_second must be at least %g bit/s to derive UDP rates from it (%g %% of it "
                             "at least 1 bit/s), got %r; give udp_rates" % (1 / min(PATH_SHARES), min(PATH_SHARES) * 100,
                                                                            path))
        return [_three_digits(path * share) for share in PATH_SHARES]
    if not isinstance(udp_rates, (list, tuple)):
        raise ValueError("udp_rates must be a list of rates (bits per second or '10M'), got %r" % (udp_rates,))
    rates = []
    for index, value in enumerate(udp_rates):
        try:
            rate = to_bits_per_second(value)
        except ValueError:
            rate = None
        if rate is None or rate < 1:
            raise ValueError("udp_rates[%d] must be at least 1 bit per second, as a number or with k/M/G/T "
                             "('10M'), got %r" % (index, value))
        rates.append(rate)
    named = {}
    for rate in sorted(rates):
        other = named.setdefault(rate_name(rate), rate)
        if other != rate or rates.count(rate) > 1:
            raise ValueError("udp_rates must not repeat a rate, got %r twice in %r" % (rate_name(rate), udp_rates))
    return sorted(rates)


def _parallel(value):
    low, high = PARALLEL_RANGE
    if isinstance(value, bool):
        raise ValueError("parallel_streams must be %d-%d, got %r" % (low, high, value))
    try:
        number = int(value) if isinstance(value, (int, str)) else None
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise ValueError("parallel_streams must be %d-%d, got %r" % (low, high, value))
    return number


# --- plan --------------------------------------------------------------------------------------

def sweep_plan(path_bits_per_second=None, udp_rates=None, parallel_streams=4):
    """The ordered list of tests of one sweep.

    ``path_bits_per_second``: the path's bottleneck (a number, ``"40M"``), None or ``""`` when
    unknown. ``udp_rates``: offered UDP rates (bit/s or ``"10M"``); None or ``[]`` picks 25, 50
    and 90 % of the path (three significant digits), or 1M, 10M and 50M when the path is unknown.
    ``parallel_streams``: flows of the parallel TCP test, 2-128.

    ``(40e6, [], 4)`` →::

        [{"name": "tcp_single_upload", "protocol": "tcp", "reverse": False, "parallel": 1, "bitrate": None},
         {"name": "tcp_single_download", "protocol": "tcp", "reverse": True, "parallel": 1, "bitrate": None},
         {"name": "tcp_parallel4_upload", ...,  "parallel": 4}, {"name": "tcp_parallel4_download", ...},
         {"name": "udp_10M_upload", "protocol": "udp", "reverse": False, "parallel": 1, "bitrate": 10000000},
         {"name": "udp_10M_download", ...}, udp_20M_upload/download, udp_36M_upload/download]

    ``reverse`` False is upload (peer -> hub), True download (hub -> peer); ``bitrate`` is the
    iperf3 ``-b`` value in bit/s (UDP only, rates in ascending order). Raises ValueError naming
    the argument and the value: ``parallel_streams must be 2-128, got 1``, ``udp_rates[1] must be
    at least 1 bit per second ..., got '10X'``, a repeated rate, a path of 0 or text.
    """
    path = _path(path_bits_per_second)
    parallel = _parallel(parallel_streams)
    rates = _udp_rates(udp_rates, path)
    tests = []
    for direction, reverse in DIRECTIONS:
        tests.append({"name": "tcp_single_%s" % direction, "protocol": "tcp", "reverse": reverse,
                      "parallel": 1, "bitrate": None})
    for direction, reverse in DIRECTIONS:
        tests.append({"name": "tcp_parallel%d_%s" % (parallel, direction), "protocol": "tcp", "reverse": reverse,
                      "parallel": parallel, "bitrate": None})
    for rate in rates:
        for direction, reverse in DIRECTIONS:
            tests.append({"name": "udp_%s_%s" % (rate_name(rate), direction), "protocol": "udp", "reverse": reverse,
                          "parallel": 1, "bitrate": int(round(rate))})
    return tests


# --- one result --------------------------------------------------------------------------------

def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_test(test):
    if not isinstance(test, dict) or any(key not in test for key in _PLAN_KEYS):
        raise ValueError("test must be a sweep_plan entry with %s, got %r" % (", ".join(_PLAN_KEYS), test))
    if test["protocol"] not in ("tcp", "udp") or not isinstance(test["reverse"], bool):
        raise ValueError("test must have protocol tcp or udp and a boolean reverse, got %r" % (test,))
    if not isinstance(test["name"], str) or not test["name"]:
        raise ValueError("test.name must be a non-empty string, got %r" % (test["name"],))
    if not _whole(test["parallel"]) or not 1 <= test["parallel"] <= PARALLEL_RANGE[1]:
        raise ValueError("test.parallel of %s must be 1-%d, got %r" % (test["name"], PARALLEL_RANGE[1], test["parallel"]))


def _range_reasons(entry, raw):
    """Why the numbers of ``raw`` (an iperf3 result) cannot be used; fills ``entry`` with the usable ones."""
    reasons = []
    checks = (("bits_per_second", None), ("retransmits", None), ("lost_percent", 100.0),
              ("jitter_ms", None), ("mean_rtt_ms", None))
    for key, high in checks:
        value = raw.get(key)
        if value is None:
            continue
        number = finite_float(value)
        if number is None:
            reasons.append("%s is %r, not a finite number" % (key, value))
            continue
        if number < 0 and high is None:
            reasons.append("%s is %r, negative" % (key, value))
        elif number < 0 or (high is not None and number > high):
            reasons.append("%s is %r, outside 0-%g" % (key, value, high))
        entry[key] = int(number) if key == "retransmits" else number
    return reasons


def _mismatch_reasons(test, direction, raw):
    reasons = []
    protocol = raw.get("protocol")
    if protocol is not None and str(protocol).lower() != test["protocol"]:
        reasons.append("iperf3 ran %s, the test is %s" % (protocol, test["protocol"].upper()))
    ran = raw.get("direction")
    if ran is not None and ran != _IPERF3_DIRECTION[direction]:
        reasons.append("iperf3 ran %s, the test is %s (%s)" % (ran, direction, _IPERF3_DIRECTION[direction]))
    streams = raw.get("num_streams")
    if streams is not None and streams != test["parallel"]:
        reasons.append("iperf3 ran %r stream(s), the test asks for %d" % (streams, test["parallel"]))
    return reasons


def sweep_result(test, iperf3_result):
    """One test's result, normalised and judged usable or not.

    ``test``: a sweep_plan entry. ``iperf3_result``: what the ``tunnelfix.fleet.iperf3`` action
    returned (registered, possibly ``failed`` with ``msg``), or a ``parse_iperf3_json`` result
    (``receiver_bits_per_second`` is read when ``bits_per_second`` is absent); None when the test
    did not run.

    Returns::

        {"name": "udp_10M_upload", "protocol": "udp", "direction": "upload",   # or "download"
         "parallel": 1, "offered_bits_per_second": 10000000.0,   # None for TCP (no -b)
         "bits_per_second": 9950000.0,     # receiver side, all flows together
         "retransmits": None,              # TCP sender; None when not reported
         "lost_percent": 0.5, "jitter_ms": 0.8,   # UDP; None for TCP
         "mean_rtt_ms": None,              # TCP upload only (the sender's tcp_info)
         "congestion_control": None,       # TCP sender's, when iperf3 reports it
         "valid": True, "invalid_reason": None}

    ``valid`` is False, with every reason in ``invalid_reason`` ("; "-joined), when the test did
    not run (``not run``; ``not measured: <why>`` when ``iperf3_result`` is ``{"not_measured_reason": why}``,
    a sweep that got no measurement slot), failed (``failed: <msg>``), iperf3 called it invalid (``iperf3:
    <its reason>``), a number is NaN/infinite/not a number, a rate, count, jitter or RTT is
    negative, loss is outside 0-100, the receiver rate is missing, a UDP result has no loss (``UDP
    loss unknown: <why>`` when iperf3 could not vouch for it: an unknown loss is never 0), or iperf3
    ran another protocol, direction or number of streams than the test. Numbers that are
    not finite are None in the entry (the reason quotes them), so the entry is plain JSON.
    Raises ValueError when ``test`` is not a sweep_plan entry or ``iperf3_result`` not a dict.
    """
    _check_test(test)
    if iperf3_result is not None and not isinstance(iperf3_result, dict):
        raise ValueError("iperf3_result of %s must be the iperf3 action's result (a dict) or None, got %s %r"
                         % (test["name"], type(iperf3_result).__name__, iperf3_result))
    direction = "download" if test["reverse"] else "upload"
    offered = None if test["bitrate"] is None else to_bits_per_second(test["bitrate"])
    entry = {"name": test["name"], "protocol": test["protocol"], "direction": direction,
             "parallel": test["parallel"], "offered_bits_per_second": offered,
             "bits_per_second": None, "retransmits": None, "lost_percent": None, "jitter_ms": None,
             "mean_rtt_ms": None, "congestion_control": None, "valid": False, "invalid_reason": None}
    raw = dict(iperf3_result or {})
    if not raw:
        entry["invalid_reason"] = "not run"
        return entry
    if raw.get("not_measured_reason"):
        entry["invalid_reason"] = "%s%s" % (NOT_MEASURED, raw["not_measured_reason"])
        return entry
    if raw.get("failed"):
        entry["invalid_reason"] = "failed: %s" % (raw.get("msg") or "no message")
        return entry
    if raw.get("skipped"):
        entry["invalid_reason"] = "not run: %s" % (raw.get("msg") or raw.get("skip_reason") or "skipped")
        return entry
    if raw.get("bits_per_second") is None:
        raw["bits_per_second"] = raw.get("receiver_bits_per_second")
    reasons, said = [], set()
    if raw.get("valid") is False:
        reasons.append("iperf3: %s" % (raw.get("invalid_reason") or "invalid result"))
        said = set(str(raw.get("invalid_reason") or "").split("; "))
    reasons += _mismatch_reasons(test, direction, raw)
    # a range iperf3 already named (its lost_percent check is the same) is not repeated
    reasons += [reason for reason in _range_reasons(entry, raw) if reason not in said]
    if raw.get("bits_per_second") is None:
        reasons.append("no receiver bits_per_second")
    if test["protocol"] == "udp" and raw.get("lost_percent") is None:
        unknown = raw.get("lost_unknown_reason")
        reasons.append("UDP loss unknown: %s" % unknown if unknown else "no lost_percent in a UDP result")
    cc = raw.get("sender_congestion_control")
    entry["congestion_control"] = cc if isinstance(cc, str) and cc else None
    entry["valid"] = not reasons
    entry["invalid_reason"] = "; ".join(reasons) or None
    return entry


def _check_results(results, name="results"):
    if not isinstance(results, (list, tuple)):
        raise ValueError("%s must be a list of sweep_result entries, got %s %r" % (name, type(results).__name__, results))
    for index, entry in enumerate(results):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ValueError("%s[%d] must be a sweep_result entry (a dict with a name), got %r" % (name, index, entry))
        for key, what, good in _ENTRY_CHECKS:
            value = entry.get(key)
            if value is not None and not good(value):
                raise ValueError("%s[%d].%s (%s) must be %s or null, got %r" % (name, index, key, entry["name"], what, value))
    return results


# What the keys of a sweep_result entry hold (each may also be None); anything else is refused, not guessed.
_ENTRY_CHECKS = (
    ("protocol", "tcp or udp", lambda v: v in ("tcp", "udp")),
    ("direction", "upload or download", lambda v: v in ("upload", "download")),
    ("parallel", "a whole number of flows >= 1", lambda v: _whole(v) and v >= 1),
    ("congestion_control", "a string", lambda v: isinstance(v, str)),
    ("valid", "true or false", lambda v: isinstance(v, bool)),
) + tuple((key, "a finite number", lambda v: finite_float(v) is not None)
          for key in ("offered_bits_per_second", "bits_per_second", "retransmits", "lost_percent", "jitter_ms",
                      "mean_rtt_ms"))
