# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/openwrt-fidelity.md names, per upstream behaviour, the test that pins it: each named test exists.

A row's test is written ``path/test_x.py::test_name`` or, where the path is clear from the row, ``test_x.py::test_name``
(then some file of that name under tests/, lab/ or molecule/ must define it). A test moved or renamed without the page
following would leave a behaviour the page says is pinned without its pin.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "openwrt-fidelity.md"
REFERENCE = re.compile(r"([\w./-]*test_\w+\.py)::(\w+)")


def references(text):
    """Every ``(file, test name)`` the page names, in page order, once each."""
    return list(dict.fromkeys(REFERENCE.findall(text)))


def candidates(path):
    """The files a reference's path may mean: itself when it has a directory, else every file of that name."""
    if "/" in path:
        return [ROOT / path]
    return sorted(found for base in ("tests", "lab", "molecule") for found in (ROOT / base).rglob(path))


def defines(files, name):
    """Whether one of ``files`` defines the test function ``name``."""
    pattern = re.compile(r"^\s*def %s\(" % re.escape(name), re.M)
    return any(path.is_file() and pattern.search(path.read_text(encoding="utf-8")) for path in files)


def test_the_reader_finds_full_and_short_references():
    text = "| x | `tests/unit/a/test_b.py::test_c`; `test_d.py::test_e` and molecule `banip_icmp` |"
    assert references(text) == [("tests/unit/a/test_b.py", "test_c"), ("test_d.py", "test_e")]


def test_a_missing_test_is_not_found():
    assert not defines(candidates("tests/unit/docs/test_fidelity_doc.py"), "test_that_does_not_exist")
    assert defines(candidates("test_fidelity_doc.py"), "test_a_missing_test_is_not_found")


@pytest.mark.parametrize("path, name", references(PAGE.read_text(encoding="utf-8")))
def test_every_test_the_page_names_exists(path, name):
    files = candidates(path)
    assert files, "docs/openwrt-fidelity.md names %s, which is no file under tests/, lab/ or molecule/" % path
    assert defines(files, name), "docs/openwrt-fidelity.md names %s::%s, which %s does not define" % (
        path, name, ", ".join(str(f.relative_to(ROOT)) for f in files))
