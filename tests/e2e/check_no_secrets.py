#!/usr/bin/env python
"""Fail when any of the lab's private or preshared keys appears in a log or report file.

Usage: check_no_secrets.py KEY_DIR FILE...
KEY_DIR holds the lab's *.key (private) and *.psk (preshared) files written by lab/up.sh.
Prints one line per file and the plain 'N passed, N failed' summary; exits 1 on a leak.

A key counts as leaked when the file holds the key itself, the key with JSON-escaped slashes
(``\\/``), any WINDOW_CHARS-long piece of it (a truncated key), or its 32 bytes in hex (wireguard-go's
UAPI prints ``private_key=<hex>``). The text is searched as it is, with all whitespace removed (a key
wrapped at any width), and inside every long base64 run decoded once (a file read back with
``slurp``). WireGuard keys are 44 base64 characters (32 bytes, wg(8)); 16 random base64 characters
collide with unrelated text with probability about 2**-96 per position, so a window hit is a leak.
"""
import base64
import binascii
import pathlib
import re
import sys

WINDOW_CHARS = 16


def secret_forms(secret):
    """Return the strings whose presence in a text means ``secret`` leaked.

    ``secret`` is one base64 WireGuard key (str, 44 chars). The result is a set of str: the key,
    the key with ``/`` written ``\\/`` (JSON), and every WINDOW_CHARS-long substring of the key.
    """
    forms = {secret, secret.replace("/", "\\/")}
    forms.update(secret[i:i + WINDOW_CHARS] for i in range(len(secret) - WINDOW_CHARS + 1))
    try:
        raw = base64.b64decode(secret, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if raw:
        forms.update({raw.hex(), raw.hex().upper()})
    return forms


# Runs long enough to hold a base64-encoded key (60 chars encode 45 bytes); slurp returns whole files.
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{60,}={0,2}")


def searched_texts(text):
    """Return the views of ``text`` (str) to search: as is, without whitespace, and each long base64 run decoded."""
    views = [text, re.sub(r"\s+", "", text)]
    for run in _BASE64_RUN.findall(views[1]):
        try:
            views.append(base64.b64decode(run[:len(run) - len(run) % 4]).decode("utf-8", "replace"))
        except (binascii.Error, ValueError):
            continue
    return views


def leaked_names(text, secrets):
    """Return the sorted names (``hub.key``, ...) of the ``secrets`` ({name: key}) found in ``text``."""
    views = searched_texts(text)
    return sorted(name for name, secret in secrets.items()
                  if any(form in view for form in secret_forms(secret) for view in views))


def load_secrets(key_dir):
    """Return {file name: key} for every *.key and *.psk file in ``key_dir`` (a path)."""
    return {p.name: p.read_text().strip() for p in sorted(pathlib.Path(key_dir).iterdir())
            if p.suffix in (".key", ".psk") and p.read_text().strip()}


def main(key_dir, files):
    secrets = load_secrets(key_dir)
    if not secrets:
        print("FAIL: no lab secrets found in %s" % key_dir)
        return 1
    if not files:
        print("FAIL: no files to check")
        return 1
    failed = 0
    for name in files:
        leaked = leaked_names(pathlib.Path(name).read_text(errors="replace"), secrets)  # names only, never the key
        detail = ": holds the key of " + ", ".join(leaked) if leaked else ""
        print("%s %s (%d secrets checked)%s" % ("FAIL" if leaked else "PASS", name, len(secrets), detail))
        failed += bool(leaked)
    print("%d passed, %d failed" % (len(files) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
