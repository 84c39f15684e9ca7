# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/roles/ never drifts from the roles' argument specs, and the troubleshooting guide covers every finding.

- every role has a page, the committed pages equal what scripts/role_docs.py produces now, and
  no page is left for a role that is gone;
- the generator renders markup, defaults, choices, required and suboptions, and refuses bad specs
  with a message naming the file and the option;
- docs/troubleshooting.md names every finding id of the fault registry and links the page of every
  role a fault names as its fix; its relative links resolve.
"""

import importlib.util
import re
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FAULTS

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location("role_docs", REPO / "scripts" / "role_docs.py")
role_docs = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(role_docs)

ROLES = sorted(p.name for p in (REPO / "roles").iterdir() if p.is_dir())
FINDING_IDS = sorted(fault.id for fault in FAULTS)
FIX_ROLES = sorted({fault.fix_role.rsplit(".", 1)[1] for fault in FAULTS if fault.fix_role})
GUIDE = (REPO / "docs" / "troubleshooting.md").read_text(encoding="utf-8")


def test_the_registry_is_read():
    """The registry lists the faults (else the coverage tests below would pass on nothing)."""
    assert {"nat_peer_without_keepalive", "bridge_offload_small_mtu_tunnel"} <= set(FINDING_IDS)
    assert "wireguard_keepalive" in FIX_ROLES


@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_a_current_page(role):
    page = REPO / "docs" / "roles" / ("%s.md" % role)
    assert page.is_file(), "no %s: run python3 scripts/role_docs.py" % page.relative_to(REPO)
    assert page.read_text(encoding="utf-8") == role_docs.render_role(REPO / "roles" / role), (
        "%s differs from roles/%s/meta/argument_specs.yml: run python3 scripts/role_docs.py" % (page.relative_to(REPO), role))


def test_index_is_current_and_lists_every_role():
    index = (REPO / "docs" / "roles" / "README.md").read_text(encoding="utf-8")
    assert index == role_docs.render_all(REPO)["docs/roles/README.md"], "run python3 scripts/role_docs.py"
    for role in ROLES:
        assert "(%s.md)" % role in index


def test_no_page_without_a_role():
    assert role_docs.stale_pages(REPO) == []


def test_check_mode_agrees(capsys):
    assert role_docs.main(["--check"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("role", ROLES)
def test_every_option_is_in_the_page(role):
    specs = yaml.safe_load((REPO / "roles" / role / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))["argument_specs"]
    page = (REPO / "docs" / "roles" / ("%s.md" % role)).read_text(encoding="utf-8")
    for entry, spec in specs.items():
        assert "## Entry point `%s`" % entry in page
        for name in spec.get("options") or {}:
            assert "| `%s` |" % name in page


@pytest.mark.parametrize("text, expected", [
    ("Sets C(banip.global.ban_icmplimit) to V(250).", "Sets `banip.global.ban_icmplimit` to `250`."),
    ("See O(foo) and M(tunnelfix.fleet.uci).", "See `foo` and `tunnelfix.fleet.uci`."),
    ("I(italic) B(bold) U(https://example.invalid)", "*italic* **bold** <https://example.invalid>"),
    ("L(the docs,https://example.invalid/x)", "[the docs](https://example.invalid/x)"),
    ("a | b\n   c", "a \\| b c"),
    ("ABC(not markup)", "ABC(not markup)"),
])
def test_markup(text, expected):
    assert role_docs.markup_to_markdown(text) == expected


def _role(tmp_path, text, name="demo"):
    (tmp_path / name / "meta").mkdir(parents=True)
    (tmp_path / name / "meta" / "argument_specs.yml").write_text(text, encoding="utf-8")
    return tmp_path / name


def test_render_table_cells(tmp_path):
    role = _role(tmp_path, """---
argument_specs:
  main:
    short_description: Demo
    version_added: 0.1.0
    options:
      demo_mode:
        description: [How, C(fast)]
        type: str
        choices: [fast, slow]
        required: true
      demo_list:
        description: Things.
        version_added: 0.2.0
        type: list
        elements: dict
        default: []
        suboptions:
          port_s:
            description: Seconds.
            type: int
  other:
    short_description: Other entry
""")
    page = role_docs.render_role(role)
    assert '| `demo_mode` | str | - | `"fast"`, `"slow"` | yes | How<br>`fast` |' in page
    assert "| `demo_list` | list of dict | `[]` | - | no | Things. *(added in 0.2.0)* |" in page
    assert "Added in version 0.1.0." in page
    assert "| `demo_list.port_s` | int | - | - | no | Seconds. |" in page
    assert page.index("## Entry point `main`") < page.index("## Entry point `other`")
    assert "tasks_from: other" in page and "No options." in page


@pytest.mark.parametrize("text, message", [
    ("---\nfoo: 1\n", "no argument_specs mapping"),
    ("---\nargument_specs: {main: {options: {demo_x: {type: str}}}}\n", "option demo_x has no description"),
    ("---\nargument_specs: {main: {options: {demo_x: 3}}}\n", "option demo_x must be a mapping, got 3"),
    ("---\nargument_specs: [\n", "not valid YAML"),
])
def test_bad_specs_name_file_and_option(tmp_path, text, message):
    role = _role(tmp_path, text)
    with pytest.raises(role_docs.SpecError, match=re.escape(message)) as err:
        role_docs.render_role(role)
    assert "argument_specs.yml" in str(err.value)


def test_missing_spec_is_named(tmp_path):
    (tmp_path / "nospec").mkdir()
    with pytest.raises(role_docs.SpecError, match="nospec/meta/argument_specs.yml: missing"):
        role_docs.render_role(tmp_path / "nospec")


def test_check_reports_a_drifted_page(tmp_path, capsys):
    """--check fails on a page edited by hand and on a page whose role is gone."""
    _role(tmp_path / "roles", "---\nargument_specs: {main: {short_description: Demo, options: {}}}\n")
    assert role_docs.main(["--repo", str(tmp_path)]) == 0
    assert role_docs.main(["--repo", str(tmp_path), "--check"]) == 0
    page = tmp_path / "docs" / "roles" / "demo.md"
    page.write_text(page.read_text(encoding="utf-8") + "hand edit\n", encoding="utf-8")
    (tmp_path / "docs" / "roles" / "gone.md").write_text("old\n", encoding="utf-8")
    capsys.readouterr()
    assert role_docs.main(["--repo", str(tmp_path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "differs from its argument_specs: docs/roles/demo.md" in out
    assert "no role for this page: docs/roles/gone.md" in out


@pytest.mark.parametrize("finding_id", FINDING_IDS)
def test_troubleshooting_names_every_finding(finding_id):
    assert "`%s`" % finding_id in GUIDE, "docs/troubleshooting.md does not mention finding %s" % finding_id
    assert "**Finding `%s`**" % finding_id in GUIDE, "docs/troubleshooting.md has no section for finding %s" % finding_id


@pytest.mark.parametrize("role", FIX_ROLES)
def test_troubleshooting_links_every_fixing_role(role):
    assert "](roles/%s.md)" % role in GUIDE, "docs/troubleshooting.md does not link docs/roles/%s.md" % role


def test_troubleshooting_links_resolve():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", GUIDE)
    assert links
    for link in links:
        if "://" in link:
            continue
        assert (REPO / "docs" / link).exists(), "docs/troubleshooting.md links %s, which does not exist" % link


def test_troubleshooting_anchors_resolve():
    """Every #anchor in the symptom table matches a heading (GitHub's slug: lower case, no punctuation, - for spaces)."""
    slugs = {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
             for h in re.findall(r"^## (.+)$", GUIDE, flags=re.M)}
    anchors = re.findall(r"\]\(#([^)]+)\)", GUIDE)
    assert anchors
    for anchor in anchors:
        assert anchor in slugs, "anchor #%s has no heading" % anchor


def test_troubleshooting_quotes_only_measured_figures():
    """Every rate and loss figure in the guide is one the README or docs/ measured (none invented)."""
    sources = (REPO / "README.md").read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md")) if p.name != "troubleshooting.md")
    figures = re.findall(r"\b\d+(?:\.\d+)? Mbit/s|\b\d+ of \d+\b|\b\d+-\d+ %", GUIDE)
    assert figures
    for figure in figures:
        assert figure in sources, "docs/troubleshooting.md quotes %r, which no measurement in README.md or docs/ shows" % figure
