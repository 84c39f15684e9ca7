# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2: mwan3's ping budget and the banIP rule on both sides of each boundary."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp_limit import (
    limit_drops_health_checks, mwan3_ping_budget_per_second)


def track(targets=2, count=1, interval=None, failure=None, recovery=None, enabled=True, method="ping"):
    return {"enabled": enabled, "track_method": method, "track_ip": ["192.0.2.%d" % i for i in range(1, targets + 1)],
            "count": count, "interval_s": interval, "failure_interval_s": failure, "recovery_interval_s": recovery}


@pytest.mark.parametrize("tracking, budget", [
    ({"wan": track(targets=2, interval=5)}, 0.4),
    ({"wan": track(targets=2)}, 0.2),                                   # mwan3track's default interval 10 s, count 1
    ({"wan": track(targets=1, count=3, interval=10, failure=2)}, 1.5),  # the shortest interval counts
    ({"wan": track(targets=1, interval=10, recovery=4)}, 0.25),
    ({"wan": track(enabled=False, interval=1)}, 0.0),
    ({"wan": track(method="arping", interval=1)}, 0.0),
    ({"wan": track(method=None, interval=1)}, 2.0),                    # unset: mwan3's default, ping
    ({"wan": track(targets=2, interval=5), "wwan": track(targets=4, interval=2)}, 2.4),
])
def test_budget(tracking, budget):
    assert mwan3_ping_budget_per_second(tracking) == pytest.approx(budget)


def view(budget_targets=2, interval=5, limit=10, drops=0, failed=0, installed=True, tracking=True):
    return {"openwrt": {"banip": {"installed": installed, "icmp_limit_rule": {"rate_per_second": limit, "counter": "cnt_icmpflood"}},
                        "mwan3": {"tracking": {"wan": track(targets=budget_targets, interval=interval)} if tracking else {}}},
            "health_checks": {"sent": 100, "failed_pings": failed, "icmp_flood_drops_packets": drops}}


def test_a_clean_limiter_well_above_the_budget_is_no_finding():
    assert limit_drops_health_checks("owrt", view(), {}) == []


@pytest.mark.parametrize("changes", [{"drops": 1}, {"failed": 1}])
def test_one_drop_or_one_failed_ping_fires(changes):
    [(evidence, _text)] = limit_drops_health_checks("owrt", view(**changes), {})
    assert evidence["icmplimit_per_second"] == 10 and evidence["mwan3_ping_budget_per_second"] == 0.4


def test_the_budget_over_half_the_limit_fires_and_exactly_half_does_not():
    # 10 targets every 2 s = 5 replies/s: 2 x 5 = 10 is not over a limit of 10; 11 targets (5.5/s) are.
    assert limit_drops_health_checks("owrt", view(budget_targets=10, interval=2), {}) == []
    assert limit_drops_health_checks("owrt", view(budget_targets=11, interval=2), {}) != []


@pytest.mark.parametrize("changes", [{"installed": False, "drops": 5}, {"tracking": False, "drops": 5},
                                     {"limit": None, "drops": 5}, {"limit": 0, "drops": 5}])
def test_nothing_to_judge_is_no_finding(changes):
    assert limit_drops_health_checks("owrt", view(**changes), {}) == []


def test_the_limit_from_the_config_when_the_rule_is_not_read():
    v = view(drops=3)
    v["openwrt"]["banip"] = {"installed": True, "icmplimit_per_second": 25}
    [(evidence, _text)] = limit_drops_health_checks("owrt", v, {})
    assert evidence["icmplimit_per_second"] == 25 and evidence["counter"] is None


def test_the_exact_evidence_and_the_numbers_in_the_explanation():
    v = view(budget_targets=1, interval=3, drops=7, failed=2)
    v["health_checks"]["sent"] = 60
    [(evidence, text)] = limit_drops_health_checks("owrt", v, {})
    assert evidence == {"icmplimit_per_second": 10, "mwan3_ping_budget_per_second": 0.33, "health_check_pings_sent": 60,
                        "health_check_pings_failed": 2, "icmp_flood_drops_packets": 7, "counter": "cnt_icmpflood"}
    assert "2 of 60 bursty" in " ".join(text.split()) and "counted 7 drops" in " ".join(text.split())


def test_a_budget_of_exactly_one_reply_per_second_is_judged_like_any_other():
    assert limit_drops_health_checks("owrt", view(budget_targets=10, interval=10, drops=1), {}) != []
