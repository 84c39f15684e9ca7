# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the UDP GRO fault reads: the ``udp_gro`` reading of tunnel_facts (Linux) and openwrt_facts (routers).

Its commands, in the host's one batch: the routes (Linux ``ip -j route show``; OpenWrt every table,
``remote/route_reader.route_table_steps``), ``uname -r`` and the forwarding-and-links step
(``remote/udp_gro_reader.udp_gro_steps``), and ``ethtool -k`` of each default-route NIC (the offload family's one
ethtool loop, faults/bridge_offload/reads.py ``OFFLOAD_LOOP``). The gathers hand them, with the routes to each
tunnel's peer endpoints (a full tunnel's underlay), to the action's ``gather_udp_gro`` (remote/udp_gro_reader.py:
the reader both facts actions share, parsers in parse/udp_gro.py).

``udp_gro_reading`` builds the Reading; faults/readings.py calls it with the shared readings it needs
(``wireguard`` and ``routes`` on Linux, ``endpoint_routes`` on OpenWrt) and lists the result, ``UDP_GRO``, last in
its ``ORDER``. Declaring it here with those readings imported from faults/readings.py would be an import cycle
(readings.py imports this file for ``ORDER``); this file imports nothing of readings.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.reads import OFFLOAD_LOOP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import LoopLines, Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import DEFAULT_ROUTE_DEVICE_LINES, ROUTES_JSON
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import route_table_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.udp_gro_reader import udp_gro_steps


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


def udp_gro_reading(wireguard, routes, endpoint_routes) -> Reading:
    """The ``udp_gro`` reading (module doc), needing ``wireguard`` and ``routes`` on Linux and ``endpoint_routes`` on
    OpenWrt: the shared readings of faults/readings.py, whose facts the gathers read by those names."""
    return Reading("udp_gro", {
        "linux": Read(steps=(step_of(ROUTES_JSON), *udp_gro_steps()), gather=_linux_udp_gro, needs=(wireguard, routes),
                      loops=(LoopLines(DEFAULT_ROUTE_DEVICE_LINES, (step_name(ROUTES_JSON),), OFFLOAD_LOOP),)),
        "openwrt": Read(steps=(*route_table_steps(), *udp_gro_steps()), gather=_openwrt_udp_gro, needs=(endpoint_routes,),
                        loops=(LoopLines(DEFAULT_ROUTE_DEVICE_LINES, tuple(step.name for step in route_table_steps()),
                                         OFFLOAD_LOOP),)),
    })


def udp_gro_facts(view):
    """The ``udp_gro`` subset of tunnel_facts (view["tunnelfix"]) or openwrt_facts (view["openwrt"]), or {}."""
    for key in ("tunnelfix", "openwrt"):
        facts = (view.get(key) or {}).get("udp_gro")
        if isinstance(facts, dict):
            return facts
    return {}
