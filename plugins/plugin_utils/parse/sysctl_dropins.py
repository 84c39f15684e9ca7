# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse what sets sysctls at boot: the lines of sysctl configuration files, and lists of file paths.

Input of ``parse_sysctl_dropins``: the output of remote/tcp_reader.py's ``SYSCTL_DROPINS``, one line
per assignment, ``PATH<TAB>LINE``, in the order the files were listed and the lines appear::

    /etc/sysctl.d/60-tunnelfix-bbr-fq.conf\tnet.ipv4.tcp_congestion_control = bbr
    /etc/sysctl.d/99-sysctl.conf\t-net.core.default_qdisc=fq_codel

The line format is sysctl.d(5)'s: ``KEY = VALUE``, blanks around ``=`` optional, a key written with
dots or slashes (``net/ipv4/tcp_rmem``), a leading ``-`` (ignore a failure). A ``#`` after the value
is part of the value for systemd-sysctl (only whole-line comments exist), so it is kept. Pure
functions, no I/O.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError


def _key(text):
    """``" -net/ipv4/tcp_rmem "`` -> ``"net.ipv4.tcp_rmem"``."""
    return text.strip().lstrip("-").strip().replace("/", ".")


def parse_sysctl_dropins(text: str) -> dict:
    """``PATH<TAB>KEY = VALUE`` lines -> ``{path: {key: value}}`` (dots in keys, the value's blanks
    folded to single spaces, a later line of the same file winning, files in input order).

    Empty input -> ``{}``. Raises ParseError naming the line for one without a tab, a path that is
    not absolute, or an assignment without ``=`` or without a key.
    """
    if not isinstance(text, str):
        raise ParseError("sysctl dropins output must be text, got %s" % type(text).__name__)
    files = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        path, tab, assignment = line.partition("\t")
        if not tab or not path.startswith("/"):
            raise ParseError("sysctl dropins line %d: expected 'PATH<TAB>KEY = VALUE', got %r" % (lineno, line[:200]))
        key, equals, value = assignment.partition("=")
        if not equals or not _key(key):
            raise ParseError("sysctl dropins line %d: %s has no 'KEY = VALUE': %r" % (lineno, path, assignment[:200]))
        files.setdefault(path, {})[_key(key)] = " ".join(value.split())
    return files


def parse_path_lines(text: str) -> list:
    """One absolute path per line -> the sorted, unique list. Raises ParseError naming a line that is not one."""
    if not isinstance(text, str):
        raise ParseError("path list must be text, got %s" % type(text).__name__)
    paths = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if not line.startswith("/"):
            raise ParseError("path list line %d: expected an absolute path, got %r" % (lineno, line[:200]))
        paths.add(line)
    return sorted(paths)
