"""scripts/release_state.py: a released version with pending fragments fails; a raised one passes."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))

import release_state as rs  # noqa: E402

CHANGELOG = """
releases:
  0.1.0:
    fragments: [a.yml, b.yml]
  0.2.0:
    fragments: [c.yml]
"""


def test_released_version_with_a_pending_fragment_fails_naming_it():
    state = rs.release_state("version: 0.2.0\n", CHANGELOG, ["a.yml", "b.yml", "c.yml", "d.yml"])
    assert state["pending"] == ["d.yml"] and state["last_release"] == "0.2.0"
    assert state["problem"].startswith("galaxy.yml's version 0.2.0 is the last release and 1 fragment(s) are pending (d.yml)")


def test_released_version_without_pending_fragments_passes():
    state = rs.release_state("version: 0.2.0\n", CHANGELOG, ["a.yml", "b.yml", "c.yml"])
    assert state["problem"] is None and state["pending"] == []


@pytest.mark.parametrize("version", ["0.2.1", "0.3.0", "1.0.0"])
def test_raised_version_with_pending_fragments_passes(version):
    state = rs.release_state("version: %s\n" % version, CHANGELOG, ["d.yml"])
    assert state["problem"] is None and state["pending"] == ["d.yml"]


def test_version_older_than_the_last_release_fails():
    state = rs.release_state("version: 0.1.9\n", CHANGELOG, [])
    assert state["problem"] == "galaxy.yml's version 0.1.9 is older than the last release 0.2.0"


def test_last_release_is_the_highest_semver_not_the_last_written():
    changelog = "releases:\n  0.10.0: {fragments: [x.yml]}\n  0.9.0: {fragments: [y.yml]}\n"
    assert rs.release_state("version: 0.10.0\n", changelog, ["x.yml", "y.yml"])["last_release"] == "0.10.0"
    assert rs.release_state("version: 0.9.1\n", changelog, [])["problem"].endswith("older than the last release 0.10.0")


def test_prerelease_sorts_before_its_release():
    assert rs.semver_key("0.3.0-rc.1") < rs.semver_key("0.3.0") < rs.semver_key("0.3.1")
    assert rs.semver_key("0.3.0-rc.2") < rs.semver_key("0.3.0-rc.10")


def test_no_release_yet_passes():
    assert rs.release_state("version: 0.1.0\n", "{}", ["a.yml"])["problem"] is None


@pytest.mark.parametrize("galaxy, message", [("version: 1.0\n", "is not MAJOR.MINOR.PATCH"), ("name: x\n", "has no version")])
def test_bad_galaxy_version_raises(galaxy, message):
    with pytest.raises(rs.StateError, match=message):
        rs.release_state(galaxy, CHANGELOG, [])


def test_this_repository_is_consistent():
    """The tree itself: galaxy.yml's version is not a released one with fragments pending."""
    assert rs.main([str(REPO)]) == 0


# --- breaker, issue 29 -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("version, message", [
    ("0.2.0", "galaxy.yml's version 0.2.0 is already released (changelogs/changelog.yaml): raise it first"),
    ("0.1.0", "galaxy.yml's version 0.1.0 is already released (changelogs/changelog.yaml): raise it first"),
    ("0.1.5", "galaxy.yml's version 0.1.5 is older than the last release 0.2.0"),
])
def test_before_release_a_released_or_older_version_fails(version, message):
    state = rs.release_state("version: %s\n" % version, CHANGELOG, ["a.yml", "b.yml", "c.yml"], before_release=True)
    assert state["problem"] == message


def test_before_release_a_new_version_passes():
    assert rs.release_state("version: 0.3.0\n", CHANGELOG, ["d.yml"], before_release=True)["problem"] is None


@pytest.mark.parametrize("changelog, message", [
    ("- a\n", "changelogs/changelog.yaml is not a mapping"),
    ("releases:\n  0.1.0: x\n", "changelogs/changelog.yaml: release 0.1.0 is not a mapping"),
    ("releases:\n  0.1.0: {fragments: a.yml}\n", "changelogs/changelog.yaml: release 0.1.0's fragments are not a list"),
    ("releases:\n  '1.0': {fragments: []}\n", "changelogs/changelog.yaml: release '1.0' is not MAJOR.MINOR.PATCH"),
])
def test_a_malformed_changelog_is_a_state_error(changelog, message):
    with pytest.raises(rs.StateError, match=re.escape(message)):
        rs.release_state("version: 0.2.0\n", changelog, [])


def test_malformed_galaxy_yml_is_a_state_error():
    with pytest.raises(rs.StateError, match="galaxy.yml is not a mapping"):
        rs.release_state("- x\n", CHANGELOG, [])


def test_make_release_refuses_an_older_version_before_writing(tmp_path):
    """changelogs/release.sh on a copy (antsibull-changelog replaced by a stub that records being called): an
    older version stops before anything is released, changelog.yaml untouched."""
    (tmp_path / "changelogs" / "fragments").mkdir(parents=True)
    (tmp_path / "galaxy.yml").write_text("version: 0.1.5  # older\n")
    (tmp_path / "changelogs" / "changelog.yaml").write_text(CHANGELOG)
    (tmp_path / "changelogs" / "fragments" / "d.yml").write_text("bugfixes: [x]\n")
    stub = tmp_path / "antsibull-stub"
    stub.write_text("#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/called\"\n")
    stub.chmod(0o755)
    env = dict(os.environ, ANTSIBULL_CHANGELOG=str(stub), TF_PYTHON=sys.executable)
    result = subprocess.run(["bash", str(REPO / "changelogs" / "release.sh"), str(tmp_path)], env=env,
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "older than the last release 0.2.0" in result.stdout + result.stderr
    assert not (tmp_path / "called").exists()
    assert (tmp_path / "changelogs" / "changelog.yaml").read_text() == CHANGELOG
