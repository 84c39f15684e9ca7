# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a tunnel's sweep means: one verdict (single-flow limit, path limit, ...) with its numbers.

Reads ``_sweep.sweep_result`` entries (directions, units and sources in ``_sweep``). The rules
are the issue's ("the conclusion (single-flow limit versus path limit)"), thresholds below.
Pure functions, no I/O. Bad arguments raise ValueError naming the argument and the value.
"""

from __future__ import annotations

import math

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import format_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import finite_float
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep import (
    DIRECTIONS,
    _check_results,
    _path,
)

# Verdict thresholds (the rules, see sweep_conclusion)
PARALLEL_GAIN = 1.5          # parallel sum >= 1.5x one flow, same direction: single-flow limit
FLAT_GAIN = 1.2              # parallel sum <= 1.2x one flow: more flows gain nothing, the path is full
PATH_SHARE = 0.8             # one flow >= 80 % of the path: path limit
ASYMMETRY = 2.0              # best upload and best download differ by more than 2x: asymmetric
UDP_MAX_LOST_PERCENT = 1.0   # UDP loss above 1 % at an offered rate below the path: the path loses packets
PATH_ABOVE = 1.1             # TCP above 1.1x the stated path: the explanation says the path looks wrong

VERDICTS = ("single_flow_limit", "path_limit", "asymmetric", "udp_loss_below_path", "inconclusive")
_ARROW = {"upload": "peer -> hub", "download": "hub -> peer"}


def _usable(entry):
    return entry.get("valid") is True and finite_float(entry.get("bits_per_second")) is not None


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
        offered, lost = finite_float(entry.get("offered_bits_per_second")), finite_float(entry.get("lost_percent"))
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
