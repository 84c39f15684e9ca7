# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4's rule: a NATed peer without PersistentKeepalive goes dark for its hub.

A NAT or stateful firewall in front of the peer forgets the UDP mapping when nothing leaves for a
while; the hub's packets are then dropped until the peer sends again. Read from both ends of the
tunnel (the ``wireguard`` reading on the peer and on its hub, matched by public key: ``handshakes.py``)
and the hub's ping after an idle period (tunnel_measure).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked, partly
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import (
    STALE_HANDSHAKE_S, own_interfaces, peers_to_hub)


def _tunnel_to_hub(view, views):
    """(hub, peer entries to the hub, the hub's entries for this host, handshake ages of both ends (s), idle ping
    loss %) for a peer (Linux or OpenWrt) whose hub's facts are in the run; None for a host that is no peer."""
    if "tunnelfix_wireguard_peers" not in view.get("groups", []):
        return None
    hub = view.get("tunnel_hub")
    mine, theirs = peers_to_hub(view, views.get(hub))
    loss = ((view.get("measurement") or {}).get("ping") or {}).get("loss_percent")
    ages = [p.get("handshake_age_s") for p in mine + theirs if p.get("handshake_age_s") is not None]
    return hub, mine, theirs, ages, loss


def _evidence(view, hub, peer, theirs, ages, loss):
    # persistent_keepalive_s: None, the finding's cause (the rule fires only for a peer entry without one)
    return {"hub": hub, "peer_public_key": peer.get("public_key"), "persistent_keepalive_s": None,
            "handshake_age_s": max(ages) if ages else None, "hub_sees_endpoint": [p.get("endpoint") for p in theirs] or None,
            "idle_ping_loss_percent": loss, "idle_s": (view.get("measurement") or {}).get("idle_s")}


def without_keepalive(host, view, views):
    """One (evidence, explanation) per peer entry to the hub with no PersistentKeepalive while the hub cannot reach it.

    Cannot reach: the hub's ping after idle lost any packet (loss > 0 %), or a handshake of either
    end is older than ``STALE_HANDSHAKE_S``. Needs the hub's facts (its public key tells which entry
    is the hub's); a Linux peer or an OpenWrt router alike.
    """
    tunnel = _tunnel_to_hub(view, views)
    if tunnel is None:
        return []
    hub, mine, theirs, ages, loss = tunnel
    unreachable = loss is not None and loss > 0
    stale = any(age > STALE_HANDSHAKE_S for age in ages)
    out = []
    for peer in mine:
        if peer.get("persistent_keepalive_s") is None and (unreachable or stale):
            evidence = _evidence(view, hub, peer, theirs, ages, loss)
            out.append((evidence, """
                This peer sends no PersistentKeepalive to %s, and the hub cannot reach it after a silence
                (%s %% ping loss after %s s idle; newest handshake %s s old, which only shows that the peer itself sent
                lately: its own packets refresh the mapping, the hub's cannot). A NAT or stateful firewall in front of
                the peer forgets the UDP mapping when no packet leaves for a while, so packets from the hub are
                dropped until the peer itself sends again. PersistentKeepalive below the NAT's UDP timeout
                (25 s suits most) keeps the mapping open.""" % (hub, loss, evidence["idle_s"], evidence["handshake_age_s"])))
    return out


def keepalive_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): a peer whose hub's facts are in the run and name its entry."""
    if "tunnelfix_wireguard_peers" not in (view.get("groups") or []):
        return does_not_apply("not a peer (tunnelfix_wireguard_peers)")
    hub = view.get("tunnel_hub")
    if not hub:
        return not_checked("no tunnelfix_tunnel_hub: the hub's public key tells which peer entry is the hub's")
    if hub not in views:
        return not_checked("its hub %s is not in this run" % hub)
    if not own_interfaces(view) or not own_interfaces(views[hub]):
        return not_checked("no running WireGuard interface read on this peer or on its hub %s" % hub)
    if not peers_to_hub(view, views[hub])[0]:
        return not_checked("no peer entry for the public key of its hub %s" % hub)
    if ((view.get("measurement") or {}).get("ping") or {}).get("loss_percent") is None:
        return partly("the hub's ping after idle (not measured in this run): from the handshake ages")
    return None
