# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The last step every generator in scripts/ shares: write the generated text, or with --check only compare it."""

from __future__ import annotations

from pathlib import Path


def write_or_check(path: Path, name: str, text: str, check: bool, stale: str) -> int:
    """Write ``text`` to ``path`` when it differs (printing ``wrote NAME``), or with ``check`` write nothing and print
    ``stale`` when it differs. ``name``: the path as shown (relative to the repository). Returns the exit status:
    1 when ``check`` found a difference, else 0. A missing file differs from any text.
    """
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if current == text:
        return 0
    if check:
        print(stale)
        return 1
    path.write_text(text, encoding="utf-8")
    print("wrote %s" % name)
    return 0
