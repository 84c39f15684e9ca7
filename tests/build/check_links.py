# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every link in a document the artifact ships resolves inside the artifact or is a URL.

    python tests/build/check_links.py ARTIFACT.tar.gz

Reads each ``*.md`` member of the tarball and its Markdown links (``[text](target)``, ``[text]: target``) and
HTML ``href``/``src`` attributes. A target with a scheme (``https:``, ``mailto:``...) is a stated place outside
the collection and passes; a bare ``#anchor`` passes; any other target is a path relative to the document
(``/``-rooted: relative to the collection root), its ``#fragment`` and ``?query`` dropped, and must name a
member or a folder of the artifact. Code spans and fenced code blocks are not read (a command in a code block
is not a link). Places that are not shipped (the lab, the tests, examples/) are written as text naming
where they are, never as a link.

Output: ``FAIL member:line: target`` per broken link, then ``N links, N broken``; exit 1 when any is broken.
"""

from __future__ import annotations

import posixpath
import re
import sys
import tarfile

INLINE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def links(text: str) -> list[tuple[int, str]]:
    """(1-based line, target) of each link in Markdown ``text``, outside fenced code blocks and code spans."""
    found = []
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * 3
            elif stripped.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        line = CODE_SPAN.sub("", line)
        for pattern in (INLINE, REFERENCE, HTML):
            found.extend((number, match.group(1)) for match in pattern.finditer(line))
    return found


def resolve(document: str, target: str) -> str | None:
    """The collection path a relative ``target`` of ``document`` names; None for URLs and bare anchors."""
    if SCHEME.match(target) or target.startswith("#"):
        return None
    path = re.split(r"[#?]", target, maxsplit=1)[0]
    base = "" if path.startswith("/") else posixpath.dirname(document)
    return posixpath.normpath(posixpath.join(base, path.lstrip("/"))).rstrip("/")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_links.py ARTIFACT.tar.gz")
        return 2
    with tarfile.open(argv[0], "r:gz") as tar:
        names = [m.name[2:] if m.name.startswith("./") else m.name for m in tar.getmembers()]
        paths = set(names)
        for name in names:
            parts = name.split("/")
            paths.update("/".join(parts[:i]) for i in range(1, len(parts)))
        broken = []
        count = 0
        for member in tar.getmembers():
            name = member.name[2:] if member.name.startswith("./") else member.name
            if not member.isfile() or not name.endswith(".md"):
                continue
            text = tar.extractfile(member).read().decode("utf-8", errors="replace")
            for line, target in links(text):
                count += 1
                path = resolve(name, target)
                if path is not None and path not in paths and path != ".":
                    broken.append("%s:%d: %s" % (name, line, target))
    for item in broken:
        print("FAIL %s (not in the artifact: write a place that is not shipped as text naming where it is)" % item)
    print("%d links, %d broken" % (count, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
