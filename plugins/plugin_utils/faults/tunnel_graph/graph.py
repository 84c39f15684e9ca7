# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's tunnel graph: every host's WireGuard interfaces, joined across the inventory by public key.

Built from the facts every host already gathers (the ``wireguard`` reading, one execution per host), on the controller,
once per run (``graph_of``: the registry calls a rule once per host; the graph is built on the first call and kept for
the same ``views``)::

    {"nodes": {"hub/wg0": {"host": "hub", "interface": "wg0", "public_key": "HHHH…H=" | None, "listen_port": 51820 | None,
                           "platform": "linux" | "openwrt", "addresses": ["10.77.0.1/24"] | None}},
     "edges": [{"id": "peer/wg0>HHHH…H=", "from": "peer/wg0", "public_key": "HHHH…H=",   # the key the entry lists
                "to": ["hub/wg0"],                         # the nodes whose own key it is: [] none in the run, 2+ duplicate
                "endpoint_host": "203.0.113.10" | None, "endpoint_port": 51820 | None, "allowed_ips": ["10.77.0.0/24"],
                "configured_endpoint_host": "203.0.113.10" | None, "configured_endpoint_port": 51820 | None,
                "persistent_keepalive_s": 25 | None, "handshake_age_s": 12 | None, "rx_bytes": int | None,
                "tx_bytes": int | None, "owner": "wg-quick" | "networkd" | "uci" | "live only",
                "owner_path": "/etc/wireguard/wg0.conf" | None, "running": True}],
     "keys": {"HHHH…H=": ["hub/wg0"]},                     # own public key -> the nodes that have it
     "back": {"peer/wg0>HHHH…H=": "hub/wg0>PPPP…P=" | None},   # the other side's entry for this one, None: none
     "by_id": {edge id: edge}, "by_host": {"peer": [edge, ...]}, "by_node": {"peer/wg0": [edge, ...]},
     "host_nodes": {"peer": ["peer/wg0"]},
     "listed_by": {"HHHH…H=": ["peer/wg0"]}}               # public key -> the nodes whose entries list it

A node is ``HOST/INTERFACE`` (an inventory host name has no "/", a Linux interface name neither). A node's own public
key is what the running interface reports (``wg show all dump``; OpenWrt: the live state, None while the interface is
not up: the private key is never read). Its ``addresses`` are the interface's own tunnel addresses as its owner keeps
them (wg-quick's ``Address =``, uci ``addresses``; None: not read, e.g. a .netdev, whose .network file is not read).
An edge is one peer entry: running (Linux: the dump; OpenWrt: the uci peer
merged with its live entry) or only configured (a wg-quick file or .netdev peer the kernel does not have; an OpenWrt
uci peer not running): ``running`` says which. ``owner`` is who keeps the entry: the wg-quick file or the .netdev that
lists its key for that interface, OpenWrt's uci, or nobody ("live only": added with ``wg set``, or by a portal).
``endpoint_*`` is the endpoint in use (the kernel's: configured, or learned from the other end's packets, and lost on
a restart); ``configured_endpoint_*`` the one the owner keeps (the file's ``Endpoint``, uci ``endpoint_host`` and
``endpoint_port``; for a "live only" entry the kernel's, the only one there is).

Cost: linear in the number of entries (dicts keyed by public key; no pair of hosts is compared).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import wireguard_interfaces

OWNERS = ("wg-quick", "networkd", "uci", "live only")
_CONFIG_OWNER = {"wg-quick": "wg-quick", "netdev": "networkd"}


def node_id(host, interface) -> str:
    """``"HOST/INTERFACE"``."""
    return "%s/%s" % (host, interface)


def edge_id(node, public_key) -> str:
    """``"HOST/INTERFACE>KEY"``: one interface lists a key once (WireGuard merges a repeated peer)."""
    return "%s>%s" % (node, public_key)


def _linux(host, facts):
    """(nodes, edges) of one Linux host from tunnel_facts' ``wireguard``: running interfaces and peers, and the peers of
    its wg-quick files and .netdevs (owner, and entries the kernel does not have)."""
    wireguard = (facts or {}).get("wireguard") or {}
    nodes, edges = {}, {}
    configured = {}   # (interface, key) -> (owner, path, entry)
    addresses = {}    # interface -> its wg-quick file's Address values
    for config in wireguard.get("configs") or []:
        name, owner = config.get("interface"), _CONFIG_OWNER.get(config.get("kind"))
        if not name or owner is None or not config.get("wireguard", True):
            continue
        if owner == "wg-quick" and config.get("addresses") is not None:
            addresses.setdefault(name, list(config["addresses"]))
        for peer in config.get("peers") or []:
            if peer.get("public_key"):
                configured.setdefault((name, peer["public_key"]), (owner, config.get("path"), peer))
    for name, iface in sorted(wireguard_interfaces(facts).items()):
        node = node_id(host, name)
        nodes[node] = {"host": host, "interface": name, "public_key": iface.get("public_key"),
                       "listen_port": iface.get("listen_port"), "platform": "linux", "addresses": addresses.get(name)}
        for peer in iface.get("peers") or []:
            key = peer.get("public_key")
            if not key:
                continue
            owner, path, entry = configured.get((name, key), ("live only", None, None))
            kept = _split_endpoint(entry.get("endpoint")) if entry is not None else (peer.get("endpoint_host"), peer.get("endpoint_port"))
            edges[edge_id(node, key)] = _edge(node, key, peer, owner, path, running=True, configured=kept)
    for (name, key), (owner, path, entry) in sorted(configured.items()):
        node = node_id(host, name)
        if node not in nodes:   # configured, not running: the interface is down
            nodes[node] = {"host": host, "interface": name, "public_key": None, "listen_port": None, "platform": "linux",
                           "addresses": addresses.get(name)}
        if edge_id(node, key) not in edges:
            host_part, port = _split_endpoint(entry.get("endpoint"))
            edges[edge_id(node, key)] = _edge(node, key, {"endpoint_host": host_part, "endpoint_port": port,
                                                          "persistent_keepalive_s": entry.get("persistent_keepalive_s")},
                                              owner, path, running=False, configured=(host_part, port))
    return nodes, edges


def _openwrt(host, facts):
    """(nodes, edges) of one OpenWrt router from openwrt_facts' ``wireguard`` (uci merged with the live state)."""
    nodes, edges = {}, {}
    for name, iface in sorted(wireguard_interfaces(facts).items()):
        node = node_id(host, name)
        live_state = iface.get("live_state") or {}
        nodes[node] = {"host": host, "interface": name, "public_key": live_state.get("public_key"),
                       "listen_port": live_state.get("listen_port") or iface.get("listen_port"), "platform": "openwrt",
                       "addresses": list(iface["addresses"]) if isinstance(iface.get("addresses"), list) else None}
        for peer in iface.get("peers") or []:
            key = peer.get("public_key")
            if not key:
                continue
            live = peer.get("live") if isinstance(peer.get("live"), dict) else None
            seen = dict(live) if live else {"endpoint_host": peer.get("endpoint_host"), "endpoint_port": peer.get("endpoint_port"),
                                            "allowed_ips": peer.get("allowed_ips"),
                                            "persistent_keepalive_s": peer.get("persistent_keepalive_s")}
            in_uci = bool(peer.get("in_uci"))
            kept = (peer.get("endpoint_host"), peer.get("endpoint_port")) if in_uci else (seen.get("endpoint_host"), seen.get("endpoint_port"))
            edges[edge_id(node, key)] = _edge(node, key, seen, "uci" if in_uci else "live only", None,
                                              running=live is not None, configured=kept)
    return nodes, edges


def _split_endpoint(endpoint):
    """``"203.0.113.1:51820"`` -> ("203.0.113.1", 51820); ``"[2001:db8::1]:51820"`` -> ("2001:db8::1", 51820); a value
    without a port number (or None) -> (its host part or None, None)."""
    if not endpoint:
        return None, None
    host, sep, port = str(endpoint).rpartition(":")
    if not sep or not port.isdigit():
        return str(endpoint), None
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host, int(port)


def _edge(node, key, peer, owner, path, running, configured):
    return {"id": edge_id(node, key), "from": node, "public_key": key, "to": [],
            "endpoint_host": peer.get("endpoint_host"), "endpoint_port": peer.get("endpoint_port"),
            "configured_endpoint_host": configured[0], "configured_endpoint_port": configured[1],
            "allowed_ips": list(peer.get("allowed_ips") or []), "persistent_keepalive_s": peer.get("persistent_keepalive_s"),
            "handshake_age_s": peer.get("handshake_age_s"), "rx_bytes": peer.get("rx_bytes"), "tx_bytes": peer.get("tx_bytes"),
            "owner": owner, "owner_path": path, "running": running}


def build_graph(views) -> dict:
    """The graph of ``views`` (``{host: view}``, faults/view.py; a host without WireGuard facts adds nothing): module doc."""
    nodes, edges = {}, {}
    for host in sorted(views):
        view = views[host] or {}
        if isinstance((view.get("openwrt") or {}).get("wireguard"), dict):
            got = _openwrt(host, view["openwrt"])
        else:
            got = _linux(host, view.get("tunnelfix"))
        nodes.update(got[0])
        edges.update(got[1])
    keys = {}
    for node, info in nodes.items():
        if info["public_key"]:
            keys.setdefault(info["public_key"], []).append(node)
    back = {}
    for edge in edges.values():
        edge["to"] = list(keys.get(edge["public_key"], []))
        own_key = nodes[edge["from"]]["public_key"]
        back[edge["id"]] = None
        for other in edge["to"]:
            reverse = edge_id(other, own_key) if own_key else None
            if reverse in edges:
                back[edge["id"]] = reverse
                break
    ordered = [edges[name] for name in sorted(edges)]
    by_host, by_node, listed_by = {}, {}, {}
    for edge in ordered:
        by_host.setdefault(nodes[edge["from"]]["host"], []).append(edge)
        by_node.setdefault(edge["from"], []).append(edge)
        listed_by.setdefault(edge["public_key"], []).append(edge["from"])
    host_nodes = {}
    for node in sorted(nodes):
        host_nodes.setdefault(nodes[node]["host"], []).append(node)
    return {"nodes": nodes, "edges": ordered, "keys": keys, "back": back, "by_id": edges, "by_host": by_host,
            "by_node": by_node, "listed_by": listed_by, "host_nodes": host_nodes}


_CACHE = {}


def graph_of(views) -> dict:
    """``build_graph(views)``, built once per ``views`` object (the registry calls each rule once per host with the
    same dict, never changed between the calls): the last one is kept. The rules read it through the indexes
    (``by_host``, ``by_node``, ``listed_by``), so a run costs time linear in the entries."""
    if _CACHE.get("views") is not views:
        _CACHE.clear()
        _CACHE.update(views=views, graph=build_graph(views))
    return _CACHE["graph"]
