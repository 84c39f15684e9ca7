# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The TCP-stack facts the kernel and container limits read (reads.tcp_netns): facts not read, or junk, are no finding."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.cc_in_container.rule import bbr_not_allowed_in_container
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_without_bbr.rule import no_bbr
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import tcp_stack_read
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.sch_fq_missing.rule import no_fq


@pytest.mark.parametrize("rule", [no_bbr, bbr_not_allowed_in_container, no_fq])
@pytest.mark.parametrize("tunnelfix", [None, {}, {"tcp": {}}, {"tcp": {"congestion_control_available": "bbr"}}])
def test_unread_facts_are_no_finding(rule, tunnelfix):
    assert rule("h", {"tunnelfix": tunnelfix}, {}) == []


@pytest.mark.parametrize("view, expected", [
    ({"tunnelfix": {"tcp": {"congestion_control_available": ["reno", "cubic"]}}}, None),
    ({"tunnelfix": {}}, ("not_checked", "the TCP stack was not read")),
    ({"tunnelfix": {"tcp": {"congestion_control_available": "bbr"}}}, ("not_checked", "the TCP stack was not read")),
    ({"groups": ["tunnelfix_openwrt"], "tunnelfix": {}},
     ("not_checked", "the TCP stack was not read (openwrt_facts does not read it)")),
    ({"openwrt": {}, "tunnelfix": {}}, ("not_checked", "the TCP stack was not read (openwrt_facts does not read it)")),
], ids=["read", "linux_unread", "linux_junk", "router_group", "router_facts"])
def test_tcp_stack_read_says_why_a_host_was_not_checked(view, expected):
    assert tcp_stack_read(view) == expected
