# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/report/banip: the banip_icmp role's report lines."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.banip import banip_icmp_report

BEFORE = {"version": "1.5.6", "icmplimit_per_second": 10, "icmplimit_default_per_second": 25,
          "icmp_limit_rule": {"rate_per_second": 10}, "icmp_counter": {"name": "cnt_icmpflood", "packets": 412}}
AFTER = dict(BEFORE, icmplimit_per_second=250, icmp_limit_rule={"rate_per_second": 250},
             icmp_counter={"name": "cnt_icmpflood", "packets": 0})


def report(before=None, after=None, check_mode=False):
    return banip_icmp_report(BEFORE if before is None else before, AFTER if after is None else after, 250, check_mode,
                             "/etc/init.d/banip", "10/s before 1.5.3, 25/s from 1.5.3")


def test_a_change():
    assert report() == ["banIP 1.5.6, default 25/s; wanted 250/s", "before -> after", "ban_icmplimit (packets/s): 10 -> 250",
                        "nft limit rule (packets/s): 10 -> 250", "ICMP flood counter cnt_icmpflood (packets dropped): 412 -> 0"]


def test_a_stale_rule_after_a_real_run_gets_the_hint_and_check_mode_does_not():
    stale = dict(AFTER, icmp_limit_rule={"rate_per_second": 10})
    assert report(after=stale)[-1].startswith("banip_icmp: ban_icmplimit is 250 in uci, but banIP's nft rule still limits ICMP to 10/s")
    assert "'/etc/init.d/banip status'" in report(after=stale)[-1]
    lines = report(after=BEFORE, check_mode=True)
    assert len(lines) == 5 and lines[1].startswith("check mode: a real run would set ban_icmplimit to 250 and reload banIP")


@pytest.mark.parametrize("would_change", [True, None])
def test_check_mode_shows_the_change_the_diff_shows(would_change):
    """The field case: the diff said '250' -> '300', the report said 250 -> 250 and no reload."""
    before = dict(BEFORE, icmplimit_per_second=250)
    lines = banip_icmp_report(before, before, 300, True, "/etc/init.d/banip", "25/s", would_change)
    assert lines[1] == "check mode: a real run would set ban_icmplimit to 300 and reload banIP (/etc/init.d/banip); rule and counter as read now"
    assert lines[2] == "ban_icmplimit (packets/s): 250 -> 300 (would set)"


@pytest.mark.parametrize("would_change", [False, None])
def test_check_mode_on_a_converged_router_says_nothing_to_change(would_change):
    lines = banip_icmp_report(AFTER, AFTER, 250, True, "/etc/init.d/banip", "25/s", would_change)
    assert lines[1] == "check mode: ban_icmplimit is already 250: nothing to change"
    assert lines[2] == "ban_icmplimit (packets/s): 250"


def test_unknowns_are_said():
    unknown = {"version": None, "icmplimit_per_second": None, "icmplimit_default_per_second": None,
               "icmp_limit_rule": None, "icmp_counter": None}
    assert report(unknown, unknown) == [
        "banIP (version unknown), default 10/s before 1.5.3, 25/s from 1.5.3; wanted 250/s", "before -> after",
        "ban_icmplimit (packets/s): unset -> unset", "nft limit rule (packets/s): none -> none",
        "ICMP flood counter (no banIP nft table) (packets dropped): n/a -> n/a"]


@pytest.mark.parametrize("before, wanted, message", [("x", 250, "must be openwrt_facts' banip facts"),
                                                     (BEFORE, "lots", "wanted_per_second must be a number")])
def test_bad_input(before, wanted, message):
    with pytest.raises(ValueError, match=message):
        banip_icmp_report(before, AFTER, wanted, False, "/etc/init.d/banip", "")
