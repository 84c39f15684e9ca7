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

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Alert, Fault, Proof, does_not_apply, is_router, name_list, needs_own, not_checked, partly, role_setting, whole_number,
    wireguard_interfaces)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

STALE_HANDSHAKE_S = 180
# wireguard_keepalive's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("wireguard_keepalive")


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
    return {"hub": hub, "peer_public_key": peer.get("public_key"), "persistent_keepalive_s": peer.get("persistent_keepalive_s"),
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


def dead_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): its own WireGuard facts were read."""
    wireguard = ((view.get("openwrt") if is_router(view) else view.get("tunnelfix")) or {}).get("wireguard")
    if not isinstance(wireguard, dict):
        return not_checked("no WireGuard facts were read")
    if not own_interfaces(view):
        return does_not_apply("no running WireGuard interface")
    return None


def _chosen(pairs, role_vars, endpoint_key):
    """The ``(where, peer)`` of ``pairs`` the role would set: the peers of wireguard_keepalive_public_keys, else
    every peer with an endpoint (``peer[endpoint_key]``); None when a listed key is in none (the role fails)."""
    keys = name_list(role_setting(role_vars, "wireguard_keepalive_public_keys", FIX_DEFAULTS))
    chosen = [(where, peer) for where, peer in pairs if (peer.get("public_key") in keys if keys else peer.get(endpoint_key))]
    if any(key not in {peer.get("public_key") for _where, peer in chosen} for key in keys):
        return None
    return chosen


def _chosen_peers(interfaces, role_vars):
    """[(interface, peer)] the role would set on OpenWrt, or None when a named interface or key is not there (the role fails)."""
    names = name_list(role_setting(role_vars, "wireguard_keepalive_interfaces", FIX_DEFAULTS)) or sorted(interfaces)
    if any(name not in interfaces for name in names):
        return None
    return _chosen([(name, peer) for name in names for peer in interfaces[name].get("peers") or []], role_vars, "endpoint_host")


def _chosen_files(wireguard, role_vars):
    """The wg-quick and .netdev files the role would edit on Linux (its wireguard_config_plan, from the facts), or
    None: the role's directories are not the ones the facts read, or it fails (a named interface without a file,
    no file at all)."""
    dirs = wireguard.get("config_dirs") or {}
    for name, key in (("wireguard_keepalive_config_dir", "wg_quick"), ("wireguard_keepalive_networkd_dir", "networkd")):
        if str(role_vars.get(name) or dirs.get(key)).rstrip("/") != dirs.get(key):
            return None
    files = [config for config in wireguard.get("configs") or [] if config.get("wireguard")]
    wg_quick = {config["interface"]: config for config in files if config.get("kind") == "wg-quick"}
    netdevs = [config for config in files if config.get("kind") == "netdev"]
    names = name_list(role_setting(role_vars, "wireguard_keepalive_interfaces", FIX_DEFAULTS))
    if any(name not in wg_quick and name not in {config.get("interface") for config in netdevs} for name in names):
        return None
    chosen = ([wg_quick[name] for name in names if name in wg_quick]
              + [config for config in netdevs if config.get("interface") in names and config.get("interface") not in wg_quick]
              if names else list(wg_quick.values()) + netdevs)
    return chosen or None


def _linux_changes(wireguard, role_vars, want):
    """Linux: each chosen peer's PersistentKeepalive in its file and live, or None when the facts cannot tell."""
    files = _chosen_files(wireguard, role_vars) if isinstance(wireguard.get("configs"), list) else None
    if files is None:
        return None
    peers = _chosen([(config, peer) for config in files for peer in config.get("peers") or []], role_vars, "endpoint")
    if peers is None:
        return None
    live = wireguard.get("interfaces") or {}
    changes = []
    for config, peer in peers:
        if peer.get("persistent_keepalive_s") != want:
            changes.append("%s: PersistentKeepalive of peer %s: %s -> %s" % (
                config["path"], peer.get("public_key"), peer.get("persistent_keepalive_s") or "unset", want or "unset"))
        running = [entry for entry in (live.get(config.get("interface")) or {}).get("peers") or []
                   if entry.get("public_key") == peer.get("public_key")]
        if running and running[0].get("persistent_keepalive_s") != want:
            changes.append("wg set %s peer %s persistent-keepalive %s" % (config.get("interface"), peer.get("public_key"), want or "off"))
    return changes


def keepalive_plan(view, role_vars):
    """What wireguard_keepalive would change: PersistentKeepalive in the configuration and live, per chosen peer.

    OpenWrt (openwrt_facts' ``wireguard``: uci and live): each chosen peer section whose
    ``persistent_keepalive`` differs, and each live peer whose keepalive differs. Linux
    (tunnel_facts' ``wireguard``: the wg-quick and .netdev files, and live): the same for each
    chosen peer of the files the role would edit (its choice of files and peers: named
    interfaces, else every file; named keys, else every peer with an Endpoint). ``[]`` when all
    hold. None without the facts, for a value that is not a whole number, a named interface or key
    that is not there, no file at all (the role fails naming it), or role directories other than
    the ones the facts read (/etc/wireguard, /etc/systemd/network).
    """
    wanted = whole_number(role_setting(role_vars, "wireguard_keepalive_persistent_keepalive_s", FIX_DEFAULTS))
    if wanted is None:
        return None
    want = wanted or None  # 0 turns it off: unset in the files and uci, "off" live
    openwrt = isinstance((view.get("openwrt") or {}).get("wireguard"), dict)
    if not openwrt:
        wireguard = (view.get("tunnelfix") or {}).get("wireguard")
        return _linux_changes(wireguard, role_vars or {}, want) if isinstance(wireguard, dict) else None
    interfaces = {name: iface for name, iface in wireguard_interfaces(view["openwrt"]).items() if iface.get("in_uci")}
    peers = _chosen_peers(interfaces, role_vars)
    if peers is None:
        return None
    changes = []
    for name, peer in peers:
        if peer.get("persistent_keepalive_s") != want:
            changes.append("network.%s.persistent_keepalive: %s -> %s" % (peer.get("section"), peer.get("persistent_keepalive_s") or "unset",
                                                                          want or "unset"))
        if isinstance(peer.get("live"), dict) and peer["live"].get("persistent_keepalive_s") != want:
            changes.append("wg set %s peer %s persistent-keepalive %s" % (name, peer.get("public_key"), want or "off"))
    return changes


NAT_PEER_WITHOUT_KEEPALIVE = Fault(
    id="nat_peer_without_keepalive",
    number=4,
    title="The NATed peer went dark",
    severity="critical",
    hosts="peer (Linux or OpenWrt)",
    reads=("tunnelfix.wireguard", "openwrt.wireguard", "hub's wireguard", "measurement.ping"),
    facts=(WIREGUARD,),
    rule=without_keepalive,
    coverage=keepalive_coverage,
    fires_when="no PersistentKeepalive and the hub's ping after idle is lost or the handshake is over %d s old"
               % STALE_HANDSHAKE_S,
    symptom="The hub cannot reach the peer after a quiet period; it comes back when the peer sends.",
    fix="PersistentKeepalive (25 s) on the peer's entry for the hub: wg-quick, systemd-networkd or OpenWrt UCI, "
        "written to the configuration and applied live.",
    fix_role="tunnelfix.fleet.wireguard_keepalive",
    fix_groups=("tunnelfix_wireguard_peers",),
    subject=lambda evidence: evidence.get("peer_public_key"),
    rechecked=needs_own("measurement"),
    plan=keepalive_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify's hub pings the peer after the same idle period (tunnel_measure, enforced): no ping "
                    "may be lost, and the rule re-run no longer fires."),
    files=("plugins/plugin_utils/faults/nat_peer_keepalive.py", "roles/wireguard_keepalive/tasks/linux.yml",
           "roles/tunnel_measure/tasks/idle_ping.yml"),
    alert=Alert(
        name="TunnelfixKeepaliveOffOnNatedPeer",
        expr="tunnelfix_wireguard_keepalive_enabled == 0 and on(job, instance) ({finding} > 0)",
        summary="{{ $labels.instance }} {{ $labels.interface }}: peer {{ $labels.peer }} has no PersistentKeepalive and "
                "its hub cannot reach it after a silence (a NAT in front forgets the mapping)",
        why="the finding says the peer is behind a NAT (its hub lost pings after idle, or the handshake went stale); "
            "keepalive_enabled names the peer entries that lack it, and clears the moment one is set"),
    evidence=(
        ("hub", "the peer's hub (`tunnelfix_tunnel_hub`)"),
        ("peer_public_key", "the public key of the peer entry to the hub that has no PersistentKeepalive"),
        ("persistent_keepalive_s", "its PersistentKeepalive, s (null: unset)"),
        ("handshake_age_s", "the oldest newest-handshake age of both ends, s (null: none)"),
        ("hub_sees_endpoint", "the endpoints the hub's entries for this peer show (null: none)"),
        (("idle_ping_loss_percent", "idle_s"), "the hub's ping to the peer after a silence: loss %, and the silence, s"),
    ),
)

STALE_DESPITE_KEEPALIVE = Fault(
    id="stale_despite_keepalive",
    number=4,
    title="The tunnel is dead although keepalives are on",
    severity="critical",
    hosts="any (its own WireGuard facts; no hub needed)",
    reads=("tunnelfix.wireguard", "openwrt.wireguard", "hub's wireguard (evidence only)"),
    facts=(WIREGUARD,),
    rule=dead_with_keepalive,
    coverage=dead_coverage,
    fires_when="PersistentKeepalive set on a running peer entry, yet no handshake ever, or the newest over %d s old"
               % STALE_HANDSHAKE_S,
    symptom="The tunnel is down: no handshake at all, or none for minutes, although PersistentKeepalive is set.",
    fix="No role: check the endpoint, the other end's key and allowed IPs, the firewall and the NAT's UDP timeout "
        "(the explanation lists them).",
    subject=lambda evidence: "%s %s" % (evidence.get("interface"), evidence.get("peer_public_key")),
    proof=Proof(how="verify re-reads the handshakes and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/nat_peer_keepalive.py", "playbooks/verify.yml"),
    evidence=(
        (("interface", "peer_public_key", "endpoint"), "the WireGuard interface, the peer entry's public key and endpoint"),
        ("persistent_keepalive_s", "its PersistentKeepalive, s"),
        (("handshake_age_s", "handshake"), "the newest handshake's age, s (null: never), and `never` or `stale`"),
        (("rx_bytes", "tx_bytes"), "the entry's byte counters"),
        (("hub", "hub_sees_endpoint"), "when the entry is this host's hub and its facts are in the run: the hub, and the "
         "endpoints its entries for this host show; else null"),
    ),
)
