# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Mutation testing of the faults, the parsers, the fix plans and the measurement judges with mutmut: what the unit tests miss.

    make mutation                       # every file of DEFAULT; writes .cache/mutation/report.md
    python3 scripts/mutation.py FILE... # only these (paths under plugins/plugin_utils/)

A report, like the benchmark, not a test: ``make test`` does not run it. mutmut (PyPI, pinned in
requirements.txt) mutates each function of the chosen files (operators, constants, comparisons,
returned values) and runs the unit tests of plugins/plugin_utils and plugins/action against each mutant; a mutant no
test fails on *survived*. The score of a file is killed / (killed + survived); timeouts and
suspicious results are listed apart.

mutmut names a mutant by the module path of its file, so the collection is staged under
``.cache/mutation/ansible_collections/tunnelfix/fleet`` (a copy of plugins/, roles/ and playbooks/,
and the plugin_utils and action tests with their fixtures): the imported module's name and mutmut's then agree.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STAGE = REPO / ".cache" / "mutation"
PREFIX = "ansible_collections/tunnelfix/fleet"
# what `make mutation` covers: every fault (its folder too, faults/<fault>/), the shared parsers, the plans of fix/ and
# the two judges of a measurement (an iperf3 result against thresholds, a sweep's verdict) and the probers' shared pause
# and pacing
DEFAULT = ("plugins/plugin_utils/faults/**/*.py", "plugins/plugin_utils/parse/*.py", "plugins/plugin_utils/fix/*.py",
           "plugins/plugin_utils/measure/iperf3_judge.py", "plugins/plugin_utils/measure/sweep_verdict.py",
           "plugins/plugin_utils/measure/pause.py", "plugins/plugin_utils/measure/icmp_pacing.py")

# the tests run against each mutant: plugin_utils' own, and the actions' (a reading's gather runs in its facts action,
# tested there against a fake router)
STAGED_TESTS = ("plugin_utils", "action")

SETUP_CFG = """[mutmut]
source_paths = {prefix}/plugins
only_mutate =
{only}
pytest_add_cli_args_test_selection = tests/unit
also_copy =
    {prefix}
    plugins
    roles
    playbooks

[tool:pytest]
addopts = -q -p no:cacheprovider --import-mode=importlib
"""

CONFTEST = '''"""Import the staged collection (this directory's ansible_collections) and read the recorded fixtures."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import ansible_collections  # noqa: E402  a namespace package, maybe shared with an installed ansible

if str(ROOT / "ansible_collections") not in list(ansible_collections.__path__):
    ansible_collections.__path__.insert(0, str(ROOT / "ansible_collections"))


@pytest.fixture
def load_fixture():
    def read(command, case):
        return (Path(__file__).resolve().parent / "fixtures" / command / case).read_text(encoding="utf-8")
    return read
'''


def stage(files):
    """Copy what the tests need under STAGE; returns the staged paths of ``files`` (mutmut's only_mutate)."""
    shutil.rmtree(STAGE, ignore_errors=True)
    root = STAGE / PREFIX
    shutil.copytree(REPO / "plugins", root / "plugins")
    for name in ("plugins", "roles", "playbooks"):  # the paths a fault lists for its reader (a test checks they exist)
        shutil.copytree(REPO / name, STAGE / name)
    for tests in STAGED_TESTS:
        shutil.copytree(REPO / "tests" / "unit" / "plugins" / tests, STAGE / "tests" / "unit" / "plugins" / tests)
    shutil.copytree(REPO / "tests" / "unit" / "fixtures", STAGE / "tests" / "unit" / "fixtures")
    (STAGE / "tests" / "unit" / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    only = ["    %s/%s" % (PREFIX, path) for path in files]
    (STAGE / "setup.cfg").write_text(SETUP_CFG.format(prefix=PREFIX, only="\n".join(only)), encoding="utf-8")
    return files


def scores():
    """``{file (repo path): {"killed": n, "survived": n, "other": n, "survivors": [mutant, ...]}}`` from mutmut's .meta files."""
    from mutmut.stats import status_by_exit_code  # pylint: disable=import-outside-toplevel
    out = {}
    for meta in sorted((STAGE / "mutants" / PREFIX).rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        path = meta.relative_to(STAGE / "mutants" / PREFIX).as_posix()[:-len(".meta")]
        entry = out.setdefault(path, {"killed": 0, "survived": 0, "other": 0, "survivors": []})
        for mutant, code in sorted((data.get("exit_code_by_key") or {}).items()):
            status = status_by_exit_code[code]
            if status in ("killed", "survived"):
                entry[status] += 1
            else:
                entry["other"] += 1
            if status == "survived":
                entry["survivors"].append(mutant)
    return out


def report(results) -> str:
    """Markdown: one row per file (killed, survived, other, score) and the surviving mutants' names."""
    lines = ["# Mutation score (mutmut, plugins/plugin_utils and plugins/action tests)", "",
             "| file | killed | survived | other | score |", "|---|---|---|---|---|"]
    for path, entry in sorted(results.items()):
        judged = entry["killed"] + entry["survived"]
        score = "%.1f %%" % (100.0 * entry["killed"] / judged) if judged else "-"
        lines.append("| `%s` | %d | %d | %d | %s |" % (path, entry["killed"], entry["survived"], entry["other"], score))
    lines += ["", "Surviving mutants (`mutmut show NAME` in .cache/mutation shows the change):", ""]
    for path, entry in sorted(results.items()):
        lines += ["- `%s`" % name for name in entry["survivors"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("files", nargs="*", help="globs under the repository (default: DEFAULT, the faults, parsers, fix plans and judges)")
    parser.add_argument("--max-children", type=int, default=2, help="mutants run at once (default 2)")
    args = parser.parse_args(argv)
    patterns = args.files or list(DEFAULT)
    files = sorted({path.relative_to(REPO).as_posix() for pattern in patterns for path in REPO.glob(pattern)
                    if path.name != "__init__.py"})
    if not files:
        print("mutation: no file matches %s" % patterns, file=sys.stderr)
        return 2
    stage(files)
    run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)], cwd=STAGE, check=False)
    results = scores()
    text = report(results)
    (STAGE / "report.md").write_text(text, encoding="utf-8")
    print(text)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
