# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of stale_despite_keepalive: a peer entry with PersistentKeepalive whose handshake never happened or went stale.

Keepalives are sent and not answered: a dead tunnel, from the host's own ``wireguard`` reading (Linux or OpenWrt,
peer, hub or router; no hub in the run needed). The running peers and the threshold are the keepalive family's
(faults/nat_peer_keepalive/handshakes.py).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, is_router, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import (
    STALE_HANDSHAKE_S, own_interfaces, peers_to_hub)


def _hub_end(view, views, peer_key):
    """(hub name, the hub's entries for this host) when ``peer_key`` is the public key of this host's hub, else (None, [])."""
    hub = view.get("tunnel_hub")
    hub_interfaces = own_interfaces(views.get(hub) or {}) if hub else {}
    if peer_key is None or peer_key not in {iface.get("public_key") for iface in hub_interfaces.values()}:
        return None, []
    return hub, peers_to_hub(view, views.get(hub))[1]


def dead_with_keepalive(host, view, views):
    """One (evidence, explanation) per running peer entry with PersistentKeepalive set whose handshake never
    happened or is older than ``STALE_HANDSHAKE_S``: a dead tunnel, from the host's own facts (Linux or OpenWrt,
    peer, hub or router; no hub in the run needed). When the entry is this host's hub and the hub's facts are
    in the run, its view of this host is evidence too.
    """
    out = []
    interfaces = own_interfaces(view)
    for name in sorted(interfaces):
        for peer in interfaces[name]["peers"]:
            keepalive, age = peer.get("persistent_keepalive_s"), peer.get("handshake_age_s")
            if not keepalive or (age is not None and age <= STALE_HANDSHAKE_S):
                continue
            hub, theirs = _hub_end(view, views, peer.get("public_key"))
            evidence = {"interface": name, "peer_public_key": peer.get("public_key"), "endpoint": peer.get("endpoint"),
                        "persistent_keepalive_s": keepalive, "handshake_age_s": age, "handshake": "never" if age is None else "stale",
                        "rx_bytes": peer.get("rx_bytes"), "tx_bytes": peer.get("tx_bytes"), "hub": hub,
                        "hub_sees_endpoint": [p.get("endpoint") for p in theirs] or None}
            when = "no handshake ever completed" if age is None else "the newest handshake is %s s old (over %s s: no usable session)" % (
                age, STALE_HANDSHAKE_S)
            out.append((evidence, """
                The tunnel on %s to peer %s (endpoint %s) is dead: PersistentKeepalive is %s s, yet %s. Keepalives
                are sent and not answered: check that the endpoint's address and UDP port are right and reachable
                from here, that the other end has this host's public key and allows its address, that no firewall
                drops the UDP port, and that the NAT's UDP timeout is longer than the keepalive interval."""
                        % (name, peer.get("public_key"), peer.get("endpoint") or "none", keepalive, when)))
    return out


def dead_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): its own WireGuard facts were read."""
    wireguard = ((view.get("openwrt") if is_router(view) else view.get("tunnelfix")) or {}).get("wireguard")
    if not isinstance(wireguard, dict):
        return not_checked("no WireGuard facts were read")
    if not own_interfaces(view):
        return does_not_apply("no running WireGuard interface")
    return None
