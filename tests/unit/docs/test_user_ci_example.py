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
    assert "concurrency" not in flow and "concurrency" not in jobs["lint"], "lint need not wait for the fleet"
    assert jobs["plan"]["concurrency"] == jobs["apply"]["concurrency"] == {"group": "tunnelfix-fleet", "cancel-in-progress": False}
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


def test_requirements_install_the_artifact_and_nothing_else():
    """Not on Galaxy yet: the active entry is the built artifact (type: file), named as
    `ansible-galaxy collection build` names it for galaxy.yml's version; the Galaxy form is the
    commented alternative. The collection needs no other collection (only ansible.builtin)."""
    text = (EXAMPLE / "requirements.yml").read_text(encoding="utf-8")
    entries = yaml.safe_load(text)["collections"]
    version = yaml.safe_load((REPO / "galaxy.yml").read_text(encoding="utf-8"))["version"]
    assert entries == [{"name": "./dist/tunnelfix-fleet-%s.tar.gz" % version, "type": "file"}]
    assert re.search(r"^ *# - name: tunnelfix\.fleet$", text, flags=re.M), "the Galaxy form is not shown"
    assert "ansible.posix" not in text and "community.general" not in text


def test_collection_uses_only_builtin_and_its_own_modules():
    """README and the example say no other collection is needed: no FQCN of another collection
    (other than ansible.builtin and tunnelfix.fleet) in roles, playbooks or plugins."""
    other = set()
    for sub in ("roles", "playbooks", "plugins"):
        for path in (REPO / sub).rglob("*"):
            if path.is_file() and path.suffix in (".yml", ".yaml", ".py", ".j2"):
                for fqcn in re.findall(r"\b(ansible\.posix|community\.[a-z_]+|ansible\.netcommon|ansible\.utils)\.[a-z_]+",
                                       path.read_text(encoding="utf-8", errors="replace")):
                    other.add("%s (%s)" % (fqcn, path.relative_to(REPO)))
    assert not other, sorted(other)


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
