# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fault's own measuring role (Fault.measure_role): listed once by the registry, in fault order, and complete: the
role exists, takes the playbooks' common phase (tunnelfix_measure_phase) over its own <role>_phase option, sets the
record the fault declares, and has the option check the fault declares. diagnose.yml and verify.yml run what
``measuring_roles()`` lists (tests/unit/playbooks/test_measuring_plays.py)."""

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import RECORD, ROLE

REPO = Path(__file__).resolve().parents[5]
MEASURING = [fault for fault in registry.FAULTS if fault.measure_role]


def test_the_pmtu_fault_declares_its_measuring_role():
    assert registry.BY_ID["path_mtu_black_hole"].measure_role == ROLE == "tunnelfix.fleet.path_mtu_measure"
    assert ROLE in registry.measuring_roles() and RECORD in registry.BY_ID["path_mtu_black_hole"].records


def test_the_list_follows_the_registry_once_per_role_in_fault_order(monkeypatch):
    first = replace(registry.FAULTS[0], id="made_up_first", measure_role="tunnelfix.fleet.made_up_measure")
    again = replace(registry.FAULTS[0], id="made_up_again", measure_role="tunnelfix.fleet.made_up_measure")
    monkeypatch.setattr(registry, "FAULTS", (first,) + registry.FAULTS + (again,))
    assert registry.measuring_roles() == ("tunnelfix.fleet.made_up_measure", ROLE)


@pytest.mark.parametrize("fault", MEASURING, ids=lambda fault: fault.id)
def test_a_measuring_role_takes_the_common_phase_and_sets_the_faults_record(fault):
    short = fault.measure_role.rsplit(".", 1)[1]
    assert fault.measure_role == "tunnelfix.fleet." + short
    role = REPO / "roles" / short
    options = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))["argument_specs"]["main"]["options"]
    assert options[short + "_phase"]["choices"] == ["before", "after"] and options[short + "_phase"]["default"] == "before"
    role_text = "".join(path.read_text(encoding="utf-8") for path in sorted(role.glob("*/main.yml")))
    assert "tunnelfix_measure_phase | default(%s_phase)" % short in role_text
    assert "%s_record:" % short in (role / "tasks" / "main.yml").read_text(encoding="utf-8")
    assert short + "_record" in {record.host_var for record in fault.records}
    assert short in fault.option_checks
