# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse iproute2 routes: ``ip -j route show``/``ip -j route get`` (preferred) and their text form.

Format: iproute2-6.1.0 ``ip -json route`` (see ip-route(8)); the plain-text parsers cover the
same fields for hosts whose ``ip`` has no ``-j`` (BusyBox ``ip``, old OpenWrt ``ip-tiny``).
Both produce the same normalised route dict. Pure functions, no I/O.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.target_json import NotJSON, load_target_json

ROUTE_TYPES = ("unicast", "local", "broadcast", "multicast", "unreachable", "blackhole", "prohibit",
               "throw", "nat", "anycast")
# ip route text keywords followed by a value, and the key they fill
_TEXT_VALUE_KEYS = {
    "via": "gateway", "dev": "dev", "proto": "protocol", "scope": "scope", "src": "prefsrc",
    "metric": "metric", "table": "table", "uid": "uid", "from": "from", "pref": "pref",
    "weight": "weight", "mtu": "mtu", "advmss": "advmss", "expires": "expires", "realm": "realm",
    "realms": "realms", "tos": "tos", "dsfield": "tos", "iif": "iif", "oif": "oif", "nhid": "nhid",
    "error": "error", "hoplimit": "hoplimit", "initcwnd": "initcwnd", "initrwnd": "initrwnd",
    "rtt": "rtt", "rttvar": "rttvar", "ssthresh": "ssthresh", "window": "window", "cwnd": "cwnd",
    "lock": "lock", "congctl": "congctl", "features": "features", "quickack": "quickack",
    "fastopen_no_cookie": "fastopen_no_cookie", "mark": "mark", "ipproto": "ipproto",
    "sport": "sport", "dport": "dport",
}


def _family(route):
    for key in ("dst", "gateway", "prefsrc"):
        value = route.get(key)
        if value and value != "default":
            return "inet6" if ":" in value else "inet"
    for hop in route.get("nexthops") or []:
        if hop.get("gateway"):
            return "inet6" if ":" in hop["gateway"] else "inet"
    return None


def _metric(value, where, name="metric"):
    """``value`` as an int (None stays None); ParseError naming ``where`` and the field ``name`` otherwise."""
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ParseError("%s: %s must be an integer, got %r" % (where, name, value)) from None


def _normalise(entry, where, default_table):
    if not isinstance(entry, dict) or not isinstance(entry.get("dst"), str):
        raise ParseError("%s: expected a route object with a 'dst', got %r" % (where, entry))
    nexthops = []
    for hop in entry.get("nexthops") or []:
        nexthops.append({"gateway": hop.get("gateway"), "dev": hop.get("dev"),
                         "weight": _metric(hop.get("weight"), where)})
    route = {
        "dst": entry["dst"],
        "type": entry.get("type") or "unicast",
        "dev": entry.get("dev"),
        "gateway": entry.get("gateway"),
        "prefsrc": entry.get("prefsrc"),
        "protocol": entry.get("protocol"),
        "scope": entry.get("scope"),
        "table": str(entry["table"]) if entry.get("table") is not None else default_table,
        "metric": _metric(entry.get("metric"), where),
        "flags": list(entry.get("flags") or []),
        "nexthops": nexthops,
    }
    if "uid" in entry:
        route["uid"] = _metric(entry.get("uid"), where)
    if "from" in entry:
        route["from"] = entry["from"]
    # only IPv6 routes carry a router preference (RTA_PREF): it tells a gateway-less "default dev wg0" apart
    route["family"] = _family(route) or ("inet6" if entry.get("pref") else None)
    return route


def _load_json(text, command):
    if not isinstance(text, str):
        raise ParseError("%s output must be text, got %s" % (command, type(text).__name__))
    if not text.strip():
        return []
    try:
        data = load_target_json(text, command)
    except NotJSON:
        raise ParseError("%s output is not JSON (is `-j` supported by this ip?): %r" % (command, text[:200])) from None
    if not isinstance(data, list):
        raise ParseError("%s output must be a JSON list, got %s" % (command, type(data).__name__))
    return data


def parse_ip_route_show(text: str, default_table: str = "main") -> list:
    """Parse ``ip -j route show [table all]`` into a list of normalised routes.

    Input (iproute2-6.1.0)::

        [{"dst":"default","gateway":"192.0.2.1","dev":"eth1","protocol":"static",
          "prefsrc":"192.0.2.20","metric":10,"flags":[]},
         {"dst":"203.0.113.10","gateway":"198.51.100.1","dev":"wwan0","protocol":"static","metric":20,"flags":[]}]

    Output, one dict per route in the order printed::

        [{"dst": "default",          # "default", "203.0.113.10" (host, no /32) or "10.0.0.0/24"
          "type": "unicast",         # iproute2 omits it for unicast; local, unreachable, ...
          "dev": "eth1",             # None for unreachable/blackhole and multipath routes
          "gateway": "192.0.2.1",    # None when on-link
          "prefsrc": "192.0.2.20", "protocol": "static",   # None when not printed (boot)
          "scope": None,
          "table": "main",           # "main" when not printed; numbers as strings ("1")
          "metric": 10,              # None when not printed (IPv4 metric 0)
          "flags": [], "nexthops": [],   # multipath: [{"gateway", "dev", "weight"}]
          "family": "inet"},         # "inet"/"inet6" (from an address, or an IPv6 "pref"), None if it cannot be told
         ...]

    iproute2 omits the table it was asked for, so ``table`` falls back to ``default_table``:
    right as "main" for ``ip route show`` and ``... table all``; pass ``default_table="3"`` for
    the output of ``ip -j route show table 3``.

    Empty output or ``[]`` → ``[]``. Raises ParseError for non-JSON text (first 200 characters
    quoted), hostile JSON (too deep, huge numbers: ``_target_json``), JSON that is not a list, or an
    entry without ``dst``.
    """
    return [_normalise(entry, "route %d" % index, default_table)
            for index, entry in enumerate(_load_json(text, "ip -j route show"), 1)]


def parse_ip_route_get(text: str) -> dict:
    """Parse ``ip -j route get ADDRESS`` into the route the kernel would use (first entry).

    ``[{"dst":"203.0.113.10","gateway":"198.51.100.1","dev":"wwan0","prefsrc":"198.51.100.20",
    "flags":[],"uid":0,"cache":[]}]`` →
    ``{"dst": "203.0.113.10", "dev": "wwan0", "gateway": "198.51.100.1", "prefsrc":
    "198.51.100.20", "table": None, "uid": 0, "type": "unicast", "protocol": None, "scope": None,
    "metric": None, "flags": [], "nexthops": [], "family": "inet"}``

    Same keys as parse_ip_route_show, except ``table`` is None unless iproute2 printed one
    (``ip route get`` names the table only when it is not main), plus ``uid`` (int, IPv4) and
    ``from`` (IPv6) when printed. Format: iproute2-6.1.0 ``ip -json route get``.
    Raises ParseError for empty output or ``[]`` (no route: see ``ip``'s stderr, e.g.
    ``RTNETLINK answers: Network is unreachable``) and for non-JSON or hostile JSON text.
    """
    routes = _load_json(text, "ip -j route get")
    if not routes:
        raise ParseError("ip -j route get printed no route")
    return _normalise(routes[0], "ip -j route get", None)


def _parse_text_line(line, where):
    tokens = line.split()
    entry = {"flags": []}
    if tokens and tokens[0] in ROUTE_TYPES:
        entry["type"] = tokens.pop(0)
    if not tokens:
        raise ParseError("%s: no destination in %r" % (where, line[:200]))
    entry["dst"] = tokens.pop(0)
    _fill_text_fields(entry, tokens, where)
    return entry


def _fill_text_fields(entry, tokens, where):
    index = 0
    while index < len(tokens):
        word = tokens[index]
        if word in _TEXT_VALUE_KEYS and index + 1 < len(tokens):
            entry[_TEXT_VALUE_KEYS[word]] = tokens[index + 1]
            index += 2
        else:
            entry["flags"].append(word)
            index += 1
    if "uid" in entry:
        entry["uid"] = _metric(entry["uid"], where, "uid")


def _parse_text(text, command, default_table):
    if not isinstance(text, str):
        raise ParseError("%s output must be text, got %s" % (command, type(text).__name__))
    entries = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = "line %d" % lineno
        if line[:1].isspace():  # continuation: "\tnexthop via ... dev ... weight 1" or "    cache"
            if not entries:
                raise ParseError("%s: continuation line before any route" % where)
            tokens = line.split()
            if tokens[0] == "nexthop":
                hop = {"flags": []}
                _fill_text_fields(hop, tokens[1:], where)
                entries[-1].setdefault("nexthops", []).append(hop)
            continue  # "cache ..." of ip route get: route cache details, not needed
        entries.append(_parse_text_line(line, where))
    return [_normalise(entry, "route %d" % index, default_table) for index, entry in enumerate(entries, 1)]


def parse_ip_route_show_text(text: str, default_table: str = "main") -> list:
    """Parse plain ``ip route show [table all]`` text; same output as parse_ip_route_show.

    ``"default via 192.0.2.1 dev eth1 proto static src 192.0.2.20 metric 10 \\n"`` →
    ``[{"dst": "default", "type": "unicast", "dev": "eth1", "gateway": "192.0.2.1", "prefsrc":
    "192.0.2.20", "protocol": "static", "scope": None, "table": "main", "metric": 10, "flags": [],
    "nexthops": [], "family": "inet"}]``

    Format: iproute2-6.1.0 ``ip route show`` (ip-route(8)); multipath ``nexthop`` lines attach
    to the route above them. Words that are not known keywords land in ``flags``
    (``onlink``, ``linkdown``). Use the JSON parser where ``ip -j`` works.
    Raises ParseError for a continuation line before any route or a non-numeric metric.
    """
    return _parse_text(text, "ip route show", default_table)


def parse_ip_route_get_text(text: str) -> dict:
    """Parse plain ``ip route get ADDRESS`` text; same output as parse_ip_route_get.

    ``"203.0.113.10 via 198.51.100.1 dev wwan0 src 198.51.100.20 uid 0 \\n    cache \\n"`` →
    ``{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "prefsrc":
    "198.51.100.20", "uid": 0, "table": None, "flags": [], ...}``

    Format: iproute2-6.1.0 ``ip route get``. Raises ParseError for empty text.
    """
    routes = _parse_text(text, "ip route get", None)
    if not routes:
        raise ParseError("ip route get printed no route")
    return routes[0]


def route_network(route):
    """A parsed route's destination as a netaddr ``IPNetwork``, or None when it is no prefix.

    ``"203.0.113.10"`` → ``203.0.113.10/32``; ``"10.0.0.0/24"`` → itself; ``"default"`` →
    ``::/0`` for an IPv6 route (``family`` ``inet6``), else ``0.0.0.0/0`` (``ip route`` lists
    IPv4 unless given ``-6``, and a gateway-less IPv4 ``default dev wg0`` has no family).
    """
    dst = route.get("dst")
    if dst == "default":
        return ipnet.everything(6 if route.get("family") == "inet6" else 4)
    return ipnet.network(dst)


def find_host_route(routes, address, table=None):
    """Find the unicast host route (/32 or /128) for ``address`` in parsed routes.

    ``routes`` is a list from parse_ip_route_show (or _text); ``address`` an IPv4/IPv6 address
    string (``"203.0.113.10"``, ``"2001:db8:10::10"``, ``"[2001:db8:10::10]"``). A route matches
    when its ``dst`` is the address itself, ``address/32`` or ``address/128`` (any spelling:
    ``2001:db8:10:0::10``) and its type is unicast; with ``table`` (``"main"``, ``"1"``) only that
    table is searched. Returns the first match or None.

    ``find_host_route(routes, "203.0.113.10")`` →
    ``{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "protocol": "static",
    "metric": 20, "table": "main", ...}``

    Raises ParseError when ``address`` is not an IP address.
    """
    wanted = ipnet.address(str(address).strip("[]"))
    if wanted is None:
        raise ParseError("find_host_route: %r is not an IP address" % (address,))
    for route in routes:
        if route.get("type", "unicast") != "unicast":
            continue
        if table is not None and route.get("table") != table:
            continue
        network = ipnet.network(route.get("dst", ""))
        if network is not None and network.size == 1 and network.ip == wanted:
            return route
    return None


def default_routes(routes) -> list:
    """Return the unicast default routes (``default``, ``0.0.0.0/0``, ``::/0``), in input order.

    ``default_routes(parse_ip_route_show(text))`` →
    ``[{"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "metric": 10, "table": "main",
    ...}, {"dst": "default", "gateway": "198.51.100.1", "dev": "wwan0", "metric": 20, ...}]``

    A default route is one whose destination holds every address of its family: ``default``, or a
    ``/0`` however spelled (``0::/0``); the two halves ``0.0.0.0/1`` and ``128.0.0.0/1`` are two
    routes, not a default route. Routes of every table in the input are kept (filter on ``table``
    for policy routing such as mwan3); unreachable/blackhole defaults are left out. The kernel
    prefers the lowest ``metric``; None means the metric was not printed (0 for IPv4).
    """
    found = []
    for route in routes:
        network = route_network(route) if route.get("type", "unicast") == "unicast" else None
        if network is not None and network.prefixlen == 0:
            found.append(route)
    return found
