# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""examples/user-ci/: both CI files call pipeline.sh's stages on the right events, and the example
inventory only uses groups and variables the collection knows. (tests/user_pipeline/run.sh runs the
pipeline itself against the lab.)"""

import re
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "user-ci"
PIPELINE = (EXAMPLE / "pipeline.sh").read_text(encoding="utf-8")


def _load(rel):
    return yaml.safe_load((EXAMPLE / rel).read_text(encoding="utf-8"))


def _steps_run(job):
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_pipeline_has_every_stage_and_is_strict():
    assert PIPELINE.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in PIPELINE
    for stage in ("deps", "lint", "plan", "apply"):
        assert re.search(r"^  %s\)$" % stage, PIPELINE, flags=re.M), "pipeline.sh has no stage %s" % stage
    assert re.search(r"playbook remediate plan\.log --check --diff", PIPELINE)
    assert re.search(r"playbook remediate apply\.log --diff", PIPELINE) and "playbook verify verify.log" in PIPELINE


def test_pipeline_refuses_an_unknown_stage():
    result = subprocess.run(["bash", str(EXAMPLE / "pipeline.sh"), "deploy"], capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "usage:" in result.stderr
    assert not (EXAMPLE / "reports").exists(), "an unknown stage must not leave reports/ in the example"


def test_github_workflow_stages_and_events():
    flow = _load(".github/workflows/tunnelfix.yml")
    events = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as true
    assert "pull_request" in events and "push" in events
    jobs = flow["jobs"]
    assert "./pipeline.sh lint" in _steps_run(jobs["lint"])
    assert jobs["plan"]["if"] == "github.event_name == 'pull_request'" and "./pipeline.sh plan" in _steps_run(jobs["plan"])
    assert jobs["apply"]["if"] == "github.event_name == 'push'" and "./pipeline.sh apply" in _steps_run(jobs["apply"])
    for name in ("plan", "apply"):
        assert jobs[name]["needs"] == "lint"
        assert "${{ secrets." not in _steps_run(jobs[name]), "secrets belong in env:, not in the script text"


def test_gitlab_ci_stages_and_rules():
    ci = _load(".gitlab-ci.yml")
    assert ci["stages"] == ["lint", "plan", "apply"]
    assert "./pipeline.sh deps" in ci["default"]["before_script"]
    script = {name: [line for line in ci[name]["script"] if isinstance(line, str)] for name in ("lint", "plan", "apply")}
    assert script == {"lint": ["./pipeline.sh lint"], "plan": ["./pipeline.sh plan"], "apply": ["./pipeline.sh apply"]}
    assert ci["plan"]["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert ci["apply"]["rules"] == [{"if": "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"}]
    assert ci["plan"]["resource_group"] == ci["apply"]["resource_group"]


def test_requirements_name_the_collection():
    names = [c["name"] for c in _load("requirements.yml")["collections"]]
    assert names[0] == "tunnelfix.fleet" and {"ansible.posix", "community.general"} <= set(names)


def _known_variables():
    """Role options (argument specs) and the inventory variables docs/inventory.md documents."""
    known = set()
    for spec in (REPO / "roles").glob("*/meta/argument_specs.yml"):
        for entry in yaml.safe_load(spec.read_text(encoding="utf-8"))["argument_specs"].values():
            known |= set(entry.get("options") or {})
    known |= set(re.findall(r"^\| `([a-z0-9_]+)` \|", (REPO / "docs" / "inventory.md").read_text(encoding="utf-8"), flags=re.M))
    return known


VARS_FILES = sorted(str(p.relative_to(EXAMPLE)) for p in (EXAMPLE / "inventory").glob("*_vars/*.yml"))


@pytest.mark.parametrize("rel", VARS_FILES)
def test_example_variables_are_known(rel):
    unknown = [name for name in _load(rel) if not name.startswith("ansible_") and name not in _known_variables()]
    assert unknown == [], "%s sets variables no role or docs/inventory.md knows: %s" % (rel, unknown)


def test_example_groups_are_the_collections():
    hosts = _load("inventory/hosts.yml")
    groups = set(re.findall(r"^\| `(tunnelfix_[a-z_]+)` \|", (REPO / "docs" / "inventory.md").read_text(encoding="utf-8"), flags=re.M))
    assert set(hosts) <= groups and VARS_FILES
    for rel in VARS_FILES:
        stem = Path(rel).stem
        assert stem == "all" or stem in groups or any(stem in (g.get("hosts") or {}) for g in hosts.values()), rel
