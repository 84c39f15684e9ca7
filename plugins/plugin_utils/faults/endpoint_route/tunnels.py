# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's domain decision on a WireGuard interface: a split or a full tunnel (moved here from parse/openwrt_wireguard.py).

A split tunnel's endpoint host route may go (nohostroute); a full tunnel needs it (without it the tunnel's own
packets are routed into the tunnel). ``classify_tunnel`` decides it from the peers; ``add_tunnels`` writes it into
the merged WireGuard view (``parse/openwrt_wireguard.merge_wireguard``) as openwrt_facts' ``wireguard`` facts carry
it: the reading's gather (faults/readings.py), wg_endpoint_route and the plan all call it on the same view, so the
facts, the rule, the plan and the fix read one classification.

Pure functions, no I/O.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import allowed_network


def _listed(networks):
    """``a``, ``a and b``, ``a, b and c``."""
    names = [str(net) for net in networks]
    return names[0] if len(names) == 1 else "%s and %s" % (", ".join(names[:-1]), names[-1])


def classify_tunnel(peers) -> dict:
    """Classify an interface as ``split`` or ``full`` tunnel from its peers.

    Full when the allowed_ips of the peers with ``route_allowed_ips`` hold every IPv4 or every
    IPv6 address between them (``0.0.0.0/0``; ``::/0``; both halves, ``0.0.0.0/1`` +
    ``128.0.0.0/1`` or ``::/1`` + ``8000::/1``; four quarters; overlapping pieces), or a routed
    prefix holds some peer's endpoint address (same family: ``::ffff:0:0/96`` holds no IPv4
    endpoint). Returns ``{"tunnel": "full"|"split", "reason": str|None, "routed": [prefixes]}``;
    ``reason`` names the prefixes (full only): ``routed allowed_ips include 0.0.0.0/1 and
    128.0.0.0/1`` (the routed prefixes no other routed one holds), or ``endpoint 203.0.113.10 is
    inside the routed allowed_ips 203.0.113.0/24``. A prefix that is none raises ParseError.
    """
    routed = []
    for peer in peers:
        if peer["route_allowed_ips"]:
            routed.extend(peer["allowed_ips"])
    networks = [allowed_network(p, "allowed_ips") for p in routed]
    for version in (4, 6):
        if ipnet.covers_everything(networks, version):
            pieces = [net for net in ipnet.outermost(networks) if net.version == version]
            return {"tunnel": "full", "reason": "routed allowed_ips include %s" % _listed(pieces), "routed": routed}
    for peer in peers:
        address = endpoint_address(peer.get("endpoint_host"))
        if address is None:
            continue
        for prefix, network in zip(routed, networks):
            if address in network:
                return {"tunnel": "full", "reason": "endpoint %s is inside the routed allowed_ips %s" % (address, prefix),
                        "routed": routed}
    return {"tunnel": "split", "reason": None, "routed": routed}


def _checked(peer):
    """A merged peer as classify_tunnel reads it: the live endpoint, when known, is the one checked."""
    return {"route_allowed_ips": bool(peer["route_allowed_ips"]), "allowed_ips": peer["allowed_ips"],
            "endpoint_host": (peer["live"] or {}).get("endpoint_host") or peer["endpoint_host"]}


def add_tunnels(interfaces: dict) -> dict:
    """Add the classification to ``merge_wireguard``'s view, in place, and return it.

    Each interface gets ``tunnel`` (``split``/``full``) and ``tunnel_reason`` (classify_tunnel over its peers, just
    before ``peers``, where openwrt_facts has always shown them); each peer ``full_tunnel`` (bool) and
    ``full_tunnel_reason`` (classify_tunnel over that peer alone). The live endpoint counts when known, else the uci
    ``endpoint_host``; only ``route_allowed_ips`` peers count, so a live-only peer is never full. For case 01:
    ``"tunnel": "split", "tunnel_reason": None`` and the peer ``"full_tunnel": False, "full_tunnel_reason": None``.

    Raises ParseError for an allowed_ips entry that is no address or prefix.
    """
    for entry in interfaces.values():
        peers = entry.pop("peers")
        for peer in peers:
            kind = classify_tunnel([_checked(peer)])
            peer["full_tunnel"], peer["full_tunnel_reason"] = kind["tunnel"] == "full", kind["reason"]
        kind = classify_tunnel([_checked(peer) for peer in peers])
        entry["tunnel"], entry["tunnel_reason"] = kind["tunnel"], kind["reason"]
        entry["peers"] = peers
    return interfaces
