# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""congestion_control_restricted_in_container: the rule on both sides, with its exact evidence."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.cc_in_container.rule import bbr_not_allowed_in_container


def test_a_container_may_not_select_the_hosts_bbr(tcp_stack_view):
    [(evidence, text)] = bbr_not_allowed_in_container("ct", tcp_stack_view(available=("cubic", "bbr"), child=True), {})
    assert evidence == {"container": "ct101", "congestion_control_allowed": ["reno", "cubic"]}
    assert "tcp_allowed_congestion_control" in text


@pytest.mark.parametrize("changes", [
    {"available": ("cubic", "bbr"), "child": False},                       # not a container: it may select it
    {"available": ("cubic", "bbr"), "child": True, "allowed": ("cubic", "bbr")},
    {"available": ("cubic",), "child": True},                             # no BBR at all: the other finding
])
def test_container_rule_negatives(changes, tcp_stack_view):
    assert bbr_not_allowed_in_container("ct", tcp_stack_view(**changes), {}) == []
