# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which route carries traffic to a WireGuard endpoint, and is it a pinned host route."""

from __future__ import annotations

import ipaddress

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import find_host_route


def _contains(dst, address):
    if dst == "default":
        return True, 0
    try:
        network = ipaddress.ip_network(dst, strict=False)
    except ValueError:
        return False, -1
    return address in network, network.prefixlen


def describe_endpoint_route(used, routes, address):
    """Describe the route used to reach ``address``.

    ``used`` is ``parse_ip_route_get()`` output (what the kernel chose: dev, gateway, table),
    ``routes`` is ``parse_ip_route_show()`` output for ``ip -j route show table all``.
    The chosen route's protocol and metric are taken from the longest-prefix route in the same
    table whose device (and gateway, where set) match what ``ip route get`` reported.

    Returns ``{"dev", "gateway", "protocol", "table", "metric", "dst", "static_host_route": bool,
    "host_route": dict|None}``; ``host_route`` is the /32 (/128) route for the endpoint if one
    exists in any table (netifd adds one with ``proto static`` when an interface starts, see
    OpenWrt's proto_add_host_dependency), ``static_host_route`` is true when that route exists
    and is not a kernel route. Unknown values are None.
    """
    addr = ipaddress.ip_address(address)
    table = used.get("table") or "main"
    best = None
    best_len = -1
    for route in routes:
        if (route.get("table") or "main") != table or route.get("type", "unicast") != "unicast":
            continue
        if route.get("dev") != used.get("dev"):
            continue
        if used.get("gateway") and route.get("gateway") not in (None, used.get("gateway")):
            continue
        inside, prefixlen = _contains(route.get("dst", ""), addr)
        if inside and prefixlen > best_len:
            best, best_len = route, prefixlen
    host_route = find_host_route(routes, address)
    return {
        "dev": used.get("dev"),
        "gateway": used.get("gateway"),
        "table": table,
        "dst": best.get("dst") if best else None,
        "protocol": best.get("protocol") if best else None,
        "metric": best.get("metric") if best else None,
        "host_route": host_route,
        "static_host_route": bool(host_route) and host_route.get("protocol") != "kernel",
    }
