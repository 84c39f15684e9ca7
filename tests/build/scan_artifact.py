# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fail when a built collection artifact holds a path outside the allow-list or anything key-shaped.

    python tests/build/scan_artifact.py ARTIFACT.tar.gz [GALAXY_YML]

The allow-list is galaxy.yml's ``manifest.directives`` (what ansible-galaxy packs): each ``include``
path and each ``recursive-include`` folder gives an allowed top-level name, plus the MANIFEST.json
and FILES.json ansible-galaxy writes. A member under any other top-level name fails, and so does any
member that is not a regular file or folder (a link could point outside the collection).

Key-shaped content (never printed, only its file, line and kind):

- a WireGuard key: 44 base64 characters encoding 32 bytes (wg(8): 43 characters, the last one of
  ``AEIMQUYcgkosw480``, then ``=``), not inside a longer base64 run. Placeholders of the house's
  docs (``AAAA...A=``) use at most 4 distinct characters; a random key's 43 characters have about 30
  distinct ones (4 or fewer: probability below 10^-40), so such a token is not reported;
- a PEM or OpenSSH private key block: ``-----BEGIN ... PRIVATE KEY-----``.

Output: a FAIL line per problem, then ``N passed, N failed`` (members); exit 1 on any problem.
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

import yaml

WIREGUARD_KEY = re.compile(r"(?<![A-Za-z0-9+/])([A-Za-z0-9+/]{42}[AEIMQUYcgkosw480]=)(?![A-Za-z0-9+/=])")
PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")
PLACEHOLDER_MAX_DISTINCT = 4
GENERATED = frozenset({"MANIFEST.json", "FILES.json"})


class ScanError(ValueError):
    """galaxy.yml has no manifest directives to take the allow-list from."""


def allowed_top_level(galaxy_text: str) -> frozenset[str]:
    """galaxy.yml text -> the top-level names its manifest directives admit.

    ``include README.md meta/runtime.yml`` -> README.md, meta; ``recursive-include plugins *.py`` ->
    plugins; ``global-exclude``/``exclude``/``prune`` admit nothing. Raises ScanError without directives.
    """
    directives = ((yaml.safe_load(galaxy_text) or {}).get("manifest") or {}).get("directives") or []
    if not directives:
        raise ScanError("galaxy.yml has no manifest.directives: the artifact is not an allow-list")
    allowed = set(GENERATED)
    for directive in directives:
        words = str(directive).split()
        if words[0] == "include":
            allowed.update(word.split("/", 1)[0] for word in words[1:])
        elif words[0] in ("recursive-include", "graft"):
            allowed.add(words[1].split("/", 1)[0])
    return frozenset(allowed)


def is_placeholder(key: str) -> bool:
    return len(set(key[:43])) <= PLACEHOLDER_MAX_DISTINCT


def key_shapes(text: str) -> list[tuple[int, str]]:
    """(1-based line, kind) of each key-shaped string in ``text``; kind names the shape, never the value."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if any(not is_placeholder(match.group(1)) for match in WIREGUARD_KEY.finditer(line)):
            found.append((number, "a WireGuard key (44 base64 characters, 32 bytes)"))
        if PRIVATE_KEY_BLOCK.search(line):
            found.append((number, "a PEM/OpenSSH private key block"))
    return found


def scan(artifact: Path, allowed: frozenset[str]) -> tuple[list[str], int]:
    """Problems (one sentence each) and the number of members scanned."""
    problems = []
    count = 0
    with tarfile.open(artifact, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name[2:] if member.name.startswith("./") else member.name
            if member.isdir():
                continue
            count += 1
            if not member.isfile():
                problems.append("%s: not a regular file (%s)" % (name, "link" if member.issym() or member.islnk() else "special"))
                continue
            if name.split("/", 1)[0] not in allowed:
                problems.append("%s: outside the allow-list (galaxy.yml manifest: %s)" % (name, ", ".join(sorted(allowed))))
            text = tar.extractfile(member).read().decode("utf-8", errors="replace")
            for line, kind in key_shapes(text):
                problems.append("%s:%d: %s" % (name, line, kind))
    return problems, count


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: scan_artifact.py ARTIFACT.tar.gz [GALAXY_YML]")
        return 2
    artifact = Path(argv[0])
    galaxy = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parents[2] / "galaxy.yml"
    try:
        allowed = allowed_top_level(galaxy.read_text(encoding="utf-8"))
        problems, count = scan(artifact, allowed)
    except (ScanError, OSError, tarfile.TarError) as exc:
        print("FAIL %s: %s" % (artifact.name, exc))
        return 1
    for problem in problems:
        print("FAIL %s: %s" % (artifact.name, problem))
    bad = len({problem.split(":", 1)[0] for problem in problems})
    print("%d passed, %d failed" % (count - bad, bad))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
