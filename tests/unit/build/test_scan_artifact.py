"""tests/build/scan_artifact.py: the artifact allow-list and the key-shape scan, on tarballs made here.

Keys are random bytes made at run time (never a literal in the repository).
"""

import base64
import io
import os
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "build"))

import scan_artifact as sa  # noqa: E402

GALAXY = REPO / "galaxy.yml"


def random_key():
    return base64.b64encode(os.urandom(32)).decode()


def tarball(tmp_path, members):
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_allowed_top_level_from_this_galaxy_yml():
    assert sa.allowed_top_level(GALAXY.read_text()) == {
        "MANIFEST.json", "FILES.json", "meta", "README.md", "CHANGELOG.rst", "LICENSE", "changelogs", "plugins", "roles",
        "playbooks", "docs"}


def test_allowed_top_level_needs_directives():
    with pytest.raises(sa.ScanError, match="no manifest.directives"):
        sa.allowed_top_level("namespace: x\nbuild_ignore: [tests]\n")


def test_key_shapes():
    key = random_key()
    text = "a\nPrivateKey = %s\nPublicKey = %s\nx='%s'\n-----BEGIN OPENSSH PRIVATE KEY-----\n" % (key, "A" * 43 + "=", key)
    assert sa.key_shapes(text) == [(2, "a WireGuard key (44 base64 characters, 32 bytes)"),
                                   (4, "a WireGuard key (44 base64 characters, 32 bytes)"),
                                   (5, "a PEM/OpenSSH private key block")]


@pytest.mark.parametrize("text", [
    "A" * 43 + "=",                        # placeholder
    "AbCd" * 11 + "=",                     # 4 distinct characters: placeholder
    "x" + random_key()[:43] + "==",        # inside a longer base64 run
    random_key()[:42] + "B=",              # 44 characters, but not 32 bytes (B is not a last-character value)
    "-----BEGIN PUBLIC KEY-----",
])
def test_not_key_shapes(text):
    assert sa.key_shapes(text) == []


def test_scan_names_paths_outside_the_allow_list_and_keys(tmp_path):
    allowed = sa.allowed_top_level(GALAXY.read_text())
    artifact = tarball(tmp_path, {"plugins/modules/x.py": "ok\n", "bench/state/id_ed25519": "x\n",
                                  "docs/a.md": "k = %s\n" % random_key(), "MANIFEST.json": "{}"})
    problems, count = sa.scan(artifact, allowed)
    assert count == 4
    assert problems[0].startswith("bench/state/id_ed25519: outside the allow-list (galaxy.yml manifest: CHANGELOG.rst")
    assert problems[1:] == ["docs/a.md:1: a WireGuard key (44 base64 characters, 32 bytes)"]


def test_scan_refuses_links(tmp_path):
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("docs/x.md")
        info.type, info.linkname = tarfile.SYMTYPE, "/root/.ssh/id_ed25519"
        tar.addfile(info)
    assert sa.scan(path, frozenset({"docs"})) == (["docs/x.md: not a regular file (link)"], 1)


def test_main_exit_status(tmp_path, capsys):
    clean = tarball(tmp_path, {"README.md": "hello\n"})
    assert sa.main([str(clean), str(GALAXY)]) == 0
    assert capsys.readouterr().out == "1 passed, 0 failed\n"
