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
"""

from __future__ import annotations

import ipaddress

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_bool

# allowed_ips that send everything into the tunnel when routed
_DEFAULT_COVERING = ("0.0.0.0/0", "::/0")
_SPLIT_DEFAULT_HALVES = (("0.0.0.0/1", "128.0.0.0/1"), ("::/1", "8000::/1"))


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, list) else str(value).split()


def _network(value, where):
    try:
        return ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise ParseError("%s: %r is not an address or prefix" % (where, value)) from None


def endpoint_address(value):
    """The endpoint as an ip_address, or None for a hostname (``[v6]`` brackets allowed).

    ``"203.0.113.10"`` → ``IPv4Address("203.0.113.10")``; ``"[fd99:1::1]"`` → ``IPv6Address("fd99:1::1")``;
    ``"dc.example.net"``, ``None`` → ``None``. Never raises.
    """
    try:
        return ipaddress.ip_address(str(value).strip().strip("[]"))
    except ValueError:
        return None


def wireguard_interfaces(network: dict) -> dict:
    """Return the ``proto wireguard`` interfaces of a parsed ``network`` config with their peers.

    ``parse_uci_show(case 01)["network"]`` →
    ``{"wg0": {"nohostroute": False, "addresses": ["10.77.0.2/24"], "peers": [
    {"section": "@wireguard_wg0[0]", "endpoint_host": "203.0.113.10", "allowed_ips":
    ["10.77.0.0/24", "192.168.20.0/24"], "route_allowed_ips": True}]}}``

    ``route_allowed_ips`` is False when unset (OpenWrt's default). Raises ParseError for a
    bad boolean or prefix, naming the uci path.
    """
    result = {}
    for name, section in network.items():
        options = section.get("options", {})
        if section.get("type") != "interface" or options.get("proto") != "wireguard":
            continue
        where = "network.%s.nohostroute" % name
        result[name] = {
            "nohostroute": bool(parse_uci_bool(options.get("nohostroute", "0"), where)),
            "addresses": _as_list(options.get("addresses")),
            "peers": [],
        }
    for ref, section in network.items():
        stype = section.get("type") or ""
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
            "route_allowed_ips": bool(parse_uci_bool(options.get("route_allowed_ips", "0"),
                                                     "network.%s.route_allowed_ips" % ref)),
        })
    return result


def classify_tunnel(peers) -> dict:
    """Classify an interface as ``split`` or ``full`` tunnel from its peers.

    Full when a peer with ``route_allowed_ips`` has ``0.0.0.0/0``, ``::/0``, both halves
    (``0.0.0.0/1`` + ``128.0.0.0/1``, or ``::/1`` + ``8000::/1``), or a routed prefix that
    contains some peer's endpoint address. Returns ``{"tunnel": "full"|"split", "reason": str|None,
    "routed": [prefixes]}``; ``reason`` names the prefixes (full only).
    """
    routed = []
    for peer in peers:
        if peer["route_allowed_ips"]:
            routed.extend(peer["allowed_ips"])
    normalised = {str(_network(p, "allowed_ips")) for p in routed}
    for prefix in _DEFAULT_COVERING:
        if prefix in normalised:
            return {"tunnel": "full", "reason": "routed allowed_ips include %s" % prefix, "routed": routed}
    for low, high in _SPLIT_DEFAULT_HALVES:
        if low in normalised and high in normalised:
            return {"tunnel": "full", "reason": "routed allowed_ips include %s and %s" % (low, high), "routed": routed}
    for peer in peers:
        address = endpoint_address(peer.get("endpoint_host"))
        if address is None:
            continue
        for prefix in routed:
            network = _network(prefix, "allowed_ips")
            if network.version == address.version and address in network:
                return {"tunnel": "full", "reason": "endpoint %s is inside the routed allowed_ips %s" % (address, prefix),
                        "routed": routed}
    return {"tunnel": "split", "reason": None, "routed": routed}


def configured_static_routes(network: dict) -> set:
    """Host addresses that ``config route`` sections of ``network`` route on purpose (kept, never deleted)."""
    kept = set()
    for section in network.values():
        if section.get("type") not in ("route", "route6"):
            continue
        target = section.get("options", {}).get("target")
        netmask = section.get("options", {}).get("netmask")
        spec = target if netmask is None or "/" in str(target) else "%s/%s" % (target, netmask)
        try:
            net = ipaddress.ip_network(str(spec), strict=False)
        except ValueError:
            continue
        if net.num_addresses == 1:
            kept.add(str(net.network_address))
    return kept


def find_pinned_routes(routes, address) -> list:
    """Return every unicast, non-kernel host route (/32, /128) to ``address`` with a device, any table.

    The result is what ``route_delete_argv`` turns into an exact ``ip route del``: destination,
    gateway, device (and table when not main) as listed.
    """
    wanted = endpoint_address(address)
    if wanted is None:
        raise ParseError("find_pinned_routes: %r is not an IP address" % (address,))
    found = []
    for route in routes:
        if route.get("type", "unicast") != "unicast" or route.get("protocol") == "kernel" or not route.get("dev"):
            continue
        try:
            net = ipaddress.ip_network(route.get("dst", ""), strict=False)
        except ValueError:
            continue
        if net.num_addresses == 1 and net.network_address == wanted:
            found.append(route)
    return found


def route_delete_argv(route) -> list:
    """``ip route del`` argv that matches exactly this route: destination/prefix, gateway, device, table.

    ``{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "table": "main"}`` →
    ``["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]``
    """
    address = ipaddress.ip_address(route["dst"].split("/")[0])
    argv = ["ip"] + (["-6"] if address.version == 6 else []) + [
        "route", "del", "%s/%d" % (address, address.max_prefixlen)]
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
    address = endpoint_address(connection_address) if connection_address else None
    if address is None:
        return False
    for prefix in [p for peer in info["peers"] if peer["route_allowed_ips"] for p in peer["allowed_ips"]] + info["addresses"]:
        net = _network(prefix, "allowed_ips")
        if net.version == address.version and address in net:
            return True
    return False


def uplink_device(network: dict, uplink):
    """The device of a logical interface (``wan`` → ``network.wan.device``), else ``uplink`` itself (a device name)."""
    if not uplink:
        return None
    section = network.get(uplink)
    if section and section.get("type") == "interface":
        options = section.get("options", {})
        return options.get("device") or options.get("ifname") or uplink
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


def plan_wg_endpoint_routes(network: dict, routes: list, interfaces=None, connection_address=None, *, targets) -> dict:
    """Decide what to do for each WireGuard interface.

    ``network`` is ``parse_uci_show(text)["network"]``, ``routes`` parsed routes (table all),
    ``interfaces`` the names to handle (empty or None: every ``proto wireguard`` interface).

    Returns::

        {"interfaces": {"wg0": {"tunnel": "split", "reason": None, "nohostroute": False,
                                "endpoints": ["203.0.113.10"], "unresolved": [],
                                "delete_routes": [{"dst": "203.0.113.10", "gateway": "198.51.100.1",
                                                   "dev": "wwan0", ...}],
                                "kept_routes": [], "over_tunnel": False, "changed": True,
                                "refused": None}},
         "uci_commands": [["uci", "set", "network.wg0.nohostroute=1"]],
         "route_commands": [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]],
         "full_tunnel_endpoints": [],   # [{"interface", "endpoint"}] for the hotplug script
         "changed": True,
         "diff": {"before": "...", "after": "..."}}

    Split tunnel: ``nohostroute=1`` and every pinned host route to its endpoints deleted (those a
    ``config route`` section asks for are kept). Full tunnel: ``refused`` explains why nohostroute
    would loop; an existing ``nohostroute=1`` is removed (the host route is required); no route is
    deleted. Endpoint hostnames are listed in ``unresolved`` and skipped.

    ``targets``: the endpoints openwrt_facts looks up (parse/openwrt_endpoints.endpoint_targets of
    the uci and live state: a peer's live endpoint, else its uci IP literal; the one rule that picks
    endpoints), so the fix acts on the endpoints the finding saw, a peer configured by hostname or
    roamed to another address included; a hostname with no live endpoint stays ``unresolved``.
    Raises ParseError for a requested interface that is not a ``proto wireguard`` interface.
    """
    found = wireguard_interfaces(network)
    wanted = list(interfaces or [])
    for name in wanted:
        if name not in found:
            raise ParseError("interfaces: %r is not a proto wireguard interface in /etc/config/network (found: %s)"
                             % (name, ", ".join(sorted(found)) or "none"))
    names = wanted or sorted(found)
    kept_on_purpose = configured_static_routes(network)
    plan = {"interfaces": {}, "uci_commands": [], "route_commands": [], "full_tunnel_endpoints": [],
            "changed": False}
    before, after = [], []
    for name in names:
        info = found[name]
        kind = classify_tunnel(info["peers"])
        endpoints, unresolved = _endpoints(info, name, targets)
        entry = {"tunnel": kind["tunnel"], "reason": kind["reason"], "nohostroute": info["nohostroute"],
                 "endpoints": endpoints, "unresolved": unresolved, "delete_routes": [], "kept_routes": [],
                 "over_tunnel": over_tunnel(info, connection_address), "changed": False, "refused": None}
        option = "network.%s.nohostroute" % name
        if kind["tunnel"] == "split":
            before.append("%s=%s" % (option, "'1'" if info["nohostroute"] else "(unset)"))
            after.append("%s='1'" % option)
            if not info["nohostroute"]:
                plan["uci_commands"].append(["uci", "set", "%s=1" % option])
                entry["changed"] = True
            for endpoint in endpoints:
                for route in find_pinned_routes(routes, endpoint):
                    line = "route %s" % _route_line(route)
                    before.append(line)
                    if endpoint in kept_on_purpose:
                        entry["kept_routes"].append(route)
                        after.append(line)
                        continue
                    entry["delete_routes"].append(route)
                    plan["route_commands"].append(route_delete_argv(route))
                    entry["changed"] = True
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
    plan["diff"] = {"before": "\n".join(before) + ("\n" if before else ""),
                    "after": "\n".join(after) + ("\n" if after else "")}
    return plan
