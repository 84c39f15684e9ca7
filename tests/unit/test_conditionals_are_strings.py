"""Every conditional in the roles, playbooks and molecule scenarios is a string (or a boolean).

ansible-core 2.19 refuses any other ("Conditional expressions must be strings"), and YAML turns a list item
holding ': ' outside quotes into a mapping without a word from yamllint or ansible-lint: molecule banip_icmp's
verify failed in CI that way (`- notices == ["banip_icmp: banIP is disabled ..."]`).
"""

from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
KEYS = ("that", "when", "changed_when", "failed_when", "until")
FILES = sorted(path for folder in ("roles", "playbooks", "molecule") for path in (REPO / folder).rglob("*.yml")
               if "/files/" not in str(path))


def _conditionals(node, where=""):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in KEYS:
                for item in value if isinstance(value, list) else [value]:
                    yield "%s.%s" % (where, key), item
            yield from _conditionals(value, "%s.%s" % (where, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _conditionals(item, "%s[%d]" % (where, index))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPO)) for p in FILES])
def test_every_conditional_is_a_string(path):
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    bad = [(where, item) for where, item in _conditionals(document) if not isinstance(item, (str, bool))]
    assert not bad, bad


def test_the_check_sees_a_mapping_where_a_string_belongs():
    document = yaml.safe_load('- assert:\n    that:\n      - notices == ["role: said"]\n')
    assert [type(item) for _where, item in _conditionals(document)] == [dict]
