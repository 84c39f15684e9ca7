# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kernel_without_bbr: the rule on both sides, with its exact evidence (the view: faults/conftest.py's tcp_stack_view)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_without_bbr.rule import no_bbr


def test_no_bbr_anywhere(tcp_stack_view):
    [(evidence, text)] = no_bbr("h", tcp_stack_view(), {})
    assert evidence == {"congestion_control_available": ["reno", "cubic"]} and "CONFIG_TCP_CONG_BBR" in text


@pytest.mark.parametrize("changes", [{"available": ("reno", "bbr")}, {"loadable": True}, {"bbr_available": True}])
def test_bbr_built_in_or_loadable_is_no_finding(changes, tcp_stack_view):
    assert no_bbr("h", tcp_stack_view(**changes), {}) == []
