# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A private key listed where a public key belongs: found by deriving its public key, so it is never reported.

An operator who copies the wrong line of the other end's file puts its PrivateKey in a [Peer] PublicKey line (or uci
``public_key``). ``wg setconf`` takes any 32 bytes as a peer key, so the running entry carries it too, and the facts
read PublicKey lines as they are (they are public). When the host whose private key it is runs in the same run, its
public key (the running one, or for an interface not up the one its kept private key gives) is that key's X25519
public key (RFC 7748, section 5: the scalar times the base point u = 9): ``leaked`` finds such keys, and the graph
shows a placeholder instead (graph.py), and the registry removes them from every finding.

Only keys shaped like a generated private key are derived: ``wg genkey`` (and wireguard-go, the apps) clamp the key
(RFC 7748: the low 3 bits of the first byte cleared, the top bit of the last cleared, the next one set), which a
public key matches one time in 16, so few keys are derived at all.
"""

from __future__ import annotations

import base64
import binascii

try:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
except ImportError:  # ansible-core requires cryptography; only ansible-test's import sanity runs without it
    X25519PrivateKey = None


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
    section 5, computed by the ``cryptography`` library ansible-core already requires), or None when it is no key (or,
    only where ansible-core's own requirement is missing, when the library cannot be imported)."""
    raw = _decoded(private_key)
    if raw is None or X25519PrivateKey is None:
        return None
    public = X25519PrivateKey.from_private_bytes(raw).public_key()
    return base64.b64encode(public.public_bytes(encoding=Encoding.Raw, format=PublicFormat.Raw)).decode()


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
