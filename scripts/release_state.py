# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether galaxy.yml's version may be built: one version is one release, built once.

    python scripts/release_state.py [--before-release] [TREE]      (default: this checkout)

Reads TREE/galaxy.yml (``version``), TREE/changelogs/changelog.yaml (antsibull-changelog's record:
``releases: {VERSION: {fragments: [file names], ...}}``) and the file names in TREE/changelogs/fragments/.
A fragment is *pending* when no release records it (keep_fragments: true keeps the files, so the record
is what says which release shipped a fragment).

Verdicts (one line each on stdout; exit 1 on a problem, 2 on unreadable input):

- ``galaxy.yml's version X is the last release and N fragments are pending``: a change was made without a
  new version. An artifact built now would carry the same number as the one users already have, and
  ``ansible-galaxy collection install`` keeps theirs ("Nothing to do"). Fix: raise galaxy.yml's version
  (semantic versioning: bugfixes -> patch, anything else -> minor while 0.x), then ``make release``.
- ``galaxy.yml's version X is older than the last release Y``.
- ``galaxy.yml's version X is not MAJOR.MINOR.PATCH``.

``--before-release`` (changelogs/release.sh runs it before antsibull-changelog writes anything): galaxy.yml's
version must be a new one: ``galaxy.yml's version X is already released (changelogs/changelog.yaml): raise it
first`` when a release records it, and the "older" verdict above, fragments pending or not.

A galaxy.yml or changelog.yaml of another shape (not a mapping, a release that is not a mapping, a release's
``fragments`` not a list, a release that is not a semantic version) is unreadable input (exit 2), named.

Versions compare as semantic versions (https://semver.org/ section 11; a pre-release sorts before its release).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")


class StateError(ValueError):
    """A file is missing or does not have the shape described above."""


def semver_key(version: str) -> tuple:
    """"1.2.3" -> sortable key; "1.2.3-rc.1" sorts before "1.2.3". Raises StateError when not semver."""
    match = SEMVER.match(str(version))
    if not match:
        raise StateError("galaxy.yml's version %r is not MAJOR.MINOR.PATCH (semantic versioning)" % (version,))
    major, minor, patch, pre = match.groups()
    pre_key = (1,) if pre is None else (0,) + tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (int(major), int(minor), int(patch), pre_key)


def mapping(text: str, what: str) -> dict:
    """The YAML ``text`` of the file ``what`` as a dict ({} when empty); StateError when it is another shape."""
    data = yaml.safe_load(text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise StateError("%s is not a mapping" % what)
    return data


def release_state(galaxy_text: str, changelog_text: str, fragment_names: list[str], before_release: bool = False) -> dict:
    """Texts of galaxy.yml and changelog.yaml and the fragment file names -> the state as a dict:

    ``{"version": str, "last_release": str | None, "pending": [names, sorted], "problem": str | None}``.
    ``before_release``: the version must be new (not released, not older). Raises StateError when galaxy.yml has
    no version or either file has another shape than the module docstring says.
    """
    version = str(mapping(galaxy_text, "galaxy.yml").get("version") or "")
    if not version:
        raise StateError("galaxy.yml has no version")
    releases = mapping(changelog_text, "changelogs/changelog.yaml").get("releases") or {}
    if not isinstance(releases, dict):
        raise StateError("changelogs/changelog.yaml: releases is not a mapping")
    recorded = set()
    for name, release in releases.items():
        if release is not None and not isinstance(release, dict):
            raise StateError("changelogs/changelog.yaml: release %s is not a mapping" % name)
        fragments = (release or {}).get("fragments") or []
        if not isinstance(fragments, list):
            raise StateError("changelogs/changelog.yaml: release %s's fragments are not a list" % name)
        if not SEMVER.match(str(name)):
            raise StateError("changelogs/changelog.yaml: release %r is not MAJOR.MINOR.PATCH (semantic versioning)" % (name,))
        recorded.update(fragments)
    pending = sorted(name for name in fragment_names if name not in recorded)
    last = max(releases, key=lambda v: semver_key(str(v)), default=None)
    state = {"version": version, "last_release": None if last is None else str(last), "pending": pending, "problem": None}
    key = semver_key(version)
    if before_release and any(semver_key(str(released)) == key for released in releases):
        state["problem"] = "galaxy.yml's version %s is already released (changelogs/changelog.yaml): raise it first" % version
    elif last is not None and key < semver_key(str(last)):
        state["problem"] = "galaxy.yml's version %s is older than the last release %s" % (version, last)
    elif last is not None and key == semver_key(str(last)) and pending:
        state["problem"] = ("galaxy.yml's version %s is the last release and %d fragment(s) are pending (%s): raise the version "
                            "in galaxy.yml (bugfixes only: patch; otherwise minor), then make release"
                            % (version, len(pending), ", ".join(pending)))
    return state


def main(argv: list[str]) -> int:
    before_release = argv[:1] == ["--before-release"]
    argv = argv[1:] if before_release else argv
    tree = Path(argv[0]) if argv else Path(__file__).resolve().parents[1]
    try:
        fragments = sorted(p.name for p in (tree / "changelogs" / "fragments").iterdir() if p.suffix in (".yml", ".yaml"))
        state = release_state((tree / "galaxy.yml").read_text(encoding="utf-8"),
                              (tree / "changelogs" / "changelog.yaml").read_text(encoding="utf-8"), fragments, before_release)
    except (OSError, yaml.YAMLError, StateError) as exc:
        print("FAIL: %s" % exc)
        return 2
    if state["problem"]:
        print("FAIL: %s" % state["problem"])
        return 1
    released = state["version"] == state["last_release"]
    print("ok   galaxy.yml %s (%s), last release %s, %d fragment(s) pending"
          % (state["version"], "released" if released else "next release", state["last_release"], len(state["pending"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
