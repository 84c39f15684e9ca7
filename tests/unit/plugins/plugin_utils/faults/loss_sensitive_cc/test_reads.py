# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The TCP-stack facts the kernel and container limits read (reads.tcp_netns): facts not read, or junk, are no finding."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.cc_in_container.rule import bbr_not_allowed_in_container
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_without_bbr.rule import no_bbr
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.sch_fq_missing.rule import no_fq


@pytest.mark.parametrize("rule", [no_bbr, bbr_not_allowed_in_container, no_fq])
@pytest.mark.parametrize("tunnelfix", [None, {}, {"tcp": {}}, {"tcp": {"congestion_control_available": "bbr"}}])
def test_unread_facts_are_no_finding(rule, tunnelfix):
    assert rule("h", {"tunnelfix": tunnelfix}, {}) == []
