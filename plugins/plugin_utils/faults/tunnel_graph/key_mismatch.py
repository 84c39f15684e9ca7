# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of public_key_mismatch: a public key that does not match the private key of the interface it stands for.

Read from the tunnel graph (``graph.graph_of``), which holds per interface both the key it runs with (``public_key``)
and the key its owner's private key gives (``configured_public_key``: ``wg pubkey`` on the host, so the private key
never leaves it). Two cases of one fault, judged together because each decides what the other must say:

- ``peer_lists_another_key`` (on the host with the wrong line): an entry of host B whose key K is no interface's of
  the run, meant for interface A of another host: B's endpoint for it is one of A's host addresses (``link_addresses``,
  or the inventory name, and A listens on the endpoint's port when both are known: another port there is a port
  forwarded elsewhere, or another tunnel), or where other entries reach A with a fresh handshake at that address and
  port (a hub behind a NAT; a private address, ``endpoint_address.PRIVATE``, only together with the AllowedIPs below:
  sites numbered alike give another site's router the same LAN address) or else A's tunnel
  address (wg-quick ``Address``, uci ``addresses``) lies in a prefix of the entry's AllowedIPs that is A's address
  alone or narrower than A's own tunnel subnet (the ``/24`` of ``10.77.0.2/24``), and a /24 or narrower (IPv6 /64): a
  prefix as wide as the tunnel subnet is what a spoke lists for its hub and names no single interface (with the hub's
  facts not read, the one other spoke in the run would look meant), A being the only interface of the run it could be
  (an interface whose key B already lists is not, nor one whose running key another interface has too:
  duplicate_public_key's finding). Not an entry with a handshake newer than ``STALE_HANDSHAKE_S``: the handshake proves
  its key is the one the machine that answers has (a standby hub not in the run, say).
  Indexed once per graph: linear in the entries. A's key P: the running one, else the one its private key gives.
  B's interface drops A's handshakes (no peer with that key) and A's go unanswered: replace K by P.
  Not when K is the key A's private key gives while A runs another: B already has A's next key, and the second case
  says so on A (restart A, do not change B).
- ``running_key_not_configured`` (on the host itself): A runs with P, but the private key its file or uci keeps gives
  another key Q (set up by hand, or the file's key changed with no restart since): the next restart (wg-quick, a
  reboot, ifup) switches A to Q, and every entry listing P loses the tunnel then.

Why one fault, not two: both compare a listed public key with the key a private key gives, both are fixed by putting
one key where the other is, and which side is wrong needs both comparisons (the exception of the first case).

With one_sided_peer: when A lists B, one_sided_peer reports the same tunnel on A (B runs no entry for A's key, with K
among B's unknown keys); this finding says on B which entry it is and the line to change, and its text names the other.
A private key pasted as K is the graph's placeholder (keys.py): the finding names the entry by it, never by the key.
"""

from __future__ import annotations

import ipaddress

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import not_checked, partly
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import fresh_handshake
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoint_address import private
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, machine, no_interface
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet

PEER_LISTS_ANOTHER_KEY = "peer_lists_another_key"
RUNNING_KEY_NOT_CONFIGURED = "running_key_not_configured"


def own_keys(node) -> set:
    """The keys that are ``node``'s own: the one it runs with and the one its owner's private key gives (None left out)."""
    return {key for key in (node["public_key"], node["configured_public_key"]) if key}


def _ips(values):
    """The addresses of ``values`` (``"10.77.0.2/24"``, ``"203.0.113.1"``, ``"[2001:db8::1]"``), unreadable ones left out."""
    return [ip for ip, _length in _ips_and_lengths(values)]


def _full(ip):
    return 32 if ip.version == 4 else 128


def _ips_and_lengths(values):
    """(address, prefix length) of ``values`` (``"10.77.0.2/24"`` -> (10.77.0.2, 24); no or an unreadable length: the
    address's full length), unreadable addresses left out."""
    out = []
    for value in values or []:
        text, sep, length = str(value).partition("/") if value else ("", "", "")
        ip = ipnet.endpoint_address(text) if text else None
        if ip is not None:
            out.append((ip, int(length) if sep and length.isdigit() and int(length) <= _full(ip) else _full(ip)))
    return out


# AllowedIPs wider than this (per family) name too many interfaces to tell which one an entry is meant for
_BUCKET = {4: 24, 6: 64}
_INDEX = {}


def _index(graph):
    """(tunnel address buckets, host address -> hosts, inventory host -> its nodes) of ``graph``'s nodes that may be an
    entry's other end (not an alias, some own key known), built once per graph (kept with it, as graph_of keeps it):
    ``meant_for`` then costs the entry's own prefixes, not the run's nodes."""
    if _INDEX.get("graph") is not graph:
        buckets, addresses, hosts = {}, {}, {}
        for name in sorted(graph["nodes"]):
            node = graph["nodes"][name]
            if machine(graph["nodes"], name) != name or not own_keys(node):
                continue
            hosts.setdefault(node["host"], []).append(name)
            for ip, length in _ips_and_lengths(node["addresses"]):
                bucket = ipnet.network("%s/%d" % (ip, _BUCKET[ip.version]))
                buckets.setdefault((ip.version, str(bucket)), []).append((ip, length, name))
        for host, devices in graph["connected"].items():
            for ip in {ip for values in (devices or {}).values() for ip in _ips(values)}:
                addresses.setdefault(ip, []).append(host)
        faces = {}   # where others reach a node with a fresh handshake: a hub behind a NAT has that address on no device
        for edge in graph["edges"]:
            if len(edge["to"]) == 1 and edge["running"] and not edge["disabled"] and _fresh(edge["handshake_age_s"]):
                ip = ipnet.endpoint_address(str(edge["endpoint_host"])) if edge["endpoint_host"] else None
                if ip is not None and edge["endpoint_port"]:
                    faces.setdefault(ip, set()).add((edge["endpoint_port"], machine(graph["nodes"], edge["to"][0])))
        _INDEX.clear()
        _INDEX.update(graph=graph, index=(buckets, addresses, hosts, faces))
    return _INDEX["index"]


def meant_for(graph, edge):
    """(node, how) of the interface ``edge`` (an entry whose key is no interface's of the run) is meant for: ``how``
    ``"endpoint"`` or ``"allowed_ips"`` (module doc); (None, None) when no single interface fits. AllowedIPs wider than
    a /24 (IPv4) or /64 (IPv6) are not read: they name no single interface."""
    nodes = graph["nodes"]
    here = nodes[edge["from"]]
    buckets, addresses, hosts, faces = _index(graph)
    listed = {entry["public_key"] for entry in graph["by_node"].get(edge["from"], [])}

    def fits(name):   # another host's interface B has no entry for, whose key is its own (duplicate_public_key's else)
        node = nodes[name]
        return (node["host"] != here["host"] and not own_keys(node) & (listed | own_keys(here))
                and len(graph["keys"].get(node["public_key"], [name])) == 1)

    endpoints = [value for value in (edge["configured_endpoint_host"], edge["endpoint_host"]) if value]
    named, shared = set(endpoints), set()   # inventory names and public addresses; private addresses (sites numbered alike)
    ports = {edge["configured_endpoint_port"], edge["endpoint_port"]} - {None}
    reached, reached_shared = set(), set()   # nodes others reach at the endpoint's address and port
    for value in endpoints:
        ip = ipnet.endpoint_address(str(value))
        is_private = ip is not None and private(ipaddress.ip_address(str(ip)))
        (shared if is_private else named).update(addresses.get(ip, []))
        (reached_shared if is_private else reached).update(node for port, node in faces.get(ip, ()) if port in ports)

    def at_endpoint(found, nodes_reached):
        listed_at = [name for host in sorted(found) for name in hosts.get(host, [])
                     if not ports or nodes[name]["listen_port"] is None or nodes[name]["listen_port"] in ports]
        return [name for name in dict.fromkeys(listed_at + sorted(nodes_reached)) if fits(name)]

    by_endpoint = at_endpoint(named, reached)
    if len(by_endpoint) == 1:
        return by_endpoint[0], "endpoint"
    # a private address names an interface only with its AllowedIPs: another site's router may have the same one
    by_endpoint = by_endpoint or at_endpoint(shared, reached_shared)
    allowed = edge["configured_allowed_ips"] if edge["configured_allowed_ips"] is not None else edge["allowed_ips"]
    by_allowed = set()
    for net in (ipnet.network(str(prefix)) for prefix in allowed or []):
        if net is None or net.prefixlen < _BUCKET[net.version]:
            continue
        bucket = ipnet.network("%s/%d" % (net.network, _BUCKET[net.version]))
        # a prefix as wide as the interface's own tunnel subnet (a spoke's 10.77.0.0/24 for its hub) names the subnet,
        # not the interface: only a narrower one, or the single address, does
        by_allowed |= {name for ip, length, name in buckets.get((net.version, str(bucket)), [])
                       if ip in net and (net.prefixlen > length or net.prefixlen == _full(ip)) and fits(name)}
    if by_endpoint:
        by_allowed &= set(by_endpoint)
    return (by_allowed.pop(), "allowed_ips") if len(by_allowed) == 1 else (None, None)


def change(edge, new_key) -> str:
    """The line to change so that ``edge`` lists ``new_key``: uci's option, the file's PublicKey line, or the live entry."""
    if edge["owner"] == "uci":
        return "uci set network.%s.public_key='%s' (then uci commit network and ifup the interface)" % (edge["uci_section"], new_key)
    if edge["owner"] == "wg-quick":
        return "the line PublicKey = %s of its [Peer] in %s: PublicKey = %s" % (edge["public_key"], edge["owner_path"], new_key)
    if edge["owner"] == "networkd":
        return "the line PublicKey=%s of its [WireGuardPeer] in %s: PublicKey=%s" % (edge["public_key"], edge["owner_path"], new_key)
    return "its live entry (no file keeps it): wg set %s peer %s remove, then add peer %s with the same allowed-ips" % (
        edge["from"].rsplit("/", 1)[1], edge["public_key"], new_key)


def _where_private_key(view, node):
    """(owner, where its private key is kept) of ``node`` on its own host's facts: uci's option or the config file."""
    if node["platform"] == "openwrt":
        return "uci", "network.%s.private_key" % node["interface"]
    configs = [config for config in ((view or {}).get("tunnelfix") or {}).get("wireguard", {}).get("configs") or []
               if config.get("interface") == node["interface"] and config.get("configured_public_key")]
    if len(configs) == 1:
        return ("networkd" if configs[0].get("kind") == "netdev" else "wg-quick"), configs[0].get("path")
    return None, None


def _fresh(age):
    """A handshake newer than STALE_HANDSHAKE_S: the entry's key is the one the private key of the machine that answers
    gives (a WireGuard handshake proves it), whatever interface the entry may look meant for."""
    return isinstance(age, int) and not isinstance(age, bool) and fresh_handshake(age)


def _listed_for(graph, host):
    out = []
    for edge in graph["by_host"].get(host, []):
        if edge["to"] or edge["disabled"] or _fresh(edge["handshake_age_s"]):
            continue
        name, how = meant_for(graph, edge)
        if name is None:
            continue
        other = graph["nodes"][name]
        if edge["public_key"] in own_keys(other):
            continue
        out.append((edge, other, how))
    return out


def key_mismatch(host, view, views):
    """One (evidence, explanation) per entry of ``host`` that lists another key for an interface of the run, and per
    interface of ``host`` that runs another key than its private key gives (module doc)."""
    graph = graph_of(views)
    nodes = graph["nodes"]
    out = []
    for edge, other, how in _listed_for(graph, host):
        node = nodes[edge["from"]]
        running = other["public_key"]
        right = running or other["configured_public_key"]
        source = "running" if running else "private key"
        matched = ("its endpoint %s is %s's address" % (edge["configured_endpoint_host"] or edge["endpoint_host"], other["host"])
                   if how == "endpoint" else "%s's tunnel address is in its AllowedIPs" % other["host"])
        gives = ("%s's %s runs with %s" % (other["host"], other["interface"], right) if running
                 else "%s's private key for %s gives %s (the interface is not up)" % (other["host"], other["interface"], right))
        also = ("" if not running or not other["configured_public_key"] or other["configured_public_key"] == running else
                " (%s's own file or uci keeps a private key that gives yet another key, %s: see the other case of this "
                "finding on %s)" % (other["host"], other["configured_public_key"], other["host"]))
        out.append(({"case": PEER_LISTS_ANOTHER_KEY, "interface": node["interface"], "peer_public_key": edge["public_key"],
                     "other_host": other["host"], "other_interface": other["interface"], "other_public_key": right,
                     "other_key_source": source, "matched_by": how, "owner": edge["owner"], "owner_path": edge["owner_path"],
                     "change": change(edge, right)}, """
            %s's %s lists %s for %s's %s (%s), but %s%s: %s drops every handshake from %s (it has no peer with that
            key) and %s's handshakes to %s go unanswered. Replace %s by %s at %s. (When %s lists %s, one_sided_peer
            reports the same tunnel on %s.)"""
                    % (host, node["interface"], edge["public_key"], other["host"], other["interface"], matched, gives, also,
                       host, other["host"], other["host"], host, edge["public_key"], right, change(edge, right), other["host"],
                       host, other["host"])))
    for name in graph["host_nodes"].get(host, []):
        node = nodes[name]
        running, kept = node["public_key"], node["configured_public_key"]
        if not running or not kept or running == kept or node["alias_of"]:
            continue
        owner, where = _where_private_key(view, node)
        listed = sorted(graph["listed_by"].get(running, []))
        ahead = sorted(graph["listed_by"].get(kept, []))
        out.append(({"case": RUNNING_KEY_NOT_CONFIGURED, "interface": node["interface"], "public_key": running,
                     "configured_public_key": kept, "owner": owner, "owner_path": where, "listed_by": listed,
                     "configured_listed_by": ahead}, """
            %s's %s runs with public key %s, but the private key %s keeps gives %s: the interface was set up by hand,
            or its key was changed there with no restart since. The next restart (wg-quick down/up, networkctl reload,
            ifup, a reboot) switches %s to %s, and every entry listing %s (%s) loses the tunnel then%s. Either put the
            running private key back where %s keeps it (read it on %s with wg show %s private-key; this report never holds
            it), or change those entries to %s and restart %s."""
                    % (host, node["interface"], running, where or "its owner", kept, node["interface"], kept, running,
                       ", ".join(listed) or "none in this run",
                       "; the entries that already list %s (%s) reach it only after the restart" % (kept, ", ".join(ahead)) if ahead else "",
                       where or "its owner", host, node["interface"], kept, node["interface"])))
    return out


def key_mismatch_coverage(host, view, views):
    """Judged when the host's interfaces' keys are known; ``partly`` when the key of some interface's private key is not
    (no ``wg`` on the host, no private key in its file, several files name it, or facts from before this reading): its
    running key is not compared, and entries meant for it only against the running key."""
    graph = graph_of(views)
    if host in graph["unreadable"]:
        return not_checked(graph["unreadable"][host])
    nodes = [graph["nodes"][name] for name in graph["host_nodes"].get(host, [])]
    if not nodes:
        return no_interface(view)
    unknown = [node for node in nodes if not node["configured_public_key"]]
    if not any(own_keys(node) for node in nodes):
        return not_checked("no interface of it runs, and the public key of no private key of it is known")
    if unknown:
        return partly("%d interface%s whose private key's public key is not known (no wg, no key in its file, or facts "
                      "from before this reading)" % (len(unknown), "" if len(unknown) == 1 else "s"))
    return None
