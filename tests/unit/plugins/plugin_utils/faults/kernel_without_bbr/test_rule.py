# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kernel and container limits: each rule on both sides, with its exact evidence."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_limits import (
    bbr_not_allowed_in_container, no_bbr, no_fq)


def view(available=("reno", "cubic"), allowed=("reno", "cubic"), loadable=False, bbr_available=False,
         fq=True, child=False, qdisc="pfifo_fast"):
    return {"tunnelfix": {"tcp": {"congestion_control_available": list(available), "congestion_control_allowed": list(allowed),
                                  "tcp_bbr_loadable_module": loadable, "tcp_bbr_available": bbr_available,
                                  "sch_fq_available": fq, "default_qdisc": qdisc},
                          "netns": {"child_netns": child, "container": "ct101" if child else None}}}


def test_no_bbr_anywhere():
    [(evidence, text)] = no_bbr("h", view(), {})
    assert evidence == {"congestion_control_available": ["reno", "cubic"]} and "CONFIG_TCP_CONG_BBR" in text


@pytest.mark.parametrize("changes", [{"available": ("reno", "bbr")}, {"loadable": True}, {"bbr_available": True}])
def test_bbr_built_in_or_loadable_is_no_finding(changes):
    assert no_bbr("h", view(**changes), {}) == []


def test_a_container_may_not_select_the_hosts_bbr():
    [(evidence, text)] = bbr_not_allowed_in_container("ct", view(available=("cubic", "bbr"), child=True), {})
    assert evidence == {"container": "ct101", "congestion_control_allowed": ["reno", "cubic"]}
    assert "tcp_allowed_congestion_control" in text


@pytest.mark.parametrize("changes", [
    {"available": ("cubic", "bbr"), "child": False},                       # not a container: it may select it
    {"available": ("cubic", "bbr"), "child": True, "allowed": ("cubic", "bbr")},
    {"available": ("cubic",), "child": True},                             # no BBR at all: the other finding
])
def test_container_rule_negatives(changes):
    assert bbr_not_allowed_in_container("ct", view(**changes), {}) == []


@pytest.mark.parametrize("fq, child, fires", [(False, False, True), (True, False, False), (None, False, False),
                                              (False, True, False)])
def test_fq_missing_only_when_known_missing_outside_a_container(fq, child, fires):
    found = no_fq("h", view(fq=fq, child=child), {})
    assert found == ([({"default_qdisc": "pfifo_fast"}, found[0][1])] if fires else [])


@pytest.mark.parametrize("rule", [no_bbr, bbr_not_allowed_in_container, no_fq])
@pytest.mark.parametrize("tunnelfix", [None, {}, {"tcp": {}}, {"tcp": {"congestion_control_available": "bbr"}}])
def test_unread_facts_are_no_finding(rule, tunnelfix):
    assert rule("h", {"tunnelfix": tunnelfix}, {}) == []
