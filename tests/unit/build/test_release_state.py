"""scripts/release_state.py: a released version with pending fragments fails; a raised one passes."""

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
