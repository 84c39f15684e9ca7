# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of duplicate_public_key: an interface's own public key is another interface's too, or it lists itself.

Read from the tunnel graph (``graph.graph_of``). Two interfaces with one key come from a cloned image or a copied
config (the private key with it): every peer that lists the key reaches whichever of them spoke last, and each steals
the other's session. An interface that lists its own public key as a peer has no use for that entry (WireGuard refuses
it: ``wg set`` fails, wg-quick stops) and usually means a config meant for the other end was pasted here.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of


def duplicate_keys(host, view, views):
    """One (evidence, explanation) per interface of ``host`` whose own key another interface of the run has, and one
    per entry of ``host`` that lists its own interface's key."""
    graph = graph_of(views)
    out = []
    for node_name in graph["host_nodes"].get(host, []):
        node = graph["nodes"][node_name]
        if not node["public_key"]:
            continue
        others = [other for other in graph["keys"][node["public_key"]] if other != node_name]
        if others:
            listed_by = sorted(graph["listed_by"].get(node["public_key"], []))
            out.append(({"interface": node["interface"], "public_key": node["public_key"], "kind": "duplicate",
                         "also_on": others, "listed_by": listed_by}, """
                %s's %s has the public key %s, and so does %s: the same private key is on more than one interface
                (a cloned image or a copied config). Every peer that lists this key (%s) sends to whichever of them
                spoke last, and each takes the other's session. Give %s its own key pair (wg genkey) and put the new
                public key in those peers' entries.""" % (host, node["interface"], node["public_key"], ", ".join(others),
                                                          ", ".join(listed_by) or "none in this run", host)))
    for edge in graph["by_host"].get(host, []):
        node = graph["nodes"][edge["from"]]
        if node["public_key"] and edge["public_key"] == node["public_key"]:
            out.append(({"interface": node["interface"], "public_key": node["public_key"], "kind": "self",
                         "also_on": [], "listed_by": [edge["from"]]}, """
                %s's %s lists its own public key %s as a peer (%s): that entry is no tunnel. A config written for the
                other end was probably pasted here: put the other end's public key in it, or remove it."""
                        % (host, node["interface"], node["public_key"], edge["owner_path"] or edge["owner"])))
    return out
