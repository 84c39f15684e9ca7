# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readings today's faults declare (``reading.Reading``): the subsets of tunnel_facts (Linux) and openwrt_facts.

Each is what the two facts actions read for it on each platform, in their one batch, and the gather
that turns the results into its facts (moved here from the actions, which now only run the batch).
Several faults share most of them (``wireguard``: the keepalive faults and fault 1; ``bridges``: both
offload faults); a reading only one fault needs belongs next to that fault (its own folder).

``ORDER`` is the order gather_subset offers the names and the facts come back in (as they came before
the readings moved here); a reading it does not list comes after these, in the order the faults declare it.

The gathers use the action's readers: ``ethtool_k`` (both actions), ``bridges_and_tunnels``
(``remote/tunnel_reader.py``), ``gather_udp_gro`` (``remote/udp_gro_reader.py``), ``gather_tcp``/``gather_netns``
(``remote/tcp_reader.py``, Linux), ``routes_table_all``/``route_get`` (``remote/route_reader.py``) and ``wg_live``
(``remote/wg_live_reader.py``, OpenWrt): the readers the fixing actions share, so a fix reads what its fault read.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import BANIP, MWAN3
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import endpoint_routes_reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import add_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import LoopLines, Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import bridges_subset, parse_ip_link_bridges
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.endpoint_route import describe_endpoint_route
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard, split_dated_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import default_routes, parse_ip_route_get, parse_ip_route_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    FORWARD_AND_LINKS_ARGV, parse_ip_link_tunnels, split_forward_and_links)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.wg_config_peers import parse_wg_config_peers
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ForEachLine, Step, foreach_name, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    DEFAULT_ROUTE_DEVICE_LINES, ETHTOOL_K, LIVE_ENDPOINT_LINES, NETWORKD_DIR, NOT_FOUND, OFFLOAD_DEVICE_LINES,
    ROUTE_GET_JSON, ROUTES_JSON, WG_CONFIG_PEERS, WG_CONFIG_PEERS_NAME, WG_DUMP,
    WG_DUMP_NAME, WG_QUICK_DIR)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import route_table_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import tcp_read_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tunnel_reader import mss_clamp_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.udp_gro_reader import udp_gro_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.uci_reader import uci_show, uci_step

# the one ethtool loop of a facts batch: bridges, their ports, tunnels and default-route NICs, a device once
OFFLOAD_LOOP = (ETHTOOL_K,)


# --- wireguard ------------------------------------------------------------------------------------

def _linux_wireguard(action, facts, args):
    """``{"available", "interfaces", "configs", "config_dirs"}``: the live state (no ``wg`` is not a failure;
    ``wg`` failing is) and what the wg-quick and .netdev files say of each peer's keepalive."""
    configs = action.parse_output(action.step(WG_CONFIG_PEERS, name=WG_CONFIG_PEERS_NAME), parse_wg_config_peers)
    files = {"configs": configs, "config_dirs": {"wg_quick": WG_QUICK_DIR, "networkd": NETWORKD_DIR}}
    res = action.step(WG_DUMP, ok_rcs=(0, NOT_FOUND), name=WG_DUMP_NAME)
    if res["rc"] == NOT_FOUND:
        return dict(files, available=False, interfaces={})
    now, dump = action.parse_output(res, split_dated_output)
    parsed = action.parse_output(dict(res, stdout=dump), lambda text: parse_wg_dump(text, now))
    return dict(files, available=True, interfaces=parsed["interfaces"])


def _openwrt_network(action, facts, args):
    """The parsed uci network config (``{}`` without one): the peers' uci view, and the routes' interfaces."""
    return uci_show(action, "network", parse_uci_show).get("network", {})


def _openwrt_wireguard(action, facts, args):
    """``{"wg_installed", "live", "note", "interfaces"}``: uci's view merged with the live state (``wg_live``), each
    tunnel split or full (fault 1's ``add_tunnels``)."""
    installed, live, note = action.wg_live()
    return {"wg_installed": installed, "live": bool(live), "note": note,
            "interfaces": add_tunnels(merge_wireguard(facts["network"], live))}


# OpenWrt: the parsed uci network (not a subset: the peers' and the routes' input)
NETWORK = Reading("network", {"openwrt": Read(steps=(uci_step("network"),), gather=_openwrt_network)}, public=False)

WIREGUARD = Reading("wireguard", {
    "linux": Read(steps=(Step(WG_DUMP_NAME, WG_DUMP), Step(WG_CONFIG_PEERS_NAME, WG_CONFIG_PEERS)), gather=_linux_wireguard),
    "openwrt": Read(steps=(Step(WG_DUMP_NAME, WG_DUMP),), gather=_openwrt_wireguard, uses=(NETWORK,)),
})


# --- routes (Linux) and endpoint_routes (OpenWrt) --------------------------------------------------

def _linux_routes(action, facts, args):
    """Default routes and, per endpoint host, the route ``ip -j route get`` chose (describe_endpoint_route)."""
    routes = action.parse_output(action.step(ROUTES_JSON), parse_ip_route_show)
    endpoints = {}
    for iface in facts["wireguard"].get("interfaces", {}).values():
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


# --- tcp, netns (Linux) --------------------------------------------------------------------------

def _tcp(action, facts, args):
    """The TCP stack and what sets it at boot (``TcpReader.gather_tcp``: linux_bbr_fq's tcp_tuning reads alike)."""
    return action.gather_tcp()


def _netns(action, facts, args):
    """Whether the host runs in a child network namespace, and which container (``TcpReader.gather_netns``)."""
    return action.gather_netns()


TCP = Reading("tcp", {"linux": Read(steps=tuple(tcp_read_steps(tcp=True, netns=False)), gather=_tcp)})
NETNS = Reading("netns", {"linux": Read(steps=tuple(tcp_read_steps(tcp=False, netns=True)), gather=_netns)})


# --- bridges ---------------------------------------------------------------------------------------

def _linux_bridges(action, facts, args):
    """The ``bridges`` subset (``_bridges.bridges_subset``): no ip or ethtool is reported, not a failure."""
    res = action.step(FORWARD_AND_LINKS_ARGV, ok_rcs=range(256))
    ip_forward, links = action.parse_output(res, split_forward_and_links)
    if res["rc"] == NOT_FOUND:
        return bridges_subset({}, {}, ip_forward, None, "ip (iproute2) is not installed")
    if res["rc"] != 0:
        return bridges_subset({}, {}, ip_forward, None, "rc=%s: %s" % (res["rc"], (res["stderr"] or "no output").strip()[:200]))
    try:
        bridges, tunnels = parse_ip_link_bridges(links), parse_ip_link_tunnels(links)
    except ParseError as exc:
        return bridges_subset({}, {}, ip_forward, None, str(exc)[:200])
    return action.bridges_and_tunnels(bridges, tunnels, ip_forward)


def _openwrt_bridges(action, facts, args):
    """Bridges, ports, offloads, tunnels and ip_forward from the forwarding-and-links step and the ethtool steps."""
    res = action.step(FORWARD_AND_LINKS_ARGV, ok_rcs=(0, 1, 255, NOT_FOUND))
    ip_forward, links = action.parse_output(res, split_forward_and_links)
    if res["rc"] != 0:  # 255: an ip without -d or -j; 127: no ip at all
        error = "rc=%s: %s" % (res["rc"], (res["stderr"] or "no output").strip()[:200])
        return bridges_subset({}, {}, ip_forward, None, error)
    try:
        bridges, tunnels = parse_ip_link_bridges(links), parse_ip_link_tunnels(links)
    except ParseError as exc:  # an ip without -j prints text or usage
        return bridges_subset({}, {}, ip_forward, None, str(exc)[:200])
    return action.bridges_and_tunnels(bridges, tunnels, ip_forward)


_BRIDGE_STEPS = (step_of(FORWARD_AND_LINKS_ARGV), *mss_clamp_steps())
_BRIDGE_LOOP = (LoopLines(OFFLOAD_DEVICE_LINES, (step_name(FORWARD_AND_LINKS_ARGV),), OFFLOAD_LOOP),)
BRIDGES = Reading("bridges", {
    "linux": Read(steps=_BRIDGE_STEPS, loops=_BRIDGE_LOOP, gather=_linux_bridges),
    "openwrt": Read(steps=_BRIDGE_STEPS, loops=_BRIDGE_LOOP, gather=_openwrt_bridges),
})


# --- udp_gro ---------------------------------------------------------------------------------------

def linux_endpoint_routes(wireguard, routes) -> dict:
    """``{interface: [(dev, gateway), ...]}``: the routes the ``routes`` reading found to each WireGuard interface's peer endpoints."""
    out = {}
    for name, iface in (wireguard.get("interfaces") or {}).items():
        for peer in iface.get("peers") or []:
            route = (routes.get("endpoints") or {}).get(peer.get("endpoint_host"))
            if route and (route.get("dev"), route.get("gateway")) not in out.get(name, []):
                out.setdefault(name, []).append((route.get("dev"), route.get("gateway")))
    return out


def openwrt_endpoint_routes(facts) -> dict:
    """``{interface: [(dev, gateway), ...]}`` from the ``endpoint_routes`` facts: the route to each of its endpoints."""
    out = {}
    for endpoint in facts.get("endpoints") or []:
        hop = (endpoint.get("dev"), endpoint.get("gateway"))
        if endpoint.get("dev") and hop not in out.get(endpoint.get("interface"), []):
            out.setdefault(endpoint.get("interface"), []).append(hop)
    return out


def _udp_gro_routes(action):
    """Every route (``routes_table_all``), or None when neither listing can be read: the udp_gro facts say so."""
    try:
        return action.routes_table_all()[0]
    except AnsibleActionFail:
        return None


def _linux_udp_gro(action, facts, args):
    """The default routes, and the endpoints' routes for a full tunnel (``UdpGroReader.gather_udp_gro``)."""
    return action.gather_udp_gro(facts["routes"]["default"], linux_endpoint_routes(facts["wireguard"], facts["routes"]))


def _openwrt_udp_gro(action, facts, args):
    """Every route, and the endpoints' routes for a full tunnel (``UdpGroReader.gather_udp_gro``)."""
    return action.gather_udp_gro(_udp_gro_routes(action), openwrt_endpoint_routes(facts["endpoint_routes"]))


UDP_GRO = Reading("udp_gro", {
    "linux": Read(steps=(step_of(ROUTES_JSON), *udp_gro_steps()), gather=_linux_udp_gro, needs=(WIREGUARD, ROUTES),
                  loops=(LoopLines(DEFAULT_ROUTE_DEVICE_LINES, (step_name(ROUTES_JSON),), OFFLOAD_LOOP),)),
    "openwrt": Read(steps=(*route_table_steps(), *udp_gro_steps()), gather=_openwrt_udp_gro, needs=(ENDPOINT_ROUTES,),
                    loops=(LoopLines(DEFAULT_ROUTE_DEVICE_LINES, tuple(step.name for step in route_table_steps()),
                                     OFFLOAD_LOOP),)),
})


# BANIP and MWAN3 are fault 2's alone (faults/banip_icmp/reads.py), listed here so they keep their place in the facts
ORDER = (BANIP, MWAN3, WIREGUARD, ROUTES, TCP, NETNS, BRIDGES, ENDPOINT_ROUTES, UDP_GRO)
