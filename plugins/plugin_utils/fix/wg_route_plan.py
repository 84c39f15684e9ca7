# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan the fix for WireGuard endpoint host routes pinned to an uplink (OpenWrt, cases 01 and 04).

Pure functions, no I/O. Inputs are already parsed: ``_uci.parse_uci_show`` of the ``network``
config, and routes from ``_route.parse_ip_route_show`` (``ip -j route show table all``) or
``parse_ip_route_show_text`` (its text form); both give the same route dicts.

Background (OpenWrt's wireguard proto handler, netifd ``interface_ip_add_target_route``): unless
``option nohostroute '1'``, every peer endpoint gets a /32 (/128) copied from the best route at
the moment the interface starts, attached to the *uplink*, so it outlives ``ifdown wg0`` and
mwan3 failovers. For a split tunnel the host route is not needed: set ``nohostroute`` and delete
the stale route. For a full tunnel (the endpoint is inside the routed ``allowed_ips``) it is
required: without it the tunnel's own UDP packets are routed into the tunnel (a routing loop).

A user's ``config route`` to the endpoint (the /32 or a prefix holding it) is installed by netifd
too, ``proto static`` like its own host route: only uci tells them apart (``route_section``). The
user's route is kept, never deleted; when it still sends the endpoint over another uplink it is a
conflict (``user_route_conflict``), reported for the user to resolve. ``find_uplinks`` and
``metered_refusal`` say which uplinks there are and when every one is metered (no uplink to pick).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import default_routes, route_network
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_bool, parse_uci_int

_SHORT_ROUTE_KEYS = ("dst", "gateway", "dev", "table", "protocol", "metric")


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, list) else str(value).split()


def _network(value, where):
    network = ipnet.network(value)
    if network is None:
        raise ParseError("%s: %r is not an address or prefix" % (where, value))
    return network


def endpoint_address(value):
    """The endpoint as a netaddr ``IPAddress`` (``ipnet.address``), or None for a hostname (``[v6]`` brackets allowed).

    ``"203.0.113.10"`` → ``IPAddress("203.0.113.10")``; ``"[fd99:1::1]"`` → ``IPAddress("fd99:1::1")``;
    ``"fe80::1%wg0"`` → the scoped address; ``"dc.example.net"``, ``"300.1.1.1"``, ``None`` → ``None``.
    Raises nothing but ``ipnet.NetaddrMissing``.
    """
    return ipnet.address(str(value).strip().strip("[]"))


def wireguard_interfaces(network: dict) -> dict:
    """Return the ``proto wireguard`` interfaces of a parsed ``network`` config with their peers.

    ``parse_uci_show(case 01)["network"]`` →
    ``{"wg0": {"nohostroute": False, "nohostroute_value": None, "addresses": ["10.77.0.2/24"], "peers": [
    {"section": "@wireguard_wg0[0]", "endpoint_host": "203.0.113.10", "allowed_ips":
    ["10.77.0.0/24", "192.168.20.0/24"], "route_allowed_ips": True}]}}``

    ``nohostroute`` is True only for the literal ``'1'``, the one value netifd's wireguard.sh
    honours (openwrt/openwrt package/network/utils/wireguard-tools/files/wireguard.sh@0a576dec:
    any other value, ``'true'`` included, still pins the endpoint's host route);
    ``nohostroute_value`` is the option as written (None when unset). ``route_allowed_ips`` is
    False when unset (OpenWrt's default; read as config_get_bool does). Raises ParseError for a
    bad boolean or prefix, naming the uci path.
    """
    result = {}
    for name, section in network.items():
        options = section.get("options", {})
        if section.get("type") != "interface" or options.get("proto") != "wireguard":
            continue
        # netifd's wireguard.sh (openwrt/openwrt package/network/utils/wireguard-tools/files/wireguard.sh
        # @0a576dec) skips the endpoint host route only for the literal '1': 'true', 'on' or 'yes' still pin it.
        raw = options.get("nohostroute")
        result[name] = {
            "nohostroute": raw == "1",
            "nohostroute_value": raw if isinstance(raw, str) else None,
            "addresses": _as_list(options.get("addresses")),
            "peers": [],
        }
    for ref, section in network.items():
        stype = str(section.get("type"))
        iface = stype[len("wireguard_"):] if stype.startswith("wireguard_") else None
        if iface not in result:
            continue
        options = section.get("options", {})
        allowed = _as_list(options.get("allowed_ips"))
        for prefix in allowed:
            _network(prefix, "network.%s.allowed_ips" % ref)
        result[iface]["peers"].append({
            "section": ref,
            "endpoint_host": options.get("endpoint_host"),
            "allowed_ips": allowed,
            "route_allowed_ips": bool(parse_uci_bool(options.get("route_allowed_ips"), "network.%s.route_allowed_ips" % ref)),
        })
    return result


def _listed(networks):
    """``a``, ``a and b``, ``a, b and c``."""
    names = [str(net) for net in networks]
    return names[0] if len(names) == 1 else "%s and %s" % (", ".join(names[:-1]), names[-1])


def classify_tunnel(peers) -> dict:
    """Classify an interface as ``split`` or ``full`` tunnel from its peers.

    Full when the allowed_ips of the peers with ``route_allowed_ips`` hold every IPv4 or every
    IPv6 address between them (``0.0.0.0/0``; ``::/0``; both halves, ``0.0.0.0/1`` +
    ``128.0.0.0/1`` or ``::/1`` + ``8000::/1``; four quarters; overlapping pieces), or a routed
    prefix holds some peer's endpoint address (same family: ``::ffff:0:0/96`` holds no IPv4
    endpoint). Returns ``{"tunnel": "full"|"split", "reason": str|None, "routed": [prefixes]}``;
    ``reason`` names the prefixes (full only): ``routed allowed_ips include 0.0.0.0/1 and
    128.0.0.0/1`` (the routed prefixes no other routed one holds), or ``endpoint 203.0.113.10 is
    inside the routed allowed_ips 203.0.113.0/24``. A prefix that is none raises ParseError.
    """
    routed = []
    for peer in peers:
        if peer["route_allowed_ips"]:
            routed.extend(peer["allowed_ips"])
    networks = [_network(p, "allowed_ips") for p in routed]
    for version in (4, 6):
        if ipnet.covers_everything(networks, version):
            pieces = [net for net in ipnet.outermost(networks) if net.version == version]
            return {"tunnel": "full", "reason": "routed allowed_ips include %s" % _listed(pieces), "routed": routed}
    for peer in peers:
        address = endpoint_address(peer.get("endpoint_host"))
        if address is None:
            continue
        for prefix, network in zip(routed, networks):
            if address in network:
                return {"tunnel": "full", "reason": "endpoint %s is inside the routed allowed_ips %s" % (address, prefix),
                        "routed": routed}
    return {"tunnel": "split", "reason": None, "routed": routed}


# protos whose layer-3 device netifd names PROTO-INTERFACE (pppoe-wan); others (qmi, ncm, mbim, ...) name it at run time
_PPP_PROTOS = ("ppp", "pppoe", "pppoa", "pptp", "l2tp", "3g")
# protos whose layer-3 device is the uci device option itself
_DEVICE_PROTOS = (None, "static", "dhcp", "dhcpv6", "none")
_MAIN_TABLES = (None, "main", "254")


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
        if section["table"] not in _MAIN_TABLES and str(route.get("table")) != section["table"]:
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
                 and entry["installed"].get("table") in _MAIN_TABLES]
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


def find_uplinks(network: dict, routes, preferred_device, metered=()) -> list:
    """The router's uplinks and which are metered: the preferred uplink's device first, then every other
    device with a unicast default route in the main table that is not a WireGuard interface, once each.

    ``metered``: uci interface or device names (``["wanb"]``), each resolved as ``uplink_device``
    does. With case 01's config and routes, ``find_uplinks(network, routes, "eth1", ["wanb"])`` →
    ``[{"interface": "wan", "device": "eth1", "preferred": True, "metered": False},
    {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": True}]``.
    ``interface`` is the uci interface whose device it is (None when none is).
    """
    tunnels = set(wireguard_interfaces(network))
    devices = [preferred_device] if preferred_device else []
    for route in default_routes(routes):
        if route.get("table") in _MAIN_TABLES and route.get("dev") and route["dev"] not in tunnels and route["dev"] not in devices:
            devices.append(route["dev"])
    names = {}
    for name, section in network.items():
        if section.get("type") == "interface" and name != "loopback" and name not in tunnels:
            names.setdefault(uplink_device(network, name), name)
    metered_devices = {uplink_device(network, name) for name in metered or ()}
    return [{"interface": names.get(device), "device": device, "preferred": device == preferred_device,
             "metered": device in metered_devices} for device in devices]


def metered_unmatched(network: dict, found_uplinks, metered) -> list:
    """The names in ``metered`` that are no uplink's interface or device (a typo, an uplink that is down, a modem
    interface whose device netifd names at run time: list its device, ``wwan0``), in the order given."""
    return [name for name in metered or () if not any(
        uplink["interface"] == name or uplink["device"] in (name, uplink_device(network, name)) for uplink in found_uplinks)]


def metered_refusal(found_uplinks):
    """Why no uplink may be picked for the endpoints: every one of ``found_uplinks`` (``find_uplinks``) is metered; else None (also with none)."""
    if not found_uplinks or not all(uplink["metered"] for uplink in found_uplinks):
        return None
    return ("every uplink of this router is metered (%s): refusing to pick one for the WireGuard endpoints; leave the "
            "uplink the tunnel may use out of the metered ones (and make it the preferred uplink)"
            % ", ".join("%s: %s" % (uplink["interface"], uplink["device"]) if uplink["interface"] else uplink["device"]
                        for uplink in found_uplinks))


def find_pinned_routes(routes, address, network=None) -> list:
    """Return every unicast, non-kernel host route (/32, /128) to ``address`` with a device, any table.

    With ``network`` (the parsed uci config) the routes a ``config route`` section asks for
    (``route_section``) are left out: what remains is netifd's pinned host route (or one added by
    hand), never the user's. The result is what ``route_delete_argv`` turns into an exact
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


def route_delete_argv(route) -> list:
    """``ip route del`` argv that matches exactly this route: destination/prefix, gateway, device, table.

    ``{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "table": "main"}`` →
    ``["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]``
    """
    address = ipnet.address(route["dst"].split("/")[0])
    if address is None:
        raise ParseError("route_delete_argv: %r is not a host route" % (route["dst"],))
    argv = ["ip"] + (["-6"] if address.version == 6 else []) + [
        "route", "del", "%s/%d" % (address, ipnet.host_prefixlen(address))]
    if route.get("gateway"):
        argv += ["via", route["gateway"]]
    argv += ["dev", route["dev"]]
    if route.get("table") not in (None, "main", "254"):
        argv += ["table", str(route["table"])]
    return argv


def _route_line(route):
    return " ".join(route_delete_argv(route)[3:])


def over_tunnel(info, connection_address) -> bool:
    """Tell whether ``connection_address`` (the address Ansible connects to) is reached through this tunnel."""
    address = endpoint_address(connection_address)
    if address is None:
        return False
    for prefix in [p for peer in info["peers"] if peer["route_allowed_ips"] for p in peer["allowed_ips"]] + info["addresses"]:
        if address in _network(prefix, "allowed_ips"):
            return True
    return False


def uplink_device(network: dict, uplink):
    """The device of a logical interface as the kernel names it (``interface_devices``: ``wan`` → ``eth1``, a
    PPPoE ``wan`` → ``pppoe-wan``); for a modem proto its ``device`` option, else ``uplink`` itself (a device name,
    or an interface whose device uci cannot tell: none, or a ``list ifname`` of an old bridge)."""
    if not uplink:
        return None
    devices = interface_devices(network, uplink)
    if devices and len(devices) == 1:
        return next(iter(devices))
    section = network.get(uplink)
    if section and section.get("type") == "interface":
        options = section.get("options", {})
        device = options.get("device") or options.get("ifname")
        return device if isinstance(device, str) else uplink
    return uplink


def _endpoints(info, name, targets):
    """(endpoint addresses, unresolved hostnames) of interface ``name`` from ``targets`` (see plan_wg_endpoint_routes)."""
    endpoints = []
    looked_up = {target.get("section") for target in targets if target.get("interface") == name}
    for target in targets:
        address = endpoint_address(target.get("address")) if target.get("interface") == name else None
        if address is not None and str(address) not in endpoints:
            endpoints.append(str(address))
    unresolved = [peer["endpoint_host"] for peer in info["peers"] if peer.get("endpoint_host")
                  and peer["section"] not in looked_up and endpoint_address(peer["endpoint_host"]) is None]
    return endpoints, unresolved


def plan_wg_endpoint_routes(network: dict, routes: list, interfaces=None, connection_address=None, *, targets,
                            preferred_device=None, metered=()) -> dict:
    """Decide what to do for each WireGuard interface.

    ``network`` is ``parse_uci_show(text)["network"]``, ``routes`` parsed routes (table all),
    ``interfaces`` the names to handle (empty or None: every ``proto wireguard`` interface).

    Returns::

        {"interfaces": {"wg0": {"tunnel": "split", "reason": None, "nohostroute": False,
                                "endpoints": ["203.0.113.10"], "unresolved": [],
                                "delete_routes": [{"dst": "203.0.113.10", "gateway": "198.51.100.1",
                                                   "dev": "wwan0", ...}],
                                "kept_routes": [],      # host routes a config route section asks for
                                "user_routes": [],      # user_routes_to of each endpoint, plus "endpoint"
                                "conflicts": [],        # user_route_conflict of each endpoint, plus "endpoint"
                                "over_tunnel": False, "changed": True, "refused": None}},
         "uci_commands": [["uci", "set", "network.wg0.nohostroute=1"]],
         "route_commands": [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]],
         "full_tunnel_endpoints": [],   # [{"interface", "endpoint"}] for the hotplug script
         "uplinks": [...],              # find_uplinks(network, routes, preferred_device, metered)
         "refused": None,               # metered_refusal: why nothing changes
         "changed": True,
         "diff": {"before": "...", "after": "..."}}

    Split tunnel: ``nohostroute=1`` and every pinned host route to its endpoints deleted, netifd's:
    one a ``config route`` section asks for (``route_section``) is the user's and kept. A configured
    route that would still send an endpoint through another device than ``preferred_device`` is
    listed in ``conflicts`` (kept all the same: the user's to change). Full tunnel: ``refused``
    explains why nohostroute would loop; an existing ``nohostroute=1`` is removed (the host route is
    required); no route is deleted. Endpoint hostnames are listed in ``unresolved`` and skipped.
    When something would change and every uplink is ``metered`` (uci interface or device names),
    nothing changes: the plan's ``refused`` says why (no uplink to pick).

    ``targets``: the endpoints openwrt_facts looks up (parse/openwrt_endpoints.endpoint_targets of
    the uci and live state: a peer's live endpoint, else its uci IP literal; the one rule that picks
    endpoints), so the fix acts on the endpoints the finding saw, a peer configured by hostname or
    roamed to another address included; a hostname with no live endpoint stays ``unresolved``.
    Raises ParseError for a requested interface that is not a ``proto wireguard`` interface, or a
    ``config route`` metric that is not a whole number.
    """
    found = wireguard_interfaces(network)
    wanted = list(interfaces or [])
    for name in wanted:
        if name not in found:
            raise ParseError("interfaces: %r is not a proto wireguard interface in /etc/config/network (found: %s)"
                             % (name, ", ".join(sorted(found)) or "none"))
    names = wanted or sorted(found)
    sections = configured_routes(network)
    plan = {"interfaces": {}, "uci_commands": [], "route_commands": [], "full_tunnel_endpoints": [],
            "uplinks": find_uplinks(network, routes, preferred_device, metered), "refused": None, "changed": False}
    before, after = [], []
    for name in names:
        info = found[name]
        kind = classify_tunnel(info["peers"])
        endpoints, unresolved = _endpoints(info, name, targets)
        entry = {"tunnel": kind["tunnel"], "reason": kind["reason"], "nohostroute": info["nohostroute"],
                 "endpoints": endpoints, "unresolved": unresolved, "delete_routes": [], "kept_routes": [],
                 "user_routes": [], "conflicts": [], "over_tunnel": over_tunnel(info, connection_address),
                 "changed": False, "refused": None}
        option = "network.%s.nohostroute" % name
        if kind["tunnel"] == "split":
            before.append("%s=%s" % (option, "(unset)" if info["nohostroute_value"] is None else "'%s'" % info["nohostroute_value"]))
            after.append("%s='1'" % option)
            if not info["nohostroute"]:
                plan["uci_commands"].append(["uci", "set", "%s=1" % option])
                entry["changed"] = True
            for endpoint in endpoints:
                for route in find_pinned_routes(routes, endpoint):
                    line = "route %s" % _route_line(route)
                    before.append(line)
                    if route_section(route, sections, network) is not None:
                        entry["kept_routes"].append(route)
                        after.append(line)
                        continue
                    entry["delete_routes"].append(route)
                    plan["route_commands"].append(route_delete_argv(route))
                    entry["changed"] = True
                users = user_routes_to(network, routes, endpoint)
                entry["user_routes"].extend(dict(user, endpoint=endpoint) for user in users)
                conflict = user_route_conflict(users, endpoint, preferred_device)
                if conflict:
                    entry["conflicts"].append(dict(conflict, endpoint=endpoint))
        else:
            entry["refused"] = (
                "nohostroute refused for %s: %s, so without the endpoint host route the tunnel's own "
                "packets would be routed into %s (a routing loop); the host route is kept and re-pointed "
                "by an mwan3 hotplug script instead" % (name, kind["reason"], name))
            if info["nohostroute"]:
                before.append("%s='1'" % option)
                after.append("%s=(unset)" % option)
                plan["uci_commands"].append(["uci", "delete", option])
                entry["changed"] = True
            plan["full_tunnel_endpoints"].extend({"interface": name, "endpoint": e} for e in endpoints)
        plan["changed"] = plan["changed"] or entry["changed"]
        plan["interfaces"][name] = entry
    refusal = metered_refusal(plan["uplinks"]) if plan["changed"] else None
    if refusal:
        plan.update(refused=refusal, uci_commands=[], route_commands=[], changed=False)
        for entry in plan["interfaces"].values():
            entry.update(changed=False, delete_routes=[])
        after = list(before)
    plan["diff"] = {"before": "\n".join(before) + ("\n" if before else ""),
                    "after": "\n".join(after) + ("\n" if after else "")}
    return plan
