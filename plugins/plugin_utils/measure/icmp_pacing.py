# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pace of a ping prober inside a router's ICMP limiter, so the prober cannot be the cause of what it measures.

Shared by every prober that pings through an OpenWrt router: the banIP fault's probe (health_check_measure, after
its passive window: faults/banip_icmp/rule.py; the filter health_check_probe) and the PMTU fault's ladders
(faults/path_mtu/measure.py, the action path_mtu_ladder). Which limiter is in force, and its rate, is banIP's own
knowledge (``faults/banip_icmp/limiter.banip_limiter``: the loaded ``inet banIP`` ICMP rule, or None); this file only
paces inside it. The pause itself is measure/pause.py's.

The limiter is a token bucket: ``rate`` tokens/s (the limit L), at most ``burst`` B tokens (nft's default 5), one per
packet, a packet over it dropped. A prober sends one-shot pings one after another, ``interval`` apart; their replies
come back as far apart. With ``interval >= 1000 / (L x PROBE_SHARE_OF_LIMIT)`` ms (PROBE_SHARE_OF_LIMIT = 1/5: 200 ms
at 25/s, 500 ms at 10/s) the prober takes a fifth of the rate, and the token a reply takes is back after a fifth of
the interval: the prober alone never holds more than 1 of the B tokens. A reply dropped therefore means the router's
other ICMP took the rest of the bucket at that moment (``probe_interval_ms`` gives the interval, never shorter than
the one the caller wants).
"""

from __future__ import annotations

import math

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import MAX_INTERVAL_MS

# The prober's rate: at most this share of the limiter's rate (module doc)
PROBE_SHARE_OF_LIMIT = 0.2


def probe_interval_ms(limit, wanted_interval_ms) -> dict:
    """The pause between a prober's one-shot pings: ``wanted_interval_ms``, longer where the limiter needs it (module doc).

    ``limit``: the ICMP limiter the replies pass, ``{"rate_per_second": L, "burst_packets": B, ...}`` (``banip_limiter``'s
    rule), or None where none is in force; ``wanted_interval_ms``: the caller's interval, a whole number 0-10000 (an int
    or a string of digits). -> ``{"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25, "burst_packets": 5}``
    for a 25/s limit and 100 ms wanted; without a limit the wanted interval, limit and burst None. ``rate_per_second`` is
    None for 0 ms. Raises ValueError naming ``wanted_interval_ms`` when it is not a whole number 0-10000.
    """
    wanted = wanted_interval_ms
    if isinstance(wanted, str) and wanted.strip().isdigit():
        wanted = int(wanted.strip())
    if isinstance(wanted, bool) or not isinstance(wanted, int) or not 0 <= wanted <= MAX_INTERVAL_MS:
        raise ValueError("wanted_interval_ms must be a whole number 0-%d, got %r" % (MAX_INTERVAL_MS, wanted_interval_ms))
    interval = wanted
    if limit:
        interval = max(wanted, int(math.ceil(1000.0 / (limit["rate_per_second"] * PROBE_SHARE_OF_LIMIT))))
    return {"interval_ms": interval, "rate_per_second": round(1000.0 / interval, 3) if interval else None,
            "limit_per_second": limit["rate_per_second"] if limit else None, "burst_packets": limit["burst_packets"] if limit else None}
