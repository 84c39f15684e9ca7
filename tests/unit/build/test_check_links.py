"""tests/build/check_links.py: which strings of a shipped Markdown file are links, and where they point."""

import io
import sys
import tarfile
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


def _artifact(tmp_path, files):
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def test_a_link_to_an_unshipped_place_fails_naming_file_and_line(tmp_path, capsys):
    artifact = _artifact(tmp_path, {"README.md": "ok [d](docs/a.md)\n", "docs/a.md": "x\n[lab](../lab/README.md)\n"})
    assert cl.main([artifact]) == 1
    out = capsys.readouterr().out
    assert "FAIL docs/a.md:2: ../lab/README.md" in out and "2 links, 1 broken" in out


def test_links_inside_the_artifact_pass(tmp_path, capsys):
    artifact = _artifact(tmp_path, {"README.md": "[d](docs/) [r](docs/a.md#x)\n", "docs/a.md": "[up](../README.md)\n"})
    assert cl.main([artifact]) == 0
    assert "3 links, 0 broken" in capsys.readouterr().out
