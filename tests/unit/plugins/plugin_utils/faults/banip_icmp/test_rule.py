# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2: mwan3's ping budget, banIP's state, the limit the probe paces inside and the rule on both sides of each boundary."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.limiter import (
    AUTOSTART_OFF_REASON, DISABLED_REASON, NOT_LOADED_REASON, banip_inactive, banip_limiter, mwan3_ping_budget_per_second)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.rule import limit_coverage, limit_drops_health_checks
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.mwan3 import parse_mwan3_tracking
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.icmp_pacing import PROBE_SHARE_OF_LIMIT, probe_interval_ms


def track(targets=2, count=1, interval=None, failure=None, recovery=None, enabled=True, method="ping", reliability=None):
    return {"enabled": enabled, "track_method": method, "track_ip": ["192.0.2.%d" % i for i in range(1, targets + 1)],
            "reliability": reliability, "count": count, "interval_s": interval, "failure_interval_s": failure,
            "recovery_interval_s": recovery}


# mwan3track stops a round once `reliability` targets answered (default 1): a healthy uplink pings
# min(reliability, targets) of them, count pings each, every interval (failure/recovery intervals only while failing)
@pytest.mark.parametrize("tracking, budget", [
    ({"wan": track(targets=2, interval=5)}, 0.2),                        # reliability 1: the second target is skipped
    ({"wan": track(targets=2, interval=5, reliability=2)}, 0.4),
    ({"wan": track(targets=2, interval=5, reliability=3)}, 0.4),         # more than there are: all of them
    ({"wan": track(targets=2, interval=5, reliability=0)}, 0.0),         # 0: mwan3track pings none
    ({"wan": track(targets=4)}, 0.1),                                    # mwan3track's defaults: interval 10 s, count 1
    ({"wan": track(targets=4, count=3, interval=10, failure=2, reliability=2)}, 0.6),  # the healthy interval counts
    ({"wan": track(targets=1, interval=10, recovery=4)}, 0.1),
    ({"wan": track(targets=0, interval=1)}, 0.0),
    ({"wan": track(enabled=False, interval=1)}, 0.0),
    ({"wan": track(method="arping", interval=1)}, 0.0),
    ({"wan": track(method=None, interval=1, reliability=2)}, 2.0),       # unset: mwan3's default, ping
    ({"wan": track(targets=2, interval=5), "wwan": track(targets=4, interval=2, reliability=2)}, 1.2),
])
def test_budget(tracking, budget):
    assert mwan3_ping_budget_per_second(tracking) == pytest.approx(budget)


def test_budget_of_case05s_uci(load_fixture):
    """Case 05's router: 2 uplinks x 4 targets, reliability 2, count 2, every 1 s: 2 x 2 x 2 = 8 replies/s, not 16."""
    tracking = parse_mwan3_tracking(load_fixture("uci_show", "case05_mwan3_aggressive.txt"))
    assert mwan3_ping_budget_per_second(tracking) == 8


def banip(**changes):
    """openwrt_facts' banip of an enabled banIP 1.8 with its table loaded (limit 25/s, burst hidden by nft list)."""
    return dict({"installed": True, "enabled": True, "nft_installed": True, "nft_table_loaded": True,
                 "icmp_counter": {"name": "cnt_icmpflood", "packets": 410, "bytes": 34440},
                 "icmp_limit_rule": {"rate_per_second": 25, "burst_packets": None, "counter": "cnt_icmpflood", "rules": 1}},
                **changes)


def record(**changes):
    """health_check_measure's record: a 30 s passive window, then the probe inside the limit (5/s at 25/s)."""
    return dict({"phase": "before", "window_s": 30, "window_icmp_flood_growth_packets": 0, "window_note": None,
                 "mwan3_failed_checks": 0, "mwan3_lost_pings": 0, "mwan3_offline_events": 0, "mwan3_failed_interfaces": [],
                 "mwan3_log_note": None, "sent": 20, "failed_pings": 0, "interval_ms": 200, "rate_per_second": 5.0,
                 "icmp_flood_drops_packets": 0}, **changes)


def view(checks=None, tracking=True, **banip_changes):
    return {"groups": ["tunnelfix_openwrt"],
            "openwrt": {"banip": banip(**banip_changes),
                        "mwan3": {"tracking": {"wan": track(targets=1, interval=1), "wanb": track(targets=1, interval=1)}
                                  if tracking else {}}},
            "health_checks": checks}


@pytest.mark.parametrize("checks", [
    record(),                                                                  # a static counter, nothing failed
    record(failed_pings=1),                                                    # one lost ping on a clean limiter
    record(failed_pings=1, icmp_flood_drops_packets=1),                        # ... the counter grew in the probe only
    record(window_icmp_flood_growth_packets=40),                               # growth without a failed check
    record(mwan3_failed_checks=3, mwan3_lost_pings=3, mwan3_failed_interfaces=["wan"]),  # failed checks, no growth
    record(window_icmp_flood_growth_packets=40, failed_pings=2),               # the probe lost pings, no growth meanwhile
    # the old burst: 100 pings/s, far over a fifth of 25/s, lost 10 and grew the counter by 10 itself
    record(window_icmp_flood_growth_packets=40, failed_pings=10, icmp_flood_drops_packets=10, rate_per_second=100.0,
           interval_ms=10),
    record(window_icmp_flood_growth_packets=None, mwan3_failed_checks=3, window_note="banIP was reloaded in the window"),
    # an old record (no passive window at all): the burst's own drops
    {"phase": "before", "sent": 20, "failed_pings": 10, "rate_per_second": 100.0, "icmp_flood_drops_packets": 10},
    None,                                                                      # not measured
    # banIP reloaded during the probe: the counter fell, so it did not grow (the probe's lost pings do not count)
    record(window_icmp_flood_growth_packets=3, failed_pings=2, icmp_flood_drops_packets=-400),
    record(window_icmp_flood_growth_packets=3, failed_pings=2, icmp_flood_drops_packets=0),
    record(window_icmp_flood_growth_packets=3, failed_pings=2, icmp_flood_drops_packets=None),
])
def test_no_finding(checks):
    assert limit_drops_health_checks("owrt", view(checks), {}) == []


@pytest.mark.parametrize("checks", [
    record(window_icmp_flood_growth_packets=1, mwan3_failed_checks=1),
    record(window_icmp_flood_growth_packets=1, mwan3_lost_pings=1),
    record(window_icmp_flood_growth_packets=1, failed_pings=1, icmp_flood_drops_packets=1),     # the probe inside the limit
    record(window_icmp_flood_growth_packets=1, mwan3_failed_checks=None, mwan3_lost_pings=None, failed_pings=1,
           icmp_flood_drops_packets=3, mwan3_log_note="logread is not installed"),
    # the probe at exactly a fifth of the limit still counts
    record(window_icmp_flood_growth_packets=1, failed_pings=1, icmp_flood_drops_packets=1, rate_per_second=25 * PROBE_SHARE_OF_LIMIT),
])
def test_growth_in_the_window_with_failed_checks_fires(checks):
    assert len(limit_drops_health_checks("owrt", view(checks), {})) == 1


def test_an_aggressive_ping_budget_with_a_static_counter_is_no_finding():
    """Case 05's aggressive tracking (2 uplinks x 4 targets, reliability 2, count 2 every 1 s = 8 replies/s healthy,
    up to 16 while targets fail) against 25/s: it may overflow, but nothing shows it did; the passive window decides."""
    v = view(record())
    v["openwrt"]["mwan3"]["tracking"] = {"wan": track(targets=4, count=2, interval=1, reliability=2),
                                         "wanb": track(targets=4, count=2, interval=1, reliability=2)}
    assert mwan3_ping_budget_per_second(v["openwrt"]["mwan3"]["tracking"]) == 8
    assert limit_drops_health_checks("owrt", v, {}) == []
    v["health_checks"] = record(window_icmp_flood_growth_packets=12, mwan3_failed_checks=2)
    assert limit_drops_health_checks("owrt", v, {})[0][0]["mwan3_ping_budget_per_second"] == 8


def test_a_probe_just_over_a_fifth_of_the_limit_does_not_count():
    checks = record(window_icmp_flood_growth_packets=1, failed_pings=1, icmp_flood_drops_packets=1, rate_per_second=5.01)
    assert limit_drops_health_checks("owrt", view(checks), {}) == []


@pytest.mark.parametrize("banip_changes", [
    {"installed": False},
    {"enabled": False},                                 # ban_enabled '0'
    {"nft_table_loaded": False, "icmp_counter": None, "icmp_limit_rule": None},
    {"nft_installed": False, "nft_table_loaded": None, "icmp_counter": None, "icmp_limit_rule": None},
    {"icmp_limit_rule": None},                          # ban_icmplimit 0: the table has no ICMP limit rule
])
def test_a_banip_that_cannot_drop_gives_no_finding_whatever_was_measured(banip_changes):
    checks = record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=5, failed_pings=3, icmp_flood_drops_packets=4)
    assert limit_drops_health_checks("owrt", view(checks), {}) != []
    assert limit_drops_health_checks("owrt", view(checks, **banip_changes), {}) == []


def test_ban_enabled_unset_is_banips_own_call_and_judged():
    checks = record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=5)
    assert limit_drops_health_checks("owrt", view(checks, enabled=None), {}) != []


def test_without_ping_tracking_no_finding():
    checks = record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=5)
    assert limit_drops_health_checks("owrt", view(checks, tracking=False), {}) == []


def test_the_exact_evidence_and_the_numbers_in_the_explanation():
    checks = record(window_icmp_flood_growth_packets=37, mwan3_failed_checks=4, mwan3_lost_pings=4,
                    mwan3_failed_interfaces=["wan", "wanb"], failed_pings=2, icmp_flood_drops_packets=5)
    [(evidence, text)] = limit_drops_health_checks("owrt", view(checks), {})
    assert evidence == {"icmplimit_per_second": 25, "burst_packets": 5, "counter": "cnt_icmpflood", "window_s": 30,
                        "window_icmp_flood_growth_packets": 37, "mwan3_failed_checks": 4, "mwan3_lost_pings": 4,
                        "mwan3_failed_interfaces": ["wan", "wanb"], "mwan3_ping_budget_per_second": 2.0,
                        "probe_rate_per_second": 5.0, "probe_pings_sent": 20, "probe_pings_failed": 2,
                        "probe_icmp_flood_drops_packets": 5}
    text = " ".join(text.split())
    assert "above 25 packets/s (burst 5)" in text and "In a 30 s window in which diagnose sent nothing" in text
    assert "grew by 37 packets while mwan3 logged 4 failed checks and 4 lost pings (wan, wanb)" in text
    assert "2 of 20 probe pings sent at 5.0/s failed (inside a fifth of the limit: not the cause)" in text


def test_the_burst_shown_in_the_rule_as_nft_json_lists_it():
    checks = record(window_icmp_flood_growth_packets=3, mwan3_failed_checks=1)
    rule = {"rate_per_second": 250, "burst_packets": 10, "counter": "cnt_icmpflood", "rules": 1}
    [(evidence, _text)] = limit_drops_health_checks("owrt", view(checks, icmp_limit_rule=rule), {})
    assert (evidence["icmplimit_per_second"], evidence["burst_packets"]) == (250, 10)


@pytest.mark.parametrize("banip_facts, expected", [
    (banip(), None),
    (banip(enabled=None), None),
    (banip(installed=False), ("absent", "banIP is not installed (no /etc/init.d/banip)")),
    (banip(enabled=False), ("absent", DISABLED_REASON)),
    (banip(nft_table_loaded=False), ("absent", NOT_LOADED_REASON)),
    (banip(autostart=False), ("absent", AUTOSTART_OFF_REASON)),
    (banip(autostart=True), None),
    (banip(enabled=False, autostart=False), ("absent", DISABLED_REASON)),
    (banip(nft_installed=False, nft_table_loaded=None), ("unknown", "nft is not installed, so banIP's nft table cannot be read")),
    (banip(nft_table_loaded=None), ("unknown", "openwrt_facts did not read banIP's nft table")),
])
def test_banip_inactive(banip_facts, expected):
    assert banip_inactive(banip_facts) == expected


def test_each_reason_says_what_a_reload_does_there():
    # banip.init / banip-functions.sh (every release): ban_enabled '0' and autostart off make start, restart and reload
    # refuse and delete the table; a stopped banIP enabled in both is started by a reload
    for reason in (DISABLED_REASON, AUTOSTART_OFF_REASON):
        assert "a reload cannot apply a new limit" in reason and "would start" not in reason
    assert "a reload would start it" in NOT_LOADED_REASON
    assert "ban_enabled '0'" in DISABLED_REASON and "/etc/rc.d/S95banip" in AUTOSTART_OFF_REASON


@pytest.mark.parametrize("banip_facts, rule", [
    (banip(), {"rate_per_second": 25, "burst_packets": 5, "counter": "cnt_icmpflood", "rules": 1}),   # nft's default burst
    (banip(icmp_limit_rule={"rate_per_second": 10, "burst_packets": 8, "counter": "cnt-icmpflood", "rules": 2}),
     {"rate_per_second": 10, "burst_packets": 8, "counter": "cnt-icmpflood", "rules": 2}),
    (banip(enabled=False), None),
    (banip(icmp_limit_rule=None), None),                                             # ban_icmplimit 0: no rule
    (banip(icmp_limit_rule={"rate_per_second": 0, "burst_packets": None, "counter": None, "rules": 1}), None),
])
def test_the_limit_a_probe_paces_inside(banip_facts, rule):
    """banip_limiter's rule is what measure/icmp_pacing.py paces inside (health_check_probe, the PMTU ladders)."""
    assert banip_limiter(banip_facts)[0] == rule
    assert probe_interval_ms(banip_limiter(banip_facts)[0], 100)["limit_per_second"] == (rule or {}).get("rate_per_second")


@pytest.mark.parametrize("checks, banip_changes, expected", [
    (record(), {}, None),
    (record(), {"enabled": False}, ("clear", "does not apply: " + DISABLED_REASON)),
    (record(), {"nft_table_loaded": False},
     ("clear", "does not apply: " + NOT_LOADED_REASON)),
    (record(), {"nft_installed": False, "nft_table_loaded": None},
     ("not_checked", "nft is not installed, so banIP's nft table cannot be read")),
    (record(), {"icmp_limit_rule": None}, ("clear", "does not apply: banIP's nft table has no ICMP limit rule (ban_icmplimit 0)")),
    (None, {}, ("not_checked", "no health-check measurement in this run (health_check_measure's passive window and probe)")),
    (record(window_icmp_flood_growth_packets=None, window_note="no banIP ICMP flood counter to watch"), {},
     ("not_checked", "the health-check measurement has no passive window over banIP's ICMP flood counter "
                     "(no banIP ICMP flood counter to watch)")),
    ({"phase": "before", "sent": 20, "failed_pings": 10}, {},
     ("not_checked", "the health-check measurement has no passive window over banIP's ICMP flood counter (not measured)")),
    (record(mwan3_failed_checks=None, mwan3_log_note="logread is not installed"), {},
     ("clear", "judged without mwan3's log (logread is not installed): failed checks from the probe only")),
])
def test_coverage_says_why_the_rule_could_not_or_need_not_judge(checks, banip_changes, expected):
    assert limit_coverage("owrt", view(checks, **banip_changes), {}) == expected


# banIP 1.0.x (OpenWrt 23.05) writes one rule per family, each its own bucket; from 1.5.3 one rule for both
@pytest.mark.parametrize("rules, said", [(1, "in one shared bucket for IPv4 and IPv6 on the WAN devices"),
                                         (2, "in one bucket per family (IPv4 and IPv6, 2 rules) on the WAN devices")])
def test_the_explanation_says_how_many_buckets(rules, said):
    checks = record(window_icmp_flood_growth_packets=3, mwan3_failed_checks=1)
    rule = {"rate_per_second": 10, "burst_packets": None, "counter": "cnt-icmpflood", "rules": rules}
    [(_evidence, text)] = limit_drops_health_checks("owrt", view(checks, icmp_limit_rule=rule), {})
    assert said in " ".join(text.split())


def _text(finding):
    return " ".join(finding[1].split())


@pytest.mark.parametrize("rate", [None, "", "fast"])
def test_a_probe_without_a_readable_rate_is_not_inside_the_share(rate):
    """Its lost pings do not count, and the explanation says so; mwan3's failed checks alone fire."""
    checks = record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=3, failed_pings=4, icmp_flood_drops_packets=2,
                    rate_per_second=rate)
    [finding] = limit_drops_health_checks("r", view(checks), {})
    assert "4 of 20 probe pings sent at %s/s failed (faster than a fifth of the limit: its losses are not counted)" % rate in _text(finding)
    # the probe's losses alone (no failed check in mwan3's log) are then no finding
    assert limit_drops_health_checks("r", view(dict(checks, mwan3_failed_checks=0)), {}) == []


def test_a_probe_whose_failures_are_unknown_adds_none():
    """The counter grew during a probe inside the share, but its failed pings were not recorded: nothing to count."""
    checks = record(window_icmp_flood_growth_packets=40, failed_pings=None, icmp_flood_drops_packets=3)
    assert limit_drops_health_checks("r", view(checks), {}) == []


@pytest.mark.parametrize("rules, buckets", [
    (None, "one shared bucket for IPv4 and IPv6"), (1, "one shared bucket for IPv4 and IPv6"),
    (2, "one bucket per family (IPv4 and IPv6, 2 rules)")])
def test_the_whole_explanation_with_unknown_counts(rules, buckets):
    checks = record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=None, mwan3_lost_pings=None, failed_pings=None,
                    sent=None, icmp_flood_drops_packets=3, rate_per_second=50.0, mwan3_failed_interfaces=["wan", "wanb"])
    checks["mwan3_failed_checks"] = 2
    rule = {"rate_per_second": 25, "burst_packets": 5, "counter": "cnt_icmpflood", "rules": rules}
    [finding] = limit_drops_health_checks("r", view(checks, icmp_limit_rule=rule), {})
    assert _text(finding) == (
        "banIP drops ICMP above 25 packets/s (burst 5) in %s on the WAN devices, before established traffic is accepted. "
        "In a 30 s window in which diagnose sent nothing, its flood counter cnt_icmpflood grew by 40 packets while mwan3 logged 2 "
        "failed checks and an unknown number of lost pings (wan, wanb); an unknown number of an unknown number of probe pings "
        "sent at 50.0/s failed (faster than a fifth of the limit: its losses are not counted). The router's own ICMP (mwan3 "
        "tracking, about 2.0 replies/s, and any monitoring pinger) overflows the limit, so mwan3 can mark a healthy uplink offline. "
        "Raise banip.global.ban_icmplimit (250)." % buckets)


def one_uplink_view(checks, interval):
    """One uplink tracked by one target every ``interval`` s: a budget of 1/interval replies/s."""
    v = view(checks)
    v["openwrt"]["mwan3"]["tracking"] = {"wan": track(targets=1, interval=interval)}
    return v


@pytest.mark.parametrize("v", [
    one_uplink_view(record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=1), 1),   # a budget of exactly 1/s
    view(record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=2, failed_pings=2, icmp_flood_drops_packets=1)),
    view(record(window_icmp_flood_growth_packets=40, mwan3_failed_checks=3, mwan3_lost_pings=3)),
    view(record(window_icmp_flood_growth_packets=40, mwan3_lost_pings=3)),
])
def test_failed_checks_lost_pings_and_probe_failures_add_up(v):
    assert len(limit_drops_health_checks("r", v, {})) == 1


def test_the_budget_in_the_evidence_and_an_explanation_without_failed_interfaces():
    checks = record(window_icmp_flood_growth_packets=12, mwan3_failed_checks=1, mwan3_lost_pings=2)
    [(evidence, text)] = limit_drops_health_checks("r", one_uplink_view(checks, 3), {})
    assert (evidence["mwan3_ping_budget_per_second"], evidence["mwan3_failed_interfaces"]) == (0.33, [])
    assert ("its flood counter cnt_icmpflood grew by 12 packets while mwan3 logged 1 failed checks and 2 lost pings; 0 of 20 probe "
            "pings sent at 5.0/s failed (inside a fifth of the limit: not the cause). The router's own ICMP (mwan3 tracking, about "
            "0.3 replies/s") in " ".join(text.split())


def test_coverage_without_mwan3s_log_names_why():
    assert limit_coverage("r", view(record(mwan3_failed_checks=None)), {}) == (
        "clear", "judged without mwan3's log (not read): failed checks from the probe only")
    assert limit_coverage("r", view(record(mwan3_failed_checks=None, mwan3_log_note="logread failed (rc=1)")), {}) == (
        "clear", "judged without mwan3's log (logread failed (rc=1)): failed checks from the probe only")
