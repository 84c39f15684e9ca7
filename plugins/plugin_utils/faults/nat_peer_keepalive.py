# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4: a NATed peer without PersistentKeepalive goes dark for its hub.

A NAT or stateful firewall in front of the peer forgets the UDP mapping when nothing leaves for a
while; the hub's packets are then dropped until the peer sends again. Read from both ends of the
tunnel (tunnel_facts' ``wireguard`` on the peer and on its hub, matched by public key) and the
hub's ping after an idle period (tunnel_measure). WireGuard's REJECT_AFTER_TIME (180 s, from the
WireGuard paper, section 6.1) is when a session without a new handshake is no longer usable.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, needs_own, wireguard_interfaces

STALE_HANDSHAKE_S = 180


def peers_to_hub(view, hub_view):
    """(this host's peer entries pointing at its hub, the hub's entries for this host), matched by public key."""
    own = wireguard_interfaces(view.get("tunnelfix"))
    hub = wireguard_interfaces(hub_view.get("tunnelfix")) if hub_view else {}
    hub_keys = {iface.get("public_key") for iface in hub.values()}
    own_keys = {iface.get("public_key") for iface in own.values()}
    mine = [peer for iface in own.values() for peer in iface.get("peers", []) if peer.get("public_key") in hub_keys]
    theirs = [peer for iface in hub.values() for peer in iface.get("peers", []) if peer.get("public_key") in own_keys]
    return mine, theirs


def _tunnel_to_hub(view, views):
    """(peer entries to the hub, handshake ages of both ends (s), idle ping loss %, evidence base) for a Linux peer; None otherwise."""
    if "tunnelfix_wireguard_peers" not in view.get("groups", []) or "tunnelfix_openwrt" in view.get("groups", []):
        return None
    hub = view.get("tunnel_hub")
    mine, theirs = peers_to_hub(view, views.get(hub))
    loss = ((view.get("measurement") or {}).get("ping") or {}).get("loss_percent")
    ages = [p.get("handshake_age_s") for p in mine + theirs if p.get("handshake_age_s") is not None]
    return hub, mine, theirs, ages, loss


def _evidence(view, hub, peer, theirs, ages, loss):
    return {"hub": hub, "peer_public_key": peer.get("public_key"), "persistent_keepalive_s": peer.get("persistent_keepalive_s"),
            "handshake_age_s": max(ages) if ages else None, "hub_sees_endpoint": [p.get("endpoint") for p in theirs] or None,
            "idle_ping_loss_percent": loss, "idle_s": (view.get("measurement") or {}).get("idle_s")}


def without_keepalive(host, view, views):
    """One (evidence, explanation) per peer entry to the hub with no PersistentKeepalive while the hub cannot reach it.

    Cannot reach: the hub's ping after idle lost any packet (loss > 0 %), or a handshake of either
    end is older than ``STALE_HANDSHAKE_S``.
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


def stale_with_keepalive(host, view, views):
    """One (evidence, explanation) per peer entry with PersistentKeepalive set yet a handshake older than ``STALE_HANDSHAKE_S``."""
    tunnel = _tunnel_to_hub(view, views)
    if tunnel is None:
        return []
    hub, mine, theirs, ages, loss = tunnel
    stale = [age for age in ages if age > STALE_HANDSHAKE_S]
    out = []
    for peer in mine:
        if peer.get("persistent_keepalive_s") is not None and stale:
            out.append((_evidence(view, hub, peer, theirs, ages, loss), """
                PersistentKeepalive is %s s, yet the newest handshake with %s is %s s old (over %s s: no usable
                session). Keepalives are not getting through: the endpoint may be wrong or unreachable, a firewall
                may drop them, or the NAT's UDP timeout is shorter than the keepalive interval."""
                        % (peer.get("persistent_keepalive_s"), hub, max(stale), STALE_HANDSHAKE_S)))
    return out


NAT_PEER_WITHOUT_KEEPALIVE = Fault(
    id="nat_peer_without_keepalive",
    number=4,
    title="The NATed peer went dark",
    severity="critical",
    hosts="peer",
    reads=("tunnelfix.wireguard", "hub's tunnelfix.wireguard", "measurement.ping"),
    rule=without_keepalive,
    fires_when="no PersistentKeepalive and the hub's ping after idle is lost or the handshake is over %d s old"
               % STALE_HANDSHAKE_S,
    symptom="The hub cannot reach the peer after a quiet period; it comes back when the peer sends.",
    fix="PersistentKeepalive (25 s) on the peer's entry for the hub: wg-quick, systemd-networkd or OpenWrt UCI, "
        "written to the configuration and applied live.",
    fix_role="tunnelfix.fleet.wireguard_keepalive",
    fix_groups=("tunnelfix_wireguard_peers",),
    subject=lambda evidence: evidence.get("peer_public_key"),
    rechecked=needs_own("measurement"),
    proof=Proof(how="verify's hub pings the peer after the same idle period (tunnel_measure, enforced): no ping "
                    "may be lost, and the rule re-run no longer fires."),
    files=("plugins/plugin_utils/faults/nat_peer_keepalive.py", "roles/wireguard_keepalive/tasks/linux.yml",
           "roles/tunnel_measure/tasks/idle_ping.yml"),
)

STALE_DESPITE_KEEPALIVE = Fault(
    id="stale_despite_keepalive",
    number=4,
    title="The tunnel is dead although keepalives are on",
    severity="high",
    hosts="peer",
    reads=("tunnelfix.wireguard", "hub's tunnelfix.wireguard"),
    rule=stale_with_keepalive,
    fires_when="keepalive set, yet the newest handshake is over %d s old" % STALE_HANDSHAKE_S,
    symptom="No handshake for minutes although PersistentKeepalive is set.",
    fix="No role: check the endpoint, the firewall and the NAT's UDP timeout (the explanation lists them).",
    subject=lambda evidence: evidence.get("peer_public_key"),
    proof=Proof(how="verify re-reads both ends' handshakes and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/nat_peer_keepalive.py", "playbooks/verify.yml"),
)
