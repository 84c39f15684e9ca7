# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""sweep_conclusion's every threshold on both sides (exactly at, just below, just above) and every rule's negative case.

test_sweep.py covers the verdicts on the lab's numbers; this file pins each decision of measure/sweep_verdict.py
(issue 31.5: `make mutation` showed a 2-stream parallel test ignored, ASYMMETRY and results exactly at a threshold
untested). Entries are plain sweep_result dicts; the numbers are chosen so each ratio is exact in floating point
(24e6 / 20e6 == 1.2, 32e6 / 40e6 == 0.8, 20e6 * 1.1 == 22e6).
"""

import math

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep_verdict import (
    ASYMMETRY, FLAT_GAIN, PARALLEL_GAIN, PATH_ABOVE, PATH_SHARE, UDP_MAX_LOST_PERCENT, sweep_conclusion)

M = 1e6


def tcp(direction, bits_per_second, parallel=1, **fields):
    """A valid TCP sweep_result entry; ``parallel`` > 1 is the parallel test (its bits_per_second is the sum)."""
    name = "tcp_single_%s" % direction if parallel == 1 else "tcp_parallel%s_%s" % (parallel, direction)
    entry = {"name": name, "protocol": "tcp", "direction": direction, "parallel": parallel, "offered_bits_per_second": None,
             "bits_per_second": bits_per_second, "lost_percent": None, "valid": True, "invalid_reason": None}
    entry.update(fields)
    return entry


def udp(direction, offered, lost_percent, **fields):
    """A valid UDP sweep_result entry offered at ``offered`` bit/s that lost ``lost_percent``."""
    entry = {"name": "udp_%gM_%s" % (offered / M, direction), "protocol": "udp", "direction": direction, "parallel": 1,
             "offered_bits_per_second": offered, "bits_per_second": offered * 0.9, "lost_percent": lost_percent,
             "valid": True, "invalid_reason": None}
    entry.update(fields)
    return entry


def both(single_up, single_down, parallel_up=None, parallel_down=None, streams=4):
    """Single (and parallel, when given) TCP results of both directions; None leaves that test out."""
    out = []
    for direction, single, parallel in (("upload", single_up, parallel_up), ("download", single_down, parallel_down)):
        if single is not None:
            out.append(tcp(direction, single))
        if parallel is not None:
            out.append(tcp(direction, parallel, streams))
    return out


def test_the_thresholds_are_the_documented_ones():
    assert (PARALLEL_GAIN, FLAT_GAIN, PATH_SHARE, ASYMMETRY, UDP_MAX_LOST_PERCENT, PATH_ABOVE) == (1.5, 1.2, 0.8, 2.0, 1.0, 1.1)


# (results, path, verdict, rules): each rule exactly at its threshold, just inside and just outside
BOUNDARY_CASES = [
    # single_flow_limit: parallel >= 1.5x one flow (20M single; 30M is exactly 1.5x)
    (both(20 * M, None, 30 * M), None, "single_flow_limit", ["single_flow_limit"]),
    (both(20 * M, None, 30.1 * M), None, "single_flow_limit", ["single_flow_limit"]),
    (both(20 * M, None, 29.9 * M), None, "inconclusive", []),                   # 1.495x: between flat and single-flow
    # one direction is enough (any, not all); the other may be flat or unmeasured
    (both(20 * M, 20 * M, 30 * M, 20 * M), None, "single_flow_limit", ["single_flow_limit"]),
    (both(20 * M, 20 * M, 20 * M, 30 * M), None, "single_flow_limit", ["single_flow_limit"]),
    # a 2-stream parallel test is a parallel test like a 4-stream one
    (both(20 * M, None, 30 * M, streams=2), None, "single_flow_limit", ["single_flow_limit"]),
    (both(20 * M, None, 24 * M, streams=2), None, "path_limit", ["path_limit_flat"]),
    # path_limit_flat: parallel <= 1.2x one flow in every direction with both tests
    (both(20 * M, None, 24 * M), None, "path_limit", ["path_limit_flat"]),          # exactly 1.2x
    (both(20 * M, None, 23.9 * M), None, "path_limit", ["path_limit_flat"]),
    (both(20 * M, None, 24.1 * M), None, "inconclusive", []),                      # just above 1.2x
    (both(20 * M, 20 * M, 24 * M, 24.1 * M), None, "inconclusive", []),            # all, not any
    (both(20 * M, 20 * M, 24.1 * M, 24 * M), None, "inconclusive", []),
    (both(20 * M, 20 * M, 20 * M, 20 * M), None, "path_limit", ["path_limit_flat"]),
    (both(20 * M, 20 * M, 24 * M, None), None, "path_limit", ["path_limit_flat"]),  # a direction without parallel: not asked
    # asymmetric: the best rates differ by more than 2x; exactly 2x is not asymmetric
    (both(40 * M, 20 * M), None, "inconclusive", []),
    (both(40.1 * M, 20 * M), None, "asymmetric", ["asymmetric"]),
    (both(20 * M, 40.1 * M), None, "asymmetric", ["asymmetric"]),
    (both(50 * M, 20 * M), None, "asymmetric", ["asymmetric"]),                    # 2.5x: between 2x and 3x
    (both(20 * M, 50 * M), None, "asymmetric", ["asymmetric"]),
    (both(50 * M, None), None, "inconclusive", []),                                # one direction: nothing to compare
    # the best rate of a direction counts its parallel test: 20M single and 45M parallel up against 20M down
    (both(20 * M, 20 * M, 45 * M, None), None, "single_flow_limit", ["single_flow_limit", "asymmetric"]),
    # path_limit_share: one flow >= 80 % of the known path in every direction measured
    (both(32 * M, 32 * M), 40 * M, "path_limit", ["path_limit_share"]),            # exactly 80 %
    (both(32 * M, 31.9 * M), 40 * M, "inconclusive", []),                          # all, not any
    (both(31.9 * M, 32 * M), 40 * M, "inconclusive", []),
    (both(32 * M, None), 40 * M, "path_limit", ["path_limit_share"]),              # the one direction measured
    (both(None, 32 * M), 40 * M, "path_limit", ["path_limit_share"]),
    (both(40 * M, 40 * M), None, "inconclusive", []),                               # no path: no share
    (both(40 * M, 40 * M), "", "inconclusive", []),
    # rules in order; the first is the verdict
    (both(32 * M, 16 * M, 48 * M, None), 40 * M, "single_flow_limit", ["single_flow_limit", "asymmetric"]),
    (both(36 * M, 17 * M, 40 * M, 18 * M), 40 * M, "asymmetric", ["asymmetric", "path_limit_flat"]),
    (both(36 * M, 34 * M, 40 * M, 40 * M) + [udp("upload", 20 * M, 5.0)], 40 * M, "path_limit",
     ["path_limit_share", "udp_loss_below_path", "path_limit_flat"]),
    # no single flow: inconclusive whatever else holds (parallel results only, rules cannot apply)
    ([tcp("upload", 40 * M, 4), tcp("download", 10 * M, 4)], 40 * M, "inconclusive", ["asymmetric"]),
    ([tcp("upload", 40 * M, 4), udp("upload", 20 * M, 5.0)], 40 * M, "inconclusive", ["udp_loss_below_path"]),
]


@pytest.mark.parametrize("results, path, verdict, rules", BOUNDARY_CASES)
def test_each_rule_at_and_around_its_threshold(results, path, verdict, rules):
    conclusion = sweep_conclusion(results, path)
    assert (conclusion["verdict"], conclusion["rules"]) == (verdict, rules)


# (udp entries, path, tcp results, lossy names): UDP below the path that lost more than 1 %
UDP_CASES = [
    ([udp("upload", 20 * M, 1.0)], 40 * M, both(30 * M, 30 * M), []),                      # exactly 1 %: not more
    ([udp("upload", 20 * M, 1.01)], 40 * M, both(30 * M, 30 * M), ["udp_20M_upload"]),
    ([udp("upload", 40 * M, 50.0)], 40 * M, both(30 * M, 30 * M), []),                      # at the path: not below it
    ([udp("upload", 39.9 * M, 50.0)], 40 * M, both(30 * M, 30 * M), ["udp_39.9M_upload"]),
    # a known path is the reference, not TCP: above TCP's best but below the path still counts
    ([udp("upload", 35 * M, 5.0)], 40 * M, both(30 * M, 30 * M), ["udp_35M_upload"]),
    # no path: at most the best TCP rate of the same direction
    ([udp("upload", 30 * M, 5.0)], None, both(30 * M, 10 * M), ["udp_30M_upload"]),         # exactly at TCP's best
    ([udp("upload", 30.1 * M, 5.0)], None, both(30 * M, 10 * M), []),
    ([udp("download", 20 * M, 5.0)], None, both(30 * M, 10 * M), []),                       # its direction's, not the other's
    ([udp("download", 10 * M, 5.0)], None, both(30 * M, 10 * M), ["udp_10M_download"]),
    ([udp("download", 10 * M, 5.0)], None, both(30 * M, None), []),                         # no TCP that way: no reference
    ([dict(udp("upload", 10 * M, 5.0), direction=None)], None, both(30 * M, 30 * M), []),     # no direction: no reference
    # numbers missing: nothing to judge
    ([udp("upload", 20 * M, 5.0, offered_bits_per_second=None)], 40 * M, both(30 * M, 30 * M), []),
    ([udp("upload", 20 * M, None)], 40 * M, both(30 * M, 30 * M), []),
    ([udp("upload", 20 * M, None), udp("upload", 10 * M, 2.0)], 40 * M, both(30 * M, 30 * M), ["udp_10M_upload"]),  # the next one still
    # TCP results never count as UDP loss, invalid UDP results neither
    ([tcp("upload", 20 * M, lost_percent=5.0, offered_bits_per_second=10 * M)], 40 * M, both(30 * M, 30 * M), []),
    ([udp("upload", 20 * M, 5.0, valid=False, invalid_reason="x")], 40 * M, both(30 * M, 30 * M), []),
    ([udp("upload", 10 * M, 0.5), udp("upload", 20 * M, 2.0), udp("download", 20 * M, 3.0)], 40 * M, both(30 * M, 30 * M),
     ["udp_20M_upload", "udp_20M_download"]),
]


@pytest.mark.parametrize("entries, path, tcp_results, names", UDP_CASES)
def test_udp_loss_below_the_path(entries, path, tcp_results, names):
    conclusion = sweep_conclusion(tcp_results + entries, path)
    assert [lossy["name"] for lossy in conclusion["udp_lossy"]] == names
    assert ("udp_loss_below_path" in conclusion["rules"]) is bool(names)


def test_a_lossy_udp_test_names_its_numbers_and_its_reference():
    with_path = sweep_conclusion(both(30 * M, 30 * M) + [udp("upload", 20 * M, 2.5)], 40 * M)["udp_lossy"]
    without = sweep_conclusion(both(30 * M, 25 * M) + [udp("download", 20 * M, 2.5)], None)["udp_lossy"]
    assert with_path == [{"name": "udp_20M_upload", "offered_bits_per_second": 20 * M, "lost_percent": 2.5,
                          "reference_bits_per_second": 40 * M}]
    assert without == [{"name": "udp_20M_download", "offered_bits_per_second": 20 * M, "lost_percent": 2.5,
                        "reference_bits_per_second": 25 * M}]


def test_the_numbers_of_a_two_stream_sweep():
    conclusion = sweep_conclusion(both(20 * M, 10 * M, 30 * M, 11 * M, streams=2), 40 * M)
    assert {key: value for key, value in conclusion.items() if key not in ("explanation", "rules", "verdict")} == {
        "path_bits_per_second": 40 * M,
        "single_upload_bits_per_second": 20 * M, "single_download_bits_per_second": 10 * M,
        "parallel_upload_bits_per_second": 30 * M, "parallel_download_bits_per_second": 11 * M,
        "parallel_streams": 2,
        "parallel_gain_upload": 1.5, "parallel_gain_download": pytest.approx(1.1),
        "path_share_upload": 0.5, "path_share_download": 0.25,
        "direction_ratio": pytest.approx(30 / 11),
        "udp_lossy": [], "excluded": []}
    assert conclusion["explanation"] == (
        "Upload (peer -> hub): one TCP flow 20.0 Mbit/s, 2 flows 30.0 Mbit/s together (1.5x one flow), one flow is 50 % of "
        "the 40.0 Mbit/s path. "
        "Download (hub -> peer): one TCP flow 10.0 Mbit/s, 2 flows 11.0 Mbit/s together (1.1x one flow), one flow is 25 % "
        "of the 40.0 Mbit/s path. "
        "The faster direction gets 2.7x the slower. "
        "Verdict single_flow_limit. Several flows together get at least 1.5x what one flow gets, so one flow is held back "
        "by its own congestion control or socket buffers, not by the path. "
        "Also: The two directions differ by more than 2x: look at what is different in the slower one (shaping, the route, "
        "offloads, the sender's congestion control).")


@pytest.mark.parametrize("results, streams", [
    (both(20 * M, 20 * M, None, 50 * M, streams=8), 8),     # only the download had a parallel test
    (both(20 * M, 20 * M, 50 * M, None, streams=3), 3),
    (both(20 * M, 20 * M), None),
])
def test_parallel_streams_from_either_direction(results, streams):
    assert sweep_conclusion(results, None)["parallel_streams"] == streams


def test_the_last_result_of_a_test_counts():
    """A test run twice (a retry) counts with its last result; the best TCP rate is the highest of all."""
    results = [tcp("upload", 10 * M), tcp("upload", 20 * M), tcp("upload", 50 * M, 4), tcp("upload", 30 * M, 4)]
    conclusion = sweep_conclusion(results, None)
    assert (conclusion["single_upload_bits_per_second"], conclusion["parallel_upload_bits_per_second"]) == (20 * M, 30 * M)
    assert conclusion["parallel_gain_upload"] == 1.5 and conclusion["verdict"] == "single_flow_limit"
    assert sweep_conclusion(results + [tcp("download", 25 * M)], None)["direction_ratio"] == 2.0   # 50M up, 25M down


def test_a_tcp_result_without_a_flow_count_is_neither_single_nor_parallel():
    """``parallel`` unknown: not one flow, not several; it still counts for the direction's best rate."""
    conclusion = sweep_conclusion([tcp("upload", 20 * M), tcp("upload", 60 * M, None), tcp("download", 20 * M)], None)
    assert conclusion["single_upload_bits_per_second"] == 20 * M
    assert conclusion["parallel_upload_bits_per_second"] is None and conclusion["parallel_streams"] is None
    assert conclusion["parallel_gain_upload"] is None
    assert (conclusion["direction_ratio"], conclusion["verdict"]) == (3.0, "asymmetric")


@pytest.mark.parametrize("entry, reason", [
    (tcp("download", 900 * M, valid=False, invalid_reason="duration_s is 0.0"), "duration_s is 0.0"),
    (tcp("download", 900 * M, valid=False), "invalid"),                # no reason given: still named
    (tcp("download", 900 * M, valid=None), "invalid"),                 # only valid True counts
    (tcp("download", None), "invalid"),                                # valid, but no rate: nothing to judge
])
def test_results_that_cannot_be_judged_are_left_out(entry, reason):
    conclusion = sweep_conclusion(both(35 * M, None) + [entry], 40 * M)
    assert conclusion["excluded"] == [{"name": "tcp_single_download", "invalid_reason": reason}]
    assert conclusion["single_download_bits_per_second"] is None and conclusion["direction_ratio"] is None
    assert conclusion["verdict"] == "path_limit"
    assert conclusion["explanation"].endswith("Left out as invalid: tcp_single_download (%s)." % reason)


@pytest.mark.parametrize("up, down, ratio, text", [
    (35 * M, 0.0, math.inf, "The faster direction gets infinitely more the slower."),
    (0.0, 35 * M, math.inf, "The faster direction gets infinitely more the slower."),
    (1.0, 0.0, math.inf, "The faster direction gets infinitely more the slower."),   # 1 bit/s against nothing
    (35 * M, 1.0, 35e6, "The faster direction gets 35000000.0x the slower."),
    (0.0, 0.0, None, None),                                                             # nothing both ways: no ratio
])
def test_direction_ratio_against_nothing(up, down, ratio, text):
    conclusion = sweep_conclusion(both(up, down), None)
    assert conclusion["direction_ratio"] == ratio
    assert ("The faster direction" in conclusion["explanation"]) is (text is not None)
    if text:
        assert text in conclusion["explanation"]


@pytest.mark.parametrize("single, parallel, gain", [
    (0.0, 10 * M, math.inf),        # one flow got nothing, four got something: infinitely more
    (0.0, 1.0, math.inf),
    (0.0, 0.0, None),               # nothing either way: no gain to speak of
    (1.0, 0.0, 0.0),
])
def test_parallel_gain_against_nothing(single, parallel, gain):
    conclusion = sweep_conclusion(both(single, None, parallel), None)
    assert conclusion["parallel_gain_upload"] == gain
    assert ("single_flow_limit" in conclusion["rules"]) is (gain == math.inf)


@pytest.mark.parametrize("path, best, said", [
    (20 * M, 22 * M, False),          # exactly 1.1x the stated path: not pointed out
    (20 * M, 22.1 * M, True),
    (20 * M, 21.9 * M, False),
    (None, 90 * M, False),            # no path stated: nothing to check
])
def test_tcp_above_the_stated_path(path, best, said):
    text = sweep_conclusion([tcp("upload", 10 * M), tcp("upload", best, 4)], path)["explanation"]
    assert ("TCP got more than the stated 20.0 Mbit/s path: check path_bits_per_second." in text) is said


def test_tcp_above_the_path_in_the_download_direction_is_pointed_out_too():
    text = sweep_conclusion(both(10 * M, 30 * M), 20 * M)["explanation"]
    assert "TCP got more than the stated 20.0 Mbit/s path: check path_bits_per_second." in text


# the whole paragraph: each sentence, in order
EXPLANATION_CASES = [
    # one flow only, no path
    (both(20 * M, None), None,
     "Upload (peer -> hub): one TCP flow 20.0 Mbit/s. Inconclusive: more flows get between 1.2x and 1.5x one flow, or "
     "there is neither a parallel result nor a known path to compare one flow with."),
    # a parallel result without a single flow: no gain shown, the verdict needs a single flow
    ([tcp("download", 30 * M, 4)], None,
     "Download (hub -> peer): 4 flows 30.0 Mbit/s together. Inconclusive: no valid single-flow TCP result in either "
     "direction."),
    # the path's share and the path_limit verdict with what also held
    (both(32 * M, None, 36 * M), 40 * M,
     "Upload (peer -> hub): one TCP flow 32.0 Mbit/s, 4 flows 36.0 Mbit/s together (1.1x one flow), one flow is 80 % of "
     "the 40.0 Mbit/s path. Verdict path_limit. One flow gets at least 80 % of the path in every direction measured: "
     "the path is the limit. Also: More flows get at most 1.2x what one flow gets: the path, whatever it really carries, "
     "is full."),
    # UDP loss: the sentence per lossy test, and the verdict's text
    (both(20 * M, 20 * M, 40 * M, None) + [udp("upload", 10 * M, 2.5)], 40 * M,
     "Upload (peer -> hub): one TCP flow 20.0 Mbit/s, 4 flows 40.0 Mbit/s together (2.0x one flow), one flow is 50 % of "
     "the 40.0 Mbit/s path. Download (hub -> peer): one TCP flow 20.0 Mbit/s, one flow is 50 % of the 40.0 Mbit/s path. "
     "The faster direction gets 2.0x the slower. UDP offered at 10.0 Mbit/s (below 40.0 Mbit/s) lost 2.5 % "
     "(udp_10M_upload). Verdict single_flow_limit. Several flows together get at least 1.5x what one flow gets, so one "
     "flow is held back by its own congestion control or socket buffers, not by the path. Also: UDP lost more than 1 % "
     "at a rate below what the path should carry: the path loses packets (random loss, a policer, or a narrower path "
     "than stated)."),
    # TCP above the stated path, said in its place among the sentences
    (both(10 * M, 30 * M), 20 * M,
     "Upload (peer -> hub): one TCP flow 10.0 Mbit/s, one flow is 50 % of the 20.0 Mbit/s path. Download (hub -> peer): "
     "one TCP flow 30.0 Mbit/s, one flow is 150 % of the 20.0 Mbit/s path. TCP got more than the stated 20.0 Mbit/s path: "
     "check path_bits_per_second. The faster direction gets 3.0x the slower. Verdict asymmetric. The two directions "
     "differ by more than 2x: look at what is different in the slower one (shaping, the route, offloads, the sender's "
     "congestion control)."),
    # every result left out is named, "; "-joined
    (both(35 * M, None) + [tcp("download", 900 * M, valid=False, invalid_reason="a"), tcp("upload", None, 4)], 40 * M,
     "Upload (peer -> hub): one TCP flow 35.0 Mbit/s, one flow is 88 % of the 40.0 Mbit/s path. Verdict path_limit. One "
     "flow gets at least 80 % of the path in every direction measured: the path is the limit. Left out as invalid: "
     "tcp_single_download (a); tcp_parallel4_upload (invalid)."),
    # nothing at all
    ([], None, "Inconclusive: no valid single-flow TCP result in either direction."),
]


@pytest.mark.parametrize("results, path, explanation", EXPLANATION_CASES)
def test_the_explanation_word_for_word(results, path, explanation):
    assert sweep_conclusion(results, path)["explanation"] == explanation
