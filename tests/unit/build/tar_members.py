"""Shared by the build tests: a gzip tarball made in a test's directory from {member path: text}."""

import io
import tarfile


def tarball(tmp_path, members):
    """tmp_path (pathlib.Path), {"docs/a.md": "text", ...} -> the Path of tmp_path/a.tar.gz holding those regular files."""
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path
