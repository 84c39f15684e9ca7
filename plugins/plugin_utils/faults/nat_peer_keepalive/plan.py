# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4's one plan: which peers wireguard_keepalive changes, and where their keepalive differs from the wanted value.

The decisions, each made once and used by the fault and by the role's Python alike:

- ``choose_interfaces`` and ``choose_peers``: which interfaces and peers (named ones, else every interface and
  every peer with an endpoint). The fault's plan (``keepalive_plan``) and the OpenWrt role's peer sections
  (``uci_peers.uci_keepalive_targets``, the uci_wireguard_keepalive_targets filter) call them; the peer choice is
  the one the Linux modules make on the target (module_utils/_keepalive_module.choose_targets, called here).
- ``config_files.config_plan``: which wg-quick and .netdev files (the wireguard_config_plan filter, and here).
- ``live_keepalive_plan``: which running peers ``wg set`` changes (the wg_live_keepalive action, and here).

``keepalive_plan`` is ``Fault.plan``: the lines remediate shows (``[]`` converged, None cannot tell).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._keepalive_module import choose_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import name_list, role_setting, whole_number, wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.config_files import config_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

# wireguard_keepalive's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("wireguard_keepalive")


def choose_interfaces(found, names):
    """``(chosen, missing)``: the ``names`` given (``missing``: those ``found`` lacks, in order), or with none every
    name of ``found``, sorted (``missing`` empty). ``found``: the host's WireGuard interfaces (names, or a dict)."""
    names = list(names or [])
    if names:
        return names, [name for name in names if name not in found]
    return sorted(found), []


def choose_peers(pairs, public_keys, endpoint_key):
    """The ``(where, peer)`` of ``pairs`` whose keepalive the role sets, in order: the peers whose ``public_key`` is in
    ``public_keys``, or with none listed every peer with an endpoint (``peer[endpoint_key]``: the side that initiates,
    typically behind NAT). A listed key no peer has is not an error here (it may be in another file; the callers check).

    The choice the keepalive modules make on the target (module_utils/_keepalive_module.choose_targets), for each peer.
    """
    keys = list(public_keys or [])
    return [(where, peer) for where, peer in pairs
            if choose_targets([{"public_key": peer.get("public_key"), "endpoint": peer.get(endpoint_key)}], keys)]


def live_keepalive_plan(interfaces, peers, want):
    """Per requested peer: ``{"interface", "public_key", "before", "after", "status"}``, in the order given.

    ``interfaces``: parse_wg_dump's (``{name: {"peers": [{"public_key", "persistent_keepalive_s"}]}}``, None
    when wg could not read the kernel); ``peers``: ``[{"interface", "public_key"}]``; ``want``: seconds, 0 for
    off. ``status``: ``set`` (its keepalive differs: ``before`` -> ``after``), ``unchanged``,
    ``peer-not-live`` (the interface runs without that peer) or ``interface-down`` (no such running
    interface). ``before``/``after``: seconds, None for off or unknown.
    """
    wanted = want or None
    out = []
    for peer in peers:
        entry = {"interface": peer["interface"], "public_key": peer["public_key"], "before": None, "after": None}
        interface = (interfaces or {}).get(peer["interface"])
        running = [p for p in (interface or {}).get("peers") or [] if p.get("public_key") == peer["public_key"]]
        if interface is None:
            entry["status"] = "interface-down"
        elif not running:
            entry["status"] = "peer-not-live"
        else:
            before = running[0].get("persistent_keepalive_s")
            entry.update(before=before, after=wanted, status="unchanged" if before == wanted else "set")
        out.append(entry)
    return out


def _keys(role_vars):
    return name_list(role_setting(role_vars, "wireguard_keepalive_public_keys", FIX_DEFAULTS))


def _all_keys_found(chosen, keys):
    """Whether every listed key is among the chosen peers (else the role fails naming it: no plan)."""
    return all(key in {peer.get("public_key") for _where, peer in chosen} for key in keys)


def _live_lines(live, peers, want):
    """``wg set`` lines of ``live_keepalive_plan``, one per (interface, peer) of ``peers`` (None where it changes nothing)."""
    requested = [{"interface": name, "public_key": peer.get("public_key")} for name, peer in peers]
    return ["wg set %s peer %s persistent-keepalive %s" % (entry["interface"], entry["public_key"], want or "off")
            if entry["status"] == "set" else None for entry in live_keepalive_plan(live, requested, want)]


def _chosen_files(wireguard, role_vars):
    """The wg-quick and .netdev files the role would edit on Linux (``config_plan``, from the facts' files, then the
    .netdev files networkd_keepalive selects by ``Name=``), or None: the role's directories are not the ones the facts
    read, or it fails (a named interface without a file, no file at all)."""
    dirs = wireguard.get("config_dirs") or {}
    for name, key in (("wireguard_keepalive_config_dir", "wg_quick"), ("wireguard_keepalive_networkd_dir", "networkd")):
        if str(role_vars.get(name) or dirs.get(key)).rstrip("/") != dirs.get(key):
            return None
    files = {config["path"]: config for config in wireguard.get("configs") or [] if config.get("wireguard")}
    listing = {"wg_quick": sorted(path for path, config in files.items() if config.get("kind") == "wg-quick"),
               "netdev": sorted(path for path, config in files.items() if config.get("kind") == "netdev")}
    names = name_list(role_setting(role_vars, "wireguard_keepalive_interfaces", FIX_DEFAULTS))
    try:
        chosen = config_plan(listing, names, dirs.get("wg_quick"), dirs.get("networkd"))
    except ParseError:
        return None
    selected = [files[path] for path in chosen["wg_quick_paths"]] + [
        files[path] for path in chosen["netdev_paths"]
        if not chosen["netdev_interfaces"] or files[path].get("interface") in chosen["netdev_interfaces"]]
    if any(name not in {config.get("interface") for config in selected} for name in names):
        return None
    return selected


def _linux_changes(wireguard, role_vars, want):
    """Linux: each chosen peer's PersistentKeepalive in its file and live, or None when the facts cannot tell."""
    files = _chosen_files(wireguard, role_vars) if isinstance(wireguard.get("configs"), list) else None
    if files is None:
        return None
    keys = _keys(role_vars)
    peers = choose_peers([(config, peer) for config in files for peer in config.get("peers") or []], keys, "endpoint")
    if not _all_keys_found(peers, keys):
        return None
    live = _live_lines(wireguard.get("interfaces") or {}, [(config.get("interface"), peer) for config, peer in peers], want)
    changes = []
    for (config, peer), live_line in zip(peers, live):
        if peer.get("persistent_keepalive_s") != want:
            changes.append("%s: PersistentKeepalive of peer %s: %s -> %s" % (
                config["path"], peer.get("public_key"), peer.get("persistent_keepalive_s") or "unset", want or "unset"))
        if live_line:
            changes.append(live_line)
    return changes


def _openwrt_changes(openwrt, role_vars, want):
    """OpenWrt: each chosen peer section's ``persistent_keepalive`` and its running peer, or None when the role fails."""
    interfaces = {name: iface for name, iface in wireguard_interfaces(openwrt).items() if iface.get("in_uci")}
    names, missing = choose_interfaces(interfaces, name_list(role_setting(role_vars, "wireguard_keepalive_interfaces", FIX_DEFAULTS)))
    if missing:
        return None
    keys = _keys(role_vars)
    peers = choose_peers([(name, peer) for name in names for peer in interfaces[name].get("peers") or []], keys, "endpoint_host")
    if not _all_keys_found(peers, keys):
        return None
    live = {name: {"peers": [dict(peer["live"], public_key=peer.get("public_key")) for peer in iface.get("peers") or []
                             if isinstance(peer.get("live"), dict)]} for name, iface in interfaces.items()}
    changes = []
    for (name, peer), live_line in zip(peers, _live_lines(live, peers, want)):
        if peer.get("persistent_keepalive_s") != want:
            changes.append("network.%s.persistent_keepalive: %s -> %s" % (peer.get("section"), peer.get("persistent_keepalive_s") or "unset",
                                                                          want or "unset"))
        if live_line:
            changes.append(live_line)
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
    if not isinstance((view.get("openwrt") or {}).get("wireguard"), dict):
        wireguard = (view.get("tunnelfix") or {}).get("wireguard")
        return _linux_changes(wireguard, role_vars or {}, want) if isinstance(wireguard, dict) else None
    return _openwrt_changes(view["openwrt"], role_vars, want)
