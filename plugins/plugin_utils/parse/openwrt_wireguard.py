# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One view of OpenWrt's WireGuard tunnels: the uci config merged with the live ``wg`` state.

Pure functions, no I/O. Inputs are already parsed and already free of secrets:
``_uci.parse_uci_show(text)["network"]`` (``uci -q show network``; ``private_key`` and
``preshared_key`` are ``<redacted>`` there) and ``_wireguard.parse_wg_dump(...)["interfaces"]``
(``wg show all dump``; the keys are dropped there). This module only keeps the *fact* that a
secret is set (``private_key_set``, ``preshared_key_set``), never a value, a length or a hash.
The uci side alone is ``uci_wireguard_interfaces``. Split or full tunnel is fault 1's decision
(faults/endpoint_route/tunnels.py: ``add_tunnels`` writes it into this view for the facts).
"""

from __future__ import annotations

import base64
import binascii

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import (
    is_secret_option, parse_uci_bool, parse_uci_int)


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, list) else str(value).split()


def allowed_network(value, where):
    """``ipnet.network(value)``; ParseError naming ``where`` (a uci path) when it is no address or prefix."""
    network = ipnet.network(value)
    if network is None:
        raise ParseError("%s: %r is not an address or prefix" % (where, value))
    return network


def uci_wireguard_interfaces(network: dict) -> dict:
    """Return the ``proto wireguard`` interfaces of a parsed ``network`` config with their peers.

    ``parse_uci_show(case 01)["network"]`` →
    ``{"wg0": {"nohostroute": False, "nohostroute_value": None, "addresses": ["10.77.0.2/24"], "peers": [
    {"section": "@wireguard_wg0[0]", "endpoint_host": "203.0.113.10", "allowed_ips":
    ["10.77.0.0/24", "192.168.20.0/24"], "route_allowed_ips": True}]}}``

    ``nohostroute`` is True only for the literal ``'1'``, the one value netifd's wireguard.sh
    honours (openwrt/openwrt package/network/utils/wireguard-tools/files/wireguard.sh@0a576dec:
    any other value, ``'true'`` included, still pins the endpoint's host route);
    ``nohostroute_value`` is the option as written (None when unset). ``route_allowed_ips`` is
    False when unset (OpenWrt's default; read as config_get_bool does). Raises ParseError for a
    bad boolean or prefix, naming the uci path.
    """
    result = {}
    for name, section in network.items():
        options = section.get("options", {})
        if section.get("type") != "interface" or options.get("proto") != "wireguard":
            continue
        # netifd's wireguard.sh (openwrt/openwrt package/network/utils/wireguard-tools/files/wireguard.sh
        # @0a576dec) skips the endpoint host route only for the literal '1': 'true', 'on' or 'yes' still pin it.
        raw = options.get("nohostroute")
        result[name] = {
            "nohostroute": raw == "1",
            "nohostroute_value": raw if isinstance(raw, str) else None,
            "addresses": _as_list(options.get("addresses")),
            "peers": [],
        }
    for ref, section in network.items():
        stype = section.get("type") or ""
        iface = stype[len("wireguard_"):] if stype.startswith("wireguard_") else None
        if iface not in result:
            continue
        options = section.get("options", {})
        allowed = _as_list(options.get("allowed_ips"))
        for prefix in allowed:
            allowed_network(prefix, "network.%s.allowed_ips" % ref)
        result[iface]["peers"].append({
            "section": ref,
            "endpoint_host": options.get("endpoint_host"),
            "allowed_ips": allowed,
            "route_allowed_ips": bool(parse_uci_bool(options.get("route_allowed_ips", "0"),
                                                     "network.%s.route_allowed_ips" % ref)),
        })
    return result


# live keys of a parse_wg_dump peer kept under "live" (public_key is the peer's own key)
_LIVE_PEER_KEYS = ("endpoint", "endpoint_host", "endpoint_port", "allowed_ips", "latest_handshake_epoch",
                   "handshake_age_s", "handshake_state", "persistent_keepalive_s", "rx_bytes", "tx_bytes",
                   "has_preshared_key")
_LIVE_INTERFACE_KEYS = ("public_key", "has_private_key", "listen_port", "fwmark")


def split_dated_output(text: str):
    """Split the output of ``sh -c 'date +%s; exec CMD'`` into ``(epoch, CMD's output)``.

    ``"1796029496\\nwg0\\t…\\n"`` → ``(1796029496, "wg0\\t…\\n")``. The first line is the
    target's clock (Unix seconds, BusyBox or coreutils ``date +%s``), so handshake ages are
    computed against the same clock as ``wg``'s ``latest-handshake``.
    Raises ParseError when the first line is not a whole number.
    """
    if not isinstance(text, str):
        raise ParseError("dated output must be text, got %s" % type(text).__name__)
    first, _sep, rest = text.partition("\n")
    if not first.strip().isdigit():
        raise ParseError("expected the target's `date +%%s` on the first line, got %r" % first[:60])
    return int(first.strip()), rest


def _public_options(options):
    """Every uci option except the secret ones, lists copied."""
    return {name: (list(value) if isinstance(value, list) else value)
            for name, value in options.items() if not is_secret_option(name)}


def _uci_peer(name, section, info):
    opts = section.get("options", {})
    where = "network.%s." % name
    keepalive = parse_uci_int(opts.get("persistent_keepalive"), where + "persistent_keepalive")
    return {
        "public_key": opts.get("public_key"),
        "section": name,  # as uci show printed it: "dc", "@wireguard_wg0[0]", "cfg0a96ba"
        "description": opts.get("description"),
        "disabled": bool(parse_uci_bool(opts.get("disabled"), where + "disabled")),
        "preshared_key_set": bool(opts.get("preshared_key")),
        "endpoint_host": opts.get("endpoint_host"),
        "endpoint_port": parse_uci_int(opts.get("endpoint_port"), where + "endpoint_port"),
        "allowed_ips": list(info["allowed_ips"]),
        "route_allowed_ips": info["route_allowed_ips"],
        "persistent_keepalive_s": keepalive or None,  # 0 is off, as in wg
        "in_uci": True,
    }


def _live_only_peer(live_peer):
    return {"public_key": live_peer["public_key"], "section": None, "description": None, "disabled": None,
            "preshared_key_set": None, "endpoint_host": None, "endpoint_port": None, "allowed_ips": [],
            "route_allowed_ips": None, "persistent_keepalive_s": None, "in_uci": False}


def _uci_interface(name, section, info):
    opts = section.get("options", {})
    where = "network.%s." % name
    return {
        "in_uci": True,
        "proto": opts.get("proto"),
        "disabled": bool(parse_uci_bool(opts.get("disabled"), where + "disabled")),
        "private_key_set": bool(opts.get("private_key")),
        "listen_port": parse_uci_int(opts.get("listen_port"), where + "listen_port"),
        "addresses": list(info["addresses"]),
        "nohostroute": info["nohostroute"],
        "mtu": parse_uci_int(opts.get("mtu"), where + "mtu"),
        "options": _public_options(opts),
    }


_EMPTY_UCI_INTERFACE = {"in_uci": False, "proto": None, "disabled": None, "private_key_set": None,
                        "listen_port": None, "addresses": [], "nohostroute": None, "mtu": None, "options": {}}


def parse_derived_public_key(text: str):
    """What ``wg pubkey`` printed (remote/fact_commands.py ``UCI_OWN_PUBLIC_KEY``: the public key of a uci
    private_key) -> the key (44 characters of base64, 32 bytes: wg(8)'s format), or None for nothing (wg missing, no private key,
    one wg rejects). Raises ParseError for any other output (never echoed: it might be a key)."""
    if not isinstance(text, str):
        raise ParseError("wg pubkey's output must be text, got %s" % type(text).__name__)
    key = text.strip()
    if not key:
        return None
    try:
        raw = base64.b64decode(key, validate=True) if len(key) == 44 else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise ParseError("wg pubkey printed %d characters that are not one public key" % len(key))
    return key


def merge_wireguard(network: dict, live_interfaces=None) -> dict:
    """Merge the uci WireGuard config with the live state, per interface and peer.

    ``network`` is ``parse_uci_show(text)["network"]`` (``{}`` when there is no config),
    ``live_interfaces`` is ``parse_wg_dump(text, now)["interfaces"]`` or None when no live
    state could be read (``wg`` missing). Interfaces are matched by name (OpenWrt names the
    netdev after the uci interface), peers by public key. For case 01 (uci + dump)::

        {"wg0": {
            "in_uci": True, "live": True,
            "proto": "wireguard", "disabled": False,
            "private_key_set": True,           # never the key itself
            "listen_port": 51820,              # uci, int or None
            "addresses": ["10.77.0.2/24"], "nohostroute": False, "mtu": None,
            "options": {"proto": "wireguard", "listen_port": "51820", "addresses": "10.77.0.2/24"},
                                               # every uci option except the secret ones, as strings
            "live_state": {"public_key": "AAAA…A=", "has_private_key": True, "listen_port": 51820,
                           "fwmark": None},    # None when not live
            "peers": [{
                "public_key": "BBBB…B=", "section": "@wireguard_wg0[0]", "description": "site-b",
                "disabled": False, "preshared_key_set": False,
                "endpoint_host": "203.0.113.10", "endpoint_port": 51820,       # uci
                "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"], "route_allowed_ips": True,
                "persistent_keepalive_s": 25,  # uci; None when unset or 0
                "in_uci": True,
                "live": {"endpoint": "203.0.113.10:51820", "endpoint_host": "203.0.113.10",
                         "endpoint_port": 51820, "allowed_ips": [...],
                         "latest_handshake_epoch": 1767225571, "handshake_age_s": 29,
                         "handshake_state": "fresh", "persistent_keepalive_s": 25,
                         "rx_bytes": 48213344, "tx_bytes": 9120448, "has_preshared_key": False}}]}}

    A uci peer the kernel does not know has ``live: None``; a live peer or interface missing
    from uci has ``in_uci: False`` and None for the uci keys. Peers keep uci order, live-only ones last.
    Split or full tunnel (``tunnel``, ``tunnel_reason``; per peer ``full_tunnel``, ``full_tunnel_reason``)
    is added by fault 1's ``faults/endpoint_route/tunnels.add_tunnels``.

    Raises ParseError naming the uci path for a bad boolean, number or prefix.
    """
    if not isinstance(network, dict):
        raise ParseError("expected the parsed network config (a dict), got %s" % type(network).__name__)
    live_interfaces = live_interfaces or {}
    infos = uci_wireguard_interfaces(network)
    result = {}
    for name in list(infos) + sorted(set(live_interfaces) - set(infos)):
        live = live_interfaces.get(name)
        if name in infos:
            entry = _uci_interface(name, network[name], infos[name])
            by_section = {peer["section"]: peer for peer in infos[name]["peers"]}
            peers = [_uci_peer(ref, section, by_section[ref])
                     for ref, section in network.items() if ref in by_section]
        else:
            entry = dict(_EMPTY_UCI_INTERFACE, options={}, addresses=[])
            peers = []
        entry["live"] = live is not None
        entry["live_state"] = None if live is None else {key: live.get(key) for key in _LIVE_INTERFACE_KEYS}
        live_peers = {peer["public_key"]: peer for peer in (live or {}).get("peers", [])}
        known = {peer["public_key"] for peer in peers}
        peers += [_live_only_peer(peer) for key, peer in live_peers.items() if key not in known]
        for peer in peers:
            found = live_peers.get(peer["public_key"])
            peer["live"] = None if found is None else {key: (list(found[key]) if isinstance(found[key], list)
                                                             else found[key]) for key in _LIVE_PEER_KEYS}
        entry["peers"] = peers
        result[name] = entry
    return result
