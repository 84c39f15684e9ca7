# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""diagnose.yml and verify.yml run every fault's own measuring role (``Fault.measure_role``; today path_mtu_measure) from
the registry, on every fleet host in batches, each in the playbook's phase; tunnelfix_measure=false leaves the play
without a host (and its when skips the roles where the switch is set in the inventory); no playbook names such a role
itself, so a fault that adds a measuring role edits no playbook."""

from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry

REPO = Path(__file__).resolve().parents[3]
LOOP = "{{ query('tunnelfix.fleet.measuring_roles') }}"
MEASURE_ON = "tunnelfix_measure | default(true) | bool"


def plays(playbook):
    return yaml.safe_load((REPO / "playbooks" / playbook).read_text(encoding="utf-8"))


def tasks_of(play):
    return [task for section in ("pre_tasks", "tasks", "post_tasks") for task in play.get(section) or []]


def roles_named(play):
    """Every role name a play runs: ``roles:`` entries and include_role / import_role tasks (as written)."""
    named = [entry if isinstance(entry, str) else entry.get("role") or entry.get("name") for entry in play.get("roles") or []]
    for task in tasks_of(play):
        for action in ("ansible.builtin.include_role", "ansible.builtin.import_role", "include_role", "import_role"):
            if action in task:
                named.append(task[action].get("name"))
    return named


def measuring_task(playbook):
    """The one play of ``playbook`` that runs the registry's measuring roles, and its include task."""
    found = [(play, task) for play in plays(playbook) for task in tasks_of(play)
             if task.get("loop") == LOOP and "ansible.builtin.include_role" in task]
    assert len(found) == 1, [play["name"] for play, _task in found]
    return found[0]


@pytest.mark.parametrize("playbook, phase", [("diagnose.yml", "before"), ("verify.yml", "after")])
def test_every_registered_measuring_role_runs_on_every_fleet_host_in_the_playbooks_phase(playbook, phase):
    play, task = measuring_task(playbook)
    assert task["ansible.builtin.include_role"] == {"name": "{{ __tunnelfix_measuring_role }}"}
    assert task["loop_control"] == {"loop_var": "__tunnelfix_measuring_role"}
    # the one phase variable every measuring role takes (no role's own option named here)
    assert task["vars"] == {"tunnelfix_measure_phase": phase}
    assert task["when"] == MEASURE_ON
    assert play["hosts"] == "{{ __tunnelfix_fleet if tunnelfix_measure | default(true) | bool else '!all' }}"
    assert play["vars_files"] == ["vars/rollout.yml"] and play["gather_facts"] is False


@pytest.mark.parametrize("playbook", ["diagnose.yml", "verify.yml"])
def test_the_measuring_play_keeps_the_batches_of_the_other_measuring_plays(playbook):
    play, _task = measuring_task(playbook)
    [baseline] = [other for other in plays(playbook) if "tunnelfix.fleet.tunnel_measure" in roles_named(other)]
    for key in ("serial", "max_fail_percentage", "timeout", "vars_files", "gather_facts", "pre_tasks"):
        assert play[key] == baseline[key], key


def test_the_path_mtu_role_is_a_registered_measuring_role():
    assert "tunnelfix.fleet.path_mtu_measure" in registry.measuring_roles()


@pytest.mark.parametrize("role", registry.measuring_roles())
@pytest.mark.parametrize("playbook", sorted(path.name for path in (REPO / "playbooks").glob("*.yml")))
def test_no_playbook_names_a_registered_measuring_role_itself(playbook, role):
    """A play that hardcodes one (as the PMTU plays did) would run it twice, or with a phase of its own."""
    for play in plays(playbook):
        assert role not in roles_named(play), (playbook, play.get("name"))
