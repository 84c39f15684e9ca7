# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""sweep_plan, sweep_result (plugin_utils/measure/sweep.py), sweep_conclusion (_sweep_verdict.py), sweep_rows (_sweep_rows.py)."""

import json
import math

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import parse_iperf3_json
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_run import (
    ARGUMENT_SPEC, base_result, judged_result)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import NO_AFTER, markdown_table
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep import sweep_plan, sweep_result
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.sweep_rows import sweep_rows
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.sweep_verdict import VERDICTS, sweep_conclusion

approx = pytest.approx
TCP4 = ["tcp_single_upload", "tcp_single_download", "tcp_parallel4_upload", "tcp_parallel4_download"]


def _udp(*rates):
    return ["udp_%s_%s" % (rate, direction) for rate in rates for direction in ("upload", "download")]


def _test(name, parallel=4, path=40e6, rates=None):
    """The plan's entry called ``name``."""
    return next(test for test in sweep_plan(path, rates, parallel) if test["name"] == name)


# --- sweep_plan --------------------------------------------------------------------------------

@pytest.mark.parametrize("path, rates, parallel, names", [
    (40e6, [], 4, TCP4 + _udp("10M", "20M", "36M")),            # 25/50/90 % of a known path
    ("40M", None, 4, TCP4 + _udp("10M", "20M", "36M")),         # path as operators write it
    ("37.4M", [], 4, TCP4 + _udp("9.35M", "18.7M", "33.7M")),   # three significant digits
    (None, [], 4, TCP4 + _udp("1M", "10M", "50M")),             # unknown path: fixed rates
    ("", [], 4, TCP4 + _udp("1M", "10M", "50M")),               # "" is unknown too
    (40e6, ["50M", 1000000, "1.5M", 500e3], 4, TCP4 + _udp("500k", "1M", "1.5M", "50M")),   # operator's, sorted
    (None, [900, "2G"], 2, [name.replace("4", "2") for name in TCP4] + _udp("900", "2G")),
    (None, [], 128, [name.replace("4", "128") for name in TCP4] + _udp("1M", "10M", "50M")),
])
def test_plan_names_and_order(path, rates, parallel, names):
    assert [test["name"] for test in sweep_plan(path, rates, parallel)] == names


def test_plan_entries_carry_the_iperf3_options():
    plan = sweep_plan("40M", [], 4)
    assert plan[0] == {"name": "tcp_single_upload", "protocol": "tcp", "reverse": False, "parallel": 1, "bitrate": None}
    assert plan[1] == {"name": "tcp_single_download", "protocol": "tcp", "reverse": True, "parallel": 1, "bitrate": None}
    assert plan[3] == {"name": "tcp_parallel4_download", "protocol": "tcp", "reverse": True, "parallel": 4,
                       "bitrate": None}
    assert plan[-1] == {"name": "udp_36M_download", "protocol": "udp", "reverse": True, "parallel": 1,
                        "bitrate": 36000000}


@pytest.mark.parametrize("path, rates, parallel, message", [
    (0, [], 4, "path_bits_per_second must be above 0 (empty for unknown), got 0"),
    ("fast", [], 4, "path_bits_per_second must be bits per second or a number with k/M/G/T ('40M'), or empty "
                    "for unknown, got 'fast'"),
    (-40e6, [], 4, "got -40000000.0"),
    (float("nan"), [], 4, "path_bits_per_second must be bits per second"),
    (None, "10M", 4, "udp_rates must be a list of rates (bits per second or '10M'), got '10M'"),
    (None, ["10M", "10X"], 4, "udp_rates[1] must be at least 1 bit per second, as a number or with k/M/G/T ('10M'), "
                              "got '10X'"),
    (None, [0], 4, "udp_rates[0] must be at least 1 bit per second"),
    (None, [True], 4, "udp_rates[0] must be at least 1 bit per second"),
    (None, ["10M", 10e6], 4, "udp_rates must not repeat a rate, got '10M' twice in ['10M', 10000000.0]"),
    (None, ["10M", 10000001], 4, "udp_rates must not repeat a rate, got '10M' twice"),   # same name
    (None, [], 1, "parallel_streams must be 2-128, got 1"),
    (None, [], 129, "parallel_streams must be 2-128, got 129"),
    (None, [], "four", "parallel_streams must be 2-128, got 'four'"),
    (None, [], True, "parallel_streams must be 2-128, got True"),
    (None, [], None, "parallel_streams must be 2-128, got None"),
    # 25 % of 3 bit/s rounds to -b 0, which iperf3 reads as "unlimited": refused, not a flood
    (3, [], 4, "path_bits_per_second must be at least 4 bit/s to derive UDP rates from it"),
    (1e-9, None, 4, "got 1e-09; give udp_rates"),
])
def test_plan_errors_name_the_argument_and_value(path, rates, parallel, message):
    with pytest.raises(ValueError) as err:
        sweep_plan(path, rates, parallel)
    assert message in str(err.value)


# --- sweep_result ------------------------------------------------------------------------------

def _action_result(load_fixture, case, **params):
    """What the iperf3 action returns for a recorded client JSON (judged, no thresholds)."""
    args = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
    args.update(server="10.44.0.1", **params)
    parsed = parse_iperf3_json(load_fixture("iperf3_json", case))
    return judged_result(base_result(args), parsed, None, args)


# (fixture, test (name, parallel), expected subset); the fixture parsed by parse_iperf3_json
FIXTURE_CASES = [
    ("tcp_forward_3.12.txt", ("tcp_single_upload", 4), {
        "name": "tcp_single_upload", "protocol": "tcp", "direction": "upload", "parallel": 1,
        "offered_bits_per_second": None, "bits_per_second": approx(632835310.28865242), "retransmits": 24982,
        "lost_percent": None, "jitter_ms": None, "mean_rtt_ms": approx(5.265), "congestion_control": "bbr",
        "valid": True, "invalid_reason": None}),
    ("tcp_reverse_3.12.txt", ("tcp_single_download", 4), {
        "direction": "download", "bits_per_second": approx(588610377.2896446), "mean_rtt_ms": None, "valid": True}),
    ("tcp_parallel2_3.12.txt", ("tcp_parallel2_upload", 2), {
        "parallel": 2, "bits_per_second": approx(25671004154.309788), "valid": True}),
    # 3.17 without retransmits: absent is None, still valid
    ("case16_tcp_no_retransmits_3.17.txt", ("tcp_single_download", 4), {"retransmits": None, "valid": True}),
    ("udp_forward_3.12.txt", ("udp_50M_upload", 4), {
        "protocol": "udp", "offered_bits_per_second": 50e6, "bits_per_second": approx(49923327.49318474),
        "lost_percent": 0.0, "jitter_ms": approx(0.0156544630605268), "retransmits": None, "valid": True}),
    ("udp_reverse_overload_3.12.txt", ("udp_50M_download", 4), {
        "direction": "download", "lost_percent": approx(67.7083901298292), "valid": True}),
    # iperf3 3.9 UDP: receiver rate derived from end.sum (approximate) but usable
    ("case16_udp_reverse_3.9.txt", ("udp_50M_download", 4), {"lost_percent": approx(66.07), "valid": True}),
    # invalid: iperf3's own verdict, and tests that ran something else than asked
    ("server_side_tcp_3.12.txt", ("tcp_single_upload", 4), {
        "valid": False, "invalid_reason": "iperf3: this is the server's JSON, which reports zeros for the direction "
                                          "it did not measure (esnet/iperf#1410): parse the client's output"}),
    ("tcp_bidir_3.12.txt", ("tcp_single_upload", 4), {
        "valid": False, "invalid_reason": "iperf3 ran bidirectional, the test is upload (client_to_server)"}),
    ("tcp_reverse_3.12.txt", ("tcp_single_upload", 4), {
        "valid": False, "invalid_reason": "iperf3 ran server_to_client, the test is upload (client_to_server)"}),
    ("udp_forward_3.12.txt", ("tcp_single_upload", 4), {
        "valid": False, "invalid_reason": "iperf3 ran UDP, the test is TCP"}),
    ("tcp_parallel2_3.12.txt", ("tcp_single_upload", 2), {
        "valid": False, "invalid_reason": "iperf3 ran 2 stream(s), the test asks for 1"}),
]


@pytest.mark.parametrize("case, test, expected", FIXTURE_CASES)
def test_result_from_recorded_iperf3_json(load_fixture, case, test, expected):
    name, parallel = test
    entry = sweep_result(_test(name, parallel, rates=["50M"]), parse_iperf3_json(load_fixture("iperf3_json", case)))
    assert {key: entry[key] for key in expected} == expected


@pytest.mark.parametrize("case, name, params", [
    ("tcp_forward_3.12.txt", "tcp_single_upload", {}),
    ("tcp_reverse_3.12.txt", "tcp_single_download", {"reverse": True}),
    ("udp_reverse_3.12.txt", "udp_50M_download", {"reverse": True, "protocol": "udp", "bitrate": "50000000"}),
])
def test_result_from_the_iperf3_action(load_fixture, case, name, params):
    action = _action_result(load_fixture, case, **params)
    entry = sweep_result(_test(name, rates=["50M"]), action)
    assert entry["valid"] is True and entry["bits_per_second"] == action["bits_per_second"]
    json.dumps(entry, allow_nan=False)   # plain JSON


GOOD_TCP = {"bits_per_second": 35e6, "retransmits": 80, "mean_rtt_ms": 61.0, "valid": True, "protocol": "TCP",
            "direction": "client_to_server", "num_streams": 1, "sender_congestion_control": "bbr"}
GOOD_UDP = {"bits_per_second": 9.9e6, "lost_percent": 0.5, "jitter_ms": 0.8, "valid": True, "protocol": "UDP",
            "direction": "client_to_server", "num_streams": 1}


# (test name, iperf3 result or None, expected invalid_reason; None = valid)
HAND_CASES = [
    ("tcp_single_upload", GOOD_TCP, None),
    ("udp_10M_upload", GOOD_UDP, None),
    ("tcp_single_upload", dict(GOOD_TCP, receiver_bits_per_second=1e6, bits_per_second=None), None),
    ("tcp_single_upload", None, "not run"),
    ("tcp_single_upload", {}, "not run"),
    ("tcp_single_upload", {"skipped": True, "msg": "check mode: iperf3 test not run"},
     "not run: check mode: iperf3 test not run"),
    ("tcp_single_upload", {"failed": True, "msg": "iperf3 to 10.44.0.1:5201 failed after 6 attempt(s): the server "
                                                  "is busy running a test. try again later"},
     "failed: iperf3 to 10.44.0.1:5201 failed after 6 attempt(s): the server is busy running a test. try again later"),
    ("tcp_single_upload", {"failed": True}, "failed: no message"),
    ("tcp_single_upload", dict(GOOD_TCP, valid=False, invalid_reason="duration_s is 0.0"), "iperf3: duration_s is 0.0"),
    ("tcp_single_upload", dict(GOOD_TCP, valid=False, invalid_reason=None), "iperf3: invalid result"),
    ("tcp_single_upload", dict(GOOD_TCP, bits_per_second=float("nan")), "bits_per_second is nan, not a finite number"),
    ("tcp_single_upload", dict(GOOD_TCP, bits_per_second=float("inf")), "bits_per_second is inf, not a finite number"),
    ("tcp_single_upload", dict(GOOD_TCP, bits_per_second=-1e6), "bits_per_second is -1000000.0, negative"),
    ("tcp_single_upload", dict(GOOD_TCP, bits_per_second="35M"), "bits_per_second is '35M', not a finite number"),
    ("tcp_single_upload", dict(GOOD_TCP, bits_per_second=None), "no receiver bits_per_second"),
    ("tcp_single_upload", dict(GOOD_TCP, retransmits=-3), "retransmits is -3, negative"),
    ("tcp_single_upload", dict(GOOD_TCP, retransmits=True), "retransmits is True, not a finite number"),
    ("tcp_single_upload", dict(GOOD_TCP, mean_rtt_ms=-0.5), "mean_rtt_ms is -0.5, negative"),
    ("udp_10M_upload", dict(GOOD_UDP, lost_percent=120.0), "lost_percent is 120.0, outside 0-100"),
    ("udp_10M_upload", dict(GOOD_UDP, lost_percent=-0.1), "lost_percent is -0.1, outside 0-100"),
    ("udp_10M_upload", dict(GOOD_UDP, lost_percent=float("nan")), "lost_percent is nan, not a finite number"),
    ("udp_10M_upload", dict(GOOD_UDP, lost_percent=None), "no lost_percent in a UDP result"),
    ("udp_10M_upload", dict(GOOD_UDP, lost_percent=None, lost_unknown_reason="the server runs iperf3 3.12"),
     "UDP loss unknown: the server runs iperf3 3.12"),
    ("udp_10M_upload", dict(GOOD_UDP, jitter_ms=-2.0), "jitter_ms is -2.0, negative"),
    ("udp_10M_upload", dict(GOOD_UDP, lost_percent=100.0, bits_per_second=0.0), None),   # the edges are valid
    # several reasons at once, in a fixed order; what iperf3 already said is not repeated (lab run,
    # owrt UDP upload at 20M through its 2 Mbit/s 5G uplink: iperf3 reported 108.7 % loss)
    ("udp_20M_upload", dict(GOOD_UDP, valid=False, invalid_reason="lost_percent is 108.69993434011819, outside 0-100",
                            lost_percent=108.69993434011819, jitter_ms=float("-inf")),
     "iperf3: lost_percent is 108.69993434011819, outside 0-100; jitter_ms is -inf, not a finite number"),
    ("udp_10M_upload", dict(GOOD_UDP, valid=False, invalid_reason="duration_s is 0.0", lost_percent=120.0),
     "iperf3: duration_s is 0.0; lost_percent is 120.0, outside 0-100"),
    ("udp_10M_download", GOOD_UDP, "iperf3 ran client_to_server, the test is download (server_to_client)"),
]


@pytest.mark.parametrize("name, result, reason", HAND_CASES)
def test_result_validity(name, result, reason):
    entry = sweep_result(_test(name), result)
    assert entry["invalid_reason"] == reason
    assert entry["valid"] is (reason is None)
    json.dumps(entry, allow_nan=False)   # NaN and inf never reach the record


def test_numbers_out_of_range_are_kept_but_nan_is_dropped():
    entry = sweep_result(_test("udp_10M_upload"), dict(GOOD_UDP, lost_percent=120.0, bits_per_second=float("nan")))
    assert entry["lost_percent"] == 120.0 and entry["bits_per_second"] is None and entry["valid"] is False


@pytest.mark.parametrize("test, result, message", [
    ("tcp_single_upload", {}, "test must be a sweep_plan entry with name, protocol, reverse, parallel, bitrate"),
    ({"name": "x", "protocol": "sctp", "reverse": False, "parallel": 1, "bitrate": None}, {},
     "test must have protocol tcp or udp and a boolean reverse"),
    ({"name": "x", "protocol": "tcp", "reverse": False, "parallel": 1, "bitrate": None}, "35M",
     "iperf3_result of x must be the iperf3 action's result (a dict) or None, got str '35M'"),
    ({"name": "x", "protocol": "tcp", "reverse": False, "parallel": "many", "bitrate": None}, {"num_streams": 1},
     "test.parallel of x must be 1-128, got 'many'"),
    ({"name": 5, "protocol": "tcp", "reverse": False, "parallel": 1, "bitrate": None}, {},
     "test.name must be a non-empty string, got 5"),
])
def test_result_errors(test, result, message):
    with pytest.raises(ValueError) as err:
        sweep_result(test, result)
    assert message in str(err.value)


# --- sweep_conclusion --------------------------------------------------------------------------

def _entry(name, bits_per_second, **fields):
    """A valid sweep_result entry of the plan with 4 flows and UDP at 10M/20M/36M."""
    raw = dict(GOOD_UDP if name.startswith("udp") else GOOD_TCP, bits_per_second=bits_per_second,
               direction="client_to_server" if name.endswith("upload") else "server_to_client",
               num_streams=4 if "parallel" in name else 1, **fields)
    return sweep_result(_test(name), raw)


def _tcp(single_up, single_down, parallel_up, parallel_down):
    values = (("tcp_single_upload", single_up), ("tcp_single_download", single_down),
              ("tcp_parallel4_upload", parallel_up), ("tcp_parallel4_download", parallel_down))
    return [_entry(name, value) for name, value in values if value is not None]


LOSSLESS_UDP = [_entry("udp_10M_upload", 9.9e6, lost_percent=0.2), _entry("udp_10M_download", 9.9e6, lost_percent=0.0)]
INVALID_FAST_DOWNLOAD = sweep_result(_test("tcp_single_download"), dict(GOOD_TCP, bits_per_second=900e6,
                                                                        direction="server_to_client", valid=False,
                                                                        invalid_reason="duration_s is 0.0"))

# (results, path, verdict, rules)
VERDICT_CASES = [
    # the lab before the fix: cubic on a lossy 50 ms path; four flows get four times one
    (_tcp(2.3e6, 2.5e6, 9.1e6, 9.4e6) + LOSSLESS_UDP, 40e6, "single_flow_limit", ["single_flow_limit"]),
    (_tcp(2e6, None, 3e6, None), None, "single_flow_limit", ["single_flow_limit"]),   # exactly 1.5x, one way
    # after: one flow near the bottleneck both ways
    (_tcp(35.3e6, 34.1e6, 36.0e6, 36.2e6) + LOSSLESS_UDP, 40e6, "path_limit", ["path_limit_share", "path_limit_flat"]),
    (_tcp(32e6, 33e6, None, None), "40M", "path_limit", ["path_limit_share"]),            # 80 % is enough
    # one direction fine, the other a third of it, more flows do not help
    (_tcp(35e6, 10e6, 35.5e6, 10.5e6), 40e6, "asymmetric", ["asymmetric", "path_limit_flat"]),
    (_tcp(35e6, 0.0, None, None), 40e6, "asymmetric", ["asymmetric"]),                    # nothing came back
    # UDP loses at half the path although TCP gets no more with more flows
    (_tcp(20e6, 21e6, 21e6, 21.5e6) + [_entry("udp_20M_upload", 18e6, lost_percent=9.5)], 40e6,
     "udp_loss_below_path", ["udp_loss_below_path", "path_limit_flat"]),
    # without a path, "below" means at most the best TCP rate of that direction
    (_tcp(20e6, 21e6, 21e6, 21.5e6) + [_entry("udp_10M_upload", 9e6, lost_percent=10.0)], None,
     "udp_loss_below_path", ["udp_loss_below_path", "path_limit_flat"]),
    # more flows gain nothing and the path is unknown: the path is full
    (_tcp(20e6, 21e6, 21e6, 21.5e6), None, "path_limit", ["path_limit_flat"]),
    # absent: UDP loss at or above the path, or exactly 1 %, says nothing
    (_tcp(20e6, 21e6, 21e6, 21.5e6) + [_entry("udp_36M_upload", 20e6, lost_percent=44.0)], 36e6,
     "path_limit", ["path_limit_flat"]),
    (_tcp(20e6, 21e6, 21e6, 21.5e6) + [_entry("udp_10M_upload", 9.9e6, lost_percent=1.0)], 40e6,
     "path_limit", ["path_limit_flat"]),
    (_tcp(20e6, 21e6, 21e6, 21.5e6) + [_entry("udp_36M_upload", 20e6, lost_percent=44.0)], None,
     "path_limit", ["path_limit_flat"]),
    # inconclusive: between 1.2x and 1.5x; one flow only and no path; no single flow at all
    (_tcp(20e6, 21e6, 26e6, 27e6), None, "inconclusive", []),
    (_tcp(20e6, 21e6, None, None), None, "inconclusive", []),
    (_tcp(None, None, 30e6, 31e6), 40e6, "inconclusive", []),
    ([], 40e6, "inconclusive", []),
    # invalid results are left out: the 900 Mbit/s download would otherwise make it asymmetric
    (_tcp(35e6, None, 36e6, None) + [INVALID_FAST_DOWNLOAD], 40e6, "path_limit", ["path_limit_share", "path_limit_flat"]),
    ([INVALID_FAST_DOWNLOAD], 40e6, "inconclusive", []),
]


@pytest.mark.parametrize("results, path, verdict, rules", VERDICT_CASES)
def test_verdicts(results, path, verdict, rules):
    conclusion = sweep_conclusion(results, path)
    assert (conclusion["verdict"], conclusion["rules"]) == (verdict, rules)
    assert verdict in VERDICTS and conclusion["explanation"]
    json.dumps(conclusion)


def test_conclusion_numbers_and_explanation():
    results = _tcp(2.3e6, 2.5e6, 9.1e6, 9.4e6) + LOSSLESS_UDP + [
        _entry("udp_20M_upload", 19e6, lost_percent=3.0),
        sweep_result(_test("udp_36M_upload"), dict(GOOD_UDP, lost_percent=120.0))]
    conclusion = sweep_conclusion(results, "40M")
    assert conclusion["path_bits_per_second"] == 40e6
    assert conclusion["single_upload_bits_per_second"] == 2.3e6 and conclusion["parallel_download_bits_per_second"] == 9.4e6
    assert conclusion["parallel_streams"] == 4
    assert conclusion["parallel_gain_upload"] == approx(9.1 / 2.3)
    assert conclusion["path_share_download"] == approx(2.5 / 40)
    assert conclusion["direction_ratio"] == approx(9.4 / 9.1)
    assert conclusion["udp_lossy"] == [{"name": "udp_20M_upload", "offered_bits_per_second": 20e6, "lost_percent": 3.0,
                                        "reference_bits_per_second": 40e6}]
    assert conclusion["excluded"] == [{"name": "udp_36M_upload", "invalid_reason": "lost_percent is 120.0, outside 0-100"}]
    text = conclusion["explanation"]
    for part in ("Upload (peer -> hub): one TCP flow 2.30 Mbit/s, 4 flows 9.10 Mbit/s together (4.0x one flow), "
                 "one flow is 6 % of the 40.0 Mbit/s path.",
                 "UDP offered at 20.0 Mbit/s (below 40.0 Mbit/s) lost 3 % (udp_20M_upload).",
                 "Verdict single_flow_limit. Several flows together get at least 1.5x",
                 "Also: UDP lost more than 1 %",
                 "Left out as invalid: udp_36M_upload (lost_percent is 120.0, outside 0-100)."):
        assert part in text
    assert "\n" not in text and "check path_bits_per_second" not in text


@pytest.mark.parametrize("path, said", [("10M", True), ("20M", False), (None, False)])
def test_tcp_above_the_stated_path_is_pointed_out(path, said):
    text = sweep_conclusion(_tcp(20e6, 21.9e6, None, None), path)["explanation"]
    assert ("TCP got more than the stated 10.0 Mbit/s path: check path_bits_per_second." in text) is said
    assert ("check path_bits_per_second" in text) is said


def test_conclusion_from_recorded_json(load_fixture):
    results = [sweep_result(_test(name), parse_iperf3_json(load_fixture("iperf3_json", case)))
               for name, case in (("tcp_single_upload", "tcp_forward_3.12.txt"),
                                  ("tcp_single_download", "tcp_reverse_3.12.txt"))]
    assert sweep_conclusion(results, "700M")["verdict"] == "path_limit"   # 633 and 589 Mbit/s of 700
    assert sweep_conclusion(results, "1G")["verdict"] == "inconclusive"   # 63 %, and no parallel test


def test_conclusion_without_anything_valid_says_so():
    conclusion = sweep_conclusion([sweep_result(_test("tcp_single_upload"), None)], None)
    assert conclusion["verdict"] == "inconclusive" and conclusion["single_upload_bits_per_second"] is None
    assert conclusion["explanation"] == ("Inconclusive: no valid single-flow TCP result in either direction. "
                                         "Left out as invalid: tcp_single_upload (not run).")


def test_a_direction_that_got_nothing_reads_infinitely_slower():
    conclusion = sweep_conclusion(_tcp(35e6, 0.0, None, None), 40e6)
    assert conclusion["direction_ratio"] == math.inf and "infinitely more" in conclusion["explanation"]


@pytest.mark.parametrize("results, path, message", [
    ("x", None, "results must be a list of sweep_result entries, got str 'x'"),
    ([{"bits_per_second": 1}], None, "results[0] must be a sweep_result entry (a dict with a name)"),
    ([], "fast", "path_bits_per_second must be bits per second"),
    ([{"name": "a", "valid": True, "protocol": "tcp", "direction": "upload", "parallel": "4", "bits_per_second": 1e6}],
     None, "results[0].parallel (a) must be a whole number of flows >= 1 or null, got '4'"),
    ([{"name": "a", "valid": True, "protocol": "tcp", "direction": "upload", "parallel": 1, "bits_per_second": "9M"}],
     None, "results[0].bits_per_second (a) must be a finite number or null, got '9M'"),
    ([{"name": "u", "valid": True, "protocol": "udp", "offered_bits_per_second": "1M"}],
     None, "results[0].offered_bits_per_second (u) must be a finite number or null, got '1M'"),
    ([{"name": "a", "valid": "yes"}], None, "results[0].valid (a) must be true or false or null, got 'yes'"),
])
def test_conclusion_errors(results, path, message):
    with pytest.raises(ValueError) as err:
        sweep_conclusion(results, path)
    assert message in str(err.value)


# --- sweep_rows --------------------------------------------------------------------------------

def _record(results, path=40e6):
    return {"hub": "hub", "path_bits_per_second": path, "results": results,
            "conclusion": sweep_conclusion(results, path)}


BEFORE = {"peer": _record(_tcp(2.3e6, 2.5e6, 9.1e6, None) + [
    _entry("udp_10M_upload", 9.9e6, lost_percent=0.52, jitter_ms=1.25)])}
AFTER = {"peer": _record(_tcp(35.3e6, 34.1e6, 36.0e6, 36.2e6) + [
    sweep_result(_test("udp_10M_upload"), dict(GOOD_UDP, lost_percent=120.0))])}


def test_rows_pair_tests_in_plan_order():
    rows = sweep_rows(BEFORE, AFTER, None)
    assert [row["test"] for row in rows] == [
        "TCP 1 flow peer -> hub", "TCP 1 flow hub -> peer", "TCP 4 flows peer -> hub",
        "UDP at 10.0 Mbit/s peer -> hub loss", "UDP at 10.0 Mbit/s peer -> hub jitter",
        "TCP 4 flows hub -> peer",   # only in the after sweep: comes last
        "sweep conclusion"]
    assert rows[0] == {"host": "peer", "test": "TCP 1 flow peer -> hub", "name": "tcp_single_upload",
                       "before": "2.30 Mbit/s (80 retransmits, bbr)", "after": "35.3 Mbit/s (80 retransmits, bbr)",
                       "reference": "40.0 Mbit/s", "before_value": 2.3e6, "after_value": 35.3e6,
                       "reference_value": 40e6, "unit": "bits_per_second"}


def test_udp_rows_invalid_and_missing_sides():
    rows = {row["test"]: row for row in sweep_rows(BEFORE, AFTER)}
    loss, jitter = rows["UDP at 10.0 Mbit/s peer -> hub loss"], rows["UDP at 10.0 Mbit/s peer -> hub jitter"]
    assert (loss["before"], loss["before_value"], loss["reference"], loss["reference_value"], loss["unit"]) == (
        "0.52 % (9.90 Mbit/s received)", 0.52, "1 %", 1.0, "percent")
    assert (loss["after"], loss["after_value"]) == ("invalid: lost_percent is 120.0, outside 0-100", None)
    assert (jitter["before"], jitter["before_value"], jitter["reference"], jitter["unit"]) == ("1.25 ms", 1.25, "", "ms")
    missing = rows["TCP 4 flows hub -> peer"]
    assert (missing["before"], missing["before_value"], missing["after_value"]) == ("n/a", None, 36.2e6)
    assert rows["sweep conclusion"] == {
        "host": "peer", "test": "sweep conclusion", "name": "conclusion", "before": "single_flow_limit",
        "after": "path_limit", "reference": "path_limit", "before_value": None, "after_value": None,
        "reference_value": None, "unit": None}


def test_a_sweep_without_a_measurement_slot_reads_not_measured_never_a_rate():
    reason = "no measurement slot within 60 s (tunnel_sweep_slot_wait_max_s): its slot, 3 of 3, would start about 120 s after the first"
    entry = sweep_result(_test("tcp_single_upload"), {"not_measured_reason": reason})
    assert (entry["valid"], entry["bits_per_second"], entry["invalid_reason"]) == (False, None, "not measured: " + reason)
    results = [sweep_result(test, {"not_measured_reason": reason}) for test in sweep_plan(40e6, None, 4)]
    after = {"peer": _record(results)}
    rows = {row["test"]: row for row in sweep_rows(BEFORE, after)}
    single = rows["TCP 1 flow peer -> hub"]
    assert (single["after"], single["after_value"]) == ("not measured: " + reason, None)
    assert after["peer"]["conclusion"]["verdict"] == "inconclusive"


@pytest.mark.parametrize("before, after, path_by_host, reference", [
    (BEFORE, AFTER, None, "40.0 Mbit/s"),                     # from the records
    (BEFORE, AFTER, {"peer": "36M"}, "36.0 Mbit/s"),          # the dict wins
    (BEFORE, AFTER, {"owrt": "36M"}, "40.0 Mbit/s"),          # a host it does not name: the record's
    (BEFORE, AFTER, 20e6, "20.0 Mbit/s"),                     # one value for all
    ({"peer": _record(_tcp(1e6, None, None, None), None)}, None, None, ""),   # unknown anywhere
])
def test_rows_reference_the_path(before, after, path_by_host, reference):
    assert sweep_rows(before, after, path_by_host)[0]["reference"] == reference


def test_rows_per_host_sorted_and_markdown_renders_them():
    rows = sweep_rows(dict(BEFORE, owrt=BEFORE["peer"]), {"owrt": None})
    assert [row["host"] for row in rows][0] == "owrt" and rows[-1]["host"] == "peer"
    assert rows[0]["after"] == "n/a" and rows[-1]["after"] == "n/a"
    table = markdown_table(rows)
    assert table.splitlines()[0].startswith("| host | test | before | after |")
    assert len([line for line in table.splitlines() if line.startswith("|")]) == 2 + len(rows)
    assert table.endswith("\n\n%s\n" % NO_AFTER)                  # no after side yet: the table says why
    json.dumps(rows, allow_nan=False)


@pytest.mark.parametrize("before, after, path_by_host, message", [
    ({}, "x", None, "after must be a dict {host: sweep record}, got str 'x'"),
    ({"peer": "x"}, {}, None, "before['peer'] must be a sweep record (a dict), got str 'x'"),
    ({"peer": {"results": "x"}}, {}, None, "before['peer'].results must be a list of sweep_result entries"),
    ({"peer": {"results": [1]}}, {}, None, "before['peer'].results[0] must be a sweep_result entry"),
    (BEFORE, {}, {"peer": "fast"}, "path_by_host['peer'] must be bits per second"),
    ({"peer": {"conclusion": "path_limit"}}, {}, None,
     "before['peer'].conclusion must be a sweep_conclusion result (a dict with a verdict), got 'path_limit'"),
    ({"peer": {"conclusion": {"verdict": ["x"]}}}, {}, None, "before['peer'].conclusion must be a sweep_conclusion"),
    ({"peer": {"results": [{"name": "a", "protocol": "tcp", "valid": True, "bits_per_second": 1.0,
                            "retransmits": "many"}]}}, {}, None,
     "before['peer'].results[0].retransmits (a) must be a finite number or null, got 'many'"),
    ({"peer": {"results": [{"name": "a", "protocol": "tcp", "valid": True, "bits_per_second": 1.0,
                            "congestion_control": ["bbr"]}]}}, {}, None,
     "before['peer'].results[0].congestion_control (a) must be a string or null, got ['bbr']"),
])
def test_rows_errors_name_the_argument_and_host(before, after, path_by_host, message):
    with pytest.raises(ValueError) as err:
        sweep_rows(before, after, path_by_host)
    assert message in str(err.value)


# --- results that lie (issue 17.10) ----------------------------------------------------------------

@pytest.mark.parametrize("case, valid, lost_percent, reason", [
    # a 3.16 client against a 3.12 server: iperf3 says 0 lost, the server counted 412 of 9137
    ("udp_forward_server_output_client_3.16_server_3.12.txt", False, None,
     "UDP loss unknown: the server runs iperf3 3.12, which sends no omitted counts (before 3.14)"),
    ("udp_forward_server_output_3.16.txt", True, approx(100 * 412 / 9137), None),
    ("udp_forward_nothing_arrived_3.12.txt", False, 0.0, "iperf3: no UDP packet was counted (packets 0)"),
])
def test_a_udp_loss_that_lies_never_reaches_the_verdict(load_fixture, case, valid, lost_percent, reason):
    entry = sweep_result(_test("udp_20M_upload", rates=["20M"]), parse_iperf3_json(load_fixture("iperf3_json", case)))
    assert entry["valid"] is valid and entry["lost_percent"] == lost_percent
    assert (entry["invalid_reason"] or "").startswith(reason or "")
    conclusion = sweep_conclusion(_tcp(30e6, 31e6, 31e6, 32e6) + [entry], "40M")
    # 4.5 % lost at 20M on a 40M path is UDP loss below the path, only when iperf3 can vouch for it
    assert ("udp_loss_below_path" in conclusion["rules"]) is valid
    assert (entry["name"] in [excluded["name"] for excluded in conclusion["excluded"]]) is not valid
    if not valid:
        assert "Left out as invalid: udp_20M_upload (%s" % reason in conclusion["explanation"]


def test_a_stuck_server_never_reaches_the_verdict(load_fixture):
    entry = sweep_result(_test("tcp_single_download"),
                         parse_iperf3_json(load_fixture("iperf3_json", "tcp_reverse_server_stuck_3.11.txt")))
    assert entry["valid"] is False
    assert entry["invalid_reason"].startswith("iperf3: only the first of the client's 10 intervals carried data")
    conclusion = sweep_conclusion([entry], "40M")
    assert conclusion["single_download_bits_per_second"] is None and conclusion["verdict"] == "inconclusive"
