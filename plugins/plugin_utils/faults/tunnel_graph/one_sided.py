# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of one_sided_peer: a host lists another host's interface as a peer, and that interface has no entry back.

Read from the tunnel graph (``graph.graph_of``: both ends joined by public key across the run). WireGuard needs both
ends: A's entry for B's key is useless while B lists no entry for A's key (B drops A's handshake initiations:
no peer with that key), or lists an older key of A. The finding is the host with the entry; the other end's side is
evidence (the keys it lists that no host of the run has: often this host's old key).

Only a running, enabled entry back counts: one that is only in the other end's file (no ``wg syncconf`` or restart
since it was added), or a uci peer with ``disabled '1'`` (netifd never gives it to the kernel), drops the handshake
just the same. An entry of this host that is itself disabled is judged by nobody (it sends nothing).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import not_checked, partly
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, machine, no_interface


def _paper_back(back):
    """What to say about the other end's entry back that exists but does not run: "" when there is none."""
    if back is None:
        return ""
    if back["disabled"]:
        return " (its uci peer for that key has disabled '1': netifd never gives it to the kernel; enable it)"
    return (" (it is listed in %s but not running: the kernel does not have it; run wg syncconf or restart the interface)"
            % (back["owner_path"] or back["owner"]))


def one_sided(host, view, views):
    """One (evidence, explanation) per enabled entry of ``host`` whose key is exactly one other interface of the run,
    when that interface runs no enabled entry for this interface's own key (this host's key known: the interface runs)."""
    graph = graph_of(views)
    nodes = graph["nodes"]
    out = []
    for edge in graph["by_host"].get(host, []):
        node = nodes[edge["from"]]
        if (not node["public_key"] or edge["disabled"] or len(edge["to"]) != 1
                or machine(nodes, edge["to"][0]) == machine(nodes, edge["from"])):
            continue
        back = graph["by_id"][graph["back"][edge["id"]]] if graph["back"][edge["id"]] else None
        if back is not None and back["running"] and not back["disabled"]:
            continue
        other = nodes[edge["to"][0]]
        unknown = sorted(e["public_key"] for e in graph["by_node"].get(edge["to"][0], []) if not e["to"])
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "own_public_key": node["public_key"],
                    "other_host": other["host"], "other_interface": other["interface"], "owner": edge["owner"],
                    "owner_path": edge["owner_path"], "other_unknown_keys": unknown,
                    "other_entry": None if back is None else ("disabled" if back["disabled"] else "not running")}
        older = (" It lists %d key(s) no host of this run has (%s): if one is an older key of %s, replace it with %s."
                 % (len(unknown), ", ".join(unknown), host, node["public_key"]) if unknown else "")
        if back is None:
            todo = ("Add a [Peer] (or uci wireguard_%s peer) with PublicKey = %s to %s's %s, or remove the entry here (%s) "
                    "if the tunnel is gone." % (other["interface"], node["public_key"], other["host"], other["interface"],
                                                edge["owner_path"] or edge["owner"]))
        else:
            todo = "Make that entry run, or remove the entry here (%s) if the tunnel is gone." % (edge["owner_path"] or edge["owner"])
        out.append((evidence, """
            %s's %s has a peer entry for %s's %s (public key %s), but %s's %s runs no entry for %s's key %s%s: WireGuard
            drops a handshake from a key it has no peer for, so this tunnel cannot come up.%s %s"""
                    % (host, node["interface"], other["host"], other["interface"], edge["public_key"], other["host"],
                       other["interface"], host, node["public_key"], _paper_back(back), older, todo)))
    return out


def one_sided_coverage(host, view, views):
    """Judged when the host's interfaces run (their own keys known); ``partly`` when an entry's key is no host's of the
    run (its other end is outside the inventory or this run: not judged)."""
    graph = graph_of(views)
    edges = graph["by_host"].get(host, [])
    nodes = [graph["nodes"][name] for name in graph["host_nodes"].get(host, [])]
    if host in graph["unreadable"]:
        return not_checked(graph["unreadable"][host])
    if not nodes:
        return no_interface(view)
    if not any(node["public_key"] for node in nodes):
        return not_checked("no interface of it runs (its own public key is read from the running interface)")
    outside = sum(1 for edge in edges if not edge["to"])
    if outside:
        return partly("%d peer entr%s whose other end is not in this run" % (outside, "y" if outside == 1 else "ies"))
    return None
