# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The layer order of plugin_utils: parse/ and remote/ import nothing from fix/ or faults/ (a fault's domain code).

Parsers and the remote readers are shared below the faults: a fault's folder (faults/<fault>/) imports them,
never the other way round. Read from the source (every import statement, at any depth), so a lazy import
inside a function counts too.
"""

import ast
from pathlib import Path

import pytest

PLUGIN_UTILS = Path(__file__).resolve().parents[4] / "plugins" / "plugin_utils"
PACKAGE = "ansible_collections.tunnelfix.fleet.plugins.plugin_utils"
LOWER = ("parse", "remote")
DOMAIN = ("fix", "faults")
# (importing file, imported package) pairs allowed against the order, each with its reason: none today
EXCEPTIONS = {}


def plugin_utils_imports(path):
    """The plugin_utils packages (``parse``, ``faults``...) the file at ``path`` imports, with the line of each."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level:   # relative: resolve against the file's own package
            parts = [path.parent.name] if node.level == 1 else []
            names = (node.module or "").split(".") if node.module else [alias.name for alias in node.names]
            found += [(parts[0] if parts else names[0], node.lineno)]
            continue
        modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
            [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
        for module in modules:
            if module == PACKAGE and isinstance(node, ast.ImportFrom):
                found += [(alias.name, node.lineno) for alias in node.names]
            elif module.startswith(PACKAGE + "."):
                found.append((module[len(PACKAGE) + 1:].split(".")[0], node.lineno))
    return found


def lower_files():
    return sorted(path for layer in LOWER for path in (PLUGIN_UTILS / layer).glob("**/*.py"))


@pytest.mark.parametrize("path", lower_files(), ids=lambda path: path.relative_to(PLUGIN_UTILS).as_posix())
def test_parse_and_remote_import_no_fault_or_fix_code(path):
    name = path.relative_to(PLUGIN_UTILS).as_posix()
    wrong = ["line %d imports plugin_utils.%s" % (line, package) for package, line in plugin_utils_imports(path)
             if package in DOMAIN and (name, package) not in EXCEPTIONS]
    assert wrong == [], "%s: %s (parse/ and remote/ sit below fix/ and faults/)" % (name, "; ".join(wrong))


def test_the_layers_are_there_and_the_check_sees_an_import(tmp_path):
    assert len(lower_files()) > 20
    sample = tmp_path / "parse" / "sample.py"
    sample.parent.mkdir()
    sample.write_text("from %s.faults.endpoint_route.routes import short_route\nimport %s.fix.uci_plan\n"
                      "from %s import faults\nfrom %s.parse import ipnet\n\n\ndef late():\n"
                      "    from %s.fix import bridge_offload\n" % ((PACKAGE,) * 5))
    assert plugin_utils_imports(sample) == [("faults", 1), ("fix", 2), ("faults", 3), ("parse", 4), ("fix", 8)]
