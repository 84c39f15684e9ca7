# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's plan: whether the live ICMP flood rule(s) must change (live_limit_change), the one decision the plan
(limit_plan, tested on every case in tests/unit/plugins/plugin_utils/faults/test_fault_plans.py) and the role (its filter
banip_icmp_live) both take."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.plan import live_limit_change, limit_plan


@pytest.mark.parametrize("rates, wanted, expected", [
    ([], 250, False),              # no live rule (ban_icmplimit 0): nothing live to change
    ([250], 250, False),
    ([249], 250, True),            # one below
    ([251], 250, True),            # one above
    ([250, 250], 250, False),      # banIP 1.0.x: one rule per family
    ([10, 250], 250, True),        # one family's rule still at the old limit
    ([250, 10], 250, True),
    ([10, 250], 10, True),
])
def test_live_limit_change(rates, wanted, expected):
    assert live_limit_change(rates, wanted) is expected


@pytest.mark.parametrize("rule, expected", [
    (None, []),                                        # no live rule
    ({"rate_per_second": 250}, []),
    ({"rate_per_second": 251}, ["live ICMP flood rule: 251/s -> 250/s"]),
])
def test_the_plan_takes_the_same_decision(rule, expected):
    view = {"openwrt": {"banip": {"installed": True, "enabled": True, "nft_installed": True, "nft_table_loaded": True,
                                  "ban_icmplimit": "250", "icmp_limit_rule": rule}}}
    assert [line.split(" (")[0] for line in limit_plan(view, {})] == expected
