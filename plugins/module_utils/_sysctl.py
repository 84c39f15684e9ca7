# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read ``sysctl`` output and explain its errors (procps-ng 4.0.2 and BusyBox 1.35 ``sysctl``).

Pure functions, no I/O. Values are compared after whitespace normalisation because the
kernel prints vectors such as ``net.ipv4.tcp_rmem`` with tabs (``4096\\t131072\\t6291456``).
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

REASONS = ("absent", "permission_denied", "read_only", "invalid", "unknown")

# (reason, lower-case substring) in the order they are tried on each stderr line
_MARKERS = (
    ("read_only", "read-only file system"),
    ("read_only", "erofs"),
    ("absent", "no such file or directory"),
    ("absent", "is an unknown key"),
    ("absent", "enoent"),
    ("permission_denied", "operation not permitted"),
    ("permission_denied", "permission denied"),
    ("permission_denied", "eperm"),
    ("permission_denied", "eacces"),
    ("invalid", "invalid argument"),
    ("invalid", "einval"),
)
# procps: cannot stat /proc/sys/net/core/default_qdisc: ...  |  setting key "net.x": ...
#         permission denied on key "net.x" (procps-ng 4: open(2) failed with EROFS, EACCES or EPERM)
# BusyBox: error: 'net.x' is an unknown key  |  error setting key 'net.x': ...  |  write error: ...
_PROC_PATH = re.compile(r"/proc/sys/([^\s:]+)")
_QUOTED_KEY = re.compile(r"""key ["']([^"']+)["']|["']([^"']+)["'] is an unknown key""")
_CC_NAME = re.compile(r"[A-Za-z0-9_-]+")
# procps-ng 4's sysctl -w prints this when it cannot open the key's file for writing, whatever the errno
# (src/sysctl.c, WriteSetting: EPERM, EROFS and EACCES alike). Root may open any writable sysctl, so as
# root it is a read-only /proc/sys; a kernel refusing the value (EPERM in a child netns) comes later, on
# the write: 'setting key "...": Operation not permitted'.
_PROCPS4_OPEN_REFUSED = "permission denied on key"


def normalize_sysctl_value(value) -> str:
    """Turn a sysctl value into the single-spaced string ``sysctl`` prints.

    ``"4096\\t131072  6291456\\n"`` → ``"4096 131072 6291456"``; ``1`` → ``"1"``;
    ``[4096, "87380", 6291456]`` → ``"4096 87380 6291456"``; ``"bbr"`` → ``"bbr"``.

    Raises ParseError for booleans (write 1 or 0: YAML ``yes`` is ambiguous), floats, None,
    and anything else that is not str, int or a list/tuple of those.
    """
    if isinstance(value, bool):
        raise ParseError("sysctl value %r is a boolean; write 1 or 0" % (value,))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, (list, tuple)):
        return " ".join(normalize_sysctl_value(item) for item in value if item != "").strip()
    raise ParseError("sysctl value must be a string, an integer or a list of them, got %r" % (value,))


def parse_sysctl_output(text: str) -> dict:
    """Parse ``sysctl KEY ...`` or ``sysctl -a`` output into ``{key: value}``.

    Format: procps-ng 4.0.2 and BusyBox 1.35 print ``key = value`` per line; values are
    whitespace-normalised (see normalize_sysctl_value)::

        net.ipv4.tcp_congestion_control = cubic
        net.ipv4.tcp_rmem = 4096\\t131072\\t6291456

    → ``{"net.ipv4.tcp_congestion_control": "cubic", "net.ipv4.tcp_rmem": "4096 131072 6291456"}``.
    Blank lines are skipped; an empty value gives ``""``. Raises ParseError naming the line for
    a line without `` = `` or with an empty or space-containing key (errors belong on stderr;
    do not pass ``2>&1`` output).
    """
    if not isinstance(text, str):
        raise ParseError("sysctl output must be text, got %s" % type(text).__name__)
    values = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key or len(key.split()) != 1:
            raise ParseError("line %d: expected 'key = value' as printed by sysctl, got %r" % (lineno, line[:200]))
        values[key] = normalize_sysctl_value(value)
    return values


def _line_reason(line):
    lowered = line.lower()
    for reason, marker in _MARKERS:
        if marker in lowered:
            return reason
    return None


def _line_key(line):
    match = _QUOTED_KEY.search(line)
    if match:
        return match.group(1) or match.group(2)
    match = _PROC_PATH.search(line)
    if match:
        return match.group(1).replace("/", ".")
    return None


def classify_sysctl_errors(stderr, as_root=True) -> list:
    """Explain every error line of a ``sysctl -w``/``-p`` run, one entry per line.

    ``'sysctl: cannot stat /proc/sys/net/core/default_qdisc: No such file or directory\\n'
    'sysctl: setting key "net.ipv4.tcp_congestion_control": No such file or directory\\n'`` →
    ``[{"key": "net.core.default_qdisc", "reason": "absent", "value_unavailable": False,
    "message": "sysctl: cannot stat ..."}, {"key": "net.ipv4.tcp_congestion_control",
    "reason": "absent", "value_unavailable": True, "message": "sysctl: setting key ..."}]``

    ``reason`` is one of REASONS (see classify_sysctl_error). ``value_unavailable`` is True when
    the key exists but the kernel refused the *value* with ENOENT (procps ``setting key``,
    BusyBox ``write error``/``error setting key``: e.g. tcp_congestion_control=bbr without
    tcp_bbr, default_qdisc=fq without sch_fq), False when the key itself is missing, None for
    other reasons. ``key`` is None when the message does not name it (BusyBox ``write error``).
    Lines that are not errors (``$ sysctl ...``, ``rc=1``) are skipped. procps-ng 4's ``permission
    denied on key`` is ``read_only`` when the command ran ``as_root`` (True: the roles run with become),
    else ``permission_denied``.
    """
    if not isinstance(stderr, str):
        raise ParseError("sysctl stderr must be text, got %s" % type(stderr).__name__)
    found = []
    for line in stderr.splitlines():
        reason = _line_reason(line)
        if reason is None:
            continue
        if _PROCPS4_OPEN_REFUSED in line.lower() and as_root:
            reason = "read_only"
        value_unavailable = None
        if reason == "absent":
            lowered = line.lower()
            value_unavailable = not ("cannot stat" in lowered or "unknown key" in lowered)
        found.append({"key": _line_key(line), "reason": reason, "value_unavailable": value_unavailable,
                      "message": line.strip()})
    return found


def classify_sysctl_error(stderr: str, as_root=True) -> str:
    """Name why a ``sysctl -w`` failed, from its stderr (the first error line decides).

    Returns one of:

    - ``"absent"``: ``No such file or directory`` (procps ``cannot stat`` or ``setting key``),
      BusyBox ``is an unknown key``. Either the key does not exist here (host-only key in a container netns, e.g.
      net.core.default_qdisc) or the kernel lacks the value (bbr, fq); see
      classify_sysctl_errors ``value_unavailable`` to tell them apart.
    - ``"permission_denied"``: ``Operation not permitted`` (EPERM: e.g. a congestion control
      not in tcp_allowed_congestion_control inside a non-init netns), ``Permission denied``;
      procps-ng 4's ``permission denied on key`` when not ``as_root``.
    - ``"read_only"``: ``Read-only file system`` (BusyBox, older procps, shell redirects), and
      procps-ng 4's ``permission denied on key`` ``as_root``: it prints that for a read-only
      /proc/sys (EROFS on open), and root can open every other writable key.
    - ``"invalid"``: ``Invalid argument`` (EINVAL: malformed value).
    - ``"unknown"``: anything else, including empty stderr.

    ``'sysctl: setting key "net.ipv4.tcp_congestion_control": Operation not permitted'`` →
    ``"permission_denied"``. Sources: procps-ng 4.0.2 and BusyBox 1.35 sysctl messages,
    recorded in a child network namespace on Linux 6.18.
    """
    errors = classify_sysctl_errors(stderr, as_root)
    return errors[0]["reason"] if errors else "unknown"


def parse_cc_list(text: str) -> list:
    """Parse a list of TCP congestion control names.

    Accepts the content of /proc/sys/net/ipv4/tcp_available_congestion_control (or
    ..._allowed_...) — ``"reno cubic bbr\\n"`` — or the sysctl form
    ``"net.ipv4.tcp_available_congestion_control = reno cubic"`` → ``["reno", "cubic"]``
    (kernel order kept, duplicates dropped). Format: Linux ``proc_tcp_available_congestion_control``.

    Raises ParseError for empty text (a read that failed, not "no algorithm"), more than one
    line, or a name that is not ``[A-Za-z0-9_-]+``.
    """
    if not isinstance(text, str):
        raise ParseError("congestion control list must be text, got %s" % type(text).__name__)
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ParseError("congestion control list is empty")
    if len(lines) > 1:
        raise ParseError("congestion control list must be one line, got %d" % len(lines))
    line = lines[0]
    if "=" in line:
        line = line.partition("=")[2]
    names = []
    for name in line.split():
        if not _CC_NAME.fullmatch(name):
            raise ParseError("congestion control name %r is not [A-Za-z0-9_-]+" % name)
        if name not in names:
            names.append(name)
    if not names:
        raise ParseError("congestion control list is empty")
    return names
