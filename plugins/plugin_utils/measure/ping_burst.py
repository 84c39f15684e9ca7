# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A burst of one-shot pings, the way mwan3track checks its uplinks: the shell script and its output.

mwan3track (OpenWrt's mwan3) checks each uplink by sending one-shot pings (``ping -c <count> -W
<timeout>``) to every ``track_ip``, every ``interval`` seconds, for every tracked interface; with
several uplinks and targets the echo replies arrive in short bursts. A shared ICMP rate limit on
the WAN side (banIP's ``limit rate over <ban_icmplimit>/second``, a token bucket of 5 packets)
drops the replies above it and mwan3 counts them as lost (shared case 05).

``ping_burst_script`` builds a POSIX sh script (BusyBox ash, dash, bash) that starts ``count``
rounds of one-shot pings, one to each target per round, ``interval_ms`` apart, in the
background, then waits for each and prints the pause it used, then one line per ping::

    interval_ms <pause used, ms>
    <target> <exit status>

The pause is measure/pause.py's: ``usleep``, else a fractional ``sleep``, else whole seconds rounded up
(OpenWrt's BusyBox), and the first line says which pause was made.

``ping`` exits 0 when the reply came, 1 when it did not (BusyBox and iputils alike), 2 or more on
an error (unknown host, network unreachable). ``parse_ping_burst`` reads those lines.
"""

from __future__ import annotations

import shlex

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import pause_snippet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.address import is_host_or_address
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

MAX_PINGS = 1000


def check_target(target) -> str:
    """Return ``target`` (a str) if it is an IP address or a host name (_address), else raise ValueError naming it.

    The script splits targets on spaces, so nothing else may get through; a host name is at most 253 characters.
    """
    if not is_host_or_address(target) or (":" not in target and len(target) > 253):
        raise ValueError("targets: %r is not an IP address or host name" % (target,))
    return target


def ping_burst_script(targets, count: int, interval_ms: int, timeout_s: int) -> str:
    """Build the sh script that sends the burst (see the module docstring for its output).

    ``targets``: list of IP addresses or host names (at least one); ``count``: rounds, 1 or more;
    ``interval_ms``: pause between two pings, 0-10000 ms (rounded up to whole seconds where the target
    cannot pause for less, module doc); ``timeout_s``: seconds each ping waits for its
    reply, 1-60. At most MAX_PINGS pings in all. Raises ValueError naming the bad argument.
    """
    if not isinstance(targets, (list, tuple)):
        raise ValueError("targets must be a list of addresses, got %r" % (targets,))
    targets = [check_target(t) for t in targets]
    if not targets:
        raise ValueError("targets is empty, got []")
    for name, value, low, high in (("count", count, 1, MAX_PINGS), ("interval_ms", interval_ms, 0, 10000),
                                   ("timeout_s", timeout_s, 1, 60)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError("%s must be a whole number %d-%d, got %r" % (name, low, high, value))
    if count * len(targets) > MAX_PINGS:
        raise ValueError("count x targets must be at most %d pings, got %d" % (MAX_PINGS, count * len(targets)))
    lines = [
        pause_snippet(interval_ms).rstrip("\n"),
        "echo \"interval_ms $interval_ms_\"",
        "jobs_=''",
        "round_=0",
        "while [ \"$round_\" -lt %d ]; do" % count,
        "  for t_ in %s; do" % " ".join(shlex.quote(t) for t in targets),
        "    ping -c 1 -W %d -q \"$t_\" >/dev/null 2>&1 &" % timeout_s,
        "    jobs_=\"$jobs_ $t_=$!\"",
        "    nap_",
        "  done",
        "  round_=$((round_ + 1))",
        "done",
        "for j_ in $jobs_; do wait \"${j_#*=}\"; echo \"${j_%=*} $?\"; done",
    ]
    return "\n".join(lines) + "\n"


def parse_ping_burst(text: str) -> dict:
    """Read the script's output into counts and the pause it used.

    ``"interval_ms 200\\n10.0.0.1 0\\n10.0.0.1 1\\n10.0.0.2 2\\n"`` →
    ``{"interval_ms": 200, "sent": 3, "replied": 1, "lost": 1, "errors": 1, "failed_pings": 2,
    "targets": {"10.0.0.1": {"sent": 2, "replied": 1, "lost": 1, "errors": 0},
    "10.0.0.2": {"sent": 1, "replied": 0, "lost": 0, "errors": 1}}}``.
    ``failed_pings`` = lost + errors, which is what mwan3track counts as failed checks; ``interval_ms``
    is None for output without its line (a script of an earlier version). Raises
    ParseError for a line that is not ``<target> <exit status>`` or for empty output (the burst
    ran no ping at all).
    """
    totals = {"sent": 0, "replied": 0, "lost": 0, "errors": 0}
    targets = {}
    interval_ms = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        if fields[0] == "interval_ms" and len(fields) == 2 and fields[1].isdigit() and interval_ms is None:
            interval_ms = int(fields[1])
            continue
        if len(fields) != 2 or not fields[1].isdigit():
            raise ParseError("ping burst output line %d is not '<target> <exit status>': %r" % (number, line))
        target, status = fields[0], int(fields[1])
        key = "replied" if status == 0 else "lost" if status == 1 else "errors"
        entry = targets.setdefault(target, {"sent": 0, "replied": 0, "lost": 0, "errors": 0})
        for counts in (entry, totals):
            counts["sent"] += 1
            counts[key] += 1
    if not totals["sent"]:
        raise ParseError("the ping burst printed no result (no ping ran)")
    return dict(totals, failed_pings=totals["lost"] + totals["errors"], targets=targets, interval_ms=interval_ms)
