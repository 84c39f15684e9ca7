# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of allowed_ips_overlap: two peer entries of one interface claim the same addresses, and one loses them.

Read from the tunnel graph (``graph.graph_of``), on each interface's entries as their owners keep them
(``configured_allowed_ips``: the file's AllowedIPs, uci allowed_ips; a "live only" entry's, the kernel's). WireGuard
keeps one routing table per interface (the WireGuard paper, section 2, "Cryptokey Routing"; wg(8) AllowedIPs):

- a prefix two entries list goes to the one set last; the other keeps none of it (``wg show`` prints it under one
  peer only, ``allowed ips: (none)`` when it had nothing else). Which one is set last: the kernel shows it while both
  run; else the owner's order (``graph`` ``set_order``: a wg-quick file's last [Peer], uci's last peer section, a
  .netdev's first [WireGuardPeer]). Two entries with ``0.0.0.0/0`` (two exits) is the usual case: always a finding.
- a prefix inside a wider one of another entry goes to the narrower (the longest prefix matches): the wider entry
  loses it. That is how an operator carves a route out on purpose, so it is a finding only when it looks unmeant:
  not when the wider entry is an exit (its prefixes of that family cover at least half of it: a default route
  ``/0``, a ``/1`` half, or the apps' "Exclude private IPs" list of /2 to /16 prefixes; the other peers' prefixes
  inside it), nor when the narrower one is a single address (``/32``, ``/128``: one
  peer's own tunnel address, or one host, carved out for a direct tunnel), unless it is the tunnel address of the
  wider entry's own other end (known when that host is in the run: wg-quick ``Address``, uci ``addresses``): then
  that host's own traffic goes to the other peer, which is never meant.

Entries of one interface only are compared: the prefixes are sorted once and swept with a stack of the prefixes
that hold the current one (CIDR prefixes nest or are apart), so an interface with ``n`` prefixes costs ``n log n``.
Not judged: a disabled uci peer (netifd never gives it to the kernel), an entry listing the interface's own key (the
kernel skips it), an interface whose files are ambiguous (``configured_allowed_ips`` None), a prefix that is not one.
"""

from __future__ import annotations

import functools

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, no_interface, unknown_entries
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet

# An entry whose prefixes of one family cover at least this share of it is an exit (a default route, one of the /1
# halves that stand for it, the apps' "Exclude private IPs" list): losing a part of it to another peer is the design.
EXIT_SHARE = 0.5
_LINK_LOCAL = ("fe80::/10", "169.254.0.0/16")


@functools.lru_cache(maxsize=1 << 16)
def network(text):
    """``ipnet.network(text)``, remembered: a fleet's rules parse each prefix once (netaddr takes ~40 us a prefix).
    The IPNetwork returned is shared: never change it."""
    return ipnet.network(text)


def link_local(ip) -> bool:
    """Whether the IPAddress ``ip`` is link-local (fe80::/10, 169.254.0.0/16)."""
    return any(ip.version == net.version and ip in net for net in (network(value) for value in _LINK_LOCAL))


@functools.lru_cache(maxsize=1 << 16)
def span(text):
    """A prefix as plain numbers, remembered: ``(version, first, last, prefixlen, "10.0.0.0/8")`` (the prefix as the
    kernel keeps it, host bits cleared), or None when ``text`` is not one."""
    net = network(text)
    return None if net is None else (net.version, net.first, net.last, net.prefixlen, str(net))


def _spans(prefixes):
    """The distinct readable prefixes of ``prefixes`` as ``span`` tuples, in their order."""
    seen, out = set(), []
    for prefix in prefixes or []:
        got = span(str(prefix))
        if got is not None and got not in seen:
            seen.add(got)
            out.append(got)
    return out


def _other_addresses(graph, edge):
    """The tunnel addresses (IPAddress, as written) of the entry's other end: the one interface of the run whose key it
    lists, as its owner keeps them; [] when unknown. Link-local ones are left out."""
    if len(edge["to"]) != 1:
        return []
    out = []
    for value in graph["nodes"][edge["to"][0]]["addresses"] or []:
        ip = ipnet.address(str(value).partition("/")[0])
        if ip is not None and not link_local(ip):
            out.append((ip, str(value)))
    return out


def _inside(ip, prefix) -> bool:
    """Whether the IPAddress ``ip`` lies in the ``span`` ``prefix``."""
    return ip.version == prefix[0] and prefix[1] <= int(ip) <= prefix[2]


def is_exit(edge, version) -> bool:
    """Whether ``edge``'s AllowedIPs as kept cover at least ``EXIT_SHARE`` of the addresses of IP ``version``."""
    covered, end = 0, -1
    for got in sorted((got for got in _spans(edge["configured_allowed_ips"]) if got[0] == version),
                      key=lambda got: (got[1], -got[2])):
        if got[1] > end:   # CIDR prefixes nest or are apart: one that starts past the last end is outermost
            covered, end = covered + got[2] - got[1] + 1, got[2]
    return covered >= EXIT_SHARE * (1 << (32 if version == 4 else 128))


def _holder(group, prefix):
    """(the entry that gets ``prefix`` (a ``span``) among ``group``'s entries, how that was decided): the one the kernel
    holds it for, when exactly one of them runs with it ("live"); else the owner's last set ("order"; a live-only entry
    was added after the owner's). Ties: the first entry by id."""
    live = [edge for edge in group if edge["running"] and prefix in _spans(edge["allowed_ips"])]
    if len(live) == 1:
        return live[0], "live"
    return max(group, key=lambda edge: (edge["set_order"] is None, edge["set_order"] or 0)), "order"


def overlaps(graph, node_name) -> list:
    """(loser entry, holder entry, lost) for one interface: ``lost`` is a list of ``("identical", prefix, decided_by)``
    and ``("contained", prefix, wider prefix)`` (module doc), in address order."""
    own_key = graph["nodes"][node_name]["public_key"]
    entries = [edge for edge in graph["by_node"].get(node_name, [])
               if not edge["disabled"] and edge["configured_allowed_ips"] is not None and edge["public_key"] != own_key]
    items = sorted(((prefix, edge) for edge in entries for prefix in _spans(edge["configured_allowed_ips"])),
                   key=lambda item: (item[0][0], item[0][1], item[0][3], item[1]["id"]))
    lost = {}
    stack = []   # (span, holder entry): the prefixes that hold the current one, widest first
    exits = {}   # (entry id, IP version) -> is_exit, each computed once
    index = 0
    while index < len(items):
        prefix = items[index][0]
        group = []
        while index < len(items) and items[index][0] == prefix:
            group.append(items[index][1])
            index += 1
        holder, decided_by = _holder(group, prefix) if len(group) > 1 else (group[0], None)
        for edge in group:
            if edge is not holder:
                lost.setdefault((edge["id"], holder["id"]), []).append(("identical", prefix[4], decided_by))
        while stack and (stack[-1][0][0] != prefix[0] or stack[-1][0][2] < prefix[1]):
            stack.pop()
        if stack and stack[-1][1] is not holder:
            wider, owner = stack[-1]
            own_lost = any(_inside(ip, prefix) for ip, _written in _other_addresses(graph, owner))
            single = prefix[3] == (32 if prefix[0] == 4 else 128)
            if not own_lost and not single and (owner["id"], prefix[0]) not in exits:
                exits[(owner["id"], prefix[0])] = is_exit(owner, prefix[0])
            if own_lost or not (single or exits[(owner["id"], prefix[0])]):
                lost.setdefault((owner["id"], holder["id"]), []).append(("contained", prefix[4], wider[4]))
        stack.append((prefix, holder))
    by_id = graph["by_id"]
    return [(by_id[loser], by_id[winner], found) for (loser, winner), found in sorted(lost.items())]


def _label(graph, edge):
    """``"peer's wg0"`` for an entry whose key is one interface of the run, else its key."""
    if len(edge["to"]) == 1:
        other = graph["nodes"][edge["to"][0]]
        return "%s's %s" % (other["host"], other["interface"])
    return edge["public_key"]


def _named(graph, edge):
    """``"KEY (peer's wg0)"``, or the key alone."""
    label = _label(graph, edge)
    return edge["public_key"] if label == edge["public_key"] else "%s (%s)" % (edge["public_key"], label)


def where(edge) -> str:
    """The line(s) to change for ``edge``'s AllowedIPs: uci's option, the file's peer section, or the live entry."""
    if edge["owner"] == "uci":
        return "network.%s.allowed_ips" % edge["uci_section"]
    if edge["owner"] in ("wg-quick", "networkd"):
        section = "[Peer]" if edge["owner"] == "wg-quick" else "[WireGuardPeer]"
        return "AllowedIPs of the %s with PublicKey = %s in %s" % (section, edge["public_key"], edge["owner_path"])
    return "its live entry (wg set ... allowed-ips; no file keeps it)"


def _order_words(holder):
    if holder["owner"] == "wg-quick":
        return "it comes later in %s" % holder["owner_path"]
    if holder["owner"] == "networkd":
        return "networkd sets a .netdev's first [WireGuardPeer] last (%s)" % holder["owner_path"]
    if holder["owner"] == "uci":
        return "netifd sets the peer sections in uci's order, and its section comes later"
    return "it was added live (wg set) after the interface's own entries"


def allowed_ips_overlap(host, view, views):
    """One (evidence, explanation) per pair of entries of one interface of ``host`` where one loses prefixes to the
    other (``overlaps``)."""
    graph = graph_of(views)
    out = []
    for node_name in graph["host_nodes"].get(host, []):
        node = graph["nodes"][node_name]
        for loser, holder, lost in overlaps(graph, node_name):
            identical = [{"prefix": prefix, "decided_by": how} for kind, prefix, how in lost if kind == "identical"]
            contained = [{"prefix": prefix, "within": wider} for kind, prefix, wider in lost if kind == "contained"]
            mine = [written for ip, written in _other_addresses(graph, loser)
                    if any(_inside(ip, span(item[1])) for item in lost)]
            other = graph["nodes"][loser["to"][0]] if mine else None
            evidence = {"interface": node["interface"], "peer_public_key": loser["public_key"],
                        "holder_public_key": holder["public_key"], "identical": identical, "contained": contained,
                        "other_host": other["host"] if other else None, "lost_addresses": mine,
                        "owner": loser["owner"], "owner_path": loser["owner_path"], "change": where(loser),
                        "holder_owner": holder["owner"], "holder_owner_path": holder["owner_path"], "holder_change": where(holder)}
            out.append((evidence, _text(graph, host, node, loser, holder, identical, contained, mine, other)))
    return out


def _text(graph, host, node, loser, holder, identical, contained, mine, other):
    lose, keep = _label(graph, loser), _label(graph, holder)
    parts = []
    if identical:
        it = "it" if len(identical) == 1 else "them"
        why = ("the kernel holds %s for that entry now" % it if all(item["decided_by"] == "live" for item in identical)
               else _order_words(holder))
        parts.append("%s's %s lists %s for two peers, %s and %s. WireGuard gives a prefix to one peer of an interface "
                     "only, the one set last: %s (%s), so %s gets none of %s (wg show lists %s under %s only). Keep %s "
                     "in the one entry meant to carry %s: remove %s from the entry for %s (%s) or from the one for %s (%s)."
                     % (host, node["interface"], ", ".join(item["prefix"] for item in identical), _named(graph, loser),
                        _named(graph, holder), keep, why, lose, it, it, keep, it, it, it, lose, where(loser), keep, where(holder)))
    if contained:
        them = "it" if len(contained) == 1 else "them"
        named = ", ".join("%s (inside %s)" % (item["prefix"], item["within"]) for item in contained)
        parts.append("%s's %s sends %s to %s, although %s lists the wider prefix: WireGuard sends a packet to the peer "
                     "with the longest matching prefix, so %s loses %s to %s."
                     % (host, node["interface"], named, _named(graph, holder), _named(graph, loser), lose, them, keep))
        if not mine:
            parts.append("If %s is meant to carry %s (a route carved out on purpose), nothing is wrong; else remove %s "
                         "from the entry for %s (%s)." % (keep, them, them, keep, where(holder)))
    if mine:
        parts.append("%s is the tunnel address of %s's %s itself: what %s sends to it goes to %s instead. Remove it from "
                     "the entry for %s (%s)." % (", ".join(value.split("/")[0] for value in mine), other["host"], other["interface"],
                                                 host, keep, keep, where(holder)))
    parts.append("No role changes AllowedIPs: a wrong guess moves traffic to another peer.")
    return " ".join(parts)


def allowed_ips_coverage(host, view, views):
    """Whether the rule could judge ``host``: ``not_checked`` for unreadable facts, or when no interface's entries
    have AllowedIPs as kept (several files name the interface, or facts from before the listing printed them);
    ``partly`` when some do not."""
    graph = graph_of(views)
    if host in graph["unreadable"]:
        return not_checked(graph["unreadable"][host])
    names = graph["host_nodes"].get(host)
    if not names:
        return no_interface(view)
    edges = [edge for name in names for edge in graph["by_node"].get(name, []) if not edge["disabled"]]
    unknown = sum(1 for edge in edges if edge["configured_allowed_ips"] is None)
    return unknown_entries(unknown, len(edges), "the entries' AllowedIPs as kept are not known (several files name the "
                           "interface, or facts gathered before AllowedIPs were read)", "whose AllowedIPs as kept are not known")
