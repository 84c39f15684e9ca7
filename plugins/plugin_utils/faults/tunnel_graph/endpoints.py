# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of no_endpoint_either_side and endpoint_port_mismatch: who can start a tunnel, and where it knocks.

Read from the tunnel graph (``graph.graph_of``), on pairs of entries that list each other (``graph["back"]``). WireGuard
sends a handshake initiation only to an endpoint it knows (configured, or learned from the other end's last packet):
with neither end keeping one (``configured_endpoint_*``: a learned endpoint is lost on the next restart), neither
starts it (two road-warrior configs, or a hub whose peer lost its Endpoint line).
A kept endpoint whose port is not the other end's listen port reaches nothing, unless a NAT in front of the other end
forwards that port to it. So the rule keeps to entries that sent and never got anything back: no handshake newer than
``STALE_HANDSHAKE_S``, ``tx_bytes`` above 0 and ``rx_bytes`` 0 (WireGuard counts its handshake messages in both: an
answer of any kind, or an idle tunnel that worked before, shows in ``rx_bytes``; an entry that never sent proves nothing).
An interface whose files are ambiguous (``config_ambiguous``: several name it, none surely runs) or a disabled entry
is not judged: what its owner keeps is not known.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import fresh_handshake
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, machine


def pairs(graph, host):
    """(this host's entry, the other end's entry back, the other end's node) for every enabled entry of ``host`` with an
    enabled way back, both ends' kept configuration known (not ``config_ambiguous``), on two machines."""
    nodes = graph["nodes"]
    for edge in graph["by_host"].get(host, []):
        back = graph["by_id"].get(graph["back"].get(edge["id"]))
        if not back or edge["disabled"] or back["disabled"] or machine(nodes, edge["from"]) == machine(nodes, back["from"]):
            continue
        if nodes[edge["from"]]["config_ambiguous"] or nodes[back["from"]]["config_ambiguous"]:
            continue
        yield edge, back, nodes[back["from"]]


def no_endpoint(host, view, views):
    """One (evidence, explanation) per entry of ``host`` whose other end's entry back has no endpoint either."""
    graph = graph_of(views)
    out = []
    for edge, back, other in pairs(graph, host):
        if edge["configured_endpoint_host"] or back["configured_endpoint_host"]:
            continue
        node = graph["nodes"][edge["from"]]
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "other_host": other["host"],
                    "other_interface": other["interface"], "handshake_age_s": edge["handshake_age_s"],
                    "owner": edge["owner"], "other_owner": back["owner"]}
        if fresh_handshake(edge["handshake_age_s"]) or fresh_handshake(back["handshake_age_s"]):
            now = ("The tunnel works now (a handshake %d s ago) only because one end learned the other's endpoint from its "
                   "packets; after a restart of both, neither side starts it."
                   % min(age for age in (edge["handshake_age_s"], back["handshake_age_s"]) if fresh_handshake(age)))
        else:
            now = "WireGuard starts a handshake only toward an endpoint it knows, so neither side ever starts this tunnel."
        out.append((evidence, """
            Neither end of the tunnel between %s's %s and %s's %s keeps an endpoint for the other (a file's Endpoint,
            uci endpoint_host). %s Give the end that can reach the other (the one behind NAT, or the roaming one)
            Endpoint = the other's public address and listen port (uci endpoint_host and endpoint_port on OpenWrt).
            If a script sets it (PostUp = wg set ... endpoint ..., a portal), that owner is not read here: put the
            endpoint in the file instead."""
                    % (host, node["interface"], other["host"], other["interface"], now)))
    return out


def sent_into_nothing(edge) -> bool:
    """Whether a running entry sent (``tx_bytes`` > 0) and never received a byte (``rx_bytes`` 0), with no handshake newer
    than ``STALE_HANDSHAKE_S``: the signature of packets that reach nothing that answers."""
    return (edge["running"] and not fresh_handshake(edge["handshake_age_s"]) and isinstance(edge["tx_bytes"], int)
            and edge["tx_bytes"] > 0 and edge["rx_bytes"] == 0)


def _port_advice(edge, other, port, listen) -> str:
    """What to change: the endpoint's port when the other end keeps its listen port; a fixed listen port there when
    it has none (a random port, new at each start); both when it is not known (wg-quick's ListenPort is not read)."""
    here = edge["owner_path"] or edge["owner"]
    kept = other["listen_port_kept"]
    if isinstance(kept, int):
        return "set the endpoint's port to %d (%s)." % (listen, here)
    fixed = ("give %s's %s a fixed listen port (uci listen_port '%d')" if other["platform"] == "openwrt"
             else "give %s's %s a fixed listen port (ListenPort = %d)") % (other["host"], other["interface"], port)
    if kept is None:
        return ("%s: it has none, so %d is a random port chosen at its last start and changes at the next." % (fixed, listen))
    return ("set the endpoint's port to %d (%s) if %s's %s keeps ListenPort = %d; if it has no ListenPort line, %d is "
            "random and changes at each start: %s instead."
            % (listen, here, other["host"], other["interface"], listen, listen, fixed))


def port_mismatch(host, view, views):
    """One (evidence, explanation) per entry of ``host`` whose kept endpoint port is not the other end's listen port
    (known) and that sent into nothing (``sent_into_nothing``)."""
    graph = graph_of(views)
    out = []
    for edge, _back, other in pairs(graph, host):
        port, listen = edge["configured_endpoint_port"], other["listen_port"]
        if port is None or listen is None or port == listen or not sent_into_nothing(edge):
            continue
        node = graph["nodes"][edge["from"]]
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "endpoint_host": edge["configured_endpoint_host"],
                    "endpoint_port": port, "other_host": other["host"], "other_interface": other["interface"],
                    "other_listen_port": listen, "handshake_age_s": edge["handshake_age_s"], "tx_bytes": edge["tx_bytes"],
                    "rx_bytes": edge["rx_bytes"], "owner": edge["owner"],
                    "owner_path": edge["owner_path"]}
        out.append((evidence, """
            %s's %s sends to %s's %s at %s port %d, but %s's %s listens on port %d; the entry sent %d bytes, received
            none, and has %s. Unless a NAT in front of %s forwards port %d to %d, %s"""
                    % (host, node["interface"], other["host"], other["interface"], edge["configured_endpoint_host"], port,
                       other["host"], other["interface"], listen, edge["tx_bytes"],
                       "never had a handshake" if edge["handshake_age_s"] is None else
                       "had no handshake for %d s" % edge["handshake_age_s"],
                       other["host"], port, listen, _port_advice(edge, other, port, listen))))
    return out
