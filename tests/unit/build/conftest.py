"""Shared by the build tests: ``tarball(members)`` makes a gzip tarball in the test's tmp_path."""

import io
import tarfile

import pytest


@pytest.fixture
def tarball(tmp_path):
    """A function {"docs/a.md": "text", ...} -> the Path of tmp_path/a.tar.gz holding those regular files."""
    def make(members):
        path = tmp_path / "a.tar.gz"
        with tarfile.open(path, "w:gz") as tar:
            for name, text in members.items():
                data = text.encode()
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return path
    return make
