# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse the sysctl files the boot reads, and work out which file sets each key at boot.

Input of ``parse_sysctl_boot_files``: the output of remote/tcp_reader.py's ``SYSCTL_BOOT_FILES``,
every ``*.conf`` of the sysctl.d directories and ``/etc/sysctl.conf``, in the order the shell lists
them, each followed by its lines that are neither blank nor comments::

    S
    F\t/etc/sysctl.d/60-tunnelfix-bbr-fq.conf\t>
    L\t3\t1\tnet.ipv4.tcp_congestion_control = bbr
    F\t/etc/sysctl.d/99-sysctl.conf\t>../sysctl.conf
    L\t28\t0\tnet.ipv4.tcp_frto_x = 2
    L\t30\tg\tnet.ipv4.conf.*.rp_filter = 2
    F\t/usr/lib/sysctl.d/50-default.conf\t>/dev/null

``S``: booted with systemd (``/run/systemd/system`` is a directory; sd_booted(3)). ``F PATH >TARGET``:
a file, TARGET its symlink target (empty when it is none). ``L NUMBER PRESENT TEXT``: line NUMBER of
that file, blanks trimmed; PRESENT is ``1`` when the key's /proc/sys entry exists, ``0`` when it does
not, ``g`` for a glob and ``-`` for a line without a key.

What the boot does with them (``sysctl_boot``), after sysctl.d(5) (systemd 252-257) and procps-ng
4.0 ``sysctl --system`` (src/sysctl.c, PreloadSystem): the ``*.conf`` files of ``SYSCTL_DIRS`` are
applied sorted by file name across the directories; a name in an earlier directory masks the same
name in a later one (a link to /dev/null masks it away); within and across files a later assignment
wins. systemd-sysctl reads nothing else (Debian's ``/etc/sysctl.d/99-sysctl.conf`` links
``/etc/sysctl.conf`` in); ``sysctl --system`` (no systemd; OpenWrt's /etc/init.d/sysctl alike)
applies ``/etc/sysctl.conf`` after all of them. Both pass everything after ``=`` to the kernel,
blanks trimmed: a ``#`` after the value is not a comment. A key with a glob never overrides a key
set by name, so globs are left out of the effective values. Pure functions, no I/O.
"""

from __future__ import annotations

import posixpath
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

SYSCTL_DIRS = ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d")
SYSCTL_CONF = "/etc/sysctl.conf"
SYSTEMD, PROCPS = "systemd-sysctl", "sysctl --system"
WARNINGS = ("inline_comment", "absent_key", "not_an_assignment")
_PRESENCE = ("1", "0", "g", "-")
_INLINE_COMMENT = re.compile(r"(^|\s)#")
_NUMBERS = re.compile(r"[0-9]+(\s+[0-9]+)*")


def proc_path(key: str) -> str:
    """A key as written -> its path under /proc/sys (systemd's sysctl_normalize): ``net.ipv4.tcp_rmem`` ->
    ``net/ipv4/tcp_rmem``; when the first separator is a dot, dots and slashes swap (``net.ipv4.conf.eth0/10.rp_filter``
    -> ``net/ipv4/conf/eth0.10/rp_filter``); when it is a slash, the key is the path already."""
    first = re.search(r"[./]", key)
    if first and first.group() == ".":
        return key.translate(str.maketrans("./", "/."))
    return key


def dotted(key: str) -> str:
    """The key as ``sysctl`` prints it: its /proc/sys path with every slash a dot."""
    return proc_path(key).replace("/", ".")


def parse_sysctl_boot_files(text: str) -> dict:
    """SYSCTL_BOOT_FILES output -> ``{"systemd": bool, "files": [{"path", "target", "lines": [(number, present, text)]}]}``.

    ``target`` is the symlink target made absolute (``../sysctl.conf`` of /etc/sysctl.d/99-sysctl.conf ->
    ``/etc/sysctl.conf``), or None. Empty input -> ``{"systemd": False, "files": []}``. Raises ParseError
    naming the line for a record that is none of S, F, L, a file path that is not absolute, a line
    before any file, a line number that is not one, or a presence other than 1, 0, g, -.
    """
    if not isinstance(text, str):
        raise ParseError("sysctl boot files output must be text, got %s" % type(text).__name__)
    systemd, files = False, []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        kind, _tab, rest = line.partition("\t")
        if kind == "S" and not rest:
            systemd = True
        elif kind == "F":
            path, _tab, target = rest.partition("\t")
            if not path.startswith("/") or not target.startswith(">"):
                raise ParseError("sysctl boot files line %d: expected 'F<TAB>PATH<TAB>>TARGET', got %r" % (lineno, line[:200]))
            target = target[1:]
            files.append({"path": path, "target": posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                          if target else None, "lines": []})
        elif kind == "L":
            number, _tab, rest = rest.partition("\t")
            present, _tab, content = rest.partition("\t")
            if not files or not number.isdigit() or present not in _PRESENCE:
                raise ParseError("sysctl boot files line %d: expected 'L<TAB>NUMBER<TAB>PRESENT<TAB>TEXT' after a file, got %r"
                                 % (lineno, line[:200]))
            files[-1]["lines"].append((int(number), present, content.strip()))
        else:
            raise ParseError("sysctl boot files line %d: expected a record S, F or L, got %r" % (lineno, line[:200]))
    return {"systemd": systemd, "files": files}


def _assignment(text):
    """A line -> (ignore failure, key or None, value or None): ``-net.x = 1`` -> (True, "net.x", "1")."""
    ignore = text.startswith("-")
    body = text[1:] if ignore else text
    key, equals, value = body.partition("=")
    if not equals:
        return ignore, None, None
    return ignore, key.strip() or None, value.strip()


def _order_key(path, systemd):
    """Where ``path`` is applied: sysctl.d files by name, then (sysctl --system only) /etc/sysctl.conf; None: never."""
    directory, name = posixpath.split(path)
    if directory in SYSCTL_DIRS and name.endswith(".conf"):
        return (0, name, SYSCTL_DIRS.index(directory))
    if path == SYSCTL_CONF and not systemd:
        return (1, name, 0)
    return None


def boot_order(listing: dict) -> tuple:
    """(the files applied at boot in order, ``{masked file: the file that masks it}``) for parse_sysctl_boot_files' listing.

    A file linked to /dev/null masks its name and is not applied itself.
    """
    systemd = listing["systemd"]
    ranked = sorted((key, entry["path"], entry["target"]) for entry in listing["files"]
                    for key in [_order_key(entry["path"], systemd)] if key is not None)
    applied, masked, seen = [], {}, {}
    for key, path, target in ranked:
        if key[0] == 0 and key[1] in seen:
            masked[path] = seen[key[1]]
            continue
        seen[key[1]] = path
        if target != "/dev/null":
            applied.append(path)
    return applied, masked


def _warning(path, number, key, reason, message):
    return {"file": path, "line": number, "key": key, "reason": reason, "message": "%s line %d: %s" % (path, number, message)}


def _line_effect(path, number, present, text):
    """One line of an applied file -> (dotted key, value that takes effect, or None, warning or None)."""
    ignore, key, value = _assignment(text)
    if key is None:
        if ignore and "=" not in text:  # "-key": keep globs off this key, sets nothing
            return None, None, None
        return None, None, _warning(path, number, None, "not_an_assignment", "%r is not KEY = VALUE: the boot skips it "
                                    "(procps: invalid syntax; systemd-sysctl: Line is not an assignment)" % text[:80])
    if present == "g":
        return None, None, None
    name = dotted(key)
    if present == "0":
        if ignore:
            return None, None, None
        return name, None, _warning(path, number, name, "absent_key", "%s does not exist in this kernel or network namespace: "
                                    "sysctl --system and sysctl -p report 'cannot stat /proc/sys/%s' (systemd-sysctl skips it "
                                    "quietly); remove the line, or write it as -%s to ignore it" % (name, proc_path(key), text))
    comment = _INLINE_COMMENT.search(value)
    if comment:
        before = " ".join(value[:comment.start()].split())
        taken = before if _NUMBERS.fullmatch(before) else None
        return name, taken, _warning(path, number, name, "inline_comment", "'#' after the value is not a comment: the boot writes "
                                     "%r to %s, which the kernel refuses%s; put the comment on a line of its own"
                                     % (value[:80], name, " after taking %s" % before if taken else ""))
    return name, " ".join(value.split()), None


def sysctl_boot(listing: dict) -> dict:
    """What the boot sets, from parse_sysctl_boot_files' listing::

        {"applied_by": "systemd-sysctl" | "sysctl --system",
         "files": [applied file, ...],                     # in order
         "masked": {"/usr/lib/sysctl.d/50-default.conf": "/etc/sysctl.d/50-default.conf"},
         "links": {"/etc/sysctl.d/99-sysctl.conf": "/etc/sysctl.conf"},
         "effective": {"net.ipv4.tcp_congestion_control": {"value": "cubic", "file": "/etc/sysctl.d/99-zz.conf", "line": 3}},
         "warnings": [{"file", "line", "key", "reason": one of WARNINGS, "message"}]}

    ``effective``: per key (dotted) the last assignment that takes effect and where it is. A line the
    kernel refuses (a key it lacks, a name followed by ``#``) sets nothing; numbers before a ``#`` are
    taken. ``warnings``: the lines of applied files that the boot reports as errors (a line of a file
    applied twice, through a link, once).
    """
    applied, masked = boot_order(listing)
    by_path = {entry["path"]: entry for entry in listing["files"]}
    effective, warnings, warned = {}, [], set()
    for path in applied:
        entry = by_path[path]
        for number, present, text in entry["lines"]:
            name, value, warning = _line_effect(path, number, present, text)
            if value is not None:
                effective[name] = {"value": value, "file": path, "line": number}
            seen = (entry["target"] or path, number, warning and warning["reason"])
            if warning and seen not in warned:
                warned.add(seen)
                warnings.append(warning)
    return {"applied_by": SYSTEMD if listing["systemd"] else PROCPS, "files": applied, "masked": masked,
            "links": {entry["path"]: entry["target"] for entry in listing["files"] if entry["target"]},
            "effective": effective, "warnings": warnings}


def settings_by_file(listing: dict, keys) -> dict:
    """``{path: {key: value}}`` for every listed file that assigns one of ``keys`` (dotted), masked or not: the
    value as written (blanks folded, a ``#`` kept), a later line of the file winning; files in listed order."""
    out = {}
    for entry in listing["files"]:
        for _number, _present, text in entry["lines"]:
            _ignore, key, value = _assignment(text)
            if key is not None and dotted(key) in keys:
                out.setdefault(entry["path"], {})[dotted(key)] = " ".join(value.split())
    return out


def _read_as(boot, path):
    """The applied file through which the boot reads ``path`` (itself, or a link to it), or None."""
    if path in boot["files"]:
        return path
    return next((name for name in boot["files"] if boot["links"].get(name) == path), None)


def _applied_after(boot, path, other):
    """Whether the boot applies ``other`` after ``path`` (both applied, or ``path`` to be)."""
    systemd = boot["applied_by"] == SYSTEMD
    return _order_key(other, systemd) > _order_key(path, systemd)


def _masking(boot, path, systemd):
    """The file of ``path``'s name in an earlier sysctl.d directory, which the boot reads instead of it, or None."""
    mine = _order_key(path, systemd)
    if mine is None or mine[0] != 0:
        return None
    known = set(boot["files"]) | set(boot["masked"]) | set(boot["masked"].values()) | set(boot["links"])
    for other in sorted(known):
        theirs = _order_key(other, systemd)
        if theirs and theirs[:2] == mine[:2] and theirs[2] < mine[2]:
            return other
    return None


def _shown(boot, path):
    """``path``, with the file it links to: ``/etc/sysctl.d/99-sysctl.conf (-> /etc/sysctl.conf)``."""
    target = boot["links"].get(path)
    return "%s (-> %s)" % (path, target) if target else path


def undone_at_boot(boot, path, values) -> list:
    """Which of ``values`` (``{dotted key: value}``, what the file ``path`` holds or will hold) the boot ends up
    setting otherwise: one entry per such key, ``{"key", "value", "boot_value", "file", "line", "message"}``.

    ``boot``: ``sysctl_boot``'s result. A key is undone when the file that sets it last (``effective``) is
    applied after ``path`` and sets another value (blanks aside); or when ``path`` is never applied (a file
    of its name in an earlier directory masks it, or it is in no directory the boot reads) and the boot
    leaves another value or none: then ``file`` is the masking file or the one setting the key, or None.
    ``[]`` without ``boot`` (facts of an older collection).
    """
    if not isinstance(boot, dict) or not isinstance(boot.get("effective"), dict):
        return []
    systemd = boot["applied_by"] == SYSTEMD
    read_as = _read_as(boot, path)
    masking = _masking(boot, path, systemd)
    unread = masking or (read_as is None and _order_key(path, systemd) is None)
    out = []
    for key, value in values.items():
        value = " ".join(str(value).split())
        winner = boot["effective"].get(key)
        boot_value = winner["value"] if winner else None
        if boot_value == value:
            continue
        entry = {"key": key, "value": value, "boot_value": boot_value, "file": winner["file"] if winner else None,
                 "line": winner["line"] if winner else None}
        if unread:
            why = ("%s masks it (the same name, in a directory read first)" % masking if masking else
                   "it is in no directory %s reads (%s)" % (boot["applied_by"], ", ".join(SYSCTL_DIRS)))
            where = ("%s line %d sets %s" % (_shown(boot, winner["file"]), winner["line"], boot_value) if winner
                     else "no file sets it")
            out.append(dict(entry, file=masking or entry["file"], line=None if masking else entry["line"],
                            message="%s = %s in %s is not applied at boot: %s; %s" % (key, value, path, why, where)))
        elif winner and winner["file"] != (read_as or path) and _applied_after(boot, read_as or path, winner["file"]):
            last = winner["file"] == SYSCTL_CONF and not systemd
            out.append(dict(entry, message="%s line %d sets %s = %s, and %s applies it after %s: the next boot undoes "
                                           "%s = %s; remove or change that line%s" % (
                                               _shown(boot, winner["file"]), winner["line"], key, boot_value,
                                               boot["applied_by"], path, key, value,
                                               "" if last else ", or name the drop-in so that it sorts after %s"
                                               % posixpath.basename(winner["file"]))))
    return out


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
