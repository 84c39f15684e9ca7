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
    assert report(after=stale)[-1].startswith("banip_icmp: ban_icmplimit is 250 in uci, but banIP's live nft rule limits ICMP to 10/s")
    assert "'/etc/init.d/banip status'" in report(after=stale)[-1]
    assert "reload" not in report(after=stale)[-1]   # issue 28: a reload does not rebuild banIP's rule
    lines = report(after=BEFORE, check_mode=True)
    assert len(lines) == 5 and lines[1].startswith("check mode: a real run would set ban_icmplimit to 250 and rewrite banIP's live")


@pytest.mark.parametrize("would_change", [True, None])
def test_check_mode_shows_the_change_the_diff_shows(would_change):
    """The field case: the diff said '250' -> '300', the report said 250 -> 250 and no reload."""
    before = dict(BEFORE, icmplimit_per_second=250)
    lines = banip_icmp_report(before, before, 300, True, "/etc/init.d/banip", "25/s", would_change)
    assert lines[1] == ("check mode: a real run would set ban_icmplimit to 300 and rewrite banIP's live ICMP flood rule in place "
                        "(its sets stay loaded); rule and counter as read now")
    assert lines[2] == "ban_icmplimit (packets/s): 250 -> 300 (would set)"


@pytest.mark.parametrize("would_change", [False, None])
def test_check_mode_on_a_converged_router_says_nothing_to_change(would_change):
    lines = banip_icmp_report(AFTER, AFTER, 250, True, "/etc/init.d/banip", "25/s", would_change)
    assert lines[1] == "check mode: ban_icmplimit and the live rule are already 250: nothing to change"
    assert lines[2] == "ban_icmplimit (packets/s): 250"


def test_check_mode_sees_a_stale_live_rule_behind_a_right_uci():
    """Issue 28: uci already 250, the live rule still 25: a real run would change the live rule."""
    stale = dict(AFTER, icmp_limit_rule={"rate_per_second": 25})
    lines = banip_icmp_report(stale, stale, 250, True, "/etc/init.d/banip", "25/s", None, "restart")
    assert lines[1] == ("check mode: a real run would set ban_icmplimit to 250 and restart banIP (/etc/init.d/banip restart: its "
                        "blocklist sets are empty until its feeds load again); rule and counter as read now")
    assert lines[3] == "nft limit rule (packets/s): 25 -> 25"


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


def test_bad_apply():
    with pytest.raises(ValueError, match="apply must be one of replace_rule, restart, got 'reload'"):
        banip_icmp_report(BEFORE, AFTER, 250, False, "/etc/init.d/banip", "", None, "reload")
