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
``.cache/mutation/<group>/ansible_collections/tunnelfix/fleet`` (a copy of plugins/, roles/ and playbooks/,
and the plugin_utils and action tests with their fixtures): the imported module's name and mutmut's then agree.

Two groups, run one after the other: ``whole_suite`` (every file but the shared parsers, against every staged test that
calls the mutated function) and ``own_tests`` (SHARED: the parsers nearly every test goes through). A mutant of
``parse_uci_show`` is called by about 2,000 tests, 3-4 minutes a mutant on 2 cores, so the shared parsers are judged by
their own tests only (SHARED_TESTS: the parsers', the readings' and the gathers' tests). Fewer tests kill no more
mutants: their score is a lower bound of what the whole suite would give.
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
# the parsers nearly every test calls, and the tests that judge them (paths under tests/unit/plugins/)
SHARED = ("plugins/plugin_utils/parse/uci.py", "plugins/plugin_utils/faults/reading.py",
          "plugins/plugin_utils/parse/ipnet.py", "plugins/plugin_utils/parse/target_json.py")
SHARED_TESTS = ("plugin_utils/parse", "plugin_utils/faults/test_reading.py", "plugin_utils/remote",
                "action/test_fact_readings.py")

SETUP_CFG = """[mutmut]
source_paths = {prefix}/plugins
only_mutate =
{only}
pytest_add_cli_args_test_selection =
{tests}
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


def stage(where, files, tests):
    """Copy what the tests need under ``where`` (a fresh directory); ``files`` are mutmut's only_mutate (repo paths),
    ``tests`` the test paths it selects from (under tests/unit/plugins/)."""
    shutil.rmtree(where, ignore_errors=True)
    root = where / PREFIX
    shutil.copytree(REPO / "plugins", root / "plugins")
    for name in ("plugins", "roles", "playbooks"):  # the paths a fault lists for its reader (a test checks they exist)
        shutil.copytree(REPO / name, where / name)
    for staged in STAGED_TESTS:
        shutil.copytree(REPO / "tests" / "unit" / "plugins" / staged, where / "tests" / "unit" / "plugins" / staged)
    shutil.copytree(REPO / "tests" / "unit" / "fixtures", where / "tests" / "unit" / "fixtures")
    (where / "tests" / "unit" / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    only = "\n".join("    %s/%s" % (PREFIX, path) for path in files)
    selection = "\n".join("    tests/unit/plugins/%s" % path for path in tests)
    (where / "setup.cfg").write_text(SETUP_CFG.format(prefix=PREFIX, only=only, tests=selection), encoding="utf-8")


def scores(where):
    """``{file (repo path): {"killed": n, "survived": n, "other": n, "survivors": [mutant, ...]}}`` from the .meta files
    mutmut wrote under ``where``."""
    from mutmut.stats import status_by_exit_code  # pylint: disable=import-outside-toplevel
    out = {}
    for meta in sorted((where / "mutants" / PREFIX).rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        path = meta.relative_to(where / "mutants" / PREFIX).as_posix()[:-len(".meta")]
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
    """Markdown: one row per file (killed, survived, other, score, the group that judged it) and the surviving
    mutants' names."""
    lines = ["# Mutation score (mutmut, plugins/plugin_utils and plugins/action tests)", "",
             "Group `own_tests`: judged by their own tests only (%s), a lower bound." % ", ".join(SHARED_TESTS), "",
             "| file | killed | survived | other | score | group |", "|---|---|---|---|---|---|"]
    for path, entry in sorted(results.items()):
        judged = entry["killed"] + entry["survived"]
        score = "%.1f %%" % (100.0 * entry["killed"] / judged) if judged else "-"
        lines.append("| `%s` | %d | %d | %d | %s | %s |"
                     % (path, entry["killed"], entry["survived"], entry["other"], score, entry["group"]))
    lines += ["", "Surviving mutants (`mutmut show NAME` in .cache/mutation/<group> shows the change):", ""]
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
    groups = {"whole_suite": ([path for path in files if path not in SHARED], ["."]),
              "own_tests": ([path for path in files if path in SHARED], list(SHARED_TESTS))}
    results, status = {}, 0
    for group, (mutated, tests) in groups.items():
        if not mutated:
            continue
        where = STAGE / group
        stage(where, mutated, tests)
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)], cwd=where,
                             check=False)
        status = status or run.returncode
        for path, entry in scores(where).items():
            results[path] = dict(entry, group=group)
    text = report(results)
    (STAGE / "report.md").write_text(text, encoding="utf-8")
    print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
