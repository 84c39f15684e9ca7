# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of duplicate_public_key: an interface's own public key is another interface's too.

Read from the tunnel graph (``graph.graph_of``). Two interfaces with one key come from a cloned image or a copied
config (the private key with it): every peer that lists the key reaches whichever of them spoke last, and each steals
the other's session. The one case where two machines share a key on purpose is an active/standby pair (keepalived
moving one address): only one of them runs the interface at a time.

Not findings: one machine listed twice in the inventory (the same key, listen port and peer keys: ``graph.machine``),
and an interface listing its own public key as a peer (a mesh generator that gives every node the full list, itself
included): the kernel's set_peer skips a peer whose key is the device's own, so that entry is harmless.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of


def duplicate_keys(host, view, views):
    """One (evidence, explanation) per interface of ``host`` (not an alias of another node) whose own key another
    interface of the run has."""
    graph = graph_of(views)
    out = []
    for node_name in graph["host_nodes"].get(host, []):
        node = graph["nodes"][node_name]
        if not node["public_key"] or node["alias_of"]:
            continue
        others = [other for other in graph["keys"][node["public_key"]] if other != node_name]
        if others:
            listed_by = sorted(graph["listed_by"].get(node["public_key"], []))
            out.append(({"interface": node["interface"], "public_key": node["public_key"],
                         "also_on": others, "listed_by": listed_by}, """
                %s's %s has the public key %s, and so does %s: the same private key is on more than one interface
                (a cloned image or a copied config). Every peer that lists this key (%s) sends to whichever of them
                spoke last, and each takes the other's session. Give %s its own key pair (wg genkey) and put the new
                public key in those peers' entries. (An active/standby pair that shares the key on purpose, e.g.
                with keepalived, is the one exception: then only one of them may run the interface at a time.)"""
                        % (host, node["interface"], node["public_key"], ", ".join(others),
                           ", ".join(listed_by) or "none in this run", host)))
    return out
