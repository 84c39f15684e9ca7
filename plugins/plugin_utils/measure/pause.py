# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pause between two probes of a remote sh script, made with what the target has (one snippet for every prober).

``pause_snippet(interval_ms)`` returns POSIX sh lines (BusyBox ash, dash, bash) that define ``nap_`` (one pause) and
set ``interval_ms_`` to the pause ``nap_`` really makes, in milliseconds, for the script to print:

1. ``usleep`` where there is one (``interval_ms`` exactly);
2. else ``sleep`` with a fraction where it takes one (coreutils; BusyBox built with FLOAT_DURATION): exactly;
3. else ``sleep`` of whole seconds, rounded up, never down (``interval_ms_`` says so: 200 -> 1000).

Why the third: OpenWrt's BusyBox has neither ``usleep`` (USLEEP) nor a fractional ``sleep``
(FLOAT_DURATION), both off in openwrt/openwrt package/utils/busybox/Config-defaults.in @012feaa61f (a
BusyBox 1.36+ configuration; both were off in the older @ed3da77528 too), and so are ash's ``read -t``
fraction (FEATURE_SH_READ_FRAC) and its ``sleep`` builtin (ASH_SLEEP): BusyBox's ``sleep 0.2`` fails at
once ("invalid number", libbb/duration.c). Without the fallback a prober's pings all start together: a
flood of the kind banIP's ICMP limit drops, so the probe measures itself. Used by measure/ping_burst.py
and faults/path_mtu/ladder.py.
"""

from __future__ import annotations

MAX_INTERVAL_MS = 10000


def pause_snippet(interval_ms) -> str:
    """The sh lines (module doc) for a pause of ``interval_ms``, a whole number 0-MAX_INTERVAL_MS, ending in a newline.

    ``pause_snippet(200)`` sets ``interval_ms_=200`` and defines ``nap_`` as ``usleep 200000`` or ``sleep 0.200``,
    else ``interval_ms_=1000`` and ``sleep 1``. Raises ValueError naming ``interval_ms`` and the value otherwise.
    """
    if isinstance(interval_ms, bool) or not isinstance(interval_ms, int) or not 0 <= interval_ms <= MAX_INTERVAL_MS:
        raise ValueError("interval_ms must be a whole number 0-%d, got %r" % (MAX_INTERVAL_MS, interval_ms))
    whole_s = -(-interval_ms // 1000)
    # the else branch: no usleep and a sleep of whole seconds only (OpenWrt's BusyBox): the pause rounds up, never down
    return "\n".join([
        "interval_ms_=%d" % interval_ms,
        "if command -v usleep >/dev/null 2>&1; then",
        "  nap_() { usleep %d; }" % (interval_ms * 1000),
        "elif sleep 0.001 2>/dev/null; then",
        "  nap_() { sleep %d.%03d; }" % divmod(interval_ms, 1000),
        "else",
        "  interval_ms_=%d" % (whole_s * 1000),
        "  nap_() { sleep %d; }" % whole_s,
        "fi",
    ]) + "\n"
