# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read mwan3track's failed health checks from OpenWrt's system log (``logread -t -e mwan3track``).

Format: ubox's logread (OpenWrt's logd, openwrt/ubox ``log/logread.c@6f78fa4``, its line format unchanged since
f8d3d16 (2017), so the same on 23.05, 24.10 and 25.12): one line per message, ``ctime`` of the message, with ``-t`` its
time as ``[seconds.milliseconds]``, then ``facility.priority``, then the message, which for ``logger -t TAG``
(mwan3track's ``LOG``: tag ``mwan3track[PID]``, facility user, ``-p info``/``notice``) starts with ``TAG: ``
(logd strips the syslog header, ``log/syslog.c``). mwan3track's texts are from openwrt/packages
``net/mwan3/files/usr/sbin/mwan3track`` and are the same on openwrt-23.05 ``@16c320b7fd`` (2.11.8), openwrt-24.10
``@42525d32c4`` (2.11.16), openwrt-25.12 ``@57654a9f48`` (2.12.0) and master ``@0521bb5679`` (recorded per release
in tests/unit/fixtures/logread/<release>_mwan3track.txt): a failed check, logged only while the uplink's score is
above ``up``; the lost pings, logged by the next passing round and counting every failed check since the last one
(those logged as failed and those not: ``count`` pings each); and the state changes. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

_LINE = re.compile(r"^(?P<ctime>[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}) "
                   r"(?:\[(?P<seconds>\d+)\.\d{3}\] )?(?P<facility>[a-z0-9]+)\.(?P<priority>[a-z]+)(?: kernel:)? "
                   r"(?P<message>.*)$")
_MWAN3TRACK = re.compile(r"^mwan3track\[\d+\]: (?P<text>.*)$")
_UPLINK = r"on interface (?P<interface>\S+) \((?P<device>[^)]*)\)"
_CHECK_FAILED = re.compile(r'^Check \((?P<method>[^):]+)(?:: [^)]*)?\) failed for target "(?P<target>[^"]*)" '
                           + _UPLINK + r"\.(?: Current score: \d+)?$")
_LOST = re.compile(r"^Lost (?P<pings>\d+) ping\(s\) " + _UPLINK + r"\.(?: Current score: \d+)?$")
_STATE = re.compile(r"^Interface (?P<interface>\S+) \((?P<device>[^)]*)\) is (?P<state>offline|disconnecting)$")


def _event(text):
    """One mwan3track message -> its event (without the time), or None for a message that is no failure."""
    for kind, pattern in (("check_failed", _CHECK_FAILED), ("lost", _LOST), ("state", _STATE)):
        match = pattern.match(text)
        if match:
            found = match.groupdict()
            return {"kind": found.get("state") or kind, "interface": found["interface"], "device": found["device"],
                    "target": found.get("target"), "lost_pings": int(found["pings"]) if found.get("pings") else None}
    return None


def parse_mwan3track_log(text: str) -> list:
    """mwan3track's failures in ``logread -t -e mwan3track`` output, in log order.

    Input (shared case 05's router, ``-t`` adds the bracketed time)::

        Mon Mar  2 09:14:03 2026 [1772442843.512] user.info mwan3track[1873]: Check (ping) failed for target
        "208.67.220.220" on interface wan (eth1). Current score: 5
        Mon Mar  2 09:14:05 2026 [1772442845.020] user.info mwan3track[1873]: Lost 4 ping(s) on interface wan
        (eth1). Current score: 3
        Mon Mar  2 09:14:07 2026 [1772442847.001] user.notice mwan3track[1873]: Interface wan (eth1) is disconnecting

    (one line each) → ``[{"time_s": 1772442843, "kind": "check_failed", "interface": "wan", "device":
    "eth1", "target": "208.67.220.220", "lost_pings": None}, {"time_s": 1772442845, "kind": "lost", ...,
    "target": None, "lost_pings": 4}, {"time_s": 1772442847, "kind": "disconnecting", ...}]``. Kinds:
    ``check_failed`` (also with check_quality's ``Check (ping: latency=... loss=...%) failed``),
    ``lost``, ``disconnecting``, ``offline``. ``time_s`` is None for a line without ``-t``'s time.
    Successful checks, other mwan3track messages and other programs' lines (``-e`` matches anywhere in
    a message) are left out. Empty output (no message matched) → ``[]``.

    Raises ParseError naming the line for a line that is not in logread's shape (a BusyBox logread,
    an error message).
    """
    if not isinstance(text, str):
        raise ParseError("logread output must be text, got %s" % type(text).__name__)
    events = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _LINE.match(line)
        if not match:
            raise ParseError("logread line %d: expected 'Www Mmm dd hh:mm:ss yyyy [s.ms] facility.priority message', got %r"
                             % (lineno, line[:200]))
        tagged = _MWAN3TRACK.match(match.group("message"))
        event = _event(tagged.group("text")) if tagged else None
        if event is not None:
            seconds = match.group("seconds")
            events.append(dict(event, time_s=int(seconds) if seconds else None))
    return events


def failures_in_window(events, start_s: int, end_s: int) -> dict:
    """Count parse_mwan3track_log's ``events`` from ``start_s`` to ``end_s`` (epoch seconds, both included).

    → ``{"failed_checks": 2, "lost_pings": 4, "offline_events": 1, "interfaces": ["wan", "wanb"]}``:
    ``check_failed`` lines, the pings ``lost`` lines name, ``disconnecting``/``offline`` lines, and the
    interfaces any of them name (sorted). The log's times are whole seconds, the window's ends too:
    an event in the second the window started counts. Raises ParseError when an event has no time
    (logread without ``-t``: nothing can be placed in the window).
    """
    counts = {"failed_checks": 0, "lost_pings": 0, "offline_events": 0}
    interfaces = set()
    for event in events:
        if event["time_s"] is None:
            raise ParseError("mwan3track's log line for %s has no time (logread without -t): it cannot be placed in the window"
                             % event["interface"])
        if not start_s <= event["time_s"] <= end_s:
            continue
        interfaces.add(event["interface"])
        if event["kind"] == "check_failed":
            counts["failed_checks"] += 1
        elif event["kind"] == "lost":
            counts["lost_pings"] += event["lost_pings"]
        else:
            counts["offline_events"] += 1
    return dict(counts, interfaces=sorted(interfaces))
