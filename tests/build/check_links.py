# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every link in a document the artifact ships resolves inside the artifact or is a URL.

    python tests/build/check_links.py ARTIFACT.tar.gz

Reads each ``*.md`` member of the tarball and its Markdown links (``[text](target)``, ``[text](<target with
spaces>)``, with or without a ``"title"``, ``'title'`` or ``(title)``; ``[text]: target``) and HTML ``href``/``src``
attributes. A target with a scheme (``https:``, ``mailto:``...) is a stated place outside the collection and
passes; any other target is a path relative to the document (``/``-rooted: relative to the collection root),
percent-escapes decoded (``my%20notes.md``), its ``#fragment`` and ``?query`` dropped, and must name a member or a
folder of the artifact. A ``#fragment`` of a Markdown member (or a bare ``#fragment``: this document) must name
one of its headings as GitHub writes their anchors (lower case; characters other than letters, digits, ``_``,
``-`` and blanks dropped; blanks as ``-``; a repeated heading gets ``-1``, ``-2``...; ATX and setext headings) or
an HTML ``id``/``name``. Code spans, fenced code blocks (a fence closes at one of its own character, at least as
long, with nothing after it) and HTML comments are not read (a command in a code block is not a link). Places
that are not shipped (the lab, the tests, examples/) are written as text naming where they are, never as a link.

Output: ``FAIL member:line: target (...)`` per broken link, then ``N links, N broken``; exit 1 when any is broken.
"""

from __future__ import annotations

import posixpath
import re
import sys
import tarfile
from urllib.parse import unquote

INLINE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(?:<([^>\n]*)>|([^)\s>]+))(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
FENCE = re.compile(r"\s*(`{3,}|~{3,})(.*)$")
ATX = re.compile(r"\s{0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$")
SETEXT = re.compile(r"\s{0,3}(?:=+|-+)\s*$")
HTML_ID = re.compile(r"""<[A-Za-z][^>]*?\s(?:id|name)\s*=\s*["']([^"']+)["']""")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, text) of the lines of Markdown ``text`` outside fenced code blocks, HTML comments removed."""
    lines, fence, comment = [], None, False
    for number, line in enumerate(text.splitlines(), 1):
        marker = FENCE.match(line)
        if fence is None and marker and not comment:
            fence = marker.group(1)
            continue
        if fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) and not marker.group(2).strip():
                fence = None
            continue
        kept = ""
        while line:
            if comment:
                end = line.find("-->")
                line, comment = ("", True) if end < 0 else (line[end + 3:], False)
            else:
                start = line.find("<!--")
                kept, line, comment = (kept + line, "", False) if start < 0 else (kept + line[:start], line[start + 4:], True)
        lines.append((number, kept))
    return lines


def links(text: str) -> list[tuple[int, str]]:
    """(1-based line, target) of each link in Markdown ``text``, outside fenced code blocks, code spans and comments."""
    found = []
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub("", line)
        for pattern in (INLINE, REFERENCE, HTML):
            found.extend((number, next(group for group in match.groups() if group is not None)) for match in pattern.finditer(line))
    return found


def slug(heading: str) -> str:
    """A heading's text -> its anchor as GitHub writes it (links as their text, tags and punctuation dropped)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The fragments a Markdown ``text`` defines: its headings' anchors (repeats numbered) and HTML ids/names."""
    found, seen, previous = set(), {}, ""
    for _number, line in prose_lines(text):
        atx = ATX.match(line)
        heading = None
        if atx:
            heading = atx.group(1) or ""
        elif SETEXT.match(line) and previous.strip() and not ATX.match(previous):
            heading = previous.strip()
        if heading is not None:
            base = slug(heading)
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else "%s-%d" % (base, count))
        found.update(HTML_ID.findall(line))
        previous = line
    return found


def resolve(document: str, target: str) -> str | None:
    """The collection path a relative ``target`` of ``document`` names; None for URLs and bare anchors."""
    if SCHEME.match(target) or target.startswith("#"):
        return None
    path = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
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
        documents = {}
        for member in tar.getmembers():
            name = member.name[2:] if member.name.startswith("./") else member.name
            if member.isfile() and name.endswith(".md"):
                documents[name] = tar.extractfile(member).read().decode("utf-8-sig", errors="replace")
    broken = []
    count = 0
    defined = {}
    for name, text in documents.items():
        for line, target in links(text):
            count += 1
            path = resolve(name, target)
            if path is not None and path not in paths and path != ".":
                broken.append("%s:%d: %s (not in the artifact: write a place that is not shipped as text naming where it is)"
                              % (name, line, target))
                continue
            if SCHEME.match(target) or "#" not in target:
                continue
            document = name if path is None else path
            fragment = unquote(target.split("#", 1)[1])
            if document in documents and fragment:
                if document not in defined:
                    defined[document] = anchors(documents[document])
                if fragment not in defined[document]:
                    broken.append("%s:%d: %s (no heading or id '%s' in %s)" % (name, line, target, fragment, document))
    for item in broken:
        print("FAIL %s" % item)
    print("%d links, %d broken" % (count, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
