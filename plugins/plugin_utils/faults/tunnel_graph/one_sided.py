# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of one_sided_peer: a host lists another host's interface as a peer, and that interface has no entry back.

Read from the tunnel graph (``graph.graph_of``: both ends joined by public key across the run). WireGuard needs both
ends: A's entry for B's key is useless while B lists no entry for A's key (B drops A's handshake initiations:
no peer with that key), or lists an older key of A. The finding is the host with the entry; the other end's side is
evidence (the keys it lists that no host of the run has: often this host's old key).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked, partly
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of


def one_sided(host, view, views):
    """One (evidence, explanation) per entry of ``host`` whose key is exactly one other interface of the run, when that
    interface lists no entry for this interface's own key (this host's key known: the interface runs)."""
    graph = graph_of(views)
    out = []
    for edge in graph["by_host"].get(host, []):
        node = graph["nodes"][edge["from"]]
        if not node["public_key"] or len(edge["to"]) != 1 or edge["to"][0] == edge["from"] or graph["back"][edge["id"]]:
            continue
        other = graph["nodes"][edge["to"][0]]
        unknown = sorted(e["public_key"] for e in graph["by_node"].get(edge["to"][0], []) if not e["to"])
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "own_public_key": node["public_key"],
                    "other_host": other["host"], "other_interface": other["interface"], "owner": edge["owner"],
                    "owner_path": edge["owner_path"], "other_unknown_keys": unknown}
        older = (" It lists %d key(s) no host of this run has (%s): if one is an older key of %s, replace it with %s."
                 % (len(unknown), ", ".join(unknown), host, node["public_key"]) if unknown else "")
        out.append((evidence, """
            %s's %s has a peer entry for %s's %s (public key %s), but %s's %s has no entry for %s's key %s: WireGuard
            drops a handshake from a key it has no peer for, so this tunnel cannot come up.%s Add a [Peer] (or uci
            wireguard_%s peer) with PublicKey = %s to %s's %s, or remove the entry here (%s) if the tunnel is gone."""
                    % (host, node["interface"], other["host"], other["interface"], edge["public_key"], other["host"],
                       other["interface"], host, node["public_key"], older, other["interface"], node["public_key"],
                       other["host"], other["interface"], edge["owner_path"] or edge["owner"])))
    return out


def one_sided_coverage(host, view, views):
    """Judged when the host's interfaces run (their own keys known); ``partly`` when an entry's key is no host's of the
    run (its other end is outside the inventory or this run: not judged)."""
    graph = graph_of(views)
    edges = graph["by_host"].get(host, [])
    nodes = [graph["nodes"][name] for name in graph["host_nodes"].get(host, [])]
    if not nodes:
        wireguard = ((view.get("openwrt") or view.get("tunnelfix") or {}) or {}).get("wireguard")
        return does_not_apply("no WireGuard interface") if isinstance(wireguard, dict) else not_checked("no WireGuard facts were read")
    if not any(node["public_key"] for node in nodes):
        return not_checked("no interface of it runs (its own public key is read from the running interface)")
    outside = sum(1 for edge in edges if not edge["to"])
    if outside:
        return partly("%d peer entr%s whose other end is not in this run" % (outside, "y" if outside == 1 else "ies"))
    return None
