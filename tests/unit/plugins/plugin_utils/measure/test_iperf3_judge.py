"""judge_iperf3: thresholds name the metric, the measured and the required value."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_judge import judge_iperf3

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
