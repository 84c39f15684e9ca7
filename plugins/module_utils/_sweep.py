# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The measurement sweep of one tunnel: which tests to run, how to read each, what they mean.

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

Pure functions, no I/O. Bad arguments raise ValueError naming the argument and the value.
"""

from __future__ import annotations

import math

from ansible_collections.tunnelfix.fleet.plugins.module_utils._bitrate import (
    format_bits_per_second,
    to_bits_per_second,
)

# UDP offered rates when the operator gives none: shares of the path when it is known ...
PATH_SHARES = (0.25, 0.5, 0.9)
# ... else these (bits per second)
DEFAULT_UDP_BITS_PER_SECOND = (1e6, 10e6, 50e6)
# iperf3 -P accepts 1-128; the parallel test needs at least 2 flows to differ from the single one
PARALLEL_RANGE = (2, 128)

# Verdict thresholds (the rules, see sweep_conclusion)
PARALLEL_GAIN = 1.5          # parallel sum >= 1.5x one flow, same direction: single-flow limit
FLAT_GAIN = 1.2              # parallel sum <= 1.2x one flow: more flows gain nothing, the path is full
PATH_SHARE = 0.8             # one flow >= 80 % of the path: path limit
ASYMMETRY = 2.0              # best upload and best download differ by more than 2x: asymmetric
UDP_MAX_LOST_PERCENT = 1.0   # UDP loss above 1 % at an offered rate below the path: the path loses packets
PATH_ABOVE = 1.1             # TCP above 1.1x the stated path: the explanation says the path looks wrong

VERDICTS = ("single_flow_limit", "path_limit", "asymmetric", "udp_loss_below_path", "inconclusive")
DIRECTIONS = (("upload", False), ("download", True))
_IPERF3_DIRECTION = {"upload": "client_to_server", "download": "server_to_client"}
_ARROW = {"upload": "peer -> hub", "download": "hub -> peer"}
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


def _finite(value):
    """A finite float from a number, else None (None, text, bool, NaN, inf)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


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
        number = _finite(value)
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
    not run (``not run``), failed (``failed: <msg>``), iperf3 called it invalid (``iperf3:
    <its reason>``), a number is NaN/infinite/not a number, a rate, count, jitter or RTT is
    negative, loss is outside 0-100, the receiver rate is missing, a UDP result has no loss, or
    iperf3 ran another protocol, direction or number of streams than the test. Numbers that are
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
        reasons.append("no lost_percent in a UDP result")
    cc = raw.get("sender_congestion_control")
    entry["congestion_control"] = cc if isinstance(cc, str) and cc else None
    entry["valid"] = not reasons
    entry["invalid_reason"] = "; ".join(reasons) or None
    return entry


# --- conclusion --------------------------------------------------------------------------------

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
) + tuple((key, "a finite number", lambda v: _finite(v) is not None)
          for key in ("offered_bits_per_second", "bits_per_second", "retransmits", "lost_percent", "jitter_ms",
                      "mean_rtt_ms"))


def _usable(entry):
    return entry.get("valid") is True and _finite(entry.get("bits_per_second")) is not None


def _ratio(high, low):
    if high is None or low is None:
        return None
    if low == 0:
        return math.inf if high > 0 else None
    return high / low


def _rate(value):
    return format_bits_per_second(value)


def _times(ratio):
    return "infinitely more" if ratio == math.inf else "%.1fx" % ratio


def _tcp_numbers(valid):
    """Per direction: one flow, parallel flows (sum), their streams, the best TCP rate."""
    numbers = {}
    for direction, _reverse in DIRECTIONS:
        tcp = [e for e in valid if e.get("protocol") == "tcp" and e.get("direction") == direction]
        single = [e["bits_per_second"] for e in tcp if e.get("parallel") == 1]
        parallel = [e for e in tcp if (e.get("parallel") or 1) > 1]
        numbers[direction] = {
            "single": single[-1] if single else None,
            "parallel": parallel[-1]["bits_per_second"] if parallel else None,
            "streams": parallel[-1]["parallel"] if parallel else None,
            "best": max([e["bits_per_second"] for e in tcp], default=None),
        }
    return numbers


def _udp_losses(valid, path, tcp):
    """UDP tests offered below what the path should carry and losing more than UDP_MAX_LOST_PERCENT."""
    lossy = []
    for entry in valid:
        if entry.get("protocol") != "udp":
            continue
        offered, lost = _finite(entry.get("offered_bits_per_second")), _finite(entry.get("lost_percent"))
        if path is not None:
            reference = path
        else:
            reference = (tcp.get(entry.get("direction")) or {}).get("best")
        if offered is None or lost is None or reference is None:
            continue
        below = offered < reference if path is not None else offered <= reference
        if below and lost > UDP_MAX_LOST_PERCENT:
            lossy.append({"name": entry["name"], "offered_bits_per_second": offered, "lost_percent": lost,
                          "reference_bits_per_second": reference})
    return lossy


def sweep_conclusion(results, path_bits_per_second=None):
    """What the sweep says about the tunnel: one verdict, a paragraph with the numbers, the numbers.

    ``results``: sweep_result entries (invalid ones are left out and listed in ``excluded``).
    ``path_bits_per_second``: the path's bottleneck (number or ``"40M"``; None or ``""`` unknown).

    Rules (the issue's; thresholds are the module constants), checked in this order, the first
    that holds is the ``verdict``; every rule that holds is in ``rules``:

    1. ``inconclusive`` - no valid single-flow TCP result in either direction.
    2. ``single_flow_limit`` - in a direction, the parallel flows together get at least
       PARALLEL_GAIN (1.5x) what one flow gets: one flow is held back by its congestion control or
       socket buffers, not by the path.
    3. ``asymmetric`` - the best TCP rate of upload and of download differ by more than ASYMMETRY (2x).
    4. ``path_limit`` - the path is known and one flow gets at least PATH_SHARE (80 %) of it in every
       direction measured.
    5. ``udp_loss_below_path`` - a UDP test offered below the path (without a known path: at most
       the best TCP rate of its direction) lost more than UDP_MAX_LOST_PERCENT (1 %): the path loses
       packets at rates it should carry (random loss, a policer, or a narrower path than stated).
    6. ``path_limit`` - in every direction with both TCP tests the parallel flows get at most
       FLAT_GAIN (1.2x) of one flow: more flows gain nothing, so the path (whatever it really is) is full.
    7. otherwise ``inconclusive`` (say, parallel 1.2-1.5x one flow, or no parallel result and no path).

    The explanation also says when TCP got more than PATH_ABOVE (1.1x) the stated path (the path
    given is wrong), how the directions compare and which UDP tests lost packets.

    Returns ``{"verdict", "explanation" (one paragraph), "rules": [rule ids that held, in order:
    "single_flow_limit", "asymmetric", "path_limit_share", "udp_loss_below_path", "path_limit_flat"],
    "path_bits_per_second", "single_upload_bits_per_second", "single_download_bits_per_second",
    "parallel_upload_bits_per_second", "parallel_download_bits_per_second", "parallel_streams",
    "parallel_gain_upload", "parallel_gain_download" (parallel / single), "path_share_upload",
    "path_share_download" (single / path), "direction_ratio" (best TCP rate, higher / lower
    direction), "udp_lossy": [{"name", "offered_bits_per_second", "lost_percent",
    "reference_bits_per_second"}], "excluded": [{"name", "invalid_reason"}]}``; unknown numbers are
    None (a ratio against 0 bit/s is ``inf``). Raises ValueError for results that are not a list
    of entries or a bad path.
    """
    _check_results(results)
    path = _path(path_bits_per_second)
    valid = [entry for entry in results if _usable(entry)]
    excluded = [{"name": entry["name"], "invalid_reason": entry.get("invalid_reason") or "invalid"}
                for entry in results if not _usable(entry)]
    tcp = _tcp_numbers(valid)
    gains = {d: _ratio(tcp[d]["parallel"], tcp[d]["single"]) for d in tcp}
    shares = {d: _ratio(tcp[d]["single"], path) if path else None for d in tcp}
    bests = sorted(tcp[d]["best"] for d in tcp if tcp[d]["best"] is not None)
    direction_ratio = _ratio(bests[-1], bests[0]) if len(bests) == 2 else None
    lossy = _udp_losses(valid, path, tcp)
    singles = [d for d in tcp if tcp[d]["single"] is not None]
    flat = [d for d in tcp if gains[d] is not None]

    rules = []
    if any(gain is not None and gain >= PARALLEL_GAIN for gain in gains.values()):
        rules.append("single_flow_limit")
    if direction_ratio is not None and direction_ratio > ASYMMETRY:
        rules.append("asymmetric")
    if singles and path and all(shares[d] >= PATH_SHARE for d in singles):
        rules.append("path_limit_share")
    if lossy:
        rules.append("udp_loss_below_path")
    if flat and all(gains[d] <= FLAT_GAIN for d in flat):
        rules.append("path_limit_flat")

    verdict = "inconclusive"
    if singles and rules:
        verdict = {"path_limit_share": "path_limit", "path_limit_flat": "path_limit"}.get(rules[0], rules[0])
    conclusion = {
        "verdict": verdict,
        "rules": rules,
        "path_bits_per_second": path,
        "single_upload_bits_per_second": tcp["upload"]["single"],
        "single_download_bits_per_second": tcp["download"]["single"],
        "parallel_upload_bits_per_second": tcp["upload"]["parallel"],
        "parallel_download_bits_per_second": tcp["download"]["parallel"],
        "parallel_streams": tcp["upload"]["streams"] or tcp["download"]["streams"],
        "parallel_gain_upload": gains["upload"],
        "parallel_gain_download": gains["download"],
        "path_share_upload": shares["upload"],
        "path_share_download": shares["download"],
        "direction_ratio": direction_ratio,
        "udp_lossy": lossy,
        "excluded": excluded,
    }
    conclusion["explanation"] = _explain(conclusion, tcp, singles)
    return conclusion


def _direction_text(direction, numbers, gain, share, path):
    parts = []
    if numbers["single"] is not None:
        parts.append("one TCP flow %s" % _rate(numbers["single"]))
    if numbers["parallel"] is not None:
        parts.append("%d flows %s together%s" % (numbers["streams"], _rate(numbers["parallel"]),
                                                 "" if gain is None else " (%s one flow)" % _times(gain)))
    if share is not None:
        parts.append("one flow is %.0f %% of the %s path" % (share * 100, _rate(path)))
    if not parts:
        return None
    return "%s (%s): %s." % (direction.capitalize(), _ARROW[direction], ", ".join(parts))


_WHY = {
    "single_flow_limit": "Several flows together get at least %.1fx what one flow gets, so one flow is held back by its "
                         "own congestion control or socket buffers, not by the path" % PARALLEL_GAIN,
    "asymmetric": "The two directions differ by more than %gx: look at what is different in the slower one "
                  "(shaping, the route, offloads, the sender's congestion control)" % ASYMMETRY,
    "path_limit_share": "One flow gets at least %.0f %% of the path in every direction measured: the path is the "
                        "limit" % (PATH_SHARE * 100),
    "udp_loss_below_path": "UDP lost more than %g %% at a rate below what the path should carry: the path loses "
                           "packets (random loss, a policer, or a narrower path than stated)" % UDP_MAX_LOST_PERCENT,
    "path_limit_flat": "More flows get at most %.1fx what one flow gets: the path, whatever it really carries, is "
                       "full" % FLAT_GAIN,
}


def _explain(conclusion, tcp, singles):
    path = conclusion["path_bits_per_second"]
    sentences = [text for text in (
        _direction_text(d, tcp[d], conclusion["parallel_gain_" + d], conclusion["path_share_" + d], path)
        for d, _reverse in DIRECTIONS) if text]
    if path and any(tcp[d]["best"] is not None and tcp[d]["best"] > path * PATH_ABOVE for d in tcp):
        sentences.append("TCP got more than the stated %s path: check path_bits_per_second." % _rate(path))
    if conclusion["direction_ratio"] is not None:
        sentences.append("The faster direction gets %s the slower." % _times(conclusion["direction_ratio"]))
    for lossy in conclusion["udp_lossy"]:
        sentences.append("UDP offered at %s (below %s) lost %.3g %% (%s)." % (
            _rate(lossy["offered_bits_per_second"]), _rate(lossy["reference_bits_per_second"]),
            lossy["lost_percent"], lossy["name"]))
    rules = conclusion["rules"]
    if not singles:
        sentences.append("Inconclusive: no valid single-flow TCP result in either direction.")
    elif conclusion["verdict"] == "inconclusive":
        sentences.append("Inconclusive: more flows get between %.1fx and %.1fx one flow, or there is neither a "
                         "parallel result nor a known path to compare one flow with." % (FLAT_GAIN, PARALLEL_GAIN))
    else:
        sentences.append("Verdict %s. %s." % (conclusion["verdict"], _WHY[rules[0]]))
        sentences.extend("Also: %s." % _WHY[rule] for rule in rules[1:])
    if conclusion["excluded"]:
        sentences.append("Left out as invalid: %s." % "; ".join(
            "%s (%s)" % (entry["name"], entry["invalid_reason"]) for entry in conclusion["excluded"]))
    return " ".join(sentences)


# --- report rows -------------------------------------------------------------------------------

def _sweep_records(name, value):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("%s must be a dict {host: sweep record}, got %s %r" % (name, type(value).__name__, value))
    records = {}
    for host, record in value.items():
        if record is None:
            record = {}
        if not isinstance(record, dict):
            raise ValueError("%s[%r] must be a sweep record (a dict), got %s %r"
                             % (name, host, type(record).__name__, record))
        _check_results(record.get("results") or [], "%s[%r].results" % (name, host))
        conclusion = record.get("conclusion")
        if conclusion is not None and not (isinstance(conclusion, dict)
                                           and isinstance(conclusion.get("verdict"), (str, type(None)))):
            raise ValueError("%s[%r].conclusion must be a sweep_conclusion result (a dict with a verdict), got %r"
                             % (name, host, conclusion))
        records[host] = record
    return records


def _by_name(record):
    return {entry["name"]: entry for entry in record.get("results") or []}


def _test_label(entry, host, hub):
    ends = (host, hub) if entry.get("direction") == "upload" else (hub, host)
    if entry.get("protocol") == "udp":
        return "UDP at %s %s -> %s" % (_rate(entry.get("offered_bits_per_second")), ends[0], ends[1])
    flows = entry.get("parallel") or 1
    return "TCP %d flow%s %s -> %s" % (flows, "" if flows == 1 else "s", ends[0], ends[1])


def _tcp_cell(entry):
    extra = ", ".join(part for part in (
        None if entry.get("retransmits") is None else "%d retransmits" % entry["retransmits"],
        entry.get("congestion_control")) if part)
    return "%s%s" % (_rate(entry["bits_per_second"]), " (%s)" % extra if extra else "")


def _cells(entry, key):
    """(text, value) of one side of a row; key is bits_per_second, lost_percent or jitter_ms."""
    if entry is None:
        return "n/a", None
    if not entry.get("valid"):
        return "invalid: %s" % (entry.get("invalid_reason") or "no reason given"), None
    value = _finite(entry.get(key))
    if value is None:
        return "n/a", None
    if key == "bits_per_second":
        return _tcp_cell(entry), value
    if key == "lost_percent":
        return "%.3g %% (%s received)" % (value, _rate(entry.get("bits_per_second"))), value
    return "%.3g ms" % value, value


def sweep_rows(before, after, path_by_host=None):
    """Pair two sweeps per host and test, as report rows (the shape of _report.before_after_rows).

    ``before``/``after``: ``{host: record}`` (None reads as empty), a record being ``{"hub": str,
    "path_bits_per_second": float|None, "results": [sweep_result entries], "conclusion":
    sweep_conclusion output}``; either side may lack a host or a test. ``path_by_host``: the
    path bottleneck, a ``{host: bit/s or "40M"}`` dict or one value for all hosts; a host it does
    not name uses its record's ``path_bits_per_second``.

    Rows, hosts sorted, tests in the order of the before sweep then any new in the after one::

        {"host": "peer", "test": "TCP 4 flows peer -> hub", "name": "tcp_parallel4_upload",
         "before": "9.10 Mbit/s (120 retransmits, cubic)", "after": "36.1 Mbit/s (80 retransmits, bbr)",
         "reference": "40.0 Mbit/s",                    # strings; "n/a" when a side is missing
         "before_value": 9100000.0, "after_value": 36100000.0, "reference_value": 40000000.0,
         "unit": "bits_per_second"}

    A TCP test gives one row (``bits_per_second``, reference the path); a UDP test two, ``"UDP at
    10.0 Mbit/s peer -> hub loss"`` (unit ``percent``, reference ``"1 %"``, the verdict's
    threshold) and ``"... jitter"`` (unit ``ms``, no reference). An invalid result reads
    ``"invalid: <reason>"`` with value None. Last per host, ``"sweep conclusion"``: the verdicts
    as text, values None, unit None. Raises ValueError naming the argument and host for records
    that are not dicts or results that are not lists of entries, or a bad path.
    """
    before, after = _sweep_records("before", before), _sweep_records("after", after)
    rows = []
    for host in sorted(set(before) | set(after), key=str):
        b, a = before.get(host, {}), after.get(host, {})
        raw_path = path_by_host.get(host) if isinstance(path_by_host, dict) else path_by_host
        if raw_path is None or raw_path == "":
            raw_path = a.get("path_bits_per_second") or b.get("path_bits_per_second")
        path = _path(raw_path, "path_by_host[%r]" % (host,))
        hub = a.get("hub") or b.get("hub") or "hub"
        b_tests, a_tests = _by_name(b), _by_name(a)
        names = list(b_tests) + [name for name in a_tests if name not in b_tests]
        for name in names:
            first = b_tests.get(name) or a_tests[name]
            label = _test_label(first, host, hub)
            if first.get("protocol") == "udp":
                metrics = (("lost_percent", " loss", "percent", "%g %%" % UDP_MAX_LOST_PERCENT, UDP_MAX_LOST_PERCENT),
                           ("jitter_ms", " jitter", "ms", "", None))
            else:
                metrics = (("bits_per_second", "", "bits_per_second", "" if path is None else _rate(path), path),)
            for key, suffix, unit, reference, reference_value in metrics:
                before_text, before_value = _cells(b_tests.get(name), key)
                after_text, after_value = _cells(a_tests.get(name), key)
                rows.append({"host": host, "test": label + suffix, "name": name,
                             "before": before_text, "after": after_text, "reference": reference,
                             "before_value": before_value, "after_value": after_value,
                             "reference_value": reference_value, "unit": unit})
        rows.append({"host": host, "test": "sweep conclusion", "name": "conclusion",
                     "before": (b.get("conclusion") or {}).get("verdict") or "n/a",
                     "after": (a.get("conclusion") or {}).get("verdict") or "n/a",
                     "reference": "path_limit", "before_value": None, "after_value": None,
                     "reference_value": None, "unit": None})
    return rows
