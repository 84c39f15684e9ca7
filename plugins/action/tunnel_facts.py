# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather WireGuard, endpoint-route, TCP-stack, namespace and bridge facts in one remote execution.

Documentation: plugins/modules/tunnel_facts.py (``ansible-doc tunnelfix.fleet.tunnel_facts``).
Python-free, like the OpenWrt actions: every command of the requested subsets runs in ONE sh
script (``_remote_batch``, ``run_batch``) and is parsed on the controller by the pure parsers of
module_utils. A Python module would cost the target a Python start and an AnsiballZ unpacking
(about 0.3 s of CPU) per call; a fleet pays that once per host and play (docs/performance.md).
Only a result the batch lacks (an endpoint the shell did not list) is read with a command of its own.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import bridges_subset, parse_ip_link_bridges
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.endpoint_route import describe_endpoint_route
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    ETHTOOL_K, LIVE_ENDPOINT_LINES, NETWORKD_DIR, NOT_FOUND, ROUTE_GET_JSON, ROUTES_JSON, WG_CONFIG_PEERS,
    WG_CONFIG_PEERS_NAME, WG_DUMP, WG_DUMP_NAME, WG_QUICK_DIR, ethtool_loop)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.wg_config_peers import parse_wg_config_peers
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import split_dated_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import foreach_name, ForEachLine, Step, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import (
    default_routes, parse_ip_route_get, parse_ip_route_show)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.subset import resolve_gather_subset
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    FORWARD_AND_LINKS_ARGV, parse_ip_link_tunnels, split_forward_and_links)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tunnel_reader import TunnelReader, mss_clamp_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import TcpReader, tcp_read_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.udp_gro_reader import UdpGroReader, udp_gro_steps

SUBSETS = ("wireguard", "routes", "tcp", "netns", "bridges", "udp_gro")
BATCH_SHOWN = "sh -c '<tunnel_facts: %d commands in one script>'"


def batch_steps(subsets) -> list:
    """The batch for ``subsets`` (names from SUBSETS): every command a gather_* may read."""
    steps = []
    if subsets & {"tcp", "netns"}:
        steps += tcp_read_steps(tcp="tcp" in subsets, netns="netns" in subsets)
    if subsets & {"wireguard", "routes"}:
        steps += [Step(WG_DUMP_NAME, WG_DUMP), Step(WG_CONFIG_PEERS_NAME, WG_CONFIG_PEERS)]
    if "routes" in subsets:
        steps += [step_of(ROUTES_JSON),
                  ForEachLine(LIVE_ENDPOINT_LINES, (WG_DUMP_NAME,), (ROUTE_GET_JSON,))]
    if "bridges" in subsets:
        steps += [step_of(FORWARD_AND_LINKS_ARGV)]
    if "udp_gro" in subsets:
        steps += [step for step in [step_of(ROUTES_JSON)] + udp_gro_steps() if step not in steps]
    # one ethtool loop for bridges, tunnels and default-route NICs: a device in two is one step
    steps += ethtool_loop(step_name(FORWARD_AND_LINKS_ARGV) if "bridges" in subsets else None,
                          (step_name(ROUTES_JSON),) if "udp_gro" in subsets else ())
    if "bridges" in subsets:
        steps += mss_clamp_steps()
    return steps


def endpoint_routes(wireguard, routes) -> dict:
    """``{interface: [(dev, gateway), ...]}``: the routes ``gather_routes`` found to each WireGuard interface's peer endpoints."""
    out = {}
    for name, iface in (wireguard.get("interfaces") or {}).items():
        for peer in iface.get("peers") or []:
            route = (routes.get("endpoints") or {}).get(peer.get("endpoint_host"))
            if route and (route.get("dev"), route.get("gateway")) not in out.get(name, []):
                out.setdefault(name, []).append((route.get("dev"), route.get("gateway")))
    return out


class ActionModule(TcpReader, TunnelReader, UdpGroReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.tunnel_facts`` action."""

    ARGUMENT_SPEC = {
        "gather_subset": {"type": "list", "elements": "str", "default": ["all"]},
        "label": {"type": "str"},
    }

    def run_openwrt(self, args, task_vars):
        subsets = resolve_gather_subset(args["gather_subset"], SUBSETS)
        if "udp_gro" in subsets:
            subsets = subsets | {"routes"}  # the default routes, and the endpoints' routes for a full tunnel
        if "routes" in subsets:
            subsets = subsets | {"wireguard"}  # the endpoints come from the peers
        steps = batch_steps(subsets)
        self.batch = self.run_batch(steps, shown=BATCH_SHOWN % len(steps))
        facts = {}
        if "wireguard" in subsets:
            facts["wireguard"] = self.gather_wireguard()
        if "routes" in subsets:
            facts["routes"] = self.gather_routes(facts["wireguard"])
        if "tcp" in subsets:
            facts["tcp"] = self.gather_tcp()
        if "netns" in subsets:
            facts["netns"] = self.gather_netns()
        if "bridges" in subsets:
            facts["bridges"] = self.gather_bridges()
        if "udp_gro" in subsets:
            facts["udp_gro"] = self.gather_udp_gro(facts["routes"]["default"], endpoint_routes(facts["wireguard"], facts["routes"]))
        result = {"changed": False, "ansible_facts": {"tunnelfix": facts}}
        if "tcp" in subsets and facts["tcp"]["sysctl_boot"]["warnings"]:
            # lines the boot rejects: said, never failed (the facts hold them too)
            result["warnings"] = [warning["message"] for warning in facts["tcp"]["sysctl_boot"]["warnings"]]
        if args["label"] is not None:
            result["label"] = args["label"]
        return result

    def gather_wireguard(self):
        """``{"available", "interfaces", "configs", "config_dirs"}``: the live state (no ``wg`` is not a failure;
        ``wg`` failing is) and what the wg-quick and .netdev files say of each peer's keepalive."""
        configs = self.parse_output(self.step(WG_CONFIG_PEERS, name=WG_CONFIG_PEERS_NAME), parse_wg_config_peers)
        files = {"configs": configs, "config_dirs": {"wg_quick": WG_QUICK_DIR, "networkd": NETWORKD_DIR}}
        res = self.step(WG_DUMP, ok_rcs=(0, NOT_FOUND), name=WG_DUMP_NAME)
        if res["rc"] == NOT_FOUND:
            return dict(files, available=False, interfaces={})
        now, dump = self.parse_output(res, split_dated_output)
        parsed = self.parse_output(dict(res, stdout=dump), lambda text: parse_wg_dump(text, now))
        return dict(files, available=True, interfaces=parsed["interfaces"])

    def gather_routes(self, wireguard):
        """Default routes and, per endpoint host, the route ``ip -j route get`` chose (describe_endpoint_route)."""
        routes = self.parse_output(self.step(ROUTES_JSON), parse_ip_route_show)
        endpoints = {}
        for iface in wireguard.get("interfaces", {}).values():
            for peer in iface["peers"]:
                host = peer.get("endpoint_host")
                if not host or host in endpoints:
                    continue
                argv = ROUTE_GET_JSON + [host]
                res = self.batch_step(self.batch, foreach_name(ROUTE_GET_JSON, host), argv, shown=step_name(argv))
                endpoints[host] = describe_endpoint_route(self.parse_output(res, parse_ip_route_get), routes, host)
        return {"default": default_routes(routes), "endpoints": endpoints}

    def ethtool_k(self, device):
        """``add_offloads``' reader: parsed ``ethtool -k DEVICE``, the error text, or None without ethtool."""
        argv = ETHTOOL_K + [device]
        got = self.batch_step(self.batch, foreach_name(ETHTOOL_K, device), argv, ok_rcs=range(256),
                              shown=step_name(argv))
        if got["rc"] == NOT_FOUND:
            return None
        if got["rc"] != 0:
            return (got["stderr"] or got["stdout"] or "no output").strip()[:200]
        return self.parse_output(got, parse_ethtool_features)

    def gather_bridges(self):
        """The ``bridges`` subset (``_bridges.bridges_subset``): no ip or ethtool is reported, not a failure."""
        res = self.step(FORWARD_AND_LINKS_ARGV, ok_rcs=range(256))
        ip_forward, links = self.parse_output(res, split_forward_and_links)
        if res["rc"] == NOT_FOUND:
            return bridges_subset({}, {}, ip_forward, None, "ip (iproute2) is not installed")
        if res["rc"] != 0:
            return bridges_subset({}, {}, ip_forward, None, "rc=%s: %s" % (res["rc"], (res["stderr"] or "no output").strip()[:200]))
        try:
            bridges, tunnels = parse_ip_link_bridges(links), parse_ip_link_tunnels(links)
        except ParseError as exc:
            return bridges_subset({}, {}, ip_forward, None, str(exc)[:200])
        return self.bridges_and_tunnels(bridges, tunnels, ip_forward)
