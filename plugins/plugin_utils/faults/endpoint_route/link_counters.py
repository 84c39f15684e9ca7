# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each device's received and sent byte counters, from ``ip -s -j link show`` (the uplinks' evidence of fault 1).

``LINK_COUNTERS`` is the command (a step of the ``endpoint_routes`` reading, ``reads.py``); ``parse_link_counters``
a pure function, no I/O. Format: iproute2-6.1.0 ``ip -s -j link show``: one object per device, with
``stats64.rx.bytes`` and ``stats64.tx.bytes`` (the kernel's counters since the device was created;
``/sys/class/net/DEV/statistics/{rx,tx}_bytes`` hold the same numbers). BusyBox ``ip`` has no
``-s -j`` and prints its usage: the caller reports the counters unknown.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import load_ip_links

# every device's byte counters (the uplinks' evidence of fault 1); BusyBox ip has no -s -j
LINK_COUNTERS = ["ip", "-s", "-j", "link", "show"]
COMMAND = " ".join(LINK_COUNTERS)


def _bytes(value, where):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ParseError("%s: a byte counter must be a whole number >= 0, got %r" % (where, value))
    return value


def parse_link_counters(text: str) -> dict:
    """Parse ``ip -s -j link show`` into ``{device: {"rx_bytes": int, "tx_bytes": int}}``, in the order printed.

    ``[{"ifname": "eth1", ..., "stats64": {"rx": {"bytes": 1838, "packets": 19, ...}, "tx": {"bytes": 1838,
    ...}}}]`` → ``{"eth1": {"rx_bytes": 1838, "tx_bytes": 1838}}``. A device printed without
    ``stats64`` (an ``ip`` run without ``-s``) has None for both. Empty output or ``[]`` → ``{}``.

    Raises ParseError for output that is not a JSON list of links (``load_ip_links``; BusyBox
    ``ip`` prints usage), or naming the device for a counter that is not a whole number >= 0.
    """
    counters = {}
    for link in load_ip_links(text, COMMAND):
        name = link["ifname"]
        stats = link.get("stats64") if isinstance(link.get("stats64"), dict) else {}
        rx = stats.get("rx") if isinstance(stats.get("rx"), dict) else {}
        tx = stats.get("tx") if isinstance(stats.get("tx"), dict) else {}
        counters[name] = {"rx_bytes": _bytes(rx.get("bytes"), "%s rx bytes" % name),
                          "tx_bytes": _bytes(tx.get("bytes"), "%s tx bytes" % name)}
    return counters
