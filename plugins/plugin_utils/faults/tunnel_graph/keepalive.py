# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of keepalive_on_wrong_side: the end that cannot start the tunnel sends PersistentKeepalive, the end that
starts it sends none.

Read from the tunnel graph (``graph.graph_of``), on pairs of running entries that list each other (``graph["back"]``).
Of two ends where only A keeps an endpoint for B (A's file ``Endpoint``, uci ``endpoint_host``) and B keeps none for
A, only A can start the tunnel: B knows A's address only from A's last packet (it is lost on B's restart) and, when A
is behind a NAT, only while the NAT keeps A's mapping. A NAT refreshes a mapping on outbound packets (RFC 4787,
REQ-6: inbound refresh is optional), so keepalives from B do not keep A's mapping open; once it expires they are
dropped at A's NAT like any other packet from B. The keepalive belongs on A: wg(8) "PersistentKeepalive ... useful
when ... behind NAT". The finding is A's (the entry that changes); B's keepalive is evidence, harmless to keep.

Fixed on A by wireguard_keepalive, aimed at the one entry (``keepalive_fix_vars``): its interface and the other end's
public key (both public), never the keepalive value, so the role's (25 s, wg(8)'s advice for a NAT, unless the
inventory sets ``wireguard_keepalive_persistent_keepalive_s``) applies. Not B's value: B's keepalive was chosen for an
end whose packets cannot hold A's mapping, and remediate sets a finding's vars as host facts, over the inventory's
value and over a second finding of the host. The role writes the entry's owner (a wg-quick file, a .netdev, uci) and
applies it live; an entry no configuration keeps ("live only", added with ``wg set`` or by a portal) is not fixable
(``keepalive_fixable``): the role finds no file or uci section with the key and fails naming it, so the finding names
no role and gives the ``wg set`` line.

The facts cannot tell whether A is behind a NAT: the end that keeps the endpoint is the one that starts the tunnel,
and its keepalive is the one that keeps the path open either way. A pair where both or neither keep an endpoint is
not judged (no_endpoint_either_side covers neither); an entry of an interface whose files are ambiguous is not judged.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoints import pairs
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of


def _keepalive_s(edge):
    value = edge["persistent_keepalive_s"]
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 0


def _where(edge, node) -> str:
    """The line to add, where: the entry's file or uci."""
    if edge["owner"] == "uci":
        return "uci set network.<the wireguard_%s peer with public_key %s>.persistent_keepalive='25'" % (
            node["interface"], edge["public_key"])
    if edge["owner"] == "wg-quick":
        return "PersistentKeepalive = 25 in the [Peer] for %s in %s" % (edge["public_key"], edge["owner_path"])
    if edge["owner"] == "networkd":
        return "PersistentKeepalive=25 in the [WireGuardPeer] for %s in %s" % (edge["public_key"], edge["owner_path"])
    return "wg set %s peer %s persistent-keepalive 25, and the same in whatever adds this entry (live only)" % (
        node["interface"], edge["public_key"])


# The owners whose entries wireguard_keepalive writes (graph.OWNERS less "live only").
FIXABLE_OWNERS = ("wg-quick", "networkd", "uci")


def keepalive_fixable(evidence) -> bool:
    """``Fault.fixable``: whether wireguard_keepalive can write the finding's entry (its owner is a wg-quick file, a
    .netdev or uci; not "live only")."""
    return evidence.get("owner") in FIXABLE_OWNERS


def keepalive_fix_vars(evidence) -> dict:
    """``Fault.fix_vars``: wireguard_keepalive aimed at the finding's entry, ``{"wireguard_keepalive_interfaces":
    ["wg0"], "wireguard_keepalive_public_keys": ["HHHH…H="]}`` (the interface and the other end's public key: public;
    no keepalive value: the role's applies, module doc)."""
    return {"wireguard_keepalive_interfaces": [evidence["interface"]],
            "wireguard_keepalive_public_keys": [evidence["peer_public_key"]]}


def _how_fixed(edge, node) -> str:
    """What remediate does with the finding: the role and its vars, or why no role."""
    if edge["owner"] in FIXABLE_OWNERS:
        return ("remediate applies it with wireguard_keepalive on this entry only: wireguard_keepalive_interfaces=[%s], "
                "wireguard_keepalive_public_keys=[%s]" % (node["interface"], edge["public_key"]))
    return "no role: no configuration keeps this entry, so wireguard_keepalive has nothing to write"


def wrong_side(host, view, views):
    """One (evidence, explanation) per running entry of ``host`` that keeps an endpoint and no keepalive, whose other
    end keeps no endpoint for it and sends a keepalive (module doc)."""
    graph = graph_of(views)
    out = []
    for edge, back, other in pairs(graph, host):
        if not (edge["running"] and back["running"]):
            continue
        if not edge["configured_endpoint_host"] or back["configured_endpoint_host"]:
            continue
        if _keepalive_s(edge) or not _keepalive_s(back):
            continue
        node = graph["nodes"][edge["from"]]
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"],
                    "endpoint_host": edge["configured_endpoint_host"], "persistent_keepalive_s": None,
                    "other_host": other["host"], "other_interface": other["interface"],
                    "other_persistent_keepalive_s": _keepalive_s(back), "handshake_age_s": edge["handshake_age_s"],
                    "owner": edge["owner"], "owner_path": edge["owner_path"]}
        out.append((evidence, """
            %s's %s keeps an endpoint for %s's %s (%s) and sends no PersistentKeepalive, while %s's %s keeps no endpoint
            for it and sends one every %d s. Only %s can start this tunnel: %s knows its address only from its last
            packet, and a NAT in front of %s keeps the mapping open for outbound packets, not for %s's keepalives,
            which the NAT drops once the mapping has expired. Put the keepalive on this side: %s (%s). %s's keepalive
            is harmless and may stay."""
                    % (host, node["interface"], other["host"], other["interface"], edge["configured_endpoint_host"],
                       other["host"], other["interface"], _keepalive_s(back), host, other["host"], host, other["host"],
                       _where(edge, node), _how_fixed(edge, node), other["host"])))
    return out
