# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which route carries traffic to a WireGuard endpoint, and is it a pinned host route."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import find_host_route


def _contains(route, address):
    """``(whether route's dst holds address, its prefix length)``; a ``default`` of the other family holds nothing."""
    if route.get("dst") == "default":
        return route.get("family") in (None, "inet6" if address.version == 6 else "inet"), 0
    network = ipnet.network(route.get("dst", ""))
    if network is None:
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
    and is not a kernel route. Unknown values are None: an IPv6 ``address`` against IPv4 routes
    (``ip route show`` without ``-6``) has no ``dst``, ``protocol`` or ``metric``, the IPv4
    default route is not its route. Overlapping prefixes: the longest one holding the address
    wins (``10.1.0.0/16`` over ``10.0.0.0/8``), the first listed among equals.
    Raises ParseError when ``address`` is not an IP address.
    """
    addr = ipnet.address(address)
    if addr is None:
        raise ParseError("describe_endpoint_route: %r is not an IP address" % (address,))
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
        inside, prefixlen = _contains(route, addr)
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
