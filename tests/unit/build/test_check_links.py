"""tests/build/check_links.py: which strings of a shipped Markdown file are links, and where they point."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "build"))

import check_links as cl  # noqa: E402


def test_links_outside_code():
    text = ("See [faults](faults.md#one) and ![chart](img/a.png).\n"
            "`[not](a-link.md)` in a code span\n"
            "```sh\n[also not](x.md)\n```\n"
            "[ref]: ../README.md\n"
            '<a href="roles/x.md">x</a> and [web](https://example.org/y)\n')
    assert cl.links(text) == [(1, "faults.md#one"), (1, "img/a.png"), (6, "../README.md"), (7, "https://example.org/y"),
                              (7, "roles/x.md")]


def test_resolve_relative_rooted_url_and_anchor():
    assert cl.resolve("docs/faults.md", "../lab/README.md") == "lab/README.md"
    assert cl.resolve("docs/faults.md", "roles/x.md#opts") == "docs/roles/x.md"
    assert cl.resolve("docs/faults.md", "/README.md") == "README.md"
    assert cl.resolve("docs/faults.md", "https://example.org/") is None
    assert cl.resolve("docs/faults.md", "#top") is None


def test_a_link_to_an_unshipped_place_fails_naming_file_and_line(tarball, capsys):
    artifact = str(tarball({"README.md": "ok [d](docs/a.md)\n", "docs/a.md": "x\n[lab](../lab/README.md)\n"}))
    assert cl.main([artifact]) == 1
    out = capsys.readouterr().out
    assert "FAIL docs/a.md:2: ../lab/README.md" in out and "2 links, 1 broken" in out


def test_links_inside_the_artifact_pass(tarball, capsys):
    artifact = str(tarball({"README.md": "[d](docs/) [r](docs/a.md#x)\n", "docs/a.md": "# X\n[up](../README.md)\n"}))
    assert cl.main([artifact]) == 0
    assert "3 links, 0 broken" in capsys.readouterr().out


# --- breaker, issue 29 -----------------------------------------------------------------------------------------

def test_link_forms_markdown_allows():
    text = ("[a](<my notes.md>) [b](a.md 'single-quoted title') [c](b.md (parenthesised title))\n"
            "````md\n```\n[d](in-code.md)\n````\n"
            "<!-- [old](gone.md) -->\n")
    assert cl.links(text) == [(1, "my notes.md"), (1, "a.md"), (1, "b.md")]


def test_resolve_decodes_percent_escapes():
    assert cl.resolve("docs/faults.md", "my%20notes.md") == "docs/my notes.md"
    assert cl.resolve("docs/faults.md", "my%20notes.md#x") == "docs/my notes.md"


def test_anchors_github_headings():
    text = ("# Faults\n## remediate.yml changes nothing, although something is wrong\n## UDP loss over 100 %\n"
            "## Faults\n```\n# not a heading\n```\nSetext heading\n---\n<a id=\"custom\"></a>\n"
            "## A [link](x.md) and `code`\n")
    assert cl.anchors(text) == {"faults", "remediateyml-changes-nothing-although-something-is-wrong", "udp-loss-over-100-",
                                "faults-1", "setext-heading", "custom", "a-link-and-code"}


def test_a_link_to_a_missing_heading_fails(tarball, capsys):
    artifact = str(tarball({"README.md": "[ok](docs/a.md#two-words) [bad](docs/a.md#gone) [self](#readme) [x](#nope)\n# Readme\n",
                            "docs/a.md": "# A\n## Two words\n", "docs/my notes.md": "x\n",
                            "docs/b.md": "[sp](my%20notes.md) [sp2](<my notes.md>)\n"}))
    assert cl.main([artifact]) == 1
    out = capsys.readouterr().out
    assert "FAIL README.md:1: docs/a.md#gone (no heading or id 'gone' in docs/a.md)" in out
    assert "FAIL README.md:1: #nope (no heading or id 'nope' in README.md)" in out
    assert "6 links, 2 broken" in out
