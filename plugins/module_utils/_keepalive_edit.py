# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Line edits that set PersistentKeepalive on chosen WireGuard peers, shared by the file formats.

wg-quick files (``_wg_quick``) and systemd-networkd ``.netdev`` files (``_networkd_netdev``)
differ in how a peer section and the key are spelled, not in how the edit works; each format
scans its own peers and passes them here.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

MAX_KEEPALIVE_S = 65535


def check_keepalive_s(keepalive_s):
    """Raise ParseError unless ``keepalive_s`` is an int 0-65535 (wg(8): 1-65535 seconds, 0/off)."""
    if isinstance(keepalive_s, bool) or not isinstance(keepalive_s, int) or not 0 <= keepalive_s <= MAX_KEEPALIVE_S:
        raise ParseError("keepalive_s must be 0-%d, got %r" % (MAX_KEEPALIVE_S, keepalive_s))


def line_end(line):
    """The line's own ending: ``"\\r\\n"``, ``"\\n"`` or ``""`` (last line without one)."""
    return line[len(line.rstrip("\r\n")):]


def select_peers(peers, public_keys, missing_message):
    """Peers to change: every peer with an endpoint (``public_keys`` None) or exactly the listed ones.

    ``peers`` are the format's scanned peers (dicts with ``public_key`` and ``endpoint``).
    ``missing_message`` is formatted with the missing keys, comma-joined, when a listed key has no
    peer. Raises ParseError for that and for ``public_keys`` that is not a list of strings.
    """
    if public_keys is None:
        return [peer for peer in peers if peer["endpoint"]]
    if isinstance(public_keys, str) or not all(isinstance(key, str) for key in public_keys):
        raise ParseError("public_keys must be a list of public keys or None, got %r" % (public_keys,))
    known = {peer["public_key"] for peer in peers}
    missing = [key for key in public_keys if key not in known]
    if missing:
        raise ParseError(missing_message % ", ".join(missing))
    wanted = set(public_keys)
    return [peer for peer in peers if peer["public_key"] in wanted]


def edit_keepalive(text, lines, targets, keepalive_s, value_re, new_line, duplicate_message):
    """Set, replace or remove the keepalive line of each target peer; return (new_text, changed_keys).

    ``lines``: ``text`` split with line ends kept. ``targets``: peers with ``public_key``,
    ``public_key_index`` (line index of its key line), ``keepalive_indexes`` (line indexes of its
    keepalive lines), ``persistent_keepalive_s`` (int or None) and ``line`` (1-based line of the
    section header). ``value_re`` matches an existing keepalive line without its ending, with
    groups ``head`` (up to the value) and ``tail`` (after it, e.g. a comment). ``new_line`` is a
    format with the indentation (%s) and seconds (%d), e.g. ``"%sPersistentKeepalive = %d"``.
    ``duplicate_message`` is formatted with (header line, public key, count, line numbers).

    0 removes the line; a new line goes right after the key line with its indentation and line
    end (a key line without an ending keeps the file without a final newline). Idempotent:
    unchanged peers are left byte for byte and reported in no list.
    """
    replace = {}  # line index -> lines that take its place
    changed = []
    for peer in targets:
        indexes = peer["keepalive_indexes"]
        if len(indexes) > 1:
            raise ParseError(duplicate_message % (peer["line"], peer["public_key"], len(indexes),
                                                  ", ".join(str(i + 1) for i in indexes)))
        if keepalive_s == 0:
            if not indexes:
                continue
            replace[indexes[0]] = []
        elif indexes:
            if peer["persistent_keepalive_s"] == keepalive_s:
                continue
            line = lines[indexes[0]]
            end = line_end(line)
            match = value_re.fullmatch(line[:len(line) - len(end)])
            replace[indexes[0]] = [match.group("head") + str(keepalive_s) + match.group("tail") + end]
        else:
            key_line = lines[peer["public_key_index"]]
            end = line_end(key_line) or ("\r\n" if "\r\n" in text else "\n")
            indent = key_line[:len(key_line) - len(key_line.lstrip(" \t"))]
            added = new_line % (indent, keepalive_s)
            if line_end(key_line):
                replace[peer["public_key_index"]] = [key_line, added + end]
            else:  # the key line is the last line and has no ending: keep "no newline at end of file"
                replace[peer["public_key_index"]] = [key_line + end, added]
        changed.append(peer["public_key"])
    if not changed:
        return text, []
    out = []
    for index, line in enumerate(lines):
        out.extend(replace.get(index, [line]))
    return "".join(out), changed
