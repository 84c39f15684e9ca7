# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse link and route text from tools without JSON: ``ip link show`` and BusyBox ``route -n``.

Formats: iproute2-6.1.0 ``ip link show [DEV]`` (keys named as ``ip -j link`` names them) and
BusyBox 1.35.0 ``route -n`` (the net-tools column layout). Routes come out in the same dict
shape as ``_route.parse_ip_route_show`` so ``_route.find_host_route`` works on them.
Pure functions, no I/O.
"""

from __future__ import annotations

import ipaddress
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import _normalise

_LINK = re.compile(r"^(?P<ifindex>\d+): (?P<ifname>[^:@\s]+)(?:@(?P<link>[^:\s]+))?: <(?P<flags>[^>]*)>(?P<rest>.*)$")
# "mtu 1280 qdisc fq_codel state UNKNOWN mode DEFAULT group default qlen 500": keyword → (key, is_int)
_LINK_FIELDS = {"mtu": ("mtu", True), "qdisc": ("qdisc", False), "master": ("master", False),
                "state": ("operstate", False), "mode": ("linkmode", False), "group": ("group", False),
                "qlen": ("txqlen", True)}
_KIND_HINTS = {"none": "l3_tunnel", "loopback": "loopback", "ether": "ether"}
_ROUTE_HEADER = ["Destination", "Gateway", "Genmask", "Flags", "Metric", "Ref", "Use", "Iface"]


def _link_fields(link, rest, where):
    tokens = rest.split()
    for index in range(0, len(tokens) - 1):
        field = _LINK_FIELDS.get(tokens[index])
        if field is None:
            continue
        key, is_int = field
        value = tokens[index + 1]
        if is_int:
            if not value.isdigit():
                raise ParseError("%s: %s must be an integer, got %r" % (where, tokens[index], value))
            value = int(value)
        link[key] = value


def parse_ip_link(text: str) -> list:
    """Parse ``ip link show [DEV]`` into one dict per link, in the order printed.

    Input (case 12)::

        9: tailscale0: <POINTOPOINT,MULTICAST,NOARP,UP,LOWER_UP> mtu 1280 qdisc fq_codel state UNKNOWN mode DEFAULT group default qlen 500
            link/none

    Output::

        [{"ifindex": 9, "ifname": "tailscale0",
          "link": None,                  # the peer after '@' (veth, VLAN parent), or None
          "flags": ["POINTOPOINT", "MULTICAST", "NOARP", "UP", "LOWER_UP"],
          "mtu": 1280, "qdisc": "fq_codel",
          "master": None,                # the bridge of a bridge port ("br-lan")
          "operstate": "UNKNOWN",        # UP, DOWN, UNKNOWN (TUN devices), ...
          "linkmode": "DEFAULT", "group": "default", "txqlen": 500,
          "link_type": "none",           # from "link/none"; "ether", "loopback", ...
          "address": None, "broadcast": None,
          "kind_hint": "l3_tunnel"}]     # link/none: TUN (tailscale0, wireguard-go) or WireGuard

    Fields not printed are None. ``kind_hint`` is ``l3_tunnel`` (``link/none``), ``loopback``,
    ``ether`` (bridges, ports, veth: ``ip -d link`` tells them apart) or None.
    Raises ParseError naming the line for an indented line before any link, a line that is
    not ``N: NAME: <FLAGS> ...``, or a non-numeric mtu/qlen.
    """
    if not isinstance(text, str):
        raise ParseError("ip link output must be text, got %s" % type(text).__name__)
    links = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = "ip link line %d" % lineno
        if line[:1].isspace():
            if not links:
                raise ParseError("%s: detail line before any link: %r" % (where, line[:200]))
            tokens = line.split()
            if tokens[0].startswith("link/"):
                link = links[-1]
                link["link_type"] = tokens[0][len("link/"):]
                link["kind_hint"] = _KIND_HINTS.get(link["link_type"])
                if len(tokens) > 1:
                    link["address"] = tokens[1]
                if len(tokens) > 3 and tokens[2] in ("brd", "peer"):
                    link["broadcast"] = tokens[3]
            continue  # altname, -d details, statistics: not needed here
        match = _LINK.match(line)
        if not match:
            raise ParseError("%s: expected 'INDEX: NAME: <FLAGS> mtu ...', got %r" % (where, line[:200]))
        link = {"ifindex": int(match.group("ifindex")), "ifname": match.group("ifname"), "link": match.group("link"),
                "flags": [flag for flag in match.group("flags").split(",") if flag]}
        for key, _is_int in _LINK_FIELDS.values():
            link[key] = None
        link.update({"link_type": None, "address": None, "broadcast": None, "kind_hint": None})
        _link_fields(link, match.group("rest"), where)
        links.append(link)
    return links


def _route_dst(destination, genmask, where):
    if destination in ("default", "0.0.0.0") and genmask == "0.0.0.0":
        return "default"
    try:
        network = ipaddress.ip_network("%s/%s" % (destination, genmask))
    except ValueError:
        raise ParseError("%s: %r/%r is not a destination and netmask" % (where, destination, genmask)) from None
    if network.prefixlen == 32:
        return str(network.network_address)  # iproute2 prints host routes without /32
    return str(network)


def parse_busybox_route(text: str) -> list:
    """Parse BusyBox ``route -n`` (IPv4) into routes shaped like ``_route.parse_ip_route_show``'s.

    Input (case 01, OpenWrt 18.06 edge: the endpoint's /32 via the router's own LAN address)::

        Kernel IP routing table
        Destination     Gateway         Genmask         Flags Metric Ref    Use Iface
        0.0.0.0         192.0.2.1       0.0.0.0         UG    0      0        0 eth0.2
        203.0.113.10    192.168.10.1    255.255.255.255 UGH   0      0        0 br-lan

    Output::

        [{"dst": "default", "type": "unicast", "dev": "eth0.2", "gateway": "192.0.2.1",
          "prefsrc": None, "protocol": None, "scope": None, "table": "main", "metric": None,
          "flags": [], "nexthops": [], "family": "inet"},
         {"dst": "203.0.113.10", "gateway": "192.168.10.1", "dev": "br-lan", ...}]

    As iproute2 prints them: ``0.0.0.0/0`` is ``"default"``, a /32 has no suffix, gateway
    ``0.0.0.0`` (``*`` without ``-n``) is None, metric 0 is None. ``route`` only reads the
    main table and does not show protocol, source or scope (None); a ``!`` (reject) flag gives
    type ``unreachable``. Empty output → ``[]``.

    Raises ParseError naming the line for a missing or different column header (``route -n
    -A inet6`` is not supported), a row without 8 columns, a bad netmask or a non-numeric
    metric.
    """
    if not isinstance(text, str):
        raise ParseError("route -n output must be text, got %s" % type(text).__name__)
    routes = []
    header_seen = False
    for lineno, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        where = "route -n line %d" % lineno
        if not tokens or line.startswith("Kernel IP routing table"):
            continue
        if not header_seen:
            if tokens != _ROUTE_HEADER:
                raise ParseError("%s: expected the header %r, got %r" % (where, " ".join(_ROUTE_HEADER), line[:200]))
            header_seen = True
            continue
        if len(tokens) != len(_ROUTE_HEADER):
            raise ParseError("%s: expected %d columns, got %r" % (where, len(_ROUTE_HEADER), line[:200]))
        destination, gateway, genmask, flags, metric, _ref, _use, iface = tokens
        if not metric.isdigit():
            raise ParseError("%s: metric must be an integer, got %r" % (where, metric))
        entry = {"dst": _route_dst(destination, genmask, where), "dev": iface,
                 "gateway": None if gateway in ("0.0.0.0", "*") else gateway,
                 "metric": int(metric) or None,
                 "type": "unreachable" if "!" in flags else "unicast"}
        routes.append(_normalise(entry, where, "main"))
    return routes
