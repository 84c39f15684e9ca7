# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's routes: netifd's pinned host routes to an endpoint, apart from the routes a user's ``config route`` asks for.

Pure functions, no I/O. Inputs are already parsed: ``parse/uci.parse_uci_show`` of the ``network``
config, and routes from ``parse/route.parse_ip_route_show`` (``ip -j route show table all``) or
``parse_ip_route_show_text`` (its text form); both give the same route dicts.

Background (OpenWrt's wireguard proto handler, netifd ``interface_ip_add_target_route``): unless
``option nohostroute '1'``, every peer endpoint gets a /32 (/128) copied from the best route at
the moment the interface starts, attached to the *uplink*, so it outlives ``ifdown wg0`` and
mwan3 failovers (``find_pinned_routes``). A user's ``config route`` to the endpoint (the /32 or a
prefix holding it) is installed by netifd too, ``proto static`` like its own host route: only uci
tells them apart (``route_section``). The user's route is kept, never deleted; when it still sends
the endpoint over another uplink it is a conflict (``user_route_conflict``), reported for the user to resolve.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import route_network
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_bool, parse_uci_int

_SHORT_ROUTE_KEYS = ("dst", "gateway", "dev", "table", "protocol", "metric")

# protos whose layer-3 device netifd names PROTO-INTERFACE (pppoe-wan); others (qmi, ncm, mbim, ...) name it at run time
_PPP_PROTOS = ("ppp", "pppoe", "pppoa", "pptp", "l2tp", "3g")
# protos whose layer-3 device is the uci device option itself
_DEVICE_PROTOS = (None, "static", "dhcp", "dhcpv6", "none")
# the main table as a route or a uci section names it (none: main)
MAIN_TABLES = (None, "main", "254")


def short_route(route):
    """A route as the results show it: ``dst``, ``gateway``, ``dev``, ``table``, ``protocol``, ``metric`` (None stays None)."""
    return None if route is None else {key: route.get(key) for key in _SHORT_ROUTE_KEYS}


def interface_devices(network: dict, name):
    """The layer-3 device names of uci interface ``name``, or None when the config cannot tell.

    ``static``/``dhcp`` (and no proto): its ``device`` (or ``ifname``), ``wan`` → ``{"eth1"}``;
    ``pppoe`` and the other ppp protos: ``pppoe-wan`` (netifd's name); a modem proto (``qmi``,
    ``ncm``, ``mbim``, ...) or a ``/dev/...`` device: None, its device is only known at run time.
    """
    section = network.get(name)
    if not section or section.get("type") != "interface":
        return None
    options = section.get("options", {})
    proto = options.get("proto")
    if proto in _PPP_PROTOS:
        return {"%s-%s" % (proto, name)}
    device = options.get("device") or options.get("ifname")
    if proto not in _DEVICE_PROTOS or not isinstance(device, str) or not device or device.startswith("/"):
        return None
    return {device}


def _readable(parse, value):
    """``parse(value)``, or None where it raises ParseError (an option netifd would drop; its error is not shown)."""
    try:
        return parse(value)
    except ParseError:
        return None


def configured_routes(network: dict) -> list:
    """The ``config route`` and ``config route6`` sections of ``network`` that netifd installs, in file order.

    ``network.wg_endpoint=route`` with ``interface='wan'``, ``target='203.0.113.10'``,
    ``netmask='255.255.255.255'``, ``gateway='192.0.2.1'``, ``metric='30'`` →
    ``[{"section": "wg_endpoint", "target": "203.0.113.10/32", "interface": "wan", "gateway": "192.0.2.1",
    "metric": 30, "table": None}]``.

    The target is ``target`` with ``netmask`` (dotted or a length) or a prefix; without either a host
    route, as netifd reads it (interface_ip_add_route). ``metric`` is the section's, else its
    interface's (netifd's interface_set_route_info), else None. A ``disabled`` section and one netifd
    cannot read (no or a bad target) are left out, as netifd leaves them out. An option netifd cannot
    convert (a ``metric`` that is not a whole number, a ``disabled`` that is not a boolean) is dropped
    as netifd's uci-to-blob conversion drops it: the route is still installed, so one bad option never
    fails the router's facts.
    """
    found = []
    for name, section in network.items():
        if section.get("type") not in ("route", "route6"):
            continue
        options = section.get("options", {})
        if _readable(parse_uci_bool, options.get("disabled")):
            continue
        target, netmask = options.get("target"), options.get("netmask")
        if not isinstance(target, str):
            continue
        spec = target if netmask is None or "/" in target else "%s/%s" % (target, netmask)
        net = ipnet.network(spec)
        if net is None:
            continue
        if (section["type"] == "route6") != (net.version == 6):
            continue
        interface = options.get("interface")
        metric = _readable(parse_uci_int, options.get("metric"))
        if metric is None and isinstance(interface, str) and (network.get(interface) or {}).get("type") == "interface":
            metric = _readable(parse_uci_int, network[interface].get("options", {}).get("metric"))
        found.append({"section": name, "target": str(net), "interface": interface if isinstance(interface, str) else None,
                      "gateway": options.get("gateway") if isinstance(options.get("gateway"), str) else None,
                      "metric": metric, "table": options.get("table") if isinstance(options.get("table"), str) else None})
    return found


def _same_address(first, second):
    parsed = ipnet.address(first)
    return parsed is not None and parsed == ipnet.address(second)


def _same_metric(expected, printed, version):
    """netifd's metric 0 is the kernel's default: printed as none (IPv4) or 1024 (IPv6)."""
    defaults = (None, 0, 1024) if version == 6 else (None, 0)
    if expected in (None, 0):
        return printed in defaults
    return printed == expected


def route_section(route, sections, network):
    """The ``configured_routes`` entry that installed ``route`` (a parsed kernel route), or None: a route no ``config route`` asks for.

    netifd installs a user's route and its own host route to an endpoint alike (``proto static``), so
    uci is what tells them apart: same destination prefix, and the section's gateway, metric (its
    own or its interface's), table and its interface's device where uci names them. A route of the
    ``kernel`` protocol is never a section's.
    """
    if route.get("protocol") == "kernel" or route.get("type", "unicast") != "unicast":
        return None
    net = route_network(route)
    if net is None:
        return None
    for section in sections:
        if ipnet.network(section["target"]) != net:
            continue
        if section["gateway"] and not _same_address(section["gateway"], route.get("gateway")):
            continue
        if not _same_metric(section["metric"], route.get("metric"), net.version):
            continue
        if section["table"] not in MAIN_TABLES and str(route.get("table")) != section["table"]:
            continue
        devices = interface_devices(network, section["interface"])
        if devices is not None and route.get("dev") not in devices:
            continue
        return section
    return None


def user_routes_to(network: dict, routes, address, sections=None) -> list:
    """The configured routes (``configured_routes``) whose target holds ``address``, most specific first.

    Each is the section's entry plus ``installed``: the kernel route it put in place
    (``short_route``), or None (its interface is down, or the route was deleted by hand). A
    default route (``0.0.0.0/0``) is not a route to the endpoint and is left out. ``address`` must
    be an IP address (ParseError otherwise).
    """
    wanted = endpoint_address(address)
    if wanted is None:
        raise ParseError("user_routes_to: %r is not an IP address" % (address,))
    sections = configured_routes(network) if sections is None else sections
    found = []
    for section in sections:
        net = ipnet.network(section["target"])
        if net.prefixlen == 0 or wanted not in net:
            continue
        installed = next((route for route in routes if route_section(route, [section], network) is section), None)
        found.append(dict(section, installed=short_route(installed)))
    return sorted(found, key=lambda entry: -ipnet.network(entry["target"]).prefixlen)


def user_route_conflict(user_routes, address, preferred_device):
    """The configured route that carries ``address`` once netifd's host routes are gone, when it leaves through another device.

    ``user_routes``: ``user_routes_to`` of the address. Only installed routes of the main table count
    (the router's own packets follow it): the most specific wins, then the lowest metric. Returns
    ``{"section", "target", "interface", "dev", "gateway", "message"}`` when that route's device is not
    ``preferred_device``; None when the preferred device is unknown, no configured route is installed,
    or the winner uses the preferred device.
    """
    if not preferred_device:
        return None
    installed = [entry for entry in user_routes or [] if entry.get("installed")
                 and entry["installed"].get("table") in MAIN_TABLES]
    if not installed:
        return None
    winner = min(installed, key=lambda entry: (-ipnet.network(entry["target"]).prefixlen,
                                               entry["installed"].get("metric") or 0))
    dev = winner["installed"].get("dev")
    if dev == preferred_device:
        return None
    message = ("the config route section %s (target %s%s) sends %s through %s, not the preferred uplink %s: a route "
               "you configured, kept as it is; point it at the preferred uplink or delete it (uci delete network.%s)"
               % (winner["section"], winner["target"],
                  ", interface %s" % winner["interface"] if winner.get("interface") else "", address, dev,
                  preferred_device, winner["section"]))
    return {"section": winner["section"], "target": winner["target"], "interface": winner.get("interface"),
            "dev": dev, "gateway": winner["installed"].get("gateway"), "message": message}


def find_pinned_routes(routes, address, network=None) -> list:
    """Return every unicast, non-kernel host route (/32, /128) to ``address`` with a device, any table.

    With ``network`` (the parsed uci config) the routes a ``config route`` section asks for
    (``route_section``) are left out: what remains is netifd's pinned host route (or one added by
    hand), never the user's. The result is what ``plan.route_delete_argv`` turns into an exact
    ``ip route del``: destination, gateway, device (and table when not main) as listed.
    """
    wanted = endpoint_address(address)
    if wanted is None:
        raise ParseError("find_pinned_routes: %r is not an IP address" % (address,))
    sections = configured_routes(network) if network else []
    found = []
    for route in routes:
        if route.get("type", "unicast") != "unicast" or route.get("protocol") == "kernel" or not route.get("dev"):
            continue
        if sections and route_section(route, sections, network) is not None:
            continue
        net = route_network(route)
        if net is not None and net.size == 1 and net.ip == wanted:
            found.append(route)
    return found
