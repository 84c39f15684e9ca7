# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's plan: whether the live ICMP flood rule(s) must change (live_limit_change), the one decision the plan
(limit_plan, tested on every case in tests/unit/plugins/plugin_utils/faults/test_fault_plans.py) and the role (its filter
banip_icmp_live) both take."""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.filter.role_support import banip_icmp_live
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import find_icmp_limit
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
    ({"counter": "cnt_icmpflood"}, []),                # no rate read: nothing to compare
    ({"rate_per_second": 250}, []),                    # facts of an older collection: the first rule's rate only
    ({"rate_per_second": 251}, ["live ICMP flood rule: 251/s -> 250/s"]),
    # banIP 1.0.x: the IPv4 rule (first) has the limit, the IPv6 one does not; the role rewrites both
    ({"rate_per_second": 250, "rules": 2, "rates_per_second": [250, 10]},
     ["live ICMP flood rule: 10/s and 250/s (rules differ) -> 250/s"]),
    ({"rate_per_second": 250, "rules": 2, "rates_per_second": [250, 250]}, []),
    ({"rate_per_second": 10, "rules": 2, "rates_per_second": [10, 10]}, ["live ICMP flood rule: 10/s -> 250/s"]),
])
def test_the_plan_takes_the_same_decision(rule, expected):
    view = {"openwrt": {"banip": {"installed": True, "enabled": True, "nft_installed": True, "nft_table_loaded": True,
                                  "ban_icmplimit": "250", "icmp_limit_rule": rule}}}
    assert [line.rsplit(" (", 1)[0] for line in limit_plan(view, {})] == expected  # without how the role applies it


def _banip_view(rule):
    return {"openwrt": {"banip": {"installed": True, "enabled": True, "nft_installed": True, "nft_table_loaded": True,
                                  "ban_icmplimit": "250", "icmp_limit_rule": rule}}}


# (release, fixture case, the IPv4/shared rule's rate edited to, the IPv6 rule's rate edited to; None: as recorded)
SAME_TABLE = [
    ("23.05", "default", 250, None),     # 1.0.1: IPv4 rule at the wanted limit, IPv6 rule at 10/s
    ("23.05", "default", None, 250),
    ("23.05", "default", 250, 250),
    ("23.05", "limit250", None, None),
    ("23.05", "limit0", None, None),
    ("24.10", "default", None, None),
    ("24.10", "limit250", None, None),
    ("25.12", "log", None, None),
    ("25.12", "limit250", None, None),
]


def _edit_json(text, ipv4, ipv6):
    data = json.loads(text)
    for item in data["nftables"]:
        rule = item.get("rule")
        if not rule or not any(isinstance(e, dict) and e.get("counter") in ("cnt-icmpflood", "cnt_icmpflood") for e in rule["expr"]):
            continue
        rate = ipv6 if '"ip6"' in json.dumps(rule["expr"][0]) else ipv4  # 1.0.1's IPv6 rule: ip6 nexthdr ipv6-icmp
        for expr in rule["expr"]:
            if isinstance(expr, dict) and isinstance(expr.get("limit"), dict) and rate is not None:
                expr["limit"]["rate"] = rate
    return json.dumps(data)


def _edit_text(text, ipv4, ipv6):
    out = []
    for line in text.splitlines(True):
        rate = ipv6 if "ip6 nexthdr ipv6-icmp" in line else ipv4
        if rate is not None and "icmpflood" in line:
            line = re.sub(r"limit rate over \d+/second", "limit rate over %d/second" % rate, line)
        out.append(line)
    return "".join(out)


@pytest.mark.parametrize("release, case, ipv4, ipv6", SAME_TABLE)
def test_the_plan_and_the_role_read_the_same_table_alike(load_fixture, release, case, ipv4, ipv6):
    """The facts' reading of the table (nft -tj list table inet banIP) and the role's of the chain (nft -t -a list chain
    inet banIP pre-routing, its filter banip_icmp_live) lead to the same decision for the same live rules."""
    name = "%s_banip_%s.txt" % (release, case)
    rule = find_icmp_limit(_edit_json(load_fixture("nft_t_j_list", name), ipv4, ipv6))
    chain = _edit_text(load_fixture("nft_a_list_chain", name), ipv4, ipv6)
    stale = banip_icmp_live({"rc": 0, "stdout": chain}, 250)["stale"]
    planned = [line for line in limit_plan(_banip_view(rule), {}) if line.startswith("live ICMP flood rule")]
    assert bool(planned) is stale
