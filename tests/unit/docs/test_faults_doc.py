# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/faults.md is what scripts/faults_doc.py makes of the registry now, and it says what a reader needs."""

import dataclasses
import importlib.util
from pathlib import Path

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location("faults_doc", REPO / "scripts" / "faults_doc.py")
faults_doc = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(faults_doc)


def test_the_committed_page_is_current():
    page = (REPO / "docs" / "faults.md").read_text(encoding="utf-8")
    assert page == faults_doc.render(registry), "docs/faults.md differs: run python3 scripts/faults_doc.py"


def test_check_mode_agrees(capsys):
    assert faults_doc.main(["--check"]) == 0, capsys.readouterr().out


def test_every_fault_has_a_section_with_its_fix_and_proof():
    page = faults_doc.render(registry)
    for fault in registry.FAULTS:
        section = page.split("## %s\n" % fault.id, 1)[1].split("\n## ", 1)[0]
        assert "- Proof: " in section and "- Follow it in: " in section, fault.id
        assert (fault.fix_role or "- Fix: No role") in section, fault.id


def test_the_page_changes_with_the_registry():
    """The page is rendered from the registry, not a fixed text: another title shows."""
    fault = registry.FAULTS[0]

    class Changed:
        FAULTS = (dataclasses.replace(fault, title="A title no fault has"),) + registry.FAULTS[1:]
        NO_REGRESSION_SHARE = registry.NO_REGRESSION_SHARE
        PATH_SHARE_FLOOR = registry.PATH_SHARE_FLOOR

    assert "A title no fault has" in faults_doc.render(Changed)
    assert "A title no fault has" not in faults_doc.render(registry)
