# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/plugin_utils/faults/role_specs.py is what scripts/role_specs.py makes of the roles' argument specs now,
the specs' defaults are the roles' defaults/main.yml, and the faults take their role's defaults from it."""

import importlib.util
import shutil
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import role_specs as module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FAULTS

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location("role_specs_script", REPO / "scripts" / "role_specs.py")
script = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(script)
ROLES = sorted(path.name for path in (REPO / "roles").iterdir() if (path / "meta" / "argument_specs.yml").is_file())


def test_the_committed_module_is_current(capsys):
    assert script.main(["--check"]) == 0, capsys.readouterr().out
    assert (REPO / script.MODULE).read_text(encoding="utf-8") == script.render(REPO)


def test_every_role_is_in_it():
    assert sorted(module.ROLE_OPTIONS) == ROLES


@pytest.mark.parametrize("role", ROLES)
def test_the_specs_defaults_are_the_roles_defaults(role):
    """What a plan assumes for an unset variable is what the role runs with (defaults/main.yml); Jinja defaults apart."""
    defaults = yaml.safe_load((REPO / "roles" / role / "defaults" / "main.yml").read_text(encoding="utf-8")) or {}
    for name, value in defaults.items():
        assert name in module.ROLE_OPTIONS[role], "%s: %s is in defaults/main.yml but not in argument_specs.yml" % (role, name)
        if isinstance(value, str) and "{{" in value:
            continue
        assert module.role_defaults(role).get(name) == value, "%s: %s" % (role, name)


def test_every_fixing_fault_takes_its_roles_defaults():
    for fault in FAULTS:
        if fault.fix_role:
            role = fault.fix_role.rsplit(".", 1)[1]
            assert fault.fix_defaults == module.role_defaults(role), fault.id


def test_the_module_changes_with_a_spec(tmp_path):
    """Rendered from the specs, not a fixed text: another default and another choice show, and --check sees the drift."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "roles", repo / "roles", ignore=shutil.ignore_patterns("files", "templates", "tasks", "molecule"))
    path = repo / "roles" / "banip_icmp" / "meta" / "argument_specs.yml"
    text = path.read_text(encoding="utf-8")
    assert "default: 250" in text and "choices: [replace_rule, restart]" in text
    text = text.replace("default: 250", "default: 251").replace("choices: [replace_rule, restart]", "choices: [replace_rule, restart, reload]")
    path.write_text(text, encoding="utf-8")
    changed = script.role_options(repo)["banip_icmp"]
    assert changed["banip_icmp_limit_per_second"] == {"type": "int", "default": 251}
    assert changed["banip_icmp_apply"]["choices"] == ["replace_rule", "restart", "reload"]
    assert script.render(repo) != script.render(REPO)


def test_type_is_str_where_the_spec_gives_none(tmp_path):
    role = tmp_path / "roles" / "demo" / "meta"
    role.mkdir(parents=True)
    text = "---\nargument_specs: {main: {options: {demo_x: {description: X, default: a}}}}\n"
    (role / "argument_specs.yml").write_text(text, encoding="utf-8")
    assert script.role_options(tmp_path) == {"demo": {"demo_x": {"type": "str", "default": "a"}}}


@pytest.mark.parametrize("text, message", [
    ("---\nargument_specs: {other: {options: {}}}\n", "no entry point main"),
    ("---\nargument_specs: {main: {options: {demo_x: 3}}}\n", "option demo_x must be a mapping, got 3"),
])
def test_a_spec_it_cannot_read_is_named(tmp_path, text, message):
    role = tmp_path / "roles" / "demo" / "meta"
    role.mkdir(parents=True)
    (role / "argument_specs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(script.SpecError, match=message):
        script.role_options(tmp_path)


def test_lookups():
    assert module.role_defaults("banip_icmp")["banip_icmp_limit_per_second"] == 250
    assert module.option_choices("bridge_gso_off", "bridge_gso_off_features") == ("gso", "tso", "gro", "lro")
    assert module.option_choices("bridge_gso_off", "bridge_gso_off_persist") == ()
    with pytest.raises(KeyError):
        module.role_defaults("no_such_role")
