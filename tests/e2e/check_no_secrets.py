#!/usr/bin/env python3
"""Fail when any of the lab's private or preshared keys appears in a log or report file.

Usage: check_no_secrets.py KEY_DIR FILE...
KEY_DIR holds the lab's *.key (private) and *.psk (preshared) files written by lab/up.sh.
Prints one line per file and the plain 'N passed, N failed' summary; exits 1 on a leak.
"""
import pathlib
import sys


def main(key_dir, files):
    secrets = {p.name: p.read_text().strip() for p in sorted(pathlib.Path(key_dir).iterdir())
               if p.suffix in (".key", ".psk")}
    if not secrets:
        print("FAIL: no lab secrets found in %s" % key_dir)
        return 1
    failed = 0
    for name in files:
        text = pathlib.Path(name).read_text(errors="replace")
        leaked = [name for name, secret in secrets.items() if secret in text]  # names only, never the key
        print("%s %s (%d secrets checked)%s" % ("FAIL" if leaked else "PASS", name, len(secrets),
                                                 ": holds the key of " + ", ".join(leaked) if leaked else ""))
        failed += bool(leaked)
    print("%d passed, %d failed" % (len(files) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
