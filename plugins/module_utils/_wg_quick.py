# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read and edit wg-quick configuration files (``/etc/wireguard/<interface>.conf``).

Format: wg-quick(8) and the CONFIGURATION FILE FORMAT section of wg(8), wireguard-tools
v1.0.20210914: INI-like ``[Interface]`` and ``[Peer]`` sections of ``Key = Value`` lines;
``#`` starts a comment anywhere on a line; keys and section names are matched without regard
to case (as ``wg setconf`` does). ``wg showconf`` prints the same format.

Pure functions, no I/O. Editing keeps every byte that is not edited (comments, blank lines,
order, CRLF line ends); secrets are never returned.
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
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import KEY_SHAPED as _KEY_SHAPED
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import is_wg_public_key

_HEADER = re.compile(r"\[\s*([A-Za-z]+)\s*\]")
_VALUE = re.compile(r"(?P<head>[^=]*=[ \t]*)(?P<value>[^#\s]*)(?P<tail>.*)", re.DOTALL)
_SECRET = re.compile(r"(?P<head>\s*(?:#\s*)?(?:privatekey|presharedkey)\s*=[ \t]*)(?P<value>[^#\s]+)",
                     re.IGNORECASE)
_DIGITS = re.compile(r"[0-9]+")
# Anything shaped like a WireGuard key (_wireguard.KEY_SHAPED) outside a PublicKey line is treated as
# secret: keys also hide in comments, odd spacing and PostUp commands.
_PUBLIC_KEY_LINE = re.compile(r"\s*publickey\s*=", re.IGNORECASE)


def _split_lines(text):
    """Lines with their ``\\n`` kept (CRLF stays inside the line), so ``"".join()`` is lossless."""
    if not isinstance(text, str):
        raise ParseError("wg-quick configuration must be text, got %s" % type(text).__name__)
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _content(line):
    """The line without its line end and without a ``#`` comment, stripped."""
    return line.rstrip("\r\n").split("#", 1)[0].strip()


def _parse_keepalive(value, lineno):
    if value.lower() == "off":
        return None
    if not _DIGITS.fullmatch(value) or int(value) > MAX_KEEPALIVE_S:
        raise ParseError("line %d: PersistentKeepalive must be 'off' or 0-%d, got %r"
                         % (lineno, MAX_KEEPALIVE_S, value))
    return int(value) or None


def _scan_peers(lines):
    """Peers with the line indexes an editor needs; raises ParseError for a malformed file."""
    peers = []
    peer = None
    for index, line in enumerate(lines):
        lineno = index + 1
        content = _content(line)
        if not content:
            continue
        header = _HEADER.fullmatch(content)
        if header:
            peer = None
            if header.group(1).lower() == "peer":
                peer = {"line": lineno, "public_key": None, "public_key_index": None, "endpoint": None,
                        "persistent_keepalive_s": None, "keepalive_indexes": [], "allowed_ips": [],
                        "has_preshared_key": False}
                peers.append(peer)
            continue
        key, sep, value = content.partition("=")
        if not sep:
            raise ParseError("line %d: expected '[Section]' or 'Key = Value'" % lineno)
        if peer is None:
            continue  # [Interface] and anything before the first section: not ours to read
        key, value = key.strip().lower(), value.strip()
        if key == "publickey":
            if peer["public_key"] is not None:
                raise ParseError("line %d: second PublicKey in the [Peer] at line %d" % (lineno, peer["line"]))
            if not is_wg_public_key(value):
                # The value is not quoted: a mistyped line may hold a private key.
                raise ParseError("line %d: PublicKey is not a base64 WireGuard key (44 characters "
                                 "ending in '=')" % lineno)
            peer["public_key"], peer["public_key_index"] = value, index
        elif key == "endpoint":
            peer["endpoint"] = value or None
        elif key == "persistentkeepalive":
            peer["persistent_keepalive_s"] = _parse_keepalive(value, lineno)
            peer["keepalive_indexes"].append(index)
        elif key == "allowedips":
            peer["allowed_ips"].extend(ip.strip() for ip in value.split(",") if ip.strip())
        elif key == "presharedkey":
            peer["has_preshared_key"] = bool(value)
    seen = {}
    for peer in peers:
        if peer["public_key"] is None:
            raise ParseError("line %d: [Peer] has no PublicKey" % peer["line"])
        if peer["public_key"] in seen:
            raise ParseError("line %d: PublicKey %s is already used by the [Peer] at line %d"
                             % (peer["line"], peer["public_key"], seen[peer["public_key"]]))
        seen[peer["public_key"]] = peer["line"]
    return peers


def parse_wg_quick_peers(text: str) -> list:
    """List the [Peer] blocks of a wg-quick file, without secrets.

    Input (wg-quick(8) file, or ``wg showconf <interface>`` output)::

        [Interface]
        PrivateKey = KKKK…K=
        [Peer]
        # hub
        PublicKey = HHHH…H=
        Endpoint = 203.0.113.20:51820
        AllowedIPs = 10.20.0.0/24, 192.168.50.0/24

    Output, in file order::

        [{"public_key": "HHHH…H=",
          "endpoint": "203.0.113.20:51820",   # as written (may be a host name); None if absent
          "persistent_keepalive_s": None,     # seconds; None when absent, "off" or 0
          "allowed_ips": ["10.20.0.0/24", "192.168.50.0/24"],   # all AllowedIPs lines joined
          "has_preshared_key": False,         # the key itself is never returned
          "line": 3}]                         # 1-based line of the [Peer] header

    Raises ParseError naming the line for: a line that is neither a section header nor
    ``Key = Value``, a [Peer] without (or with two) PublicKey, a PublicKey that is not a key,
    the same PublicKey in two [Peer] blocks, PersistentKeepalive other than ``off``/0-65535.
    """
    return [
        {key: peer[key] for key in ("public_key", "endpoint", "persistent_keepalive_s", "allowed_ips",
                                    "has_preshared_key", "line")}
        for peer in _scan_peers(_split_lines(text))
    ]


def set_wg_quick_keepalive(text: str, keepalive_s: int, public_keys=None) -> tuple:
    """Set ``PersistentKeepalive`` on chosen [Peer] blocks, changing nothing else.

    ``public_keys`` None selects every [Peer] that has an Endpoint; a list selects exactly
    those peers (each must exist). ``keepalive_s`` is seconds, 0-65535; 0 means off and removes
    the line. A new line ``PersistentKeepalive = N`` goes right after the peer's PublicKey line
    (same indentation and line end); an existing one has only its value replaced, keeping any
    trailing comment. [Interface] is never touched. Idempotent: a second run returns the same
    text and no changed keys.

    ``("[Peer]\\nPublicKey = HHHH…H=\\nEndpoint = 203.0.113.20:51820\\n", 25, None)`` →
    ``("[Peer]\\nPublicKey = HHHH…H=\\nPersistentKeepalive = 25\\nEndpoint = 203.0.113.20:51820\\n",
    ["HHHH…H="])``

    Returns ``(new_text, changed_public_keys)`` with keys in file order.
    Raises ParseError for keepalive_s outside 0-65535 (``keepalive_s must be 0-65535, got
    70000``), a listed key no [Peer] has (all missing keys are named), a target peer with two
    PersistentKeepalive lines, or a malformed file (see parse_wg_quick_peers).
    Format: wg-quick(8) / wg(8) configuration file, wireguard-tools v1.0.20210914.
    """
    check_keepalive_s(keepalive_s)
    lines = _split_lines(text)
    targets = select_peers(_scan_peers(lines), public_keys, "no [Peer] with PublicKey %s in this file")
    return edit_keepalive(text, lines, targets, keepalive_s, _VALUE, "%sPersistentKeepalive = %d",
                          "[Peer] at line %d (PublicKey %s) has %d PersistentKeepalive lines (%s); "
                          "keep one by hand first")


def redact_wg_quick(text: str) -> str:
    """Replace PrivateKey and PresharedKey values with ``<redacted>``, for diffs and logs.

    ``"[Interface]\\nPrivateKey = KKKK…K= # old\\n"`` → ``"[Interface]\\nPrivateKey = <redacted> # old\\n"``

    Works line by line on anything in ``Key = Value`` form, so also on systemd.netdev(5)
    ``[WireGuard]``/``[WireGuardPeer]`` files; commented-out keys (``# PrivateKey = …``) are
    redacted too, and so is any other key-shaped token (44 base64 characters) on a line that is
    not a ``PublicKey`` line (keys hide in comments and ``PostUp`` commands). Everything else is
    kept byte for byte. Never raises for malformed files
    (only ParseError when ``text`` is not a string). Format: wg-quick(8), wg(8).
    """
    out = []
    for line in _split_lines(text):
        match = _SECRET.match(line)
        if match:
            line = match.group("head") + "<redacted>" + line[match.end():]
        if not _PUBLIC_KEY_LINE.match(line):
            line = _KEY_SHAPED.sub("<redacted>", line)
        out.append(line)
    return "".join(out)


def section_lines(lines, wanted, content, header_re, case_sensitive, file_kind):
    """Indexes ``(header, [key line indexes])`` of the one ``[wanted]`` section; ParseError for none or two."""
    found, section = [], None
    for index, line in enumerate(lines):
        text = content(line)
        if not text:
            continue
        header = header_re.fullmatch(text)
        if header:
            name = header.group(1).strip()
            section = (name == wanted) if case_sensitive else (name.lower() == wanted.lower())
            if section:
                found.append((index, []))
            continue
        if section:
            found[-1][1].append(index)
    if not found:
        raise ParseError("%s has no [%s] section" % (file_kind, wanted))
    if len(found) > 1:
        raise ParseError("%s has %d [%s] sections (lines %s); keep one by hand first"
                         % (file_kind, len(found), wanted, ", ".join(str(index + 1) for index, _keys in found)))
    return found[0]


def set_section_value(text, lines, section, key_lines, key_of, value_re, new_line, value, file_kind):
    """Set ``value`` on the one key line of ``section`` whose key ``key_of(line)`` returns true, or add one after the
    section's last key line (its indentation and line end; right after the header when it has none); every other byte
    is kept. Returns ``(new_text, old value or None)``; ``new_text is text`` when the value is already there.
    Raises ParseError naming the lines when the key is there twice."""
    header, keys = section
    hits = [index for index in key_lines if key_of(lines[index])]
    if len(hits) > 1:
        raise ParseError("%s sets it %d times (lines %s); keep one by hand first"
                         % (file_kind, len(hits), ", ".join(str(index + 1) for index in hits)))
    if hits:
        line = lines[hits[0]]
        end = line[len(line.rstrip("\r\n")):]
        match = value_re.fullmatch(line[:len(line) - len(end)])
        if match.group("value") == value:
            return text, value
        lines = list(lines)
        lines[hits[0]] = match.group("head") + value + match.group("tail") + end
        return "".join(lines), match.group("value") or None
    after = keys[-1] if keys else header
    anchor = lines[after]
    end = anchor[len(anchor.rstrip("\r\n")):] or ("\r\n" if "\r\n" in text else "\n")
    indent = anchor[:len(anchor) - len(anchor.lstrip(" \t"))] if keys else ""
    added = new_line % (indent, value)
    lines = list(lines)
    if anchor.endswith("\n"):
        lines[after:after + 1] = [anchor, added + end]
    else:  # the anchor is the last line without an ending: keep "no newline at end of file"
        lines[after:after + 1] = [anchor + end, added]
    return "".join(lines), None


_MTU_KEY = re.compile(r"\s*mtu\s*=", re.IGNORECASE)


def set_wg_quick_mtu(text: str, mtu_bytes: int) -> tuple:
    """Set ``MTU = N`` in the ``[Interface]`` section of a wg-quick file, changing nothing else (wg-quick(8): ``MTU``).

    An existing ``MTU`` line has only its value replaced (a comment after it stays); a new ``MTU = N`` line goes after
    the section's last ``Key = Value`` line, with its indentation and line end. [Peer] sections are never touched.

    ``("[Interface]\\nPrivateKey = K…=\\nAddress = 10.77.0.2/24\\n\\n[Peer]\\n...", 1340)`` →
    ``("[Interface]\\nPrivateKey = K…=\\nAddress = 10.77.0.2/24\\nMTU = 1340\\n\\n[Peer]\\n...", None)``

    Returns ``(new_text, old value or None)``; ``new_text`` is ``text`` itself when the MTU is already set so.
    Raises ParseError for an MTU that is not a whole number 68-65535, a file without (or with two) [Interface], two
    MTU lines in it, or a line that is neither a header nor ``Key = Value``.
    """
    if isinstance(mtu_bytes, bool) or not isinstance(mtu_bytes, int) or not 68 <= mtu_bytes <= 65535:
        raise ParseError("mtu_bytes must be 68-65535, got %r" % (mtu_bytes,))
    lines = _split_lines(text)
    for index, line in enumerate(lines):
        content = _content(line)
        if content and not _HEADER.fullmatch(content) and "=" not in content:
            raise ParseError("line %d: expected '[Section]' or 'Key = Value'" % (index + 1))
    section = section_lines(lines, "Interface", _content, _HEADER, False, "the wg-quick file")
    return set_section_value(text, lines, section, section[1], lambda line: bool(_MTU_KEY.match(line)), _VALUE,
                             "%sMTU = %s", str(mtu_bytes), "the [Interface] section's MTU: the file")
