"""judge_iperf3: thresholds name the metric, the measured and the required value."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_judge import judge_iperf3
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import parse_iperf3_json

TCP = {"receiver_bits_per_second": 3100000.0, "retransmits": 412, "lost_percent": None, "valid": True,
       "invalid_reason": None}
UDP = {"receiver_bits_per_second": 9e6, "retransmits": None, "lost_percent": 4.5, "valid": True,
       "invalid_reason": None}


@pytest.mark.parametrize("measured, kwargs, failure", [
    (TCP, {"min_bits_per_second": 32e6}, "receiver bits_per_second 3.10 Mbit/s (3100000) is below the required 32.0 Mbit/s (32000000)"),
    (TCP, {"max_retransmits": 100}, "retransmits 412 are above the allowed 100"),
    (UDP, {"max_lost_percent": 1}, "lost_percent 4.5 is above the allowed 1"),
    (dict(TCP, valid=False, invalid_reason="lost_percent 130 outside 0-100"), {"min_bits_per_second": 1},
     "result is invalid (lost_percent 130 outside 0-100)"),
])
def test_failures(measured, kwargs, failure):
    assert any(failure in text for text in judge_iperf3(measured, **kwargs)["failures"])


@pytest.mark.parametrize("measured, kwargs", [
    (TCP, {"min_bits_per_second": 3e6}),
    (TCP, {"max_retransmits": 412}),
    (UDP, {"max_lost_percent": 5}),
    (TCP, {}),
])
def test_passes(measured, kwargs):
    assert judge_iperf3(measured, **kwargs)["failures"] == []


def test_missing_retransmits_warn_instead_of_passing_as_zero():
    verdict = judge_iperf3(UDP, max_retransmits=0)
    assert verdict["failures"] == []
    assert "did not report retransmits" in verdict["warnings"][0]


UNKNOWN_LOSS = dict(UDP, lost_percent=None, lost_unknown_reason="the server runs iperf3 3.12, which sends no omitted counts")


@pytest.mark.parametrize("measured, failed, warned", [
    (UNKNOWN_LOSS, True, False),            # unknown is not 0: a loss threshold cannot pass on it
    (dict(UDP, lost_percent=0.0), False, False),
    (TCP, False, True),                     # TCP has no loss at all: a warning, as before
])
def test_an_unknown_udp_loss_fails_max_lost_percent(measured, failed, warned):
    verdict = judge_iperf3(measured, max_lost_percent=1)
    assert bool(verdict["failures"]) is failed and bool(verdict["warnings"]) is warned
    if failed:
        assert verdict["failures"] == ["lost_percent is unknown (the server runs iperf3 3.12, which sends no omitted "
                                       "counts), so max_lost_percent 1 cannot be checked"]


def test_an_unknown_udp_loss_is_not_judged_without_a_loss_threshold():
    assert judge_iperf3(UNKNOWN_LOSS, min_bits_per_second=1e6) == {"failures": [], "warnings": []}


# ---- every decision on both sides of its threshold (issue 31.5: `make mutation` showed what was missed) --------

ALL_THREE = {"min_bits_per_second": 1e6, "max_lost_percent": 1, "max_retransmits": 10}


def test_a_udp_test_that_counted_no_packet_fails_every_threshold_at_once(load_fixture):
    """0 datagrams arrived: its "0 %" loss and its rate measure nothing, so even all three thresholds together fail."""
    measured = parse_iperf3_json(load_fixture("iperf3_json", "udp_forward_nothing_arrived_3.12.txt"))
    assert measured["valid"] is False and measured["packets"] == 0
    verdict = judge_iperf3(measured, **ALL_THREE)
    assert verdict == {"failures": ["result is invalid (%s) and cannot be judged" % measured["invalid_reason"]], "warnings": []}


INVALID = dict(UDP, valid=False, invalid_reason="no UDP packet was counted (packets 0)")
INVALID_FAILURE = "result is invalid (no UDP packet was counted (packets 0)) and cannot be judged"


@pytest.mark.parametrize("kwargs, failures", [
    ({}, []),                                          # nothing asked: an invalid result fails nothing
    ({"min_bits_per_second": 1e6}, [INVALID_FAILURE]),
    ({"max_lost_percent": 1}, [INVALID_FAILURE]),
    ({"max_retransmits": 10}, [INVALID_FAILURE]),
    ({"min_bits_per_second": 0, "max_lost_percent": 0, "max_retransmits": 0}, [INVALID_FAILURE]),   # 0 is a threshold
    (ALL_THREE, [INVALID_FAILURE]),
])
def test_an_invalid_result_fails_whatever_threshold_is_asked_and_is_never_judged(kwargs, failures):
    assert judge_iperf3(INVALID, **kwargs) == {"failures": failures, "warnings": []}


def test_a_result_without_a_validity_flag_is_judged():
    measured = {key: value for key, value in TCP.items() if key != "valid"}
    assert judge_iperf3(measured, min_bits_per_second=3.1e6) == {"failures": [], "warnings": []}
    assert judge_iperf3(measured, min_bits_per_second=3.2e6)["failures"] == [
        "receiver bits_per_second 3.10 Mbit/s (3100000) is below the required 3.20 Mbit/s (3200000)"]


@pytest.mark.parametrize("bps, minimum, failures", [
    (3100000.0, 3100000, []),                                                       # exactly at: passes
    (3100001.0, 3100000, []),                                                       # just above
    (3099999.0, 3100000, ["receiver bits_per_second 3.10 Mbit/s (3099999) is below the required 3.10 Mbit/s (3100000)"]),
    (0.0, 0, []),                                                                   # 0 asked, 0 got
    (0.0, 1, ["receiver bits_per_second 0 bit/s (0) is below the required 1 bit/s (1)"]),
    (None, 1, ["receiver bits_per_second n/a (n/a) is below the required 1 bit/s (1)"]),   # no rate is not enough
    (None, 0, ["receiver bits_per_second n/a (n/a) is below the required 0 bit/s (0)"]),
])
def test_min_bits_per_second_boundary(bps, minimum, failures):
    assert judge_iperf3(dict(TCP, receiver_bits_per_second=bps), min_bits_per_second=minimum) == {
        "failures": failures, "warnings": []}


@pytest.mark.parametrize("lost, maximum, failures", [
    (4.5, 4.5, []),                                                  # exactly at: passes
    (4.499, 4.5, []),
    (4.501, 4.5, ["lost_percent 4.5 is above the allowed 4.5"]),    # %.3g rounds, the failure still names both
    (0.0, 0, []),
    (0.01, 0, ["lost_percent 0.01 is above the allowed 0"]),
    (100.0, 99.5, ["lost_percent 100 is above the allowed 99.5"]),
])
def test_max_lost_percent_boundary(lost, maximum, failures):
    assert judge_iperf3(dict(UDP, lost_percent=lost), max_lost_percent=maximum) == {"failures": failures, "warnings": []}


@pytest.mark.parametrize("retransmits, maximum, failures", [
    (412, 412, []),                                                  # exactly at: passes
    (411, 412, []),
    (413, 412, ["retransmits 413 are above the allowed 412"]),
    (0, 0, []),
    (1, 0, ["retransmits 1 are above the allowed 0"]),
])
def test_max_retransmits_boundary(retransmits, maximum, failures):
    assert judge_iperf3(dict(TCP, retransmits=retransmits), max_retransmits=maximum) == {"failures": failures, "warnings": []}


@pytest.mark.parametrize("measured, kwargs, verdict", [
    # TCP has no loss: said, not failed, not passed silently
    (TCP, {"max_lost_percent": 1},
     {"failures": [], "warnings": ["max_lost_percent is only measured for UDP tests; not checked"]}),
    # an empty reason is no reason: the loss is only missing, as for TCP
    (dict(TCP, lost_unknown_reason=""), {"max_lost_percent": 1},
     {"failures": [], "warnings": ["max_lost_percent is only measured for UDP tests; not checked"]}),
    (dict(UDP, protocol="UDP"), {"max_retransmits": 0},
     {"failures": [], "warnings": ["max_retransmits is only measured for TCP tests; not checked"]}),
    (dict(TCP, retransmits=None, protocol="TCP"), {"max_retransmits": 0},
     {"failures": [], "warnings": ["iperf3 did not report retransmits on this platform; max_retransmits not checked"]}),
    # a loss of 0 is a measured loss, no warning; retransmits 0 likewise
    (dict(UDP, lost_percent=0.0, lost_unknown_reason="ignored: the loss was measured"), {"max_lost_percent": 0},
     {"failures": [], "warnings": []}),
    (dict(TCP, retransmits=0, protocol="TCP"), {"max_retransmits": 0}, {"failures": [], "warnings": []}),
    # every threshold at once: each failure in order (rate, loss, retransmits)
    (dict(TCP, lost_percent=2.0, retransmits=11), dict(ALL_THREE, min_bits_per_second=4e6),
     {"failures": ["receiver bits_per_second 3.10 Mbit/s (3100000) is below the required 4.00 Mbit/s (4000000)",
                   "lost_percent 2 is above the allowed 1", "retransmits 11 are above the allowed 10"], "warnings": []}),
    (dict(UDP, lost_percent=None, retransmits=None, protocol="UDP"), ALL_THREE,
     {"failures": [], "warnings": ["max_lost_percent is only measured for UDP tests; not checked",
                                   "max_retransmits is only measured for TCP tests; not checked"]}),
])
def test_warnings_and_failures_exactly(measured, kwargs, verdict):
    assert judge_iperf3(measured, **kwargs) == verdict


def test_an_unknown_loss_names_the_reason_and_the_threshold():
    assert judge_iperf3(UNKNOWN_LOSS, max_lost_percent=0.5) == {"failures": [
        "lost_percent is unknown (the server runs iperf3 3.12, which sends no omitted counts), so max_lost_percent 0.5 "
        "cannot be checked"], "warnings": []}
