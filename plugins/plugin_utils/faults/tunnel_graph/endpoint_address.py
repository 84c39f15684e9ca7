# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of endpoint_address_mismatch: an entry knocks at an address the other end does not have.

Read from the tunnel graph (``graph.graph_of``): A's entry for B (its key is B's running interface, one machine of the
run, not A's) keeps an endpoint. The address judged is the one the entry uses: the kept one when it is an address; for
a hostname, the address the kernel holds (WireGuard resolved the name once, when the entry was set: a dynamic-DNS
peer that moved is not followed, wireguard-tools' reresolve-dns problem), compared with what the name resolves to now
from the controller (``graph["resolved"]``, ``resolve.py``: resolved once per name, for entries with no fresh
handshake only; the rule itself never resolves).

B's addresses are every address on B's devices (the ``link_addresses`` reading: ``graph["connected"]``; loopback and
link-local left out) and B's faces the fleet sees: the live endpoints other entries for B use with a handshake newer
than ``STALE_HANDSHAKE_S`` (a hub behind NAT, a cloud VM with a 1:1 NAT, has a public address that is on no device of
its own). The addresses of B's interface at this tunnel's other end are not among them: an endpoint inside the tunnel
itself cannot carry the tunnel.

A finding needs all of:

- no handshake of A's entry newer than ``STALE_HANDSHAKE_S``: a fresh one proves the endpoint works, whatever a NAT
  does in between;
- B's devices read (``connected`` not None; else the coverage says ``not_checked``/``partly``), and the address not
  among B's addresses; for a hostname, not what the name resolves to now (then the name, not the tunnel, is wrong:
  out of scope) and the kernel holds an address for it (a running entry);
- the other end does not hear this one (``heard_by_other_end``: its entry for A received bytes and never had a
  handshake, or received more at the second sample: A's packets reach B, through whatever NAT or relay the address
  is);
- a sign that the address is wrong (``signs``), not merely unknown:

  - ``inside the tunnel``: it is an address of B's interface at this tunnel's other end;
  - ``another host's address``: it is on a device of another host of the run, or others reach another host at it
    and at that port (a ``[Peer]`` copied with the wrong Endpoint; the host is named). A private address
    (``PRIVATE``: RFC 1918, CGNAT, ULA) counts only when exactly one other host has it: sites numbered alike are
    common. Not a host that may be B's NAT: a public address on its device while a prefix connected on that host holds
    one of B's private addresses of that family (a router forwarding a port to B behind it, B perhaps with a public
    uplink of its own too); nor a host others reach at that address on another port (a NAT shared with B);
  - ``the name resolves to the other end now``: the hostname now resolves to one of B's addresses of the same family
    and kind (private or public) as the address in use (the peer moved, the entry was not set again); a private
    address of B for a public one in use is what a split-horizon DNS gives the controller on B's LAN, not a move;
  - ``others reach it elsewhere``: other entries reach B with a fresh handshake at another address of the same
    family and kind (private or public): peers on B's LAN reaching it at a private address say nothing about the
    public address a NAT forwards to B;
  - ``sent into nothing``: the entry sent and never received a byte (``endpoints.sent_into_nothing``) and B has an
    address of the same family and kind (private or public) on a device, so no NAT in front of B explains the address
    (with only private addresses on B's devices, a public address may be B's NAT: no sign).

Severity ``high``, as endpoint_port_mismatch: the tunnel does not come up (or not again after the next restart), but
nothing else breaks. ``confidence``: ``high`` with ``inside the tunnel``, ``another host's address`` or ``the name
resolves to the other end now`` (each names where the address really belongs); ``medium`` with only ``others reach it
elsewhere`` or ``sent into nothing``: B may have a second uplink or a NAT address the run does not see (a stale
handshake of an idle tunnel is normal), and the finding says so. Not judged: a disabled entry, a link-local, loopback
or multicast endpoint (``link_addresses`` leaves those out, so B's could not be told), an interface whose files
are ambiguous (``config_ambiguous``), an entry whose key is no machine or two machines of the run. The endpoint's port
is endpoint_port_mismatch's. A never-completing handshake on the same entry is handshake_never_completes' too (the
path): both findings then name the same entry.

Cost: linear in the entries and addresses of the run (one index per graph, ``_index``).
"""

from __future__ import annotations

import ipaddress

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import fresh_handshake
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoints import sent_into_nothing
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, machine, unknown_entries
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.resolve import address_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.samples import second_sample

INSIDE = "inside the tunnel"
OTHER_HOST = "another host's address"
MOVED = "the name resolves to the other end now"
ELSEWHERE = "others reach it elsewhere"
INTO_NOTHING = "sent into nothing"
SIGNS = (INSIDE, OTHER_HOST, MOVED, ELSEWHERE, INTO_NOTHING)   # the order evidence lists them in
_SURE = (INSIDE, OTHER_HOST, MOVED)
_MAX_LISTED = 3   # hosts named per address reached
# the ranges a host behind a NAT (or one of many sites numbered alike) has: RFC 1918, RFC 6598 (CGNAT), RFC 4193 (ULA);
# any other usable address counts as public (documentation and benchmark ranges too: the tests use them)
PRIVATE = tuple(ipaddress.ip_network(value) for value in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                                                          "fc00::/7"))


def private(address) -> bool:
    """Whether ``address`` (an ``ipaddress`` address) is in ``PRIVATE``."""
    return any(address.version == net.version and address in net for net in PRIVATE)


def _usable(address):
    return address is not None and not (address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast)


def _device_addresses(values):
    """``["192.168.1.2/24", ...]`` -> {usable address: its network} (loopback, link-local left out)."""
    out = {}
    for value in values or []:
        address = address_of(str(value).split("/", 1)[0])
        if _usable(address):
            try:
                out[address] = ipaddress.ip_interface(str(value).split("%", 1)[0]).network
            except ValueError:
                out[address] = ipaddress.ip_network(address)
    return out


_CACHE = {}


def _index(graph) -> dict:
    """Per graph, once (kept for the last graph, as ``graph_of`` keeps the graph)::

        {"devices": {host: {address: device} | None},             # link_addresses; None: not read
         "networks": {host: [connected network, ...]},             # the prefixes of those addresses
         "faces": {machine node: {address: [(port, node, age), ...]}},   # fresh live endpoints of entries for it
         "on_device": {address: {host, ...}},                      # hosts with it on a device
         "as_face": {address: {(port, host), ...}},                # hosts others reach at it (and that port)
         "hosts_of": {machine node: {host, ...}}}                  # the inventory hosts of one machine (aliases)
    """
    if _CACHE.get("graph") is graph:
        return _CACHE["index"]
    nodes = graph["nodes"]
    devices, networks, on_device, as_face, faces, hosts_of = {}, {}, {}, {}, {}, {}
    for host, listed in graph["connected"].items():
        if listed is None:
            devices[host] = None
            continue
        devices[host], networks[host] = {}, []
        for device in sorted(listed):
            for address, network in _device_addresses(listed[device]).items():
                devices[host].setdefault(address, device)
                networks[host].append(network)
                on_device.setdefault(address, set()).add(host)
    for name in nodes:
        hosts_of.setdefault(machine(nodes, name), set()).add(nodes[name]["host"])
    parsed = {}   # endpoint text -> address: a host's address is in many entries
    for edge in graph["edges"]:
        if len(edge["to"]) != 1 or not edge["running"] or edge["disabled"] or not fresh_handshake(edge["handshake_age_s"]) or not edge["endpoint_host"]:
            continue
        if edge["endpoint_host"] not in parsed:
            parsed[edge["endpoint_host"]] = address_of(edge["endpoint_host"])
        address = parsed[edge["endpoint_host"]]
        if not _usable(address):
            continue
        target = machine(nodes, edge["to"][0])
        faces.setdefault(target, {}).setdefault(address, []).append((edge["endpoint_port"], edge["from"], edge["handshake_age_s"]))
        as_face.setdefault(address, set()).add((edge["endpoint_port"], nodes[target]["host"]))
    _CACHE.clear()
    _CACHE.update(graph=graph, index={"devices": devices, "networks": networks, "faces": faces, "on_device": on_device,
                                      "as_face": as_face, "hosts_of": hosts_of})
    return _CACHE["index"]


def _candidates(graph, host):
    """(entry, other end's node) for every enabled entry of ``host`` that keeps an endpoint, whose key is one other
    machine of the run, with no fresh handshake, its interface's files not ambiguous."""
    nodes = graph["nodes"]
    for edge in graph["by_host"].get(host, []):
        if edge["disabled"] or not edge["configured_endpoint_host"] or fresh_handshake(edge["handshake_age_s"]):
            continue
        if len(edge["to"]) != 1 or machine(nodes, edge["to"][0]) == machine(nodes, edge["from"]) or nodes[edge["from"]]["config_ambiguous"]:
            continue
        yield edge, nodes[edge["to"][0]]


def _judged_address(graph, edge):
    """(the address the entry uses, the name's resolution now or None for an address): the kept address; for a
    hostname the kernel's (None when the entry does not run or holds none)."""
    kept = edge["configured_endpoint_host"]
    if address_of(kept) is not None:
        return address_of(kept), None
    resolved = graph["resolved"].get(kept) or {"addresses": [], "error": "not resolved"}
    live = address_of(edge["endpoint_host"]) if edge["running"] and edge["endpoint_host"] else None
    return live, resolved


def _same_scope(address, others):
    return any(other.version == address.version and private(other) == private(address) for other in others)


def _holders(index, address, port, own, b_hosts):
    """The other hosts ``address`` is known to be: on a device of theirs, unless that host may be the NAT in front of
    the other end (the address is public and a prefix connected on that host holds one of the other end's private
    addresses of that family: a router forwarding a port to the other end behind it, which may have a public uplink of
    its own too; a port it listens on tells nothing, as a forward takes the packets first); or where others reach them
    at that very port (a NAT shared with the other end forwards another port to it)."""
    behind = [] if private(address) else [mine for mine in own if mine.version == address.version and private(mine)]
    hosts = set()
    for name in index["on_device"].get(address, set()) - b_hosts:
        if any(mine.version == net.version and mine in net for mine in behind for net in index["networks"].get(name, [])):
            continue
        hosts.add(name)
    hosts |= {name for face_port, name in index["as_face"].get(address, set()) if face_port == port and name not in b_hosts}
    return sorted(hosts)


def _reached_at(index, target, nodes):
    """Others' fresh entries for ``target`` by address: ``[{"address", "port", "entries", "hosts"}]`` (hosts: the first
    few, sorted)."""
    out = []
    for address, uses in sorted((index["faces"].get(target) or {}).items(), key=lambda item: (item[0].version, item[0])):
        for port in sorted({use[0] for use in uses}, key=lambda value: (value is None, value or 0)):
            hosts = sorted({nodes[use[1]]["host"] for use in uses if use[0] == port})
            out.append({"address": str(address), "port": port, "entries": len([use for use in uses if use[0] == port]),
                        "hosts": hosts[:_MAX_LISTED]})
    return out


def _target(index, nodes, node):
    """What the rule knows of the other end ``node`` (once per node and graph: a hub is many entries' other end):
    (its hosts, the addresses of this tunnel's interface, its other device addresses, its faces, reached_at), or None
    when its devices were not read."""
    memo = index.setdefault("targets", {})
    if node not in memo:
        target, interface = machine(nodes, node), nodes[node]["interface"]
        b_hosts = index["hosts_of"].get(target, {nodes[node]["host"]})
        device_lists = [index["devices"].get(name) for name in sorted(b_hosts)]
        if any(found is None for found in device_lists):
            memo[node] = None
        else:
            tunnel = {found for listed in device_lists for found, device in listed.items() if device == interface}
            own = {found for listed in device_lists for found, device in listed.items() if device != interface}
            memo[node] = (b_hosts, tunnel, own, set(index["faces"].get(target) or {}), _reached_at(index, target, nodes))
    return memo[node]


def _signs(edge, address, resolved, index, nodes):
    """(signs, hosts the address is another host's of, B's device addresses, reached_at), or None when the address is
    one of B's (or B's devices were not read)."""
    known = _target(index, nodes, edge["to"][0])
    if known is None:
        return None
    b_hosts, tunnel, own, faces, reached = known
    if address in own or address in faces:
        return None
    signs = []
    if address in tunnel:
        signs.append(INSIDE)
    port = edge["endpoint_port"] if edge["running"] and edge["endpoint_port"] else edge["configured_endpoint_port"]
    holders = _holders(index, address, port, own, b_hosts)
    if holders and (not private(address) or len(holders) == 1):
        signs.append(OTHER_HOST)
    now = {found for found in (address_of(value) for value in (resolved or {}).get("addresses") or []) if found is not None}
    # of the address's family and kind: a split-horizon answer (B's LAN address for a public one in use) is no move
    if any(_same_scope(address, [found]) for found in now & (own | faces)):
        signs.append(MOVED)
    if any(_same_scope(address, [face]) for face in faces):
        signs.append(ELSEWHERE)
    if sent_into_nothing(edge) and _same_scope(address, own):
        signs.append(INTO_NOTHING)
    return signs, holders if OTHER_HOST in signs else [], sorted(own, key=lambda item: (item.version, item)), reached


def endpoint_line(edge, interface) -> str:
    """The line that keeps ``edge``'s endpoint: the file's ``Endpoint =`` (wg-quick) or ``Endpoint=`` (networkd) of
    its peer section, uci's ``endpoint_host``, or a ``wg set`` command for a live-only entry."""
    if edge["owner"] == "uci":
        return "network.%s.endpoint_host" % edge["uci_section"]
    if edge["owner"] == "wg-quick":
        return "Endpoint = of the [Peer] with PublicKey = %s in %s" % (edge["public_key"], edge["owner_path"])
    if edge["owner"] == "networkd":
        return "Endpoint= of the [WireGuardPeer] with PublicKey=%s in %s" % (edge["public_key"], edge["owner_path"])
    return "wg set %s peer %s endpoint ADDRESS:%s (no file keeps it)" % (interface, edge["public_key"], edge["endpoint_port"] or "PORT")


def _reset_line(edge, interface, name, port):
    """How to have WireGuard resolve ``name`` again, per owner."""
    port = port or "PORT"
    command = "wg set %s peer %s endpoint %s:%s" % (interface, edge["public_key"], name, port)
    if edge["owner"] == "uci":
        return ("%s, or ifup the interface; OpenWrt's wireguard-tools ships /usr/bin/wireguard_watchdog to run from cron, "
                "which does this for entries without a recent handshake" % command)
    return ("%s (or restart the interface); run that, or wireguard-tools' contrib reresolve-dns script, from a timer so "
            "that the next move is followed" % command)


def heard_by_other_end(views, nodes, back) -> bool:
    """Whether the other end's entry for this one (``back``, running) shows this end's packets arriving: bytes received
    and never a handshake (all it ever received came from this end since its interface started: initiations that
    reached it, whatever address, NAT or relay they crossed), or its bytes received grew between the facts and the
    second sample (``samples.second_sample``). Either proves the endpoint reaches the other end: a tunnel that still
    does not come up has another cause (a preshared key, the answers' path: handshake_never_completes)."""
    if not back or not back["running"] or not isinstance(back["rx_bytes"], int):
        return False
    if back["rx_bytes"] > 0 and back["handshake_age_s"] is None:
        return True
    node = nodes.get(back["from"]) or {}
    later = second_sample(views, node.get("host"), node.get("interface"), back["public_key"])
    return bool(later) and isinstance(later["rx_bytes"], int) and later["rx_bytes"] > back["rx_bytes"]


def endpoint_address(host, view, views):
    """One (evidence, explanation) per entry of ``host`` whose endpoint address is not one its other end has, with a
    sign that it is wrong (module doc)."""
    graph = graph_of(views)
    nodes = graph["nodes"]
    out = []
    for edge, other in _candidates(graph, host):
        index = _index(graph)   # built on the first entry to judge: a fleet of fresh handshakes never needs it
        address, resolved = _judged_address(graph, edge)
        if not _usable(address):   # none, or link-local (fe80::2%eth0 on a LAN): B's link_addresses leave those out
            continue
        now = {address_of(value) for value in (resolved or {}).get("addresses") or []}
        if resolved is not None and address in now:
            continue
        back = graph["by_id"].get(graph["back"].get(edge["id"]))
        if heard_by_other_end(views, nodes, back):
            continue
        judged = _signs(edge, address, resolved, index, nodes)
        if not judged or not judged[0]:
            continue
        signs, holders, own, reached = judged
        node = nodes[edge["from"]]
        change = endpoint_line(edge, node["interface"])
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"],
                    "judged_address": str(address), "endpoint_host": edge["endpoint_host"], "endpoint_port": edge["endpoint_port"],
                    "configured_endpoint_host": edge["configured_endpoint_host"],
                    "configured_endpoint_port": edge["configured_endpoint_port"],
                    "resolved_now": dict(resolved, resolved_from="controller") if resolved is not None else None,
                    "other_host": other["host"], "other_interface": other["interface"],
                    "other_addresses": [str(item) for item in own], "reached_at": [dict(item) for item in reached],
                    "address_of_hosts": holders,
                    "signs": signs, "confidence": "high" if any(sign in _SURE for sign in signs) else "medium",
                    "handshake_age_s": edge["handshake_age_s"], "tx_bytes": edge["tx_bytes"], "rx_bytes": edge["rx_bytes"],
                    "other_handshake_age_s": back["handshake_age_s"] if back else None,
                    "owner": edge["owner"], "owner_path": edge["owner_path"], "change": change}
        out.append((evidence, _text(host, node, edge, other, evidence)))
    return out


def _text(host, node, edge, other, evidence):
    address, name = evidence["judged_address"], None if evidence["resolved_now"] is None else edge["configured_endpoint_host"]
    parts = []
    where = ("%s's %s sends to %s's %s at %s" % (host, node["interface"], other["host"], other["interface"], address)
             + (" (what %s resolved to when the entry was set)" % name if name else ""))
    live = edge["endpoint_host"] if edge["running"] else None
    if not name and live and address_of(live) != address_of(address):
        where = ("%s's %s keeps %s as %s's %s endpoint (the kernel holds %s now, learned from packets; a restart goes "
                 "back to the kept one)" % (host, node["interface"], address, other["host"], other["interface"], live))
    if edge["handshake_age_s"] is None:
        state = "and never had a handshake"
    else:
        state = "and its last handshake was %d s ago" % edge["handshake_age_s"]
    parts.append("%s %s. That is not an address of %s (its devices have %s) and no other entry reaches it there."
                 % (where, state, other["host"], ", ".join(evidence["other_addresses"]) or "none usable"))
    signs = evidence["signs"]
    if INSIDE in signs:
        parts.append("It is %s's address inside this very tunnel, which cannot carry the tunnel's own packets."
                     % other["host"])
    if OTHER_HOST in signs:
        parts.append("It is %s's address (on a device, or where others reach it): a peer section copied from there?"
                     % " and ".join(evidence["address_of_hosts"]))
    if name:
        resolved = evidence["resolved_now"]
        if resolved["addresses"]:
            parts.append("%s resolves to %s now (resolved from the Ansible controller, whose DNS may differ from %s's)%s."
                         % (name, ", ".join(resolved["addresses"]), host,
                            ": one of %s's addresses, so %s moved and WireGuard, which resolves a name only when the entry "
                            "is set, still sends to the old one" % (other["host"], other["host"]) if MOVED in signs else ""))
        else:
            parts.append("%s does not resolve from the Ansible controller now (%s)." % (name, resolved["error"]))
    if ELSEWHERE in signs:
        parts.append("Other entries reach %s with a fresh handshake at %s." % (other["host"], ", ".join(
            "%s port %s (%d entr%s: %s%s)" % (item["address"], item["port"], item["entries"], "y" if item["entries"] == 1 else "ies",
                                              ", ".join(item["hosts"]), "" if item["entries"] == len(item["hosts"]) else " and others")
            for item in evidence["reached_at"])))
    if INTO_NOTHING in signs:
        parts.append("The entry sent %d bytes and received none, and %s has addresses of that kind on its own devices, "
                     "so no NAT in front of it explains this one." % (edge["tx_bytes"], other["host"]))
    if MOVED in signs:
        fix = "have WireGuard resolve the name again: %s." % _reset_line(edge, node["interface"], name, edge["configured_endpoint_port"])
    else:
        known = list(dict.fromkeys([item["address"] for item in evidence["reached_at"]] + evidence["other_addresses"]))
        fix = "set the endpoint to %s of %s%s in %s." % ("a name that resolves to an address" if name else "an address",
                                                         other["host"], " (%s)" % ", ".join(known) if known else "", evidence["change"])
    if evidence["confidence"] == "medium":
        parts.append("Unless %s is %s's too (a second uplink, a NAT address no other host of the run uses), %s"
                     % (address, other["host"], fix))
    else:
        parts.append(fix[0].upper() + fix[1:])
    return " ".join(parts)


def endpoint_address_coverage(host, view, views):
    """one_sided_coverage's answer, else: ``not_checked`` when no entry of ``host`` that needs judging (an endpoint kept,
    no fresh handshake) could be judged (its other end's devices not read: link_addresses; a hostname the kernel holds
    no address for), ``partly`` when some could not."""
    base = one_sided_coverage(host, view, views)
    if base is not None and not base[1].startswith("judged without"):
        return base
    graph = graph_of(views)
    pending = list(_candidates(graph, host))
    unknown = 0
    for edge, _other in pending:
        if _target(_index(graph), graph["nodes"], edge["to"][0]) is None or _judged_address(graph, edge)[0] is None:
            unknown += 1
    return unknown_entries(unknown, len(pending), "the other ends' live addresses were not read (link_addresses: ip -j addr "
                           "show), or the kernel holds no address for the endpoint's name",
                           "whose other end's live addresses were not read, or whose endpoint name the kernel holds no "
                           "address for") or base
