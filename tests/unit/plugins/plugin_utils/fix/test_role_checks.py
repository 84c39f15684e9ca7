# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""role_checks: the table of role option checks, from role_options' general roles and what the faults declare."""

import re
from dataclasses import replace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu import fix, measure
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID, FAULTS
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix import role_options
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.role_options import CHECKS, GENERAL_CHECKS, option_errors, role_checks


def _made_up(options):
    return ["made_up_level must be low or high, got %s" % role_options.shown(options.get("made_up_level"))]


def test_the_pmtu_faults_roles_are_checked_by_the_checks_in_its_folder():
    assert BY_ID["path_mtu_black_hole"].option_checks == {"path_mtu_measure": measure.role_option_errors,
                                                          "wireguard_mtu": fix.role_option_errors}
    assert CHECKS["path_mtu_measure"] is measure.role_option_errors and CHECKS["wireguard_mtu"] is fix.role_option_errors
    assert set(CHECKS) == set(GENERAL_CHECKS) | {"path_mtu_measure", "wireguard_mtu"}


def test_a_fault_that_declares_a_check_for_its_own_role_needs_no_edit_here(monkeypatch):
    made_up = replace(FAULTS[0], id="made_up_fault", option_checks={"made_up_role": _made_up})
    assert "made_up_role" not in CHECKS
    checks = role_checks(FAULTS + (made_up,))
    assert checks["made_up_role"] is _made_up and {role: checks[role] for role in CHECKS} == CHECKS
    monkeypatch.setattr(role_options, "CHECKS", checks)
    assert option_errors("made_up_role", {"made_up_level": 7}) == ['made_up_level must be low or high, got "7"']


def test_one_fault_may_be_listed_twice_with_the_same_checks():
    assert role_checks(FAULTS + (BY_ID["path_mtu_black_hole"],)) == CHECKS


@pytest.mark.parametrize("role, message", [
    ("linux_bbr_fq", "made_up_fault declares a check for the role linux_bbr_fq, which fix/role_options.py checks already"),
    ("wireguard_mtu", "made_up_fault declares a check for the role wireguard_mtu, which path_mtu_black_hole checks already"),
])
def test_a_second_check_for_one_role_is_refused(role, message):
    made_up = replace(FAULTS[0], id="made_up_fault", option_checks={role: _made_up})
    with pytest.raises(ValueError, match=re.escape(message)):
        role_checks(FAULTS + (made_up,))
