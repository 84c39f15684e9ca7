# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of duplicate_public_key: an interface's own public key is another interface's too.

Read from the tunnel graph (``graph.graph_of``). Two interfaces with one key come from a cloned image or a copied
config (the private key with it): every peer that lists the key reaches whichever of them spoke last, and each steals
the other's session. The one case where two machines share a key on purpose is an active/standby pair (keepalived
moving one address): only one of them runs the interface at a time.

Two nodes alike in everything the facts show (key, listen port, addresses, peer keys: ``graph._merge_aliases``) are
one machine listed twice in the inventory, or an untouched clone of a running host: the facts cannot tell these
apart, so the later node's host gets the finding with ``identical: true`` and a text for both (the tunnel graph joins
entries to the first node only, so other rules still judge the key once).
Not a finding: an interface listing its own public key as a peer (a mesh generator that gives every node the full
list, itself included): the kernel's set_peer skips a peer whose key is the device's own, so that entry is harmless.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of


def duplicate_keys(host, view, views):
    """One (evidence, explanation) per interface of ``host`` whose own key another interface of the run has: a node of
    its own (a clone put to use), or an alias (``identical``: listed twice, or an untouched clone)."""
    graph = graph_of(views)
    out = []
    for node_name in graph["host_nodes"].get(host, []):
        node = graph["nodes"][node_name]
        if not node["public_key"]:
            continue
        if node["alias_of"]:
            first = graph["nodes"][node["alias_of"]]
            out.append(({"interface": node["interface"], "public_key": node["public_key"], "also_on": [node["alias_of"]],
                         "listed_by": sorted(graph["listed_by"].get(node["public_key"], [])), "identical": True}, """
                %s's %s and %s's %s show the same public key %s, listen port, addresses and peers. Either they are one
                machine listed twice in the inventory (then remove one of the names: every run reads and changes it
                twice), or %s is a clone of %s nobody has changed yet (then both answer for that key and take each
                other's sessions: give %s its own key pair with wg genkey and put the new public key in the peers'
                entries).""" % (host, node["interface"], first["host"], first["interface"], node["public_key"],
                                host, first["host"], host)))
            continue
        others = [other for other in graph["keys"][node["public_key"]] if other != node_name]
        if others:
            listed_by = sorted(graph["listed_by"].get(node["public_key"], []))
            out.append(({"interface": node["interface"], "public_key": node["public_key"],
                         "also_on": others, "listed_by": listed_by, "identical": False}, """
                %s's %s has the public key %s, and so does %s: the same private key is on more than one interface
                (a cloned image or a copied config). Every peer that lists this key (%s) sends to whichever of them
                spoke last, and each takes the other's session. Give %s its own key pair (wg genkey) and put the new
                public key in those peers' entries. (An active/standby pair that shares the key on purpose, e.g.
                with keepalived, is the one exception: then only one of them may run the interface at a time.)"""
                        % (host, node["interface"], node["public_key"], ", ".join(others),
                           ", ".join(listed_by) or "none in this run", host)))
    return out
