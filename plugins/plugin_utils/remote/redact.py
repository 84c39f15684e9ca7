# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read configuration that holds secrets without the secrets ever leaving the router.

A python-free action reads a router by running commands whose raw output crosses the connection,
and Ansible's connection plugins print that raw output at ``-vvv``. Redacting on the controller
is therefore too late: ``uci show network`` and ``wg show all dump`` would put every WireGuard
private and preshared key into an operator's log. These helpers build POSIX sh scripts (BusyBox
ash, dash, bash) that redact on the target, before anything is printed:

* ``uci_show_redacted_argv(target)`` - ``uci -q show <target>`` with the value of every secret
  option (``_uci.is_secret_option``: private_key, preshared_key, key, key1-4, psk, password, ...)
  replaced by ``'<redacted>'`` (``_uci.REDACTED``), and every WireGuard-key-shaped token on any
  other line that is not a public key option (``key_shape_sed``), through ``sed -E``. The exit status is uci's
  (1 = no such config or section), the output parses with ``_uci.parse_uci_show`` as before.
* ``wg_dump_redacted_argv()`` - the target's ``date +%s`` on the first line, then ``wg show all
  dump`` with the private key of every interface line (5 fields) and the preshared key of every
  peer line (9 fields) replaced by ``(hidden)`` (``(none)`` stays ``(none)``), through ``awk``.
  The format is wireguard-tools' ``wg show all dump`` (tab-separated, see wg(8)); exit status wg's.
* ``uci_secret_digest_argv(path)`` with ``secret_digest(value)`` / ``parse_sha256sum(text)`` -
  compare a secret option with a wanted value by SHA-256 (``sha256sum`` of the value without a
  trailing newline), so the value itself is never printed.

Limitation: a secret whose value spans several lines (a quoted newline) is redacted on its first
line only; WireGuard keys and passwords are single-line.
"""

from __future__ import annotations

import hashlib
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import (
    REDACTED, SECRET_NAMES, SECRET_PARTS, WEP_KEY_PATTERN)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import KEY_BOUNDARY_ERE, KEY_SHAPED_ERE

WG_HIDDEN = "(hidden)"


def _any_case(pattern: str) -> str:
    """An ERE fragment matching ``pattern`` in any letter case: ``key[1-4]`` → ``[kK][eE][yY][1-4]``.

    Letters outside a bracket expression become ``[xX]``; bracket expressions and every other
    character are kept (``_uci``'s names hold letters, digits and ``_`` only). POSIX sed has no
    portable case-insensitive flag (BusyBox and GNU differ), so the case goes into the pattern.
    """
    out, in_brackets = [], False
    for char in pattern:
        if char == "[":
            in_brackets = True
        elif char == "]":
            in_brackets = False
        elif char.isalpha() and char.isascii() and not in_brackets:
            char = "[%s%s]" % (char.lower(), char.upper())
        out.append(char)
    return "".join(out)


def secret_option_ere() -> str:
    """The POSIX ERE (sed -E) matching a ``uci show`` line of a secret option up to its ``=``.

    Group 1 is ``config.section.option`` (with the ``+``/``-`` of a ``uci changes`` list line). Only
    option lines match: a section named like a secret (``network.psk=interface``) keeps its type.
    Built from the same names as ``_uci.is_secret_option``
    (exact names, ``key1``-``key4``, and names containing a secret part), in any letter case as
    ``is_secret_option`` compares them (``Private_Key`` is a secret too): the router must hide
    whatever the controller would.
    """
    names = "|".join(sorted(_any_case(name) for name in SECRET_NAMES))
    parts = "|".join(sorted(_any_case(part) for part in SECRET_PARTS))
    return r"^([^=.]+\.[^=.]+\.(%s|%s|[^.=]*(%s)[^.=]*)[+-]?)=.*$" % (names, _any_case(WEP_KEY_PATTERN), parts)


def _filtered(command: str, redactor: str) -> str:
    """sh lines: run COMMAND, exit with its status if it fails, else pipe its output (if any) through REDACTOR.

    The output is held in a variable first, so the command's exit status is kept without
    ``pipefail`` (dash has none).
    """
    return ('out=$(%s) || exit $?\n'
            'if [ -n "$out" ]; then printf \'%%s\\n\' "$out" | %s; fi\n' % (command, redactor))


def key_shape_sed() -> str:
    """sed -E script replacing every WireGuard-key-shaped token (``_wireguard.KEY_SHAPED``) on a line
    that is not a public key option (``_uci.PUBLIC_KEY_OPTION``) by ``<redacted>``: a key under a name
    no list knows (``privatekey``) or pasted into a ``description`` never leaves the router.

    sed has no look-around, so a token's neighbours are matched and put back; the substitution runs
    twice so that two keys separated by one character are both caught. Works in GNU and BusyBox sed.
    """
    public = r"^[^=]*\.[^.=]*(%s_?%s|%s)=" % (_any_case("public"), _any_case("key"), _any_case("pubkey"))
    token = "(^|[^A-Za-z0-9+/])%s($|%s)" % (KEY_SHAPED_ERE, KEY_BOUNDARY_ERE)
    substitute = "s#%s#\\1%s\\2#g" % (token, REDACTED)
    return "/%s/!{\n%s\n%s\n}" % (public, substitute, substitute)


def _uci_redacted_argv(subcommand: list, target: str) -> list:
    script = _filtered('uci %s "$1"' % " ".join(subcommand), 'sed -E -e "$2" -e "$3"')
    return ["sh", "-c", script, "sh", target, "s/%s/\\1='%s'/" % (secret_option_ere(), REDACTED), key_shape_sed()]


def uci_changes_redacted_argv(config: str) -> list:
    """argv running ``uci changes CONFIG`` with staged secret values replaced on the target.

    ``uci changes`` prints ``config.section.option='value'`` lines (and ``-config.section.option``
    for deletions), so the same sed expression applies; exit status uci's.
    """
    return _uci_redacted_argv(["changes"], config)


def uci_show_redacted_argv(target: str) -> list:
    """argv running ``uci -q show TARGET`` with secret values replaced on the target (see module doc).

    The sed expression travels as an argument (``$2``), so nothing in it needs shell quoting.
    """
    return _uci_redacted_argv(["-q", "show"], target)


# Interface lines (5 fields): field 3 is the public key; peer lines (9 fields): field 2. Every other
# field that is key-shaped (44 characters of base64 ending in "=") is hidden: the private key
# (interface field 2), the preshared key (peer field 3), and anything key-shaped on a line of an
# unexpected format. Written without ERE intervals, which mawk 1.3.4 lacks.
WG_DUMP_REDACT_AWK = ('BEGIN { FS = OFS = "\\t" } '
                      '{ pub = (NF == 5) ? 3 : ((NF == 9) ? 2 : 0); '
                      '  for (i = 1; i <= NF; i++) '
                      '    if (i != pub && length($i) == 44 && $i ~ /^[A-Za-z0-9+\\/]+=$/) $i = "%s"; '
                      '  print }' % WG_HIDDEN)


def wg_dump_redacted_argv() -> list:
    """argv printing the target's epoch seconds, then ``wg show all dump`` without private or preshared keys."""
    return ["sh", "-c", "date +%s\n" + _filtered("wg show all dump", 'awk "$1"'), "sh", WG_DUMP_REDACT_AWK]


def uci_secret_digest_argv(path: str) -> list:
    """argv printing ``sha256sum`` of ``uci -q get PATH`` (no trailing newline); exit 1 if the option is unset."""
    return ["sh", "-c", 'v=$(uci -q get "$1") || exit $?\nprintf \'%s\' "$v" | sha256sum\n', "sh", path]


def secret_digest(value) -> str:
    """SHA-256 hex digest of ``str(value)`` as UTF-8, the counterpart of uci_secret_digest_argv."""
    return hashlib.sha256(str(value).encode("utf-8")).hexdigest()


def parse_sha256sum(text: str) -> str:
    """``"9f86…08  -\\n"`` (sha256sum of stdin, GNU coreutils or BusyBox) → ``"9f86…08"``.

    Raises ParseError when the first word is not 64 hex digits.
    """
    word = (text or "").split()[:1]
    if not word or not re.fullmatch(r"[0-9a-f]{64}", word[0]):
        raise ParseError("sha256sum printed %r, not a SHA-256 digest" % (text or "")[:80])
    return word[0]
