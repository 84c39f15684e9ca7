# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readings today's faults declare (``reading.Reading``): the subsets of tunnel_facts (Linux) and openwrt_facts.

Each is what the two facts actions read for it on each platform, in their one batch, and the gather
that turns the results into its facts (moved here from the actions, which now only run the batch).
Several faults share most of them (``wireguard``: the keepalive faults and fault 1); a reading only one fault
(or one family) needs belongs next to that fault, in its own folder (``bridges``: faults/bridge_offload/reads.py,
both offload faults; ``udp_gro``: faults/udp_gro_forwarding/reads.py, built here), and ``ORDER`` imports it.

``ORDER`` is the order gather_subset offers the names and the facts come back in (as they came before
the readings moved here); a reading it does not list comes after these, in the order the faults declare it.

The gathers use the action's readers: ``ethtool_k`` (both actions), ``bridges_and_tunnels``
(``remote/tunnel_reader.py``), ``gather_udp_gro`` (``remote/udp_gro_reader.py``), ``gather_tcp``/``gather_netns``
(``remote/tcp_reader.py``, Linux: faults/loss_sensitive_cc/reads.py), ``routes_table_all``/``route_get`` (``remote/route_reader.py``) and ``wg_live``
(``remote/wg_live_reader.py``, OpenWrt): the readers the fixing actions share, so a fix reads what its fault read.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import BANIP, MWAN3
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.reads import BRIDGES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import endpoint_routes_reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import add_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import NETNS, TCP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.reads import udp_gro_reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.endpoint_route import describe_endpoint_route
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard, parse_derived_public_key, split_dated_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import default_routes, parse_ip_route_get, parse_ip_route_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.wg_config_peers import parse_wg_config_peers
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, ForEachLine, Step, foreach_name, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    LIVE_ENDPOINT_LINES, NETWORKD_DIR, NOT_FOUND, PRESHARED_KEY_FINGERPRINTS, PRESHARED_KEY_FINGERPRINTS_NAME, ROUTE_GET_JSON,
    ROUTES_JSON, UCI_OWN_PUBLIC_KEY, UCI_WIREGUARD_INTERFACE_LINES, WG_CONFIG_PEERS, WG_CONFIG_PEERS_NAME, WG_DUMP, WG_DUMP_NAME,
    WG_QUICK_DIR)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import parse_psk_fingerprints, salt_id
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.uci_reader import uci_show, uci_step


# --- wireguard ------------------------------------------------------------------------------------

def _psk_fingerprints(action, args):
    """(salt id, ``{interface: {peer key: fingerprint}}``) of the batch's PRESHARED_KEY_FINGERPRINTS step, salted
    with ``args["fingerprint_salt"]`` (remote/psk_fingerprint.py); (None, {}) when not known: no salt, the step
    missing or failed (no sha256sum: rc 3), or a line that is not a fingerprint."""
    salt = args.get("fingerprint_salt")
    got = (action.batch or {}).get(PRESHARED_KEY_FINGERPRINTS_NAME)
    if not salt or got is None or got["rc"] != 0:
        return None, {}
    try:
        return salt_id(salt), parse_psk_fingerprints(got["stdout"])
    except ParseError:
        return None, {}


def _add_fingerprints(peers, found):
    """Set ``preshared_key_fingerprint`` on each peer dict of ``peers``: its fingerprint in ``found`` (the
    interface's ``{peer key: fingerprint}``), None when it has none (no PSK, or not known)."""
    for peer in peers:
        peer["preshared_key_fingerprint"] = found.get(peer.get("public_key"))


def _linux_wireguard(action, facts, args):
    """``{"available", "interfaces", "configs", "config_dirs", "sampled_at_epoch", "preshared_key_salt_id"}``: the
    live state (no ``wg`` is not a failure; ``wg`` failing is), the target's clock when it was read (Unix s; None
    without ``wg``), what the wg-quick and .netdev files say of each peer's keepalive, and each live peer's
    ``preshared_key_fingerprint`` with the id of the run's salt it was made with (``_psk_fingerprints``)."""
    configs = action.parse_output(action.step(WG_CONFIG_PEERS, name=WG_CONFIG_PEERS_NAME), parse_wg_config_peers)
    files = {"configs": configs, "config_dirs": {"wg_quick": WG_QUICK_DIR, "networkd": NETWORKD_DIR}}
    res = action.step(WG_DUMP, ok_rcs=(0, NOT_FOUND), name=WG_DUMP_NAME)
    if res["rc"] == NOT_FOUND:
        return dict(files, available=False, interfaces={}, sampled_at_epoch=None, preshared_key_salt_id=None)
    now, dump = action.parse_output(res, split_dated_output)
    parsed = action.parse_output(dict(res, stdout=dump), lambda text: parse_wg_dump(text, now))
    salt, fingerprints = _psk_fingerprints(action, args)
    for name, interface in parsed["interfaces"].items():
        _add_fingerprints(interface.get("peers") or [], fingerprints.get(name, {}))
    return dict(files, available=True, interfaces=parsed["interfaces"], sampled_at_epoch=now, preshared_key_salt_id=salt)


def _openwrt_network(action, facts, args):
    """The parsed uci network config (``{}`` without one): the peers' uci view, and the routes' interfaces."""
    return uci_show(action, "network", parse_uci_show).get("network", {})


def _openwrt_wireguard(action, facts, args):
    """``{"wg_installed", "live", "note", "interfaces", "sampled_at_epoch"}``: uci's view merged with the live state
    (``wg_live_dated``), each tunnel split or full (fault 1's ``add_tunnels``), each interface with
    ``configured_public_key``: the public key of its uci private_key, derived on the router (None: not known;
    UCI_OWN_PUBLIC_KEY, one step per interface); ``sampled_at_epoch``: the router's clock when the live counters were
    read (Unix s; None without them)."""
    installed, live, note, sampled_at = action.wg_live_dated()
    interfaces = add_tunnels(merge_wireguard(facts["network"], live))
    for name, interface in interfaces.items():
        interface["configured_public_key"] = None
        if interface.get("in_uci") and interface.get("proto") == "wireguard":
            res = action.batch_step(action.batch, foreach_name(UCI_OWN_PUBLIC_KEY, name), UCI_OWN_PUBLIC_KEY + [name],
                                    ok_rcs=ANY_EXIT_STATUS, shown=step_name(UCI_OWN_PUBLIC_KEY + [name]))
            interface["configured_public_key"] = action.parse_output(res, parse_derived_public_key)
    salt, fingerprints = _psk_fingerprints(action, args)
    for name, interface in interfaces.items():   # on the live entry, next to has_preshared_key
        found = fingerprints.get(name, {})
        for peer in interface.get("peers") or []:
            if peer.get("live"):
                peer["live"]["preshared_key_fingerprint"] = found.get(peer.get("public_key"))
    return {"wg_installed": installed, "live": bool(live), "note": note, "interfaces": interfaces,
            "sampled_at_epoch": sampled_at, "preshared_key_salt_id": salt}


# OpenWrt: the parsed uci network (not a subset: the peers' and the routes' input)
NETWORK = Reading("network", {"openwrt": Read(steps=(uci_step("network"),), gather=_openwrt_network)}, public=False)

WIREGUARD = Reading("wireguard", {
    "linux": Read(steps=(Step(WG_DUMP_NAME, WG_DUMP), Step(WG_CONFIG_PEERS_NAME, WG_CONFIG_PEERS),
                         Step(PRESHARED_KEY_FINGERPRINTS_NAME, PRESHARED_KEY_FINGERPRINTS)), gather=_linux_wireguard),
    "openwrt": Read(steps=(Step(WG_DUMP_NAME, WG_DUMP), Step(PRESHARED_KEY_FINGERPRINTS_NAME, PRESHARED_KEY_FINGERPRINTS),
                           ForEachLine(UCI_WIREGUARD_INTERFACE_LINES, (uci_step("network").name,), (UCI_OWN_PUBLIC_KEY,))),
                    gather=_openwrt_wireguard, uses=(NETWORK,)),
})


# --- routes (Linux) and endpoint_routes (OpenWrt) --------------------------------------------------

def _linux_routes(action, facts, args):
    """Default routes and, per endpoint host, the route ``ip -j route get`` chose (describe_endpoint_route)."""
    routes = action.parse_output(action.step(ROUTES_JSON), parse_ip_route_show)
    endpoints = {}
    for iface in facts["wireguard"]["interfaces"].values():  # the wireguard gather always sets it (no wg: {})
        for peer in iface["peers"]:
            host = peer.get("endpoint_host")
            if not host or host in endpoints:
                continue
            argv = ROUTE_GET_JSON + [host]
            res = action.batch_step(action.batch, foreach_name(ROUTE_GET_JSON, host), argv, shown=step_name(argv))
            endpoints[host] = describe_endpoint_route(action.parse_output(res, parse_ip_route_get), routes, host)
    return {"default": default_routes(routes), "endpoints": endpoints}


ROUTES = Reading("routes", {
    "linux": Read(steps=(step_of(ROUTES_JSON), ForEachLine(LIVE_ENDPOINT_LINES, (WG_DUMP_NAME,), (ROUTE_GET_JSON,))),
                  gather=_linux_routes, needs=(WIREGUARD,)),
})


# Fault 1's reading (its steps, gather and parsers: faults/endpoint_route/reads.py), built here from the shared
# readings it uses; the udp_gro reading needs it, and the PMTU fault declares it too.
ENDPOINT_ROUTES = endpoint_routes_reading(NETWORK, WIREGUARD)


# --- udp_gro ---------------------------------------------------------------------------------------

# The UDP GRO fault's reading (faults/udp_gro_forwarding/reads.py), built here with the shared readings it needs.
UDP_GRO = udp_gro_reading(WIREGUARD, ROUTES, ENDPOINT_ROUTES)

ORDER = (BANIP, MWAN3, WIREGUARD, ROUTES, TCP, NETNS, BRIDGES, ENDPOINT_ROUTES, UDP_GRO)
