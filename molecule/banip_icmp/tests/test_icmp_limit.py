# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""banip_icmp on the python-free router, per release profile: ban_icmplimit 250 committed, and the LIVE
ICMP flood rule(s) in banIP's table carry 250 (rewritten in place: banIP's sets kept, banIP not called)."""

import re

import pytest

# What banIP of each release builds (lab/images/openwrt/rootfs/usr/libexec/tunnelfix/banip-model.sh)
RELEASES = {"23.05": {"counter": "cnt-icmpflood", "rules": 2, "priority": "mangle"},   # nft prints -150 as mangle
            "24.10": {"counter": "cnt_icmpflood", "rules": 1, "priority": "-175"},
            "25.12": {"counter": "cnt_icmpflood", "rules": 1, "priority": "-175"}}


@pytest.fixture(name="release")
def fixture_release(host):
    text = host.file("/etc/openwrt_release").content_string
    return re.search(r"DISTRIB_RELEASE='(\d+\.\d+)", text).group(1)


@pytest.fixture(name="live_chain")
def fixture_live_chain(host):
    return host.check_output("nft -t -a list chain inet banIP pre-routing")


def test_limit_committed(host):
    lines = [line.strip() for line in host.file("/etc/config/banip").content_string.splitlines()]
    assert [line for line in lines if "ban_icmplimit" in line] == ["option ban_icmplimit '250'"]


def test_nothing_left_staged(uci_changes):
    assert uci_changes("banip") == []


def test_the_live_rule_carries_the_new_limit(live_chain, release):
    """Issue 28: judge the live rule, not uci (the old role's reload left it at 10/s or 25/s)."""
    flood = [line.strip() for line in live_chain.splitlines() if "limit rate over" in line]
    expected = RELEASES[release]
    assert len(flood) == expected["rules"], live_chain
    assert all("limit rate over 250/second" in line for line in flood), live_chain
    assert all('counter name "%s" drop' % expected["counter"] in line for line in flood), live_chain
    assert "priority %s;" % expected["priority"] in live_chain


def test_banip_sets_kept_and_banip_not_called(host, recorded_calls):
    """replace_rule (the default) rewrites the rule in place: the feed set filled at start is still loaded."""
    assert "192.0.2.0/24" in host.check_output("nft list set inet banIP cinsscorev4")
    assert [call for call in recorded_calls() if "/etc/init.d/banip" in call] == []
