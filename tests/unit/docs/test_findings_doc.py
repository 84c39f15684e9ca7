# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/findings.md's evidence tables are what scripts/findings_doc.py makes of the registry now (Fault.evidence), one per
fault; each key a table describes is one its rule's module builds. (The other direction, a key a rule returns that no row
describes, fails every fault test: tests/unit/plugins/plugin_utils/faults/conftest.py.)"""

import dataclasses
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location("findings_doc", REPO / "scripts" / "findings_doc.py")
findings_doc = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(findings_doc)
PAGE = (REPO / "docs" / "findings.md").read_text(encoding="utf-8")


def _keys(fault):
    return [key for keys, _meaning in fault.evidence for key in ((keys,) if isinstance(keys, str) else keys)]


def test_the_committed_page_is_current(capsys):
    assert findings_doc.main(["--check"]) == 0, capsys.readouterr().out
    assert PAGE == findings_doc.render(registry, PAGE)


@pytest.mark.parametrize("fault", registry.FAULTS, ids=lambda fault: fault.id)
def test_every_fault_has_its_table_on_the_page(fault):
    assert fault.evidence, fault.id
    assert findings_doc.table(fault) in PAGE
    for key in _keys(fault):
        assert "`%s`" % key in findings_doc.table(fault)


@pytest.mark.parametrize("fault", registry.FAULTS, ids=lambda fault: fault.id)
def test_every_key_described_is_one_the_rule_builds(fault):
    """A described key its rule's module never writes (``"key"`` or ``key=``) is stale: renamed or gone."""
    source = inspect.getsource(inspect.getmodule(fault.rule))
    keys = _keys(fault)
    assert len(keys) == len(set(keys)), fault.id
    for key in keys:
        assert re.search(r"""["']%s["']|\b%s=""" % (key, key), source), "%s: %s" % (fault.id, key)


def test_the_page_changes_with_the_registry():
    fault = registry.FAULTS[0]

    class Changed:
        FAULTS = (dataclasses.replace(fault, evidence=(("a_key_no_fault_has", "a | meaning"),)),) + registry.FAULTS[1:]
        BY_ID = {item.id: item for item in FAULTS}

    page = findings_doc.render(Changed, PAGE)
    assert "| `a_key_no_fault_has` | a \\| meaning |" in page and "a_key_no_fault_has" not in findings_doc.render(registry, PAGE)
    assert page.replace(findings_doc.table(Changed.FAULTS[0]), findings_doc.table(fault)) == PAGE


@pytest.mark.parametrize("edit, message", [
    (lambda page: page.replace(findings_doc.BEGIN % "sch_fq_missing", "<!-- gone -->"), "sch_fq_missing has no evidence block"),
    (lambda page: page + "\n" + findings_doc.table(registry.BY_ID["sch_fq_missing"]) + "\n", "sch_fq_missing has 2 evidence blocks"),
    (lambda page: page + "\n" + findings_doc.BEGIN % "no_such_fault" + "\n" + findings_doc.END + "\n",
     "an evidence block names no_such_fault, which is no fault of the registry"),
])
def test_a_page_it_cannot_fill_is_named(edit, message):
    with pytest.raises(findings_doc.PageError, match=message):
        findings_doc.render(registry, edit(PAGE))


def test_the_prose_between_the_tables_is_kept():
    """Only the blocks are rewritten: an edited table comes back, the hand-written text around it stays as it is."""
    table = findings_doc.table(registry.BY_ID["buffer_below_bdp"])
    edited = PAGE.replace(table, table.replace("its maximum", "its minimum"))
    assert edited != PAGE and findings_doc.render(registry, edited) == PAGE
