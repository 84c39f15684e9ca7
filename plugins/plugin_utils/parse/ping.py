# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse the summary of iputils ``ping`` (and BusyBox ping)."""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# iputils prints ", +N duplicates", ", +N corrupted" and ", +N errors" in that order, each only when not 0
# (ping_common.c, finish()).
_COUNTS = re.compile(r"(\d+) packets transmitted, (\d+) (?:packets )?received"
                     r"(?:, \+\d+ duplicates)?(?:, \+\d+ corrupted)?(?:, \+(\d+) errors)?.*?, ([\d.]+)% packet loss")
_RTT = re.compile(r"(?:rtt|round-trip) min/avg/max(?:/mdev)? = ([\d.]+)/([\d.]+)/([\d.]+)")


def parse_ping_summary(text):
    """Read the statistics lines of ``ping -c N`` output.

    Input (iputils-ping 20221126, Debian 12)::

        4 packets transmitted, 4 received, 0% packet loss, time 612ms
        rtt min/avg/max/mdev = 0.039/0.210/0.723/0.295 ms

    Output: ``{"packets_transmitted": 4, "packets_received": 4, "errors": 0,
    "loss_percent": 0.0, "rtt_min_ms": 0.039, "rtt_avg_ms": 0.21, "rtt_max_ms": 0.723}``;
    the rtt keys are None when nothing came back. BusyBox prints ``round-trip min/avg/max``
    and ``packets received``, which is accepted too.

    Raises ParseError when the statistics line is missing (ping did not run, bad address), and
    for a summary that cannot be true: more received than transmitted, or a loss above 100 %.
    """
    text = text or ""
    counts = _COUNTS.search(text)
    if not counts:
        raise ParseError("no ping statistics line in output: %r" % text[:200])
    transmitted, received, loss = int(counts.group(1)), int(counts.group(2)), float(counts.group(4))
    if received > transmitted or loss > 100:
        raise ParseError("impossible ping statistics (%d transmitted, %d received, %g%% loss): %r"
                         % (transmitted, received, loss, counts.group(0)[:200]))
    rtt = _RTT.search(text)
    return {
        "packets_transmitted": transmitted,
        "packets_received": received,
        "errors": int(counts.group(3) or 0),
        "loss_percent": loss,
        "rtt_min_ms": float(rtt.group(1)) if rtt else None,
        "rtt_avg_ms": float(rtt.group(2)) if rtt else None,
        "rtt_max_ms": float(rtt.group(3)) if rtt else None,
    }
