# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse link text from an ``ip`` without JSON: ``ip link show``.

Format: iproute2-6.1.0 ``ip link show [DEV]`` (keys named as ``ip -j link`` names them).
Pure functions, no I/O. (Routes in text form: plugin_utils/parse/route.py.)
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

_LINK = re.compile(r"^(?P<ifindex>\d+): (?P<ifname>[^:@\s]+)(?:@(?P<link>[^:\s]+))?: <(?P<flags>[^>]*)>(?P<rest>.*)$")
# "mtu 1280 qdisc fq_codel state UNKNOWN mode DEFAULT group default qlen 500": keyword → (key, is_int)
_LINK_FIELDS = {"mtu": ("mtu", True), "qdisc": ("qdisc", False), "master": ("master", False),
                "state": ("operstate", False), "mode": ("linkmode", False), "group": ("group", False),
                "qlen": ("txqlen", True)}
_KIND_HINTS = {"none": "l3_tunnel", "loopback": "loopback", "ether": "ether"}


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
