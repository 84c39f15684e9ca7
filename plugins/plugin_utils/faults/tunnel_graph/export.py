# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph as reports/findings.json carries it (``tunnel_graph``): plain JSON, each entry with its state.

``graph_export(graph, findings)`` (``graph``: ``graph.build_graph``'s; ``findings``: the run's findings, any ids)::

    {"format": "tunnelfix.tunnel_graph/1", "stale_after_s": 180,        # STALE_HANDSHAKE_S: older is stale
     "states": ["conflict", "one_sided", "dead", "stale", "healthy"],   # worst first
     "nodes": [{"id": "hub/wg0", "host": "hub", "interface": "wg0", "public_key": "HHHH…H=" | None,
                "listen_port": 51820 | None, "platform": "linux" | "openwrt", "addresses": [...] | None,
                "alias_of": None | "hub.example.com/wg0", "findings": ["duplicate_public_key"]}],
     "edges": [{"id": "peer/wg0>HHHH…H=", "from": "peer/wg0", "to": ["hub/wg0"], "public_key": "HHHH…H=",
                "back": "hub/wg0>PPPP…P=" | None, "running": True, "disabled": False, "owner": "wg-quick",
                "owner_path": "/etc/wireguard/wg0.conf" | None, "endpoint_host": "203.0.113.10" | None,
                "endpoint_port": 51820 | None, "allowed_ips": ["10.77.0.0/24"], "persistent_keepalive_s": 25 | None,
                "handshake_age_s": 12 | None, "rx_bytes": int | None, "tx_bytes": int | None,
                "state": "healthy", "findings": ["one_sided_peer", ...]}],
     "counts": {"healthy": 3, "stale": 1, ...},                          # entries per state
     "unreadable": {"zz": "its WireGuard facts have an unexpected shape (…)"}}

An edge is one peer entry (one direction of a tunnel). Its ``state``, the first that holds:

- ``conflict``: a finding of the graph names it (``duplicate_public_key``: every entry listing the shared key;
  ``endpoint_port_mismatch``, ``no_endpoint_either_side``, ``return_path_not_allowed``, ``public_key_mismatch``: the
  finding's entry (its running_key_not_configured case names no entry); ``endpoint_address_mismatch``: the entry that
  sends to the wrong address);
- ``one_sided``: a ``one_sided_peer`` finding names it (the other end runs no entry back);
- ``dead`` when ``handshake_never_completes`` names it (both ends run and list each other, no handshake);
  ``allowed_ips_overlap`` (the entry that loses addresses) and ``allowed_ips_shadow_lan`` name an entry ``conflict``;
  ``keepalive_on_wrong_side`` is listed on its entry but leaves the state to the counters (the tunnel may work now);
- ``dead``: the kernel does not run it (only in a file, or uci ``disabled '1'``), no handshake ever, or nothing
  received (``rx_bytes`` 0);
- ``stale``: the newest handshake is older than ``stale_after_s``;
- ``healthy``: a handshake within ``stale_after_s``.

Public keys are shown (they are public); a private or preshared key is never in the graph (the facts do not read
them) and the export copies only the fields above, so none can slip in. Cost: linear in nodes, edges and findings.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import STALE_HANDSHAKE_S
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.fault import (
    ALLOWED_IPS_OVERLAP, ALLOWED_IPS_SHADOW_LAN, DUPLICATE_PUBLIC_KEY, ENDPOINT_PORT_MISMATCH, HANDSHAKE_NEVER_COMPLETES,
    KEEPALIVE_ON_WRONG_SIDE, NO_ENDPOINT_EITHER_SIDE, ONE_SIDED_PEER, PUBLIC_KEY_MISMATCH, RETURN_PATH_NOT_ALLOWED)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.fault import ENDPOINT_ADDRESS_MISMATCH
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import edge_id, node_id

EXPORT_FORMAT = "tunnelfix.tunnel_graph/1"
STATES = ("conflict", "one_sided", "dead", "stale", "healthy")   # worst first
# the state an entry named by a finding of the graph is in (None: listed on the entry, its state from the counters)
FINDING_STATES = {ONE_SIDED_PEER.id: "one_sided", DUPLICATE_PUBLIC_KEY.id: "conflict", ENDPOINT_PORT_MISMATCH.id: "conflict",
                  NO_ENDPOINT_EITHER_SIDE.id: "conflict", RETURN_PATH_NOT_ALLOWED.id: "conflict",
                  HANDSHAKE_NEVER_COMPLETES.id: "dead", ALLOWED_IPS_OVERLAP.id: "conflict", ALLOWED_IPS_SHADOW_LAN.id: "conflict",
                  KEEPALIVE_ON_WRONG_SIDE.id: None, PUBLIC_KEY_MISMATCH.id: "conflict"}
FINDING_STATES[ENDPOINT_ADDRESS_MISMATCH.id] = "conflict"
_NODE_FIELDS = ("host", "interface", "public_key", "listen_port", "platform", "addresses", "alias_of")
_EDGE_FIELDS = ("id", "from", "to", "public_key", "running", "disabled", "owner", "owner_path", "endpoint_host", "endpoint_port",
                "allowed_ips", "persistent_keepalive_s", "handshake_age_s", "rx_bytes", "tx_bytes")


def worst(states):
    """The worst of ``states`` (``STATES`` order); None for none."""
    ranked = [STATES.index(state) for state in states if state in STATES]
    return STATES[min(ranked)] if ranked else None


def edge_state(edge, finding_ids=()) -> str:
    """The state of one entry (module doc), ``finding_ids`` the ids of the graph's findings naming it."""
    named = worst(FINDING_STATES[fid] for fid in finding_ids if fid in FINDING_STATES)
    if named:
        return named
    age = edge.get("handshake_age_s")
    if not edge.get("running") or edge.get("disabled") or age is None or edge.get("rx_bytes") == 0:
        return "dead"
    return "stale" if age > STALE_HANDSHAKE_S else "healthy"


def _named(graph, findings):
    """({edge id: [finding id, ...]}, {node id: [finding id, ...]}) of the graph's findings among ``findings``."""
    edges, nodes = {}, {}
    for finding in findings or []:
        fid = finding.get("id") if isinstance(finding, dict) else None
        evidence = finding.get("evidence") if fid in FINDING_STATES else None
        if not isinstance(evidence, dict):
            continue
        node = node_id(finding.get("host"), evidence.get("interface"))
        if fid == DUPLICATE_PUBLIC_KEY.id:
            key = evidence.get("public_key")
            for other in [node] + list(evidence.get("also_on") or []):
                nodes.setdefault(other, []).append(fid)
            for lister in graph["listed_by"].get(key, []):
                edges.setdefault(edge_id(lister, key), []).append(fid)
        else:
            edges.setdefault(edge_id(node, evidence.get("peer_public_key")), []).append(fid)
    return edges, nodes


def _copy(value):
    return list(value) if isinstance(value, (list, tuple)) else value


def graph_export(graph, findings=None) -> dict:
    """The JSON-safe export of ``graph`` with each entry's state (module doc); ``findings``: the run's findings (a
    list; others than the graph's are ignored; None: none)."""
    by_edge, by_node = _named(graph, findings)
    nodes = [dict({"id": name}, **{field: _copy(graph["nodes"][name][field]) for field in _NODE_FIELDS},
                  findings=sorted(set(by_node.get(name, [])))) for name in sorted(graph["nodes"])]
    edges, counts = [], dict.fromkeys(STATES, 0)
    for edge in graph["edges"]:
        out = {field: _copy(edge[field]) for field in _EDGE_FIELDS}
        out["back"] = graph["back"].get(edge["id"])
        out["findings"] = sorted(set(by_edge.get(edge["id"], [])))
        out["state"] = edge_state(edge, out["findings"])
        counts[out["state"]] += 1
        edges.append(out)
    return {"format": EXPORT_FORMAT, "stale_after_s": STALE_HANDSHAKE_S, "states": list(STATES), "nodes": nodes, "edges": edges,
            "counts": counts, "unreadable": dict(sorted(graph["unreadable"].items()))}
