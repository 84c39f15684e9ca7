# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse the runtime state printed by ``wg`` (wireguard-tools).

Pure functions, no I/O. Private keys and preshared keys are dropped here so no caller can
return or log them by accident; error messages never quote a line that may hold a secret.
"""

from __future__ import annotations

import base64
import binascii
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# WireGuard protocol timers (whitepaper section 6.1, REKEY_AFTER_TIME / REJECT_AFTER_TIME):
# a session is renewed after 120 s and no longer usable after 180 s.
REKEY_AFTER_TIME_S = 120
REJECT_AFTER_TIME_S = 180

# Anything shaped like a WireGuard key in text: 43 base64 characters and "=" (32 bytes, wg(8)), not
# inside a longer base64 run. Public, private and preshared keys look alike, so text that is not
# known to be a public key redacts every such token (KEY_SHAPED.sub). The same shape as a POSIX ERE
# for sed -E on a router (no look-around there: the neighbours are matched and kept by the caller).
KEY_SHAPED = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=(?![A-Za-z0-9+/=])")
KEY_SHAPED_ERE = "[A-Za-z0-9+/]{43}="
KEY_BOUNDARY_ERE = "[^A-Za-z0-9+/=]"

_NONE = "(none)"
_DIGITS = re.compile(r"[0-9]+")
_INTERFACE_FIELDS = 5
_PEER_FIELDS = 9


def is_wg_public_key(value) -> bool:
    """Tell whether ``value`` looks like a WireGuard key in wg(8) text form.

    ``"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`` → True; ``"wg0"``, ``"(none)"``,
    ``None``, a 43-character string or base64 of 31 bytes → False. Never raises.

    A key is 32 bytes encoded as 44 base64 characters, the last one ``=`` (wg(8), "keys are
    base64"; wireguard-tools v1.0.20210914 ``key_from_base64``). Unlike ``wg`` this does not
    insist on zero padding bits, so the fake keys used in fixtures (``BBBB…B=``) pass.
    Works the same for public, private and preshared keys: it checks shape, not role.
    """
    if not isinstance(value, str) or len(value) != 44 or not value.endswith("="):
        return False
    try:
        return len(base64.b64decode(value, validate=True)) == 32
    except (binascii.Error, ValueError):
        return False


def classify_handshake(age_s) -> str:
    """Name the state of a session from the age of its latest handshake.

    ``None`` → ``"never"``; ``0..120`` → ``"fresh"``; ``121..180`` → ``"aging"`` (a rekey is
    overdue: traffic has stopped or the peer does not answer); ``> 180`` → ``"stale"`` (no usable
    session; REJECT_AFTER_TIME). ``age_s`` is in seconds; a negative age (clock skew between the
    clock used for ``now`` and the host) counts as 0.
    """
    if age_s is None:
        return "never"
    if age_s <= REKEY_AFTER_TIME_S:
        return "fresh"
    if age_s <= REJECT_AFTER_TIME_S:
        return "aging"
    return "stale"


def _int_field(value, lineno, name, minimum=0, maximum=None):
    if not _DIGITS.fullmatch(value):
        raise ParseError("line %d: %s must be an integer, got %r" % (lineno, name, value))
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        raise ParseError("line %d: %s out of range, got %d" % (lineno, name, number))
    return number


def _split_endpoint(endpoint, lineno):
    """``"192.0.2.1:51820"`` → ``("192.0.2.1", 51820)``; ``"[fd00::1]:51820"`` → ``("fd00::1", 51820)``."""
    if endpoint.startswith("["):
        host, sep, port = endpoint[1:].partition("]:")
    else:
        host, sep, port = endpoint.rpartition(":")
        if ":" in host:
            sep = ""
    if not sep or not host:
        raise ParseError("line %d: endpoint must be host:port or [ipv6]:port, got %r" % (lineno, endpoint))
    return host, _int_field(port, lineno, "endpoint port", 1, 65535)


def _public_key_field(value, lineno, what):
    if not is_wg_public_key(value):
        # A public key is not secret, but a shifted column could put a private key here.
        raise ParseError("line %d: %s is not a base64 WireGuard key (44 characters ending in '=')"
                         % (lineno, what))
    return value


def _parse_interface(fields, lineno):
    _ifname, private_key, public_key, listen_port, fwmark = fields
    if fwmark == "off":
        fwmark_value = None
    else:
        try:
            fwmark_value = int(fwmark, 0)
        except ValueError:
            raise ParseError("line %d: fwmark must be 'off' or a number, got %r" % (lineno, fwmark)) from None
    port = _int_field(listen_port, lineno, "listen-port", 0, 65535)
    return {
        "public_key": None if public_key == _NONE else _public_key_field(public_key, lineno, "public-key"),
        "has_private_key": private_key != _NONE,
        "listen_port": port or None,
        "fwmark": fwmark_value,
        "peers": [],
    }


def _parse_peer(fields, lineno, now_epoch):
    (_ifname, public_key, preshared_key, endpoint, allowed_ips,
     handshake, rx_bytes, tx_bytes, keepalive) = fields
    host, port = (None, None) if endpoint == _NONE else _split_endpoint(endpoint, lineno)
    handshake_epoch = _int_field(handshake, lineno, "latest-handshake") or None
    age = None if handshake_epoch is None else max(0, now_epoch - handshake_epoch)
    return {
        "public_key": _public_key_field(public_key, lineno, "peer public-key"),
        "has_preshared_key": preshared_key != _NONE,
        "endpoint": None if endpoint == _NONE else endpoint,
        "endpoint_host": host,
        "endpoint_port": port,
        "allowed_ips": [] if allowed_ips == _NONE else [ip for ip in allowed_ips.split(",") if ip],
        "latest_handshake_epoch": handshake_epoch,
        "handshake_age_s": age,
        "handshake_state": classify_handshake(age),
        "persistent_keepalive_s": None if keepalive == "off" else _int_field(
            keepalive, lineno, "persistent-keepalive", 1, 65535),
        "rx_bytes": _int_field(rx_bytes, lineno, "transfer-rx"),
        "tx_bytes": _int_field(tx_bytes, lineno, "transfer-tx"),
    }


def parse_wg_dump(text: str, now_epoch: int) -> dict:
    """Parse ``wg show all dump`` into interfaces and peers, without any secret.

    Format: wireguard-tools v1.0.20210914 ``wg show all dump``, see wg(8) "show". Tab-separated;
    an interface line has 5 fields ``ifname private-key public-key listen-port fwmark``, a peer
    line 9 fields ``ifname public-key preshared-key endpoint allowed-ips latest-handshake
    transfer-rx transfer-tx persistent-keepalive``. Empty output (no interfaces) → no interfaces.

    Input (``now_epoch`` = 1767225600, Unix seconds from the same clock as the dump)::

        wg0\\tKKKK…K=\\tHHHH…H=\\t51820\\toff
        wg0\\tSSSS…S=\\t(none)\\t192.0.2.77:41862\\t10.20.0.2/32,192.168.50.0/24\\t1767225040\\t18222010\\t2230911\\toff

    Output::

        {"interfaces": {"wg0": {
            "public_key": "HHHH…H=",        # None while no private key is set
            "has_private_key": True,         # the key itself is never returned
            "listen_port": 51820,            # None when 0 (not listening)
            "fwmark": None,                  # int, None when "off"
            "peers": [{
                "public_key": "SSSS…S=",
                "has_preshared_key": False,  # the key itself is never returned
                "endpoint": "192.0.2.77:41862",   # as printed, "[v6]:port" for IPv6; None if "(none)"
                "endpoint_host": "192.0.2.77",    # IPv6 without brackets
                "endpoint_port": 41862,
                "allowed_ips": ["10.20.0.2/32", "192.168.50.0/24"],   # [] if "(none)"
                "latest_handshake_epoch": 1767225040,   # None when 0 (never)
                "handshake_age_s": 560,                 # None when never
                "handshake_state": "stale",   # never | fresh (<=120 s) | aging (<=180 s) | stale
                "persistent_keepalive_s": None,         # None when "off"
                "rx_bytes": 18222010, "tx_bytes": 2230911}]}}}

    Raises ParseError naming the line number for a line with another number of fields, a peer
    line before its interface line, a repeated interface, or a field of the wrong type. Messages
    never contain the private or preshared key.
    """
    if isinstance(now_epoch, bool) or not isinstance(now_epoch, int):
        raise ParseError("now_epoch must be an integer Unix time in seconds, got %r" % (now_epoch,))
    if not isinstance(text, str):
        raise ParseError("wg show all dump output must be text, got %s" % type(text).__name__)
    interfaces = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        ifname = fields[0]
        if len(fields) == _INTERFACE_FIELDS:
            if ifname in interfaces:
                raise ParseError("line %d: interface %r appears twice" % (lineno, ifname))
            interfaces[ifname] = _parse_interface(fields, lineno)
        elif len(fields) == _PEER_FIELDS:
            if ifname not in interfaces:
                raise ParseError("line %d: peer of interface %r before that interface's line "
                                 "(expected `wg show all dump` output)" % (lineno, ifname))
            interfaces[ifname]["peers"].append(_parse_peer(fields, lineno, now_epoch))
        else:
            raise ParseError("line %d: expected %d tab-separated fields (interface) or %d (peer) as "
                             "printed by `wg show all dump`, got %d"
                             % (lineno, _INTERFACE_FIELDS, _PEER_FIELDS, len(fields)))
    return {"interfaces": interfaces}


def parse_wg_keepalive(text: str) -> dict:
    """Parse ``wg show <interface> persistent-keepalive`` into ``{public_key: seconds or None}``.

    Format: wireguard-tools v1.0.20210914, wg(8) "show ... persistent-keepalive": one line per
    peer, ``<public-key>\\t<seconds>`` or ``<public-key>\\toff``. Empty output (no peers) → {}.

    ``"DDDD…D=\\toff\\nEEEE…E=\\t25\\n"`` → ``{"DDDD…D=": None, "EEEE…E=": 25}``

    Raises ParseError naming the line for anything else, including the 3-field lines of
    ``wg show all persistent-keepalive`` (run it per interface instead).
    """
    if not isinstance(text, str):
        raise ParseError("wg show persistent-keepalive output must be text, got %s" % type(text).__name__)
    result = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise ParseError("line %d: expected '<public-key>\\t<seconds|off>' from `wg show <interface> "
                             "persistent-keepalive`, got %d tab-separated fields" % (lineno, len(fields)))
        key = _public_key_field(fields[0], lineno, "public-key")
        value = fields[1]
        result[key] = None if value == "off" else _int_field(value, lineno, "persistent-keepalive", 1, 65535)
    return result
