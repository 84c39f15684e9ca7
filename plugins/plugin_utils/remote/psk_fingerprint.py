# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Preshared key (PSK) fingerprints: whether two ends of a tunnel hold the same PSK, without the PSK leaving either.

A fingerprint is the first 16 hex digits (64 bits) of sha256(SALT + PSK), computed on the target
(``fact_commands.PRESHARED_KEY_FINGERPRINTS``): SALT is 32 hex digits (16 bytes of ``secrets.token_hex``) the controller
makes once per run, the same for every host of the run (``new_salt``; the playbooks make it once on localhost and give
it to every facts task as ``fingerprint_salt``), and PSK the key's base64 text as ``wg show all preshared-keys`` prints
it. Two ends with one salt and equal PSKs print equal fingerprints; different PSKs print different ones (a 64-bit
collision between two keys: about 2^-64).

Why the fingerprint gives the PSK away to nobody: a WireGuard PSK is 32 random bytes (``wg genpsk``; wg(8) and
uapi accept nothing else: a base64 text that is not exactly 32 bytes is refused, so a human-chosen passphrase is not a
WireGuard PSK). Recovering it from a fingerprint means trying PSKs until one gives it: 2^256 candidates, and about
2^(256-64) = 2^192 of them give any one 64-bit fingerprint, so even an exhaustive search could not tell which one is
the key; the search itself is out of reach. The salt is random and new in every run, so a fingerprint cannot be
precomputed, nor matched with a fingerprint of another run (the same PSK gives another fingerprint next run); the
reports never carry the salt (``salt_id``, below) and do not carry fingerprints either (only "the preshared keys
differ" or "are equal").

``salt_id(salt)``: the first 8 hex digits of sha256("tunnelfix salt id " + SALT), carried with each host's fingerprints
(the facts' ``preshared_key_salt_id``) so the rules compare only fingerprints of one salt (one run) and never two
runs' (a host read in another run, or a facts task given no salt: each then makes its own). An id, not the salt: the
facts (and what is saved of them) then cannot be used to test a guessed PSK against a fingerprint.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import FINGERPRINT_SALT_VARIABLE

SALT_HEX_DIGITS = 32
FINGERPRINT_HEX_DIGITS = 16
_SALT = re.compile(r"[0-9a-f]{%d}" % SALT_HEX_DIGITS)
_LINE = re.compile(r"([^\t\n]+)\t([A-Za-z0-9+/]{43}=)\t([0-9a-f]{%d})" % FINGERPRINT_HEX_DIGITS)


def new_salt() -> str:
    """32 random lower-case hex digits (16 bytes, ``secrets.token_hex``): one run's salt."""
    return secrets.token_hex(SALT_HEX_DIGITS // 2)


def check_salt(salt) -> str:
    """``salt`` when it is 32 lower-case hex digits; else ParseError (the message does not repeat it)."""
    if not isinstance(salt, str) or not _SALT.fullmatch(salt):
        raise ParseError("fingerprint_salt must be %d lower-case hex digits" % SALT_HEX_DIGITS)
    return salt


def salted(args) -> dict:
    """The facts action's ``args`` with ``fingerprint_salt`` checked, or a new salt of this execution's own when
    the task gives none (its fingerprints then match no other host's: another salt id). Raises ParseError for a
    salt that is not 32 lower-case hex digits."""
    given = args.get("fingerprint_salt")
    return dict(args, fingerprint_salt=new_salt() if given is None else check_salt(given))


def salt_environment(args) -> dict:
    """The batch's environment for ``salted(args)``: ``{FINGERPRINT_SALT_VARIABLE: salt}``."""
    return {FINGERPRINT_SALT_VARIABLE: args["fingerprint_salt"]}


def salt_id(salt: str) -> str:
    """The salt's id: 8 hex digits of sha256("tunnelfix salt id " + salt) (module doc)."""
    return hashlib.sha256(("tunnelfix salt id " + check_salt(salt)).encode("ascii")).hexdigest()[:8]


def fingerprint(salt: str, text: str) -> str:
    """What the target prints for a PSK whose base64 text is ``text``: the first 16 hex digits of sha256(salt + text).
    For tests (the controller never holds a PSK)."""
    return hashlib.sha256((check_salt(salt) + text).encode("ascii")).hexdigest()[:FINGERPRINT_HEX_DIGITS]


def parse_psk_fingerprints(text: str) -> dict:
    """``{interface: {peer public key: fingerprint}}`` from PRESHARED_KEY_FINGERPRINTS' stdout, one line
    "INTERFACE<TAB>PUBLIC_KEY<TAB>16 hex digits" per peer with a PSK (a peer without one has no line; recorded:
    tests/unit/fixtures/psk_fingerprints/). Raises ParseError on any other line (a line cut short: sha256sum failed)."""
    out = {}
    for number, line in enumerate((text or "").splitlines(), 1):
        if not line:
            continue
        found = _LINE.fullmatch(line)
        if not found:
            raise ParseError("preshared key fingerprints: line %d is not INTERFACE, PUBLIC_KEY and 16 hex digits" % number)
        out.setdefault(found[1], {})[found[2]] = found[3]
    return out
