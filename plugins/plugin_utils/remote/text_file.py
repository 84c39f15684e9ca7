# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a text file through a POSIX shell, edit a marked block in it, and learn whether it can be written.

Pure functions, no I/O, for the python-free ``plain_file`` action: it runs READ_SCRIPT on the
target (BusyBox 1.35 ash or dash; ``stat -c %a`` exists in both BusyBox and GNU coreutils) and
hands the output to parse_file_probe. ``tcp_tuning`` runs WRITE_PROBE_SCRIPT before it changes a
running kernel whose values a file must then persist (parse_write_probe, unwritable).
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

EOF_MARK = "@@tunnelfix-eof@@"
# argv for sh -c: $1 is the path. Prints "absent", or "present", the octal mode, the content
# and EOF_MARK (so a transport that trims trailing newlines cannot change the content).
READ_SCRIPT = ('if [ -f "$1" ]; then echo present; stat -c %a "$1" && cat "$1" && printf %s '
               + EOF_MARK + '; elif [ -e "$1" ]; then echo "not a regular file"; exit 3; else echo absent; fi')
_MODE = re.compile(r"^0?[0-7]{3,4}$")
# argv for sh -c: $1... are file paths about to be written. Per path, the nearest directory that exists
# (where the write would create the file, or its missing directories) gets an empty file created and
# removed at once: the kernel's own answer (a read-only mount, an immutable directory), which `test -w`
# does not give (BusyBox's is true for root whatever the mount). Prints "PATH<TAB>DIRECTORY<TAB>ok", or
# the shell's error message in place of "ok". Parsed by parse_write_probe. The probe's name is fixed
# (no PID), so the same failure reads the same on every host (one notice for the fleet).
WRITE_PROBE_SCRIPT = ('for p; do d=${p%/*}; while [ -n "$d" ] && [ ! -d "$d" ]; do d=${d%/*}; done; [ -n "$d" ] || d=/; '
                      't=${d%/}/.tunnelfix-write-probe; if e=$(true 2>&1 >"$t"); then rm -f "$t"; e=ok; fi; '
                      'printf "%s\\t%s\\t%s\\n" "$p" "$d" "$e"; done')
# an error message of the shell -> why the directory cannot be written (the errno's text; dash, bash, BusyBox ash)
_WRITE_ERRORS = (("read-only file system", "read_only"), ("permission denied", "permission_denied"),
                 ("operation not permitted", "permission_denied"))


def parse_file_probe(text: str) -> dict:
    """Parse the output of READ_SCRIPT: ``{"exists": bool, "mode": "0644" or None, "content": str or None}``.

    ``"present\n644\n#!/bin/sh\n@@tunnelfix-eof@@"`` → ``{"exists": True, "mode": "0644",
    "content": "#!/bin/sh\n"}``; ``"absent\n"`` → ``{"exists": False, "mode": None, "content": None}``.
    Raises ParseError for anything else (a missing end mark means the read was cut short).
    """
    if not isinstance(text, str):
        raise ParseError("file probe output must be text, got %s" % type(text).__name__)
    head, _sep, rest = text.partition("\n")
    if head.strip() == "absent" and not rest.strip():
        return {"exists": False, "mode": None, "content": None}
    if head.strip() != "present":
        raise ParseError("file probe: expected 'present' or 'absent' on line 1, got %r" % head[:200])
    mode, _sep, body = rest.partition("\n")
    if not _MODE.match(mode.strip()):
        raise ParseError("file probe: expected an octal mode on line 2, got %r" % mode[:200])
    if EOF_MARK not in body:
        raise ParseError("file probe: the content does not end with %s (output cut short?)" % EOF_MARK)
    return {"exists": True, "mode": "%04o" % int(mode.strip(), 8), "content": body.rsplit(EOF_MARK, 1)[0]}


def normalize_mode(mode) -> str:
    """``"755"``, ``"0755"`` → ``"0755"``; raises ParseError naming the value for anything else."""
    if not isinstance(mode, str) or not _MODE.match(mode):
        raise ParseError("mode must be an octal string such as '0755', got %r" % (mode,))
    return "%04o" % int(mode, 8)


def marked_block(text: str, block: str, marker: str, insert_before: str | None = None) -> str:
    """Return ``text`` with ``block`` between ``# BEGIN marker`` and ``# END marker`` lines.

    An existing block with that marker is replaced in place. Otherwise the block goes before
    the first line matching the regex ``insert_before`` (for /etc/rc.local: ``^exit 0``), or at
    the end when there is no such line or no ``insert_before``::

        marked_block("# boot\\nexit 0\\n", "/usr/sbin/x br-lan", "tunnelfix", "^exit 0")
        → "# boot\\n# BEGIN tunnelfix\\n/usr/sbin/x br-lan\\n# END tunnelfix\\nexit 0\\n"

    Raises ParseError when ``text`` has a BEGIN line without its END line (or the other way
    round, or twice), or ``insert_before`` is not a valid regex.
    """
    if not isinstance(text, str) or not isinstance(block, str):
        raise ParseError("marked_block needs text, got %s and %s" % (type(text).__name__, type(block).__name__))
    begin, end = "# BEGIN %s" % marker, "# END %s" % marker
    lines = text.splitlines()
    new = [begin] + block.splitlines() + [end]
    begins = [i for i, line in enumerate(lines) if line.rstrip() == begin]
    ends = [i for i, line in enumerate(lines) if line.rstrip() == end]
    if begins or ends:
        if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
            raise ParseError("the file has %d %r and %d %r lines; expected one of each, in that order"
                             % (len(begins), begin, len(ends), end))
        lines[begins[0]:ends[0] + 1] = new
    else:
        at = len(lines)
        if insert_before:
            try:
                pattern = re.compile(insert_before)
            except re.error as exc:
                raise ParseError("insert_before %r is not a regular expression: %s" % (insert_before, exc)) from None
            at = next((i for i, line in enumerate(lines) if pattern.search(line)), len(lines))
        lines[at:at] = new
    return "".join(line + "\n" for line in lines)


def parse_write_probe(text: str) -> dict:
    """WRITE_PROBE_SCRIPT's output -> ``{path: {"directory", "writable", "reason", "message"}}``.

    ``"/etc/sysctl.d/60-x.conf\t/etc/sysctl.d\tok\n"`` -> ``{"/etc/sysctl.d/60-x.conf": {"directory":
    "/etc/sysctl.d", "writable": True, "reason": None, "message": None}}``; with ``sh: 1: cannot create
    /etc/sysctl.d/.tunnelfix-write-probe: Read-only file system`` in place of ``ok``: ``writable`` False,
    ``reason`` ``read_only`` (or ``permission_denied``, ``unknown``), ``message`` that text. A line
    without a tab continues the message before it. Raises ParseError naming a line that is none of these.
    """
    if not isinstance(text, str):
        raise ParseError("write probe output must be text, got %s" % type(text).__name__)
    probe, last = {}, None
    for lineno, line in enumerate(text.splitlines(), 1):
        path, tab, rest = line.partition("\t")
        directory, tab2, answer = rest.partition("\t")
        if not tab and last is not None and line.strip():
            last["message"] = "%s %s" % (last["message"], line.strip()) if last["message"] else line.strip()
            continue
        if not (tab and tab2 and path.startswith("/") and directory.startswith("/") and answer.strip()):
            if not line.strip():
                continue
            raise ParseError("write probe line %d: expected 'PATH<TAB>DIRECTORY<TAB>ok or error', got %r" % (lineno, line[:200]))
        writable = answer.strip() == "ok"
        last = probe[path] = {"directory": directory, "writable": writable, "reason": None, "message": None}
        if not writable:
            last["message"] = answer.strip()
    for entry in probe.values():
        if not entry["writable"]:
            lowered = entry["message"].lower()
            entry["reason"] = next((reason for marker, reason in _WRITE_ERRORS if marker in lowered), "unknown")
    return probe


def unwritable(probe) -> list:
    """parse_write_probe's result -> one ``{"path", "directory", "reason", "message"}`` per path that cannot be
    written, the message naming the path, its directory and why: ``/etc/sysctl.d/60-x.conf cannot be written:
    /etc/sysctl.d is on a read-only file system (sh: 1: cannot create ...: Read-only file system)``."""
    why = {"read_only": "is on a read-only file system", "permission_denied": "refuses new files",
           "unknown": "refuses new files"}
    return [{"path": path, "directory": entry["directory"], "reason": entry["reason"],
             "message": "%s cannot be written: %s %s (%s)" % (path, entry["directory"], why[entry["reason"]], entry["message"])}
            for path, entry in probe.items() if not entry["writable"]]
