# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What both keepalive faults read of a tunnel: the running peers of a host and of its hub, and when a handshake is stale.

Shared by this fault (``rule.py``) and its sibling stale_despite_keepalive (faults/stale_despite_keepalive/rule.py).
Both read the ``wireguard`` reading (faults/readings.py: tunnel_facts' on Linux, openwrt_facts' on OpenWrt).
WireGuard's REJECT_AFTER_TIME (180 s, from the WireGuard paper, section 6.1) is when a session without a new
handshake is no longer usable.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import wireguard_interfaces

STALE_HANDSHAKE_S = 180


def fresh_handshake(age) -> bool:
    """Whether a handshake ``age`` s old (None: never) is newer than ``STALE_HANDSHAKE_S``."""
    return age is not None and age <= STALE_HANDSHAKE_S


def own_interfaces(view) -> dict:
    """The host's running WireGuard, Linux or OpenWrt, in one shape: ``{interface: {"public_key": str | None,
    "peers": [peer, ...]}}``, each peer the running entry (``wg show all dump``: ``public_key``, ``endpoint``,
    ``persistent_keepalive_s``, ``handshake_age_s`` (None: never), ``rx_bytes``, ``tx_bytes``).

    Linux: tunnel_facts' ``wireguard.interfaces`` as they are. OpenWrt: openwrt_facts' interfaces that are
    up, each peer's ``live`` entry with the uci peer's ``public_key``; a peer that is not running is left out.
    {} without WireGuard facts.
    """
    wireguard = (view.get("openwrt") or {}).get("wireguard")
    if not isinstance(wireguard, dict):
        return wireguard_interfaces(view.get("tunnelfix"))
    out = {}
    for name, iface in (wireguard.get("interfaces") or {}).items():
        if iface.get("live"):
            out[name] = {"public_key": (iface.get("live_state") or {}).get("public_key"),
                         "peers": [dict(peer["live"], public_key=peer.get("public_key")) for peer in iface.get("peers") or []
                                   if isinstance(peer.get("live"), dict)]}
    return out


def peers_to_hub(view, hub_view):
    """(this host's peer entries pointing at its hub, the hub's entries for this host), matched by public key."""
    own = own_interfaces(view)
    hub = own_interfaces(hub_view) if hub_view else {}
    hub_keys = {iface.get("public_key") for iface in hub.values()} - {None}
    own_keys = {iface.get("public_key") for iface in own.values()} - {None}
    mine = [peer for iface in own.values() for peer in iface.get("peers") or [] if peer.get("public_key") in hub_keys]
    theirs = [peer for iface in hub.values() for peer in iface.get("peers") or [] if peer.get("public_key") in own_keys]
    return mine, theirs
