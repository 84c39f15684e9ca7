# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A private key listed where a public key belongs: found by deriving its public key, so it is never reported.

An operator who copies the wrong line of the other end's file puts its PrivateKey in a [Peer] PublicKey line (or uci
``public_key``). ``wg setconf`` takes any 32 bytes as a peer key, so the running entry carries it too, and the facts
read PublicKey lines as they are (they are public). When the host whose private key it is runs in the same run, its
public key is that key's X25519 public key (RFC 7748, section 5: the scalar times the base point u = 9): ``leaked``
finds such keys, and the graph shows a placeholder instead (graph.py), and the registry removes them from every
finding.

Only keys shaped like a generated private key are derived: ``wg genkey`` (and wireguard-go, the apps) clamp the key
(RFC 7748: the low 3 bits of the first byte cleared, the top bit of the last cleared, the next one set), which a
public key matches one time in 16; a derivation costs a few milliseconds in pure Python.
"""

from __future__ import annotations

import base64
import binascii

_P = 2 ** 255 - 19
_A24 = 121665   # (486662 - 2) / 4, RFC 7748 section 5


def _decoded(key):
    """The 32 bytes of a base64 key, or None."""
    if not isinstance(key, str) or len(key) != 44:
        return None
    try:
        raw = base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def clamped(raw) -> bool:
    """Whether 32 bytes look like a generated (clamped) X25519 private key (module doc)."""
    return raw[0] & 7 == 0 and raw[31] & 0xC0 == 0x40


def public_key_of(private_key):
    """The base64 WireGuard public key of the base64 private key ``private_key`` (X25519 with the base point, RFC 7748
    section 5's Montgomery ladder), or None when it is no key. Not constant-time: for keys already exposed only."""
    raw = _decoded(private_key)
    if raw is None:
        return None
    scalar = bytearray(raw)
    scalar[0] &= 248
    scalar[31] = (scalar[31] & 127) | 64
    number = int.from_bytes(scalar, "little")
    x2, z2, x3, z3, swap = 1, 0, 9, 1, 0
    for bit_index in range(254, -1, -1):   # RFC 7748 section 5's ladder, its names lower-cased
        bit = (number >> bit_index) & 1
        if swap ^ bit:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        sum2, diff2, sum3, diff3 = x2 + z2, x2 - z2, x3 + z3, x3 - z3
        aa, bb, da, cb = sum2 * sum2 % _P, diff2 * diff2 % _P, diff3 * sum2 % _P, sum3 * diff2 % _P
        e_term = aa - bb
        x3, z3 = (da + cb) ** 2 % _P, 9 * (da - cb) ** 2 % _P
        x2, z2 = aa * bb % _P, e_term * (aa + _A24 * e_term) % _P
    if swap:
        x2, z2 = x3, z3
    return base64.b64encode((x2 * pow(z2, _P - 2, _P) % _P).to_bytes(32, "little")).decode()


def leaked(listed, own) -> dict:
    """``{listed key: the node whose private key it is}`` for the keys of ``listed`` (peer keys that are no interface's
    own key in the run) shaped like a private key whose public key is in ``own`` (``{public key: [node, ...]}``)."""
    out = {}
    for key in sorted(set(listed)):
        raw = _decoded(key)
        if raw is None or not clamped(raw):
            continue
        public = public_key_of(key)
        if public in own:
            out[key] = own[public][0]
    return out


def placeholder(node) -> str:
    """What the graph and the findings show instead of ``node``'s private key (``"HOST/INTERFACE"``)."""
    return "(the private key of %s's %s, not shown)" % tuple(node.rsplit("/", 1))
