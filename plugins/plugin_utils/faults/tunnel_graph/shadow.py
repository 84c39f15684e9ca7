# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of allowed_ips_shadow_lan: a peer's AllowedIPs route a prefix connected on another device of the host.

Read from the tunnel graph (``graph.graph_of``: each entry's ``configured_allowed_ips`` and ``routed``, and the host's
``connected`` devices, the ``link_addresses`` reading: ``reads.py``). wg-quick adds a route to the interface for each
prefix of every peer's AllowedIPs (``ip route add PREFIX dev wg0``), netifd does when uci ``route_allowed_ips`` is 1.
Against the connected route the kernel holds for a device's address (``proto kernel scope link``):

- the same prefix: two routes for one prefix. For IPv4 both have metric 0 and the tunnel's cannot be added (``File
  exists``: wg-quick up stops there); for IPv6 the connected route's metric (256) beats the tunnel's (1024). Either
  way the tunnel's site behind that prefix is unreachable from the host (two sites numbered alike).
- a narrower prefix inside the connected one: it wins (longest prefix), so the host reaches those LAN hosts through
  the tunnel instead.

Not a finding: a wider prefix holding the connected one (a full tunnel, ``0.0.0.0/0``: the longer connected route
keeps the LAN); a single address (``/32``, ``/128``) inside a LAN (a road warrior given a LAN address, with proxy
ARP: the usual design); a connected prefix of the interface itself (its own tunnel subnet), of ``lo``, link-local or
a device's single address; an entry whose owner adds no route (uci ``route_allowed_ips`` 0) or may not (networkd
without ``RouteTable=``, not read; a live-only entry): those are counted by the coverage. Compared per interface:
its prefixes against the host's few connected ones.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.allowed_ips import network, where
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, no_interface, unknown_entries
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet

_NOT_LAN = ("fe80::/10", "169.254.0.0/16", "127.0.0.0/8", "::1/128")


def connected_prefixes(devices, interface) -> list:
    """(device, connected prefix, the address as listed) for every address of ``devices`` (``{device: ["address/prefix",
    ...]}``) on a device other than ``interface`` and ``lo``, left out: link-local, loopback and single-address ones."""
    not_lan = [network(value) for value in _NOT_LAN]
    out = []
    for device in sorted(devices or {}):
        if device in (interface, "lo"):
            continue
        for value in devices[device] or []:
            net = network(str(value))
            if net is None or net.prefixlen == ipnet.host_prefixlen(net) or any(
                    net.version == other.version and net in other for other in not_lan):
                continue
            out.append((device, net, str(value)))
    return out


def shadowed(prefixes, connected) -> list:
    """``{"prefix", "device", "connected", "address", "same"}`` for each prefix of ``prefixes`` (AllowedIPs as written)
    that is one of ``connected`` (``connected_prefixes``; ``same`` True) or lies inside one and is no single address."""
    out = []
    if not connected:
        return out
    for prefix in prefixes or []:
        net = network(str(prefix))
        if net is None:
            continue
        for device, lan, address in connected:
            same = net == lan
            if same or (net.version == lan.version and net in lan and net.prefixlen != ipnet.host_prefixlen(net)):
                out.append({"prefix": str(net), "device": device, "connected": str(lan), "address": address, "same": same})
    return out


def _entries(graph, host):
    """(node, entry) for every enabled entry of ``host``'s interfaces."""
    for node_name in graph["host_nodes"].get(host, []):
        node = graph["nodes"][node_name]
        for edge in graph["by_node"].get(node_name, []):
            if not edge["disabled"] and edge["public_key"] != node["public_key"]:
                yield node, edge


def allowed_ips_shadow_lan(host, view, views):
    """One (evidence, explanation) per enabled, routed entry of ``host`` whose AllowedIPs as kept shadow a prefix
    connected on another device of the host (module doc)."""
    graph = graph_of(views)
    devices = graph["connected"].get(host)
    if devices is None:
        return []
    out, lans = [], {}
    for node, edge in _entries(graph, host):
        if edge["routed"] is not True or edge["configured_allowed_ips"] is None:
            continue
        if node["interface"] not in lans:
            lans[node["interface"]] = connected_prefixes(devices, node["interface"])
        found = shadowed(edge["configured_allowed_ips"], lans[node["interface"]])
        if not found:
            continue
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "shadowed": found,
                    "owner": edge["owner"], "owner_path": edge["owner_path"], "change": where(edge)}
        out.append((evidence, _text(graph, host, node, edge, found)))
    return out


def _text(graph, host, node, edge, found):
    other = graph["nodes"][edge["to"][0]] if len(edge["to"]) == 1 else None
    peer = "%s (%s's %s)" % (edge["public_key"], other["host"], other["interface"]) if other else edge["public_key"]
    parts = []
    same = [item for item in found if item["same"]]
    inside = [item for item in found if not item["same"]]
    if same:
        stops = ": wg-quick up stops there" if edge["owner"] == "wg-quick" else ""
        parts.append("%s's %s routes %s to the peer %s, and the same prefix is connected here (%s): two routes for one "
                     "prefix, and the connected one wins (an IPv4 route of the tunnel cannot even be added, File exists%s; "
                     "an IPv6 one loses on metric), so what lies behind the peer in that prefix is unreachable from %s."
                     % (host, node["interface"], ", ".join(item["prefix"] for item in same), peer,
                        ", ".join("%s on %s" % (item["address"], item["device"]) for item in same), stops, host))
    if inside:
        parts.append("%s's %s routes %s to the peer %s, inside the LAN connected here (%s): the longer prefix wins, so "
                     "%s reaches those LAN hosts through the tunnel instead."
                     % (host, node["interface"], ", ".join(item["prefix"] for item in inside), peer,
                        ", ".join("%s on %s" % (item["connected"], item["device"]) for item in inside), host))
    parts.append("If the site behind the peer really uses this LAN's addresses, renumber one of them or NAT it; else "
                 "correct the prefix in %s. No role changes AllowedIPs: a wrong guess moves traffic to another peer."
                 % where(edge))
    return " ".join(parts)


def shadow_coverage(host, view, views):
    """``not_checked`` when the host's live addresses were not read (``link_addresses``), or when no entry's routes are
    known; ``partly`` when some entries' are not (networkd without RouteTable= read, a live-only entry, AllowedIPs as
    kept unknown)."""
    graph = graph_of(views)
    if host in graph["unreadable"]:
        return not_checked(graph["unreadable"][host])
    if not graph["host_nodes"].get(host):
        return no_interface(view)
    if graph["connected"].get(host) is None:
        return not_checked("the host's live addresses were not read (link_addresses: ip -j addr show)")
    entries = [edge for _node, edge in _entries(graph, host) if edge["routed"] is not False]
    unknown = sum(1 for edge in entries if edge["routed"] is None or edge["configured_allowed_ips"] is None)
    return unknown_entries(unknown, len(entries), "whether the owners add routes for the entries' AllowedIPs is not known "
                           "(networkd's RouteTable= is not read; entries added with wg set)", "whose routes are not known")
