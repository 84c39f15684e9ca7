# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""diagnose.yml and verify.yml measure every fleet host's path MTU (role path_mtu_measure), each in its own phase, and
tunnelfix_measure=false leaves the play without a host (the PMTU fault is then not_checked: a path MTU is measured)."""

from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]


def pmtu_play(playbook):
    """The one play of ``playbook`` that runs the role, and the role's vars there."""
    plays = yaml.safe_load((REPO / "playbooks" / playbook).read_text(encoding="utf-8"))
    found = []
    for play in plays:
        for role in play.get("roles") or []:
            if role.get("role") == "tunnelfix.fleet.path_mtu_measure":
                found.append((play, role.get("vars") or {}))
        for task in play.get("tasks") or []:
            if (task.get("ansible.builtin.include_role") or {}).get("name") == "tunnelfix.fleet.path_mtu_measure":
                assert task["when"] == "tunnelfix_measure | default(true) | bool"
                found.append((play, task.get("vars") or {}))
    assert len(found) == 1, [play["name"] for play, _vars in found]
    return found[0]


@pytest.mark.parametrize("playbook, phase", [("diagnose.yml", "before"), ("verify.yml", "after")])
def test_every_fleet_host_is_measured_in_the_playbooks_phase_unless_measuring_is_off(playbook, phase):
    play, role_vars = pmtu_play(playbook)
    assert role_vars == {"path_mtu_measure_phase": phase}
    assert play["hosts"] == "{{ __tunnelfix_fleet if tunnelfix_measure | default(true) | bool else '!all' }}"
    assert play["vars_files"] == ["vars/rollout.yml"] and play["gather_facts"] is False
