# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read and edit systemd-networkd WireGuard ``.netdev`` files (``/etc/systemd/network/*.netdev``).

Format: systemd.netdev(5) ``[NetDev]``, ``[WireGuard]`` and ``[WireGuardPeer]`` sections and
systemd.syntax(7) (systemd 252): ``Key=Value`` lines, section names and keys are case-sensitive,
whitespace around ``=`` is ignored, lines starting with ``#`` or ``;`` are comments (only whole
lines; a ``#`` later in a line belongs to the value). A key may repeat (``AllowedIPs=``).

Pure functions, no I/O. Editing keeps every byte that is not edited; secrets are never returned.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._keepalive_edit import (
    MAX_KEEPALIVE_S,
    check_keepalive_s,
    edit_keepalive,
    select_peers,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import section_lines, set_section_value
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import is_wg_public_key

_HEADER = re.compile(r"\[([^\]]+)\]")
_KEEPALIVE = re.compile(r"(?P<head>\s*PersistentKeepalive\s*=\s*)(?P<value>\S*)(?P<tail>\s*)")


def _lines(text):
    """Lines with their ``\\n`` kept (CRLF stays inside the line), so ``"".join()`` is lossless."""
    if not isinstance(text, str):
        raise ParseError(".netdev file must be text, got %s" % type(text).__name__)
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _keepalive(value, lineno):
    if value == "off":
        return None
    if not value.isdigit() or not value.isascii() or int(value) > MAX_KEEPALIVE_S:
        raise ParseError("line %d: PersistentKeepalive= must be 'off' or 0-%d, got %r"
                         % (lineno, MAX_KEEPALIVE_S, value))
    return int(value) or None


def _scan(lines):
    netdev = {"name": None, "kind": None, "peers": []}
    section = None
    peer = None
    for index, line in enumerate(lines):
        lineno = index + 1
        content = line.strip()
        if not content or content[0] in "#;":
            continue
        if content.endswith("\\"):
            raise ParseError("line %d: line continuation (trailing backslash) is not supported" % lineno)
        header = _HEADER.fullmatch(content)
        if header:
            section = header.group(1)
            peer = None
            if section == "WireGuardPeer":
                peer = {"line": lineno, "public_key": None, "public_key_index": None, "endpoint": None,
                        "persistent_keepalive_s": None, "keepalive_indexes": [], "allowed_ips": []}
                netdev["peers"].append(peer)
            continue
        key, sep, value = content.partition("=")
        if not sep:
            raise ParseError("line %d: expected '[Section]' or 'Key=Value'" % lineno)
        key, value = key.strip(), value.strip()
        if section == "NetDev" and key in ("Name", "Kind"):
            netdev[key.lower()] = value or None
        if peer is None:
            continue  # [NetDev], [WireGuard] (PrivateKey=) and anything else: not ours to read
        if key == "PublicKey":
            if peer["public_key"] is not None:
                raise ParseError("line %d: second PublicKey= in the [WireGuardPeer] at line %d"
                                 % (lineno, peer["line"]))
            if not is_wg_public_key(value):
                raise ParseError("line %d: PublicKey= is not a base64 WireGuard key (44 characters "
                                 "ending in '=')" % lineno)
            peer["public_key"], peer["public_key_index"] = value, index
        elif key == "Endpoint":
            peer["endpoint"] = value or None
        elif key == "PersistentKeepalive":
            peer["persistent_keepalive_s"] = _keepalive(value, lineno)
            peer["keepalive_indexes"].append(index)
        elif key == "AllowedIPs":
            if not value:
                peer["allowed_ips"] = []  # an empty assignment resets the list
            peer["allowed_ips"].extend(ip.strip() for ip in value.replace(",", " ").split() if ip.strip())
    seen = {}
    for peer in netdev["peers"]:
        if peer["public_key"] is None:
            raise ParseError("line %d: [WireGuardPeer] has no PublicKey=" % peer["line"])
        if peer["public_key"] in seen:
            raise ParseError("line %d: PublicKey= %s is already used by the [WireGuardPeer] at line %d"
                             % (peer["line"], peer["public_key"], seen[peer["public_key"]]))
        seen[peer["public_key"]] = peer["line"]
    return netdev


def parse_netdev_wireguard(text: str) -> dict:
    """Read the interface name, kind and [WireGuardPeer] sections of a ``.netdev`` file, without secrets.

    Input (systemd.netdev(5))::

        [NetDev]
        Name=wg0
        Kind=wireguard
        [WireGuard]
        PrivateKeyFile=/etc/systemd/network/wg0.key
        [WireGuardPeer]
        PublicKey=EEEE…E=
        Endpoint=198.51.100.40:51820
        AllowedIPs=10.30.0.3/32

    Output::

        {"name": "wg0", "kind": "wireguard",            # None when absent
         "peers": [{"public_key": "EEEE…E=",
                    "endpoint": "198.51.100.40:51820",   # None when absent
                    "persistent_keepalive_s": None,      # seconds; None when absent, "off" or 0
                    "allowed_ips": ["10.30.0.3/32"],     # every AllowedIPs= line, in order
                    "line": 6}]}                         # 1-based line of the section header

    Raises ParseError naming the line for: a line that is neither comment, header nor
    ``Key=Value``, a trailing-backslash continuation, a [WireGuardPeer] without (or with two)
    PublicKey=, a PublicKey= that is not a key, a PublicKey= used twice, PersistentKeepalive=
    other than ``off``/0-65535.
    """
    netdev = _scan(_lines(text))
    keys = ("public_key", "endpoint", "persistent_keepalive_s", "allowed_ips", "line")
    return {"name": netdev["name"], "kind": netdev["kind"],
            "peers": [{key: peer[key] for key in keys} for peer in netdev["peers"]]}


def set_netdev_keepalive(text: str, keepalive_s: int, public_keys=None) -> tuple:
    """Set ``PersistentKeepalive=`` in chosen [WireGuardPeer] sections, changing nothing else.

    ``public_keys`` None selects every peer with an Endpoint=; a list selects exactly those
    peers (each must exist). ``keepalive_s`` is seconds, 0-65535; 0 removes the line (off). A new
    ``PersistentKeepalive=N`` line goes right after the peer's PublicKey= line, with its
    indentation and line end; an existing one has only its value replaced. [WireGuard] and
    [NetDev] are never touched. Idempotent.

    ``("[WireGuardPeer]\\nPublicKey=EEEE…E=\\nEndpoint=198.51.100.40:51820\\n", 25, None)`` →
    ``("[WireGuardPeer]\\nPublicKey=EEEE…E=\\nPersistentKeepalive=25\\nEndpoint=198.51.100.40:51820\\n",
    ["EEEE…E="])``

    Returns ``(new_text, changed_public_keys)`` in file order. Raises ParseError for
    ``keepalive_s`` outside 0-65535 (``keepalive_s must be 0-65535, got 70000``), listed keys no
    peer has (all named), a target peer with two PersistentKeepalive= lines, or a malformed file.
    """
    check_keepalive_s(keepalive_s)
    lines = _lines(text)
    targets = select_peers(_scan(lines)["peers"], public_keys, "no [WireGuardPeer] with PublicKey= %s in this file")
    return edit_keepalive(text, lines, targets, keepalive_s, _KEEPALIVE, "%sPersistentKeepalive=%d",
                          "[WireGuardPeer] at line %d (PublicKey= %s) has %d PersistentKeepalive= lines (%s); "
                          "keep one by hand first")


_MTU_BYTES = re.compile(r"(?P<head>\s*MTUBytes\s*=\s*)(?P<value>\S*)(?P<tail>\s*)")


def _netdev_content(line):
    """A line without its ending and stripped; "" for a comment line (``#`` or ``;``)."""
    content = line.strip()
    return "" if not content or content[0] in "#;" else content


def set_netdev_mtu(text: str, mtu_bytes: int) -> tuple:
    """Set ``MTUBytes=N`` in the ``[NetDev]`` section of a ``.netdev`` file, changing nothing else (systemd.netdev(5)).

    An existing ``MTUBytes=`` has only its value replaced; a new ``MTUBytes=N`` line goes after the section's last
    ``Key=Value`` line. [WireGuard] and [WireGuardPeer] are never touched.

    ``("[NetDev]\\nName=wg0\\nKind=wireguard\\n", 1340)`` → ``("[NetDev]\\nName=wg0\\nKind=wireguard\\nMTUBytes=1340\\n", None)``

    Returns ``(new_text, old value or None)``; ``new_text`` is ``text`` itself when the value is already there. Raises
    ParseError for an MTU that is not 68-65535, no (or two) [NetDev], two MTUBytes= lines in it, or a malformed file.
    """
    if isinstance(mtu_bytes, bool) or not isinstance(mtu_bytes, int) or not 68 <= mtu_bytes <= 65535:
        raise ParseError("mtu_bytes must be 68-65535, got %r" % (mtu_bytes,))
    lines = _lines(text)
    _scan(lines)  # the same checks as the keepalive edit: malformed lines, continuations
    section = section_lines(lines, "NetDev", _netdev_content, _HEADER, True, "the .netdev file")
    return set_section_value(text, lines, section, section[1], lambda line: bool(_MTU_BYTES.fullmatch(line.rstrip("\r\n"))),
                             _MTU_BYTES, "%sMTUBytes=%s", str(mtu_bytes), "the [NetDev] section's MTUBytes=: the file")
