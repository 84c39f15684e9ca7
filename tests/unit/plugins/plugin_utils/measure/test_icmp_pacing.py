# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A prober's pace inside a router's ICMP limiter (banIP's probe and the PMTU ladders): a fifth of the limit at most."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.icmp_pacing import PROBE_SHARE_OF_LIMIT, probe_interval_ms


def limit(rate, burst=5):
    """banip_limiter's rule: the loaded ICMP limit (burst nft's default 5 where the listing hides it)."""
    return {"rate_per_second": rate, "burst_packets": burst, "counter": "cnt_icmpflood", "rules": 1}


@pytest.mark.parametrize("rule, wanted, expected", [
    # a fifth of the limit: 1000 / (25 x 0.2) = 200 ms, 1000 / (10 x 0.2) = 500 ms
    (limit(25), 100, {"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25, "burst_packets": 5}),
    (limit(10), 100, {"interval_ms": 500, "rate_per_second": 2.0, "limit_per_second": 10, "burst_packets": 5}),
    (limit(25), 200, {"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25, "burst_packets": 5}),
    (limit(25), 199, {"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25, "burst_packets": 5}),
    (limit(25), 201, {"interval_ms": 201, "rate_per_second": 4.975, "limit_per_second": 25, "burst_packets": 5}),
    (limit(25), 10, {"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25, "burst_packets": 5}),  # never faster
    # 250/s: 20 ms would do; the wanted 100 ms is slower
    (limit(250, 10), 100, {"interval_ms": 100, "rate_per_second": 10.0, "limit_per_second": 250, "burst_packets": 10}),
    # 7/s: 1000 / 1.4 = 714.3 ms, rounded up so the probe stays inside
    (limit(7), 0, {"interval_ms": 715, "rate_per_second": 1.399, "limit_per_second": 7, "burst_packets": 5}),
    (limit(7), "0", {"interval_ms": 715, "rate_per_second": 1.399, "limit_per_second": 7, "burst_packets": 5}),
    (None, 100, {"interval_ms": 100, "rate_per_second": 10.0, "limit_per_second": None, "burst_packets": None}),
    (None, " 10 ", {"interval_ms": 10, "rate_per_second": 100.0, "limit_per_second": None, "burst_packets": None}),
    (None, 0, {"interval_ms": 0, "rate_per_second": None, "limit_per_second": None, "burst_packets": None}),
    (None, 10000, {"interval_ms": 10000, "rate_per_second": 0.1, "limit_per_second": None, "burst_packets": None}),
    (None, 3, {"interval_ms": 3, "rate_per_second": 333.333, "limit_per_second": None, "burst_packets": None}),
])
def test_probe_interval_stays_inside_a_fifth_of_the_limit(rule, wanted, expected):
    got = probe_interval_ms(rule, wanted)
    assert got == expected
    if got["limit_per_second"]:
        assert got["rate_per_second"] <= got["limit_per_second"] * PROBE_SHARE_OF_LIMIT


def test_the_share_is_a_fifth():
    assert PROBE_SHARE_OF_LIMIT == 0.2


@pytest.mark.parametrize("wanted", [-1, 10001, "fast", "-5", True, False, None, 200.0, "2 00"])
def test_probe_interval_refuses_a_bad_interval(wanted):
    with pytest.raises(ValueError, match=r"^wanted_interval_ms must be a whole number 0-10000, got %s$" % repr(wanted).replace(".", r"\.")):
        probe_interval_ms(limit(25), wanted)
