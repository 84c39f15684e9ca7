# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse what the WireGuard configuration files say about each peer's keepalive (wg-quick and systemd-networkd).

Input: the output of remote/fact_commands.py's ``WG_CONFIG_PEERS``, one line per section header or
setting, ``PATH<TAB>KIND<TAB>NAME<TAB>VALUE`` (KIND ``wg-quick`` or ``netdev``; NAME ``section`` or
a lower-cased key among publickey, endpoint, persistentkeepalive, name, kind, address, allowedips; the target prints
no other key, so no private or preshared key reaches the controller), and per file at most one
``pubkey`` line: the public key ``wg pubkey`` derived on the target from the file's private key::

    /etc/wireguard/wg0.conf\twg-quick\tsection\tPeer
    /etc/wireguard/wg0.conf\twg-quick\tpublickey\tAAAA...A=
    /etc/wireguard/wg0.conf\twg-quick\tpersistentkeepalive\t25
    /etc/wireguard/wg0.conf\twg-quick\tpubkey\tHHHH...H=

Formats: wg(8) (wg-quick files: ``[Peer]`` sections, keys case-insensitive, PersistentKeepalive
a number of seconds or ``off``) and systemd.netdev(5) (``[NetDev]`` Name= and Kind=,
``[WireGuardPeer]`` sections). Pure functions, no I/O.
"""

from __future__ import annotations

import base64
import binascii
import posixpath

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

KINDS = ("wg-quick", "netdev")
DERIVED_PUBLIC_KEY = "pubkey"   # remote/fact_commands.py's NAME of the line of wg pubkey's output
PEER_SECTIONS = {"wg-quick": "peer", "netdev": "wireguardpeer"}


def keepalive_seconds(value):
    """A PersistentKeepalive value as the interval in seconds: ``"25"`` -> 25; ``"off"``, ``"0"``, None -> None
    (off); anything else is returned as given (no number: it matches no wanted interval)."""
    if value is None:
        return None
    text = value.strip()
    if text.lower() == "off" or (text.isdigit() and int(text) == 0):
        return None
    return int(text) if text.isdigit() else value


def _public_key(value):
    """``value`` (the pubkey line's) stripped when it is one key in wg(8)'s format (44 characters of base64, 32 bytes),
    else None (empty: no wg or a key it rejected; anything else is not taken for a key)."""
    key = value.strip()
    try:
        raw = base64.b64decode(key, validate=True) if len(key) == 44 else b""
    except (binascii.Error, ValueError):
        raw = b""
    return key if len(raw) == 32 else None


def _allowed_ips(kept, kind, value) -> list:
    """``kept`` (a peer's AllowedIPs so far) with one more ``AllowedIPs`` line's ``value`` added: comma-separated in a
    wg-quick file (wg(8)); commas or blanks in a .netdev, where an empty value clears the list (systemd.netdev(5))."""
    if kind == "netdev":
        parts = value.replace(",", " ").split()
        return kept + parts if parts else []
    return kept + [part.strip() for part in value.split(",") if part.strip()]


def parse_wg_config_peers(text: str) -> list:
    """``WG_CONFIG_PEERS`` output -> one entry per file, in input order::

        [{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
          "addresses": ["10.77.0.2/24", "fd77::2/64"], "configured_public_key": "HHHH...H=" | None,
          "peers": [{"public_key": "AAAA...A=", "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 25,
                     "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"]}]}]

    ``interface``: a wg-quick file's name without ``.conf``; a .netdev's ``Name=`` (None without
    one). ``wireguard``: always True for wg-quick; for a .netdev whether ``Kind=wireguard``. ``addresses``: a wg-quick
    file's ``Address =`` values of ``[Interface]`` (comma-separated, several lines add up; wg-quick(8)); None for a
    .netdev (networkd sets the addresses from a .network file, which is not read). ``configured_public_key``: the
    interface's own public key as the file's private key gives it (its ``pubkey`` line); None when not known
    (no ``wg`` on the target, no private key in the file, one ``wg pubkey`` rejects, a value that is no key of wg(8)'s
    format, or a listing from before).
    ``persistent_keepalive_s``: ``keepalive_seconds`` of the peer's setting (None when unset or
    off). ``allowed_ips``: the peer's AllowedIPs values as written, in order (``[]``: none): wg(8) takes a
    comma-separated list and adds up repeated lines; systemd.netdev(5) separates them by commas or spaces, adds up
    repeated lines, and an empty ``AllowedIPs=`` clears what came before. A wg-quick value ends at ``#`` (wg(8): a
    comment runs from ``#`` to the end of the line; the target already cuts it, this holds for any input); a .netdev
    value is taken whole (systemd: whole-line comments). Settings outside a peer section count only for the .netdev's
    Name= and Kind= (in ``[NetDev]``). Empty input -> ``[]``. Raises ParseError naming the line for one that is not
    four tab-separated fields, a relative path or an unknown kind.
    """
    if not isinstance(text, str):
        raise ParseError("WireGuard configuration listing must be text, got %s" % type(text).__name__)
    files = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t", 3)
        if len(fields) != 4 or not fields[0].startswith("/") or fields[1] not in KINDS:
            raise ParseError("WireGuard configuration listing line %d: expected 'PATH<TAB>KIND<TAB>NAME<TAB>VALUE' "
                             "with KIND wg-quick or netdev, got %r" % (lineno, line[:200]))
        path, kind, name, value = fields
        if kind == "wg-quick":
            value = value.partition("#")[0]
        entry = files.setdefault(path, {"path": path, "kind": kind, "section": None, "peers": [],
                                        "interface": posixpath.basename(path)[:-len(".conf")] if kind == "wg-quick" else None,
                                        "wireguard": kind == "wg-quick", "addresses": [] if kind == "wg-quick" else None,
                                        "configured_public_key": None})
        if name == DERIVED_PUBLIC_KEY:
            entry["configured_public_key"] = _public_key(value)
        elif name == "section":
            entry["section"] = value.strip().lower()
            if entry["section"] == PEER_SECTIONS[kind]:
                entry["peers"].append({"public_key": None, "endpoint": None, "persistent_keepalive_s": None, "allowed_ips": []})
        elif entry["section"] == PEER_SECTIONS[kind] and name == "allowedips":
            entry["peers"][-1]["allowed_ips"] = _allowed_ips(entry["peers"][-1]["allowed_ips"], kind, value)
        elif entry["section"] == PEER_SECTIONS[kind]:
            key = {"publickey": "public_key", "endpoint": "endpoint", "persistentkeepalive": "persistent_keepalive_s"}.get(name)
            if key:
                entry["peers"][-1][key] = keepalive_seconds(value) if key == "persistent_keepalive_s" else value.strip()
        elif kind == "wg-quick" and entry["section"] == "interface" and name == "address":
            entry["addresses"].extend(part.strip() for part in value.split(",") if part.strip())
        elif kind == "netdev" and entry["section"] == "netdev":
            if name == "name":
                entry["interface"] = value.strip()
            elif name == "kind":
                entry["wireguard"] = value.strip().lower() == "wireguard"
    for entry in files.values():
        del entry["section"]
    return list(files.values())
