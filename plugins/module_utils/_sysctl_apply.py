# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decide and report the outcome of setting sysctls key by key (pure, no I/O).

Shared by the ``sysctl_live`` module (Python on the target) and the python-free ``tcp_tuning``
action (OpenWrt): both read a key, write it with ``sysctl -w`` when it differs, read it back, and
report ``applied``/``not_applied``/``by_key`` and a diff in the same shape.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import (
    classify_sysctl_error,
    normalize_sysctl_value,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import explain

# Dotted sysctl names only: no options (-p), no assignments (k=v), no slash form, no "..".
KEY_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)+$")


def check_values(values) -> dict:
    """``{"net.ipv4.tcp_rmem": [4096, "131072", 6291456]}`` → ``{"net.ipv4.tcp_rmem": "4096 131072 6291456"}``.

    Raises ParseError naming the option and the key: ``values: 'x' is not a dotted sysctl name
    such as net.ipv4.tcp_rmem``, ``values: net.x: the value is empty``, ``values: net.x: sysctl
    value True is a boolean; write 1 or 0``.
    """
    if not isinstance(values, dict):
        raise ParseError("values: must be a dict of sysctl key and value, got %r" % (values,))
    checked = {}
    for key, raw in values.items():
        if not KEY_PATTERN.match(str(key)):
            raise ParseError("values: %r is not a dotted sysctl name such as net.ipv4.tcp_rmem" % (key,))
        try:
            value = normalize_sysctl_value(raw)
        except ParseError as exc:
            raise ParseError("values: %s: %s" % (key, exc)) from None
        if value == "":
            raise ParseError("values: %s: the value is empty" % key)
        checked[key] = value
    return checked


def needs_write(before, value) -> bool:
    """True when the key exists (``before`` is not None) and holds another value."""
    return before is not None and before != value


def status_before_write(before, value) -> str:
    """``"absent"`` (key missing here), ``"unchanged"``, or ``"changed"`` (what check mode reports)."""
    if before is None:
        return "absent"
    return "changed" if before != value else "unchanged"


def write_status(rc, stderr, after, value, as_root=True) -> str:
    """Status after ``sysctl -w key=value`` and a read-back of the key.

    ``"changed"`` when it exited 0 and the key now holds ``value``; else the reason from stderr
    (classify_sysctl_error; ``as_root``: whether sysctl ran as root). A zero exit with the old value
    read back (BusyBox ``sysctl`` may exit 0 on failure) is the reason on stderr, or ``"invalid"``
    when stderr does not say.
    """
    if rc == 0 and after == value:
        return "changed"
    reason = classify_sysctl_error(stderr or "", as_root)
    if rc != 0:
        return reason
    return reason if reason != "unknown" else "invalid"


def summarize(outcomes, allowed=None) -> dict:
    """Put per-key outcomes together as sysctl_live returns them.

    ``outcomes``: list of ``(key, value, before, after, status)``. Returns ``{"changed", "applied",
    "not_applied", "by_key", "diff"}``: ``applied`` maps keys whose status is ``changed`` or
    ``unchanged`` to the value; ``not_applied`` lists the others with ``key``, ``value``,
    ``before``, ``reason`` and ``message`` (see _tcp_tuning.explain; ``allowed``: the
    namespace's tcp_allowed_congestion_control when read, else None).
    """
    applied, not_applied, by_key = {}, [], {}
    changed = False
    before_lines, after_lines = [], []
    for key, value, before, after, status in outcomes:
        by_key[key] = {"before": before, "after": after, "status": status}
        if status in ("changed", "unchanged"):
            applied[key] = value
            changed = changed or status == "changed"
        else:
            not_applied.append({"key": key, "value": value, "before": before, "reason": status,
                                "message": explain(status, key, value, allowed)})
        before_lines.append("%s = %s\n" % (key, before))
        after_lines.append("%s = %s\n" % (key, after))
    return {"changed": changed, "applied": applied, "not_applied": not_applied, "by_key": by_key,
            "diff": {"before": "".join(before_lines), "after": "".join(after_lines),
                     "before_header": "running kernel", "after_header": "running kernel"}}
