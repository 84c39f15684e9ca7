# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's tunnel graph: every host's WireGuard interfaces, joined across the inventory by public key.

Built from the facts every host already gathers (the ``wireguard`` reading, one execution per host), on the controller,
once per run (``graph_of``: the registry calls a rule once per host; the graph is built on the first call and kept for
the same ``views``)::

    {"nodes": {"hub/wg0": {"host": "hub", "interface": "wg0", "public_key": "HHHH…H=" | None, "listen_port": 51820 | None,
                           "configured_public_key": "GGGG…G=" | None,   # what its owner's private key gives
                           "platform": "linux" | "openwrt", "addresses": ["10.77.0.1/24"] | None,
                           "listen_port_kept": 51820 | None | "unknown",   # uci listen_port (None: unset, random);
                                                        # "unknown": not read (wg-quick's ListenPort is not in the facts)
                           "config_ambiguous": False,   # several files name it and none is surely the running one
                           "alias_of": None | "hub.example.com/wg0"}},   # the same machine listed twice: see _merge_aliases
     "edges": [{"id": "peer/wg0>HHHH…H=", "from": "peer/wg0", "public_key": "HHHH…H=",   # the key the entry lists
                "to": ["hub/wg0"],                         # the nodes whose own key it is: [] none in the run, 2+ duplicate
                "endpoint_host": "203.0.113.10" | None, "endpoint_port": 51820 | None, "allowed_ips": ["10.77.0.0/24"],
                "configured_endpoint_host": "203.0.113.10" | None, "configured_endpoint_port": 51820 | None,
                "persistent_keepalive_s": 25 | None, "handshake_age_s": 12 | None, "rx_bytes": int | None,
                "tx_bytes": int | None, "owner": "wg-quick" | "networkd" | "uci" | "live only",
                "owner_path": "/etc/wireguard/wg0.conf" | None, "running": True,
                "has_preshared_key": True | False | None,  # the running entry's (wg dump); an OpenWrt uci peer not
                                                           # running: uci's preshared_key set; None: not known
                "preshared_key_fingerprint": "0910c51b3ca73833" | None,   # the running entry's PSK, salted and hashed on
                                                           # the host (remote/psk_fingerprint.py); None: no PSK, not known
                "preshared_key_salt_id": "1a2b3c4d" | None,  # the id of the run's salt it was made with: compare only equal ids
                "disabled": False,                       # OpenWrt uci disabled '1': netifd never gives it to the kernel
                "configured_allowed_ips": ["10.77.0.0/24"] | None,   # as the owner keeps them (None: not read)
                "set_order": 0 | None,                     # when the owner gives it to the kernel among its entries
                "uci_section": "@wireguard_wg0[0]" | None,
                "routed": True | False | None}],           # whether the owner adds routes for its AllowedIPs
     "keys": {"HHHH…H=": ["hub/wg0"]},                     # own public key -> the nodes that have it
     "back": {"peer/wg0>HHHH…H=": "hub/wg0>PPPP…P=" | None},   # the other side's entry for this one (a running,
                                                           # enabled one first; it may be neither), None: none
     "by_id": {edge id: edge}, "by_host": {"peer": [edge, ...]}, "by_node": {"peer/wg0": [edge, ...]},
     "host_nodes": {"peer": ["peer/wg0"]},
     "listed_by": {"HHHH…H=": ["peer/wg0"]},               # public key -> the nodes whose entries list it
     "unreadable": {"zz": "its WireGuard facts have an unexpected shape (…)"},   # hosts left out
     "connected": {"peer": {"eth0": ["192.168.1.2/24"]} | None},   # link_addresses: devices up, their addresses
     "resolved": {"hub.example.net": {"addresses": ["203.0.113.7"], "error": None}},   # endpoint hostnames, now
     "hidden_keys": {"<a private key>": "(the private key of hub's wg0, not shown)"}}   # keys.py; never exported

A node is ``HOST/INTERFACE`` (an inventory host name has no "/", a Linux interface name neither). A node's own public
key is what the running interface reports (``wg show all dump``; OpenWrt: the live state, None while the interface is
not up: the private key is never read). Its ``configured_public_key`` is the public key of the private key its owner
keeps (the wg-quick file's PrivateKey, a .netdev's PrivateKey or PrivateKeyFile, uci ``private_key``), derived on the
host by ``wg pubkey`` (the private key never leaves it); None when not known (no ``wg``, no such key, no owner, or
several files name the interface and none is surely the running one). Its ``addresses`` are the interface's own tunnel addresses as its owner keeps
them (wg-quick's ``Address =``, uci ``addresses``; None: not read, e.g. a .netdev, whose .network file is not read).
An edge is one peer entry: running (Linux: the dump; OpenWrt: the uci peer
merged with its live entry) or only configured (a wg-quick file or .netdev peer the kernel does not have; an OpenWrt
uci peer not running): ``running`` says which. ``owner`` is who keeps the entry: the wg-quick file or the .netdev that
lists its key for that interface, OpenWrt's uci, or nobody ("live only": added with ``wg set``, or by a portal).
``endpoint_*`` is the endpoint in use (the kernel's: configured, or learned from the other end's packets, and lost on
a restart); ``configured_endpoint_*`` the one the owner keeps (the file's ``Endpoint``, uci ``endpoint_host`` and
``endpoint_port``; for a "live only" entry the kernel's, the only one there is). Likewise ``allowed_ips`` is what the
kernel holds (a prefix two entries list is on one of them only) and ``configured_allowed_ips`` what the owner keeps (a
file's ``AllowedIPs``, uci ``allowed_ips``; a "live only" entry's: the kernel's; None: not read, e.g. several files
name the interface, or facts gathered before the listing printed AllowedIPs). ``set_order``: the entry's place among
its owner's entries of the interface in the order the owner gives them to the kernel, which gives a prefix two of them
list to the last (a wg-quick file: its [Peer] order, ``wg setconf``; OpenWrt: uci's section order, netifd's
wireguard.sh; a .netdev: the reverse of its [WireGuardPeer] order, as networkd prepends each section it reads to its
list, systemd src/network/netdev/wireguard.c ``wireguard_peer_new_static``); None for a "live only" entry.
``uci_section``: the uci peer's section as ``uci show`` names it (None off OpenWrt or live only). ``routed``: whether
the owner adds a route to the interface for each of its AllowedIPs: wg-quick does (unless ``Table = off``, not read),
netifd when uci ``route_allowed_ips`` is 1; None for networkd (``RouteTable=``, not read) and a live-only entry
(whoever added it may add routes). ``connected``: the host's ``link_addresses`` devices (None: not read).
``resolved``: what each endpoint hostname an enabled entry keeps resolves to now (``resolve.py``; ``error`` when it does
not), for the entries with no handshake newer than ``STALE_HANDSHAKE_S`` only (a working tunnel needs no lookup):
resolved by the resolver ``build_graph`` is given, once per name, so the graph stays a function of its inputs. An entry that lists the private key of an
interface of the run as its peer key (keys.py) lists the placeholder of ``hidden_keys`` instead (its id too); the
registry removes those keys from every finding.

Cost: linear in the number of entries (dicts keyed by public key; no pair of hosts is compared).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked, partly, wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import STALE_HANDSHAKE_S
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import leaked, placeholder
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.resolve import address_of, resolve_names

OWNERS = ("wg-quick", "networkd", "uci", "live only")
_CONFIG_OWNER = {"wg-quick": "wg-quick", "netdev": "networkd"}
_LINUX_ROUTED = {"wg-quick": True}   # networkd adds routes only with RouteTable= (not read); a live-only entry: unknown


def no_interface(view):
    """A coverage's answer for a host with no node in the graph: ``does_not_apply`` when its WireGuard facts were read
    and list no interface, ``not_checked`` when none were read."""
    wireguard = ((view.get("openwrt") or view.get("tunnelfix") or {}) or {}).get("wireguard")
    return does_not_apply("no WireGuard interface") if isinstance(wireguard, dict) else not_checked("no WireGuard facts were read")


def unknown_entries(unknown, total, none_known, whose):
    """A coverage's answer from ``unknown`` of ``total`` entries a rule could not judge: ``not_checked(none_known)``
    when that is all of them (and there is one), ``partly("N entr(y|ies) WHOSE")`` when some, None when none."""
    if total and unknown == total:
        return not_checked(none_known)
    if unknown:
        return partly("%d entr%s %s" % (unknown, "y" if unknown == 1 else "ies", whose))
    return None


def node_id(host, interface) -> str:
    """``"HOST/INTERFACE"``."""
    return "%s/%s" % (host, interface)


def edge_id(node, public_key) -> str:
    """``"HOST/INTERFACE>KEY"``: one interface lists a key once (WireGuard merges a repeated peer)."""
    return "%s>%s" % (node, public_key)


def _keepalive(value):
    """A keepalive as the kernel shows it: None, 0 and "off" are all "none" (0)."""
    return value if isinstance(value, int) else 0


def _choose_config(running, candidates):
    """(the config that runs ``running`` (the interface's live state, or None), ambiguous) among ``candidates``, the
    configs naming one interface: the one whose peer keys are the running peers' (then: most keys in common, then most
    keepalives equal to the running ones; a keepalive is never learned, so it tells two files with the same keys apart).
    A tie: the first, and ambiguous True (the rules then judge nothing they would read from the file)."""
    if len(candidates) == 1:
        return candidates[0], False
    live = {peer.get("public_key"): peer for peer in (running or {}).get("peers") or [] if peer.get("public_key")}

    def score(config):
        keys = {peer.get("public_key") for peer in config.get("peers") or [] if peer.get("public_key")}
        same_ka = len([peer for peer in config.get("peers") or [] if peer.get("public_key") in live
                       and _keepalive(peer.get("persistent_keepalive_s")) == _keepalive(live[peer["public_key"]].get("persistent_keepalive_s"))])
        return (keys == set(live), len(keys & set(live)), same_ka)

    scores = [score(config) for config in candidates]
    best = max(scores)
    if running is None or scores.count(best) > 1:
        return candidates[0], True
    return candidates[scores.index(best)], False


def _linux(host, facts):
    """(nodes, edges) of one Linux host from tunnel_facts' ``wireguard``: running interfaces and peers, and the peers of
    its wg-quick files and .netdevs (owner, and entries the kernel does not have). Several files naming one interface
    (a wg-quick file left behind after a move to networkd): ``_choose_config``. One key in two peer sections of the
    file (a [Peer] pasted twice): the one its owner sets last, ``_repeated_peer``."""
    wireguard = (facts or {}).get("wireguard") or {}
    if not isinstance(wireguard, dict):
        raise TypeError("wireguard is %s, not a mapping" % type(wireguard).__name__)
    interfaces = wireguard_interfaces(facts)
    nodes, edges = {}, {}
    by_name = {}      # interface -> the configs naming it, in the facts' order
    for config in wireguard.get("configs") or []:
        name, owner = config.get("interface"), _CONFIG_OWNER.get(config.get("kind"))
        if name and owner is not None and config.get("wireguard", True):
            by_name.setdefault(name, []).append(config)
    configured = {}   # (interface, key) -> (owner, path, entry, set_order)
    addresses = {}    # interface -> its wg-quick file's Address values
    own_keys = {}     # interface -> the public key of its chosen config's private key (None: not known)
    ambiguous = set()
    for name, candidates in by_name.items():
        config, unsure = _choose_config(interfaces.get(name), candidates)
        if unsure:
            ambiguous.add(name)
        owner = _CONFIG_OWNER[config["kind"]]
        own_keys[name] = None if unsure else config.get("configured_public_key")
        if owner == "wg-quick" and config.get("addresses") is not None and not unsure:
            if not isinstance(config["addresses"], list):
                raise TypeError("addresses of %s is %s, not a list" % (config.get("path"), type(config["addresses"]).__name__))
            addresses[name] = list(config["addresses"])
        peers = [peer for peer in config.get("peers") or [] if peer.get("public_key")]
        for index, peer in enumerate(peers):
            order = len(peers) - 1 - index if owner == "networkd" else index
            earlier = configured.get((name, peer["public_key"]))
            if earlier is not None:   # one key in two sections of the file: the kernel holds the one set last
                first, last = (earlier[2], peer) if order > earlier[3] else (peer, earlier[2])
                peer, order = _repeated_peer(first, last), max(order, earlier[3])
            configured[(name, peer["public_key"])] = (owner, config.get("path"), peer, order)
    for name, iface in sorted(interfaces.items()):
        node = node_id(host, name)
        nodes[node] = _node(host, name, iface.get("public_key"), iface.get("listen_port"), "linux", addresses.get(name),
                            name in ambiguous, configured_key=own_keys.get(name))
        for peer in iface.get("peers") or []:
            key = peer.get("public_key")
            if not key:
                continue
            owner, path, entry, order = configured.get((name, key), ("live only", None, None, None))
            kept = _split_endpoint(entry.get("endpoint")) if entry is not None else (peer.get("endpoint_host"), peer.get("endpoint_port"))
            allowed = _kept_list(entry.get("allowed_ips"), name in ambiguous) if entry is not None else list(peer.get("allowed_ips") or [])
            edges[edge_id(node, key)] = _edge(node, key, peer, owner, path, running=True, configured=kept,
                                              allowed=allowed, order=order, routed=_LINUX_ROUTED.get(owner))
    for (name, key), (owner, path, entry, order) in sorted(configured.items()):
        node = node_id(host, name)
        if node not in nodes:   # configured, not running: the interface is down
            nodes[node] = _node(host, name, None, None, "linux", addresses.get(name), name in ambiguous,
                                configured_key=own_keys.get(name))
        if edge_id(node, key) not in edges:
            host_part, port = _split_endpoint(entry.get("endpoint"))
            edges[edge_id(node, key)] = _edge(node, key, {"endpoint_host": host_part, "endpoint_port": port,
                                                          "persistent_keepalive_s": entry.get("persistent_keepalive_s")},
                                              owner, path, running=False, configured=(host_part, port),
                                              allowed=_kept_list(entry.get("allowed_ips"), name in ambiguous), order=order,
                                              routed=_LINUX_ROUTED.get(owner))
    return nodes, edges


def _repeated_peer(first, last):
    """One peer key in two sections of a file, as the kernel holds it after its owner set ``first`` and then ``last``:
    ``last``'s AllowedIPs (wg setconf sets every [Peer] with WGPEER_REPLACE_ALLOWEDIPS, in file order: wireguard-tools
    src/config.c ``process_line``), and its Endpoint and PersistentKeepalive, or ``first``'s where ``last`` has none (a
    set leaves what it does not name; a ``PersistentKeepalive = off`` line reads as none here)."""
    merged = dict(last)
    for field in ("endpoint", "persistent_keepalive_s"):
        if merged.get(field) is None:
            merged[field] = first.get(field)
    return merged


def _kept_list(value, ambiguous):
    """A file's list as the graph keeps it: a copy, or None when not read (no such key) or the file is not surely
    the running one."""
    return None if ambiguous or not isinstance(value, list) else list(value)


def _node(host, interface, public_key, listen_port, platform, addresses, ambiguous=False, kept_port="unknown", configured_key=None):
    return {"host": host, "interface": interface, "public_key": public_key, "listen_port": listen_port, "platform": platform,
            "listen_port_kept": kept_port, "addresses": addresses, "config_ambiguous": ambiguous, "alias_of": None,
            "configured_public_key": configured_key}


def machine(nodes, node) -> str:
    """The node that stands for ``node``'s machine: itself, or the node it is an alias of (``_merge_aliases``)."""
    return nodes[node]["alias_of"] or node


# netifd's wireguard.sh: a peer's endpoint_port defaults to 51820 ("config_get peer_port ... endpoint_port 51820",
# then "${peer_port:-51820}"); a peer with disabled 1 is never given to the kernel. openwrt/openwrt
# package/network/utils/wireguard-tools/files/wireguard.sh @0a576dec7468b9d1185b383ba17ee9c7b2151a5d.
OPENWRT_DEFAULT_ENDPOINT_PORT = 51820


def _openwrt(host, facts):
    """(nodes, edges) of one OpenWrt router from openwrt_facts' ``wireguard`` (uci merged with the live state). A uci
    peer's kept endpoint port is netifd's: 51820 when ``endpoint_host`` is set and ``endpoint_port`` is not. Two uci
    sections with one key (a peer copied, the old one disabled): the enabled one is the entry, whatever their order
    (openwrt_facts gives both the kernel's live entry, matched by key; netifd skips the disabled one)."""
    nodes, edges = {}, {}
    for name, iface in sorted(wireguard_interfaces(facts).items()):
        node = node_id(host, name)
        live_state = iface.get("live_state") or {}
        nodes[node] = _node(host, name, live_state.get("public_key"), live_state.get("listen_port") or iface.get("listen_port"),
                            "openwrt", list(iface["addresses"]) if isinstance(iface.get("addresses"), list) else None,
                            kept_port=iface.get("listen_port") if iface.get("in_uci") else "unknown",
                            configured_key=iface.get("configured_public_key") if iface.get("in_uci") else None)
        uci_order = 0
        for peer in iface.get("peers") or []:
            key = peer.get("public_key")
            if not key:
                continue
            live = peer.get("live") if isinstance(peer.get("live"), dict) else None
            seen = dict(live) if live else {"endpoint_host": peer.get("endpoint_host"), "endpoint_port": peer.get("endpoint_port"),
                                            "allowed_ips": peer.get("allowed_ips"),
                                            "persistent_keepalive_s": peer.get("persistent_keepalive_s"),
                                            "has_preshared_key": peer.get("preshared_key_set")}
            in_uci = bool(peer.get("in_uci"))
            order = None
            if in_uci:
                port = peer.get("endpoint_port")
                kept = (peer.get("endpoint_host"), OPENWRT_DEFAULT_ENDPOINT_PORT if port is None and peer.get("endpoint_host") else port)
                allowed = _kept_list(peer.get("allowed_ips"), False)
                order, uci_order = uci_order, uci_order + 1
            else:
                kept = (seen.get("endpoint_host"), seen.get("endpoint_port"))
                allowed = list(seen.get("allowed_ips") or [])
            if peer.get("disabled") and edge_id(node, key) in edges and not edges[edge_id(node, key)]["disabled"]:
                continue   # a disabled copy of an enabled section (same key): netifd gives the kernel the enabled one
            edges[edge_id(node, key)] = _edge(node, key, seen, "uci" if in_uci else "live only", None,
                                              running=live is not None, configured=kept, disabled=bool(peer.get("disabled")),
                                              allowed=allowed, order=order, section=peer.get("section") if in_uci else None,
                                              routed=bool(peer.get("route_allowed_ips")) if in_uci else None)
    return nodes, edges


_TEXT = (str, type(None))
_NUMBER = (int, type(None))
# the fields the rules hash, compare or parse, and the types they take (None: not known)
_NODE_SHAPES = {"public_key": _TEXT, "configured_public_key": _TEXT, "listen_port": _NUMBER, "addresses": (list, type(None))}
_EDGE_SHAPES = {"public_key": _TEXT, "endpoint_host": _TEXT, "endpoint_port": _NUMBER, "configured_endpoint_host": _TEXT,
                "configured_endpoint_port": _NUMBER, "handshake_age_s": _NUMBER,
                "rx_bytes": _NUMBER, "tx_bytes": _NUMBER, "allowed_ips": (list,), "configured_allowed_ips": (list, type(None))}


def _check_shapes(nodes, edges):
    """Raise TypeError naming the first field of ``nodes`` or ``edges`` (one host's) of another type than the rules
    take (a list for a key, a string for a port, an AllowedIPs item that is no string): the host is then ``unreadable``
    instead of failing every host's rules (a key of the wrong type cannot even be looked up)."""
    for kind, items, shapes in (("interface", nodes, _NODE_SHAPES), ("entry", edges, _EDGE_SHAPES)):
        for name, item in items.items():
            for field, types in shapes.items():
                value = item[field]
                if not isinstance(value, types):
                    raise TypeError("%s %s: %s is %s" % (kind, name, field, type(value).__name__))
                if isinstance(value, list) and not all(isinstance(part, str) for part in value):
                    raise TypeError("%s %s: %s holds a non-string" % (kind, name, field))


def _split_endpoint(endpoint):
    """``"203.0.113.1:51820"`` -> ("203.0.113.1", 51820); ``"[2001:db8::1]:51820"`` -> ("2001:db8::1", 51820); a value
    without a port number (or None) -> (its host part or None, None)."""
    if not endpoint:
        return None, None
    host, sep, port = str(endpoint).rpartition(":")
    if not sep or not port.isdigit():
        return str(endpoint), None
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host, int(port)


def _edge(node, key, peer, owner, path, running, configured, disabled=False, allowed=None, order=None, section=None,
          routed=None):
    return {"id": edge_id(node, key), "from": node, "public_key": key, "to": [],
            "endpoint_host": peer.get("endpoint_host"), "endpoint_port": peer.get("endpoint_port"),
            "configured_endpoint_host": configured[0], "configured_endpoint_port": configured[1],
            "allowed_ips": list(peer.get("allowed_ips") or []), "persistent_keepalive_s": peer.get("persistent_keepalive_s"),
            "handshake_age_s": peer.get("handshake_age_s"), "rx_bytes": peer.get("rx_bytes"), "tx_bytes": peer.get("tx_bytes"),
            "owner": owner, "owner_path": path, "running": running, "disabled": disabled,
            "has_preshared_key": peer.get("has_preshared_key") if isinstance(peer.get("has_preshared_key"), bool) else None,
            "preshared_key_fingerprint": (peer.get("preshared_key_fingerprint") if running
                                          and isinstance(peer.get("preshared_key_fingerprint"), str) else None),
            "preshared_key_salt_id": None,   # build_graph: the host's, where there is a fingerprint
            "configured_allowed_ips": allowed, "set_order": order, "uci_section": section, "routed": routed}


def _merge_aliases(nodes, edges, keys):
    """Mark as ``alias_of`` the first one every node that has another node's public key, listen port, platform, addresses
    and set of peer keys: one machine listed twice in the inventory (``hub`` and ``hub.example.com``), not a clone (a
    clone put to use has other peers, another port or other addresses; an untouched clone of a running host looks the
    same and is merged too). Its key then names only the first node (``keys``), so entries for it join once."""
    peer_keys = {}
    for edge in edges.values():
        peer_keys.setdefault(edge["from"], set()).add(edge["public_key"])
    for key, named in keys.items():
        if len(named) < 2:
            continue
        first_of = {}
        kept = []
        for node in named:
            info = nodes[node]
            signature = (info["listen_port"], info["platform"], tuple(info["addresses"] or ()), frozenset(peer_keys.get(node, ())))
            if signature in first_of:
                nodes[node]["alias_of"] = first_of[signature]
            else:
                first_of[signature] = node
                kept.append(node)
        keys[key] = kept


def _live(edge):
    return edge["running"] and not edge["disabled"]


def _add_salt_id(edges, facts):
    """Set each of one host's ``edges`` with a ``preshared_key_fingerprint`` its ``preshared_key_salt_id``: the id
    of the salt the host's fingerprints were made with (its wireguard facts'); an edge whose host gives no salt id
    loses its fingerprint (one that cannot be told apart from another run's is never compared)."""
    salt = ((facts or {}).get("wireguard") or {}).get("preshared_key_salt_id")
    for edge in edges.values():
        if edge["preshared_key_fingerprint"] is not None:
            if isinstance(salt, str) and salt:
                edge["preshared_key_salt_id"] = salt
            else:
                edge["preshared_key_fingerprint"] = None


def build_graph(views, resolve=None) -> dict:
    """The graph of ``views`` (``{host: view}``, faults/view.py; a host without WireGuard facts adds nothing): module doc.
    A host whose facts have an unexpected shape adds nothing and is listed in ``unreadable`` ({host: reason}).
    ``resolve``: called once with the endpoint hostnames to look up (``_names_to_resolve``), returns ``{name:
    {"addresses": [...], "error": None | str}}`` (``resolve.resolve_names``); None: none is resolved (``resolved`` {})."""
    nodes, edges, unreadable, connected = {}, {}, {}, {}
    for host in sorted(views):
        view = views[host] or {}
        connected[host] = _connected(view)
        try:
            if isinstance((view.get("openwrt") or {}).get("wireguard"), dict):
                got = _openwrt(host, view["openwrt"])
            else:
                got = _linux(host, view.get("tunnelfix"))
            _check_shapes(*got)
            _add_salt_id(got[1], view["openwrt"] if isinstance((view.get("openwrt") or {}).get("wireguard"), dict) else view.get("tunnelfix"))
        except (AttributeError, TypeError, KeyError, ValueError) as exc:
            unreadable[host] = "its WireGuard facts have an unexpected shape (%s: %s)" % (type(exc).__name__, exc)
            continue
        nodes.update(got[0])
        edges.update(got[1])
    keys = {}
    for node in sorted(nodes):
        if nodes[node]["public_key"]:
            keys.setdefault(nodes[node]["public_key"], []).append(node)
    _merge_aliases(nodes, edges, keys)
    owners = {}   # every key an interface of the run has or will have: running, or what its kept private key gives
    for node in sorted(nodes):   # (an interface not up has only the latter: a private key pasted for it is hidden too)
        for key in (nodes[node]["public_key"], nodes[node]["configured_public_key"]):
            if key and node not in owners.setdefault(key, []):
                owners[key].append(node)
    hidden = {key: placeholder(node) for key, node in
              leaked([edge["public_key"] for edge in edges.values() if edge["public_key"] not in keys], owners).items()}
    if hidden:
        edges = _hide(edges, hidden)
    back = {}
    for edge in edges.values():
        edge["to"] = list(keys.get(edge["public_key"], []))
        own_key = nodes[edge["from"]]["public_key"]
        back[edge["id"]] = None
        reverses = [edge_id(other, own_key) for other in edge["to"] if own_key and edge_id(other, own_key) in edges]
        live = [reverse for reverse in reverses if _live(edges[reverse])]
        back[edge["id"]] = (live or reverses or [None])[0]
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
            "by_node": by_node, "listed_by": listed_by, "host_nodes": host_nodes, "unreadable": unreadable,
            "connected": connected, "hidden_keys": hidden, "resolved": _resolved(ordered, resolve)}


def _names_to_resolve(edges) -> list:
    """The endpoint hostnames (not addresses) enabled entries keep that had no handshake within STALE_HANDSHAKE_S."""
    names = set()
    for edge in edges:
        name, age = edge["configured_endpoint_host"], edge["handshake_age_s"]
        if name and not edge["disabled"] and address_of(name) is None and (age is None or age > STALE_HANDSHAKE_S):
            names.add(str(name))
    return sorted(names)


def _resolved(edges, resolve):
    """``graph["resolved"]``: ``resolve``'s answer for ``_names_to_resolve`` (a name it leaves out, or an answer of
    another shape, is ``{"addresses": [], "error": "not resolved"}``)."""
    names = _names_to_resolve(edges) if resolve is not None else []
    got = resolve(names) if names else {}
    out = {}
    for name in names:
        answer = got.get(name) if isinstance(got, dict) else None
        if isinstance(answer, dict) and isinstance(answer.get("addresses"), list):
            out[name] = {"addresses": [str(value) for value in answer["addresses"]], "error": answer.get("error")}
        else:
            out[name] = {"addresses": [], "error": "not resolved"}
    return out


def _hide(edges, hidden):
    """``edges`` with every entry whose key is in ``hidden`` (a private key: keys.py) listing the placeholder instead."""
    out = {}
    for edge in edges.values():
        if edge["public_key"] in hidden:
            edge = dict(edge, public_key=hidden[edge["public_key"]])
            edge["id"] = edge_id(edge["from"], edge["public_key"])
        out[edge["id"]] = edge
    return out


def _connected(view):
    """The host's ``link_addresses`` devices (``{device: ["address/prefix", ...]}``), or None when not read (or of
    another shape: a device's addresses that are no list of strings)."""
    facts = view.get("openwrt") if isinstance(view.get("openwrt"), dict) else view.get("tunnelfix")
    reading = (facts or {}).get("link_addresses") if isinstance(facts, dict) else None
    devices = reading.get("devices") if isinstance(reading, dict) else None
    if not isinstance(devices, dict) or not all(isinstance(values, list) and all(isinstance(value, str) for value in values)
                                                for values in devices.values()):
        return None
    return devices


_CACHE = {}


def graph_of(views) -> dict:
    """``build_graph(views)``, built once per ``views`` object (the registry calls each rule once per host with the
    same dict, never changed between the calls): the last one is kept. The rules read it through the indexes
    (``by_host``, ``by_node``, ``listed_by``), so a run costs time linear in the entries.

    The cache is keyed by the object's identity, not its content: a caller that changes ``views`` in place and calls
    again gets the old graph (build_graph gives a fresh one). The cache holds ``views`` itself, so its id cannot be
    reused by another dict while it is cached. Endpoint hostnames are resolved from the controller here
    (``resolve.resolve_names``, looked up at each build: unit tests replace it with a fake)."""
    if _CACHE.get("views") is not views:
        _CACHE.clear()
        _CACHE.update(views=views, graph=build_graph(views, resolve=resolve_names))
    return _CACHE["graph"]
