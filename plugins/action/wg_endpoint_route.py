# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fix WireGuard endpoint host routes pinned to an uplink on OpenWrt, with no Python on the router.

Documentation: plugins/modules/wg_endpoint_route.py (``ansible-doc tunnelfix.fleet.wg_endpoint_route``).
The decisions are the pure ``_wg_route_plan.plan_wg_endpoint_routes``; this file only reads,
runs and reports.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._netlink_text import parse_busybox_route
from ansible_collections.tunnelfix.fleet.plugins.module_utils._route import (
    parse_ip_route_get, parse_ip_route_get_text, parse_ip_route_show)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_route_plan import (
    plan_wg_endpoint_routes, uplink_device)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils._openwrt_action import OpenWrtActionBase

_ROUTE_KEYS = ("dst", "gateway", "dev", "table", "protocol", "metric")


def _short(route):
    return {key: route.get(key) for key in _ROUTE_KEYS}


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.wg_endpoint_route`` action."""

    ARGUMENT_SPEC = {
        "interfaces": {"type": "list", "elements": "str", "default": []},
        "preferred_uplink": {"type": "str"},
        "connection_address": {"type": "str"},
    }

    def _routes(self):
        """Every route, from ``ip -j route show table all``, else BusyBox ``route -n`` (main table only)."""
        res = self.run_command(["ip", "-j", "route", "show", "table", "all"], ok_rcs=(0, 1, 127, 255))
        if res["rc"] == 0:
            try:
                return parse_ip_route_show(res["stdout"]), res["cmd"]
            except ParseError:
                pass  # an ip without -j prints text or usage: fall back to route -n
        return self.run_and_parse(["route", "-n"], parse_busybox_route), "route -n"

    def _route_get(self, address):
        res = self.run_command(["ip", "-j", "route", "get", address], ok_rcs=(0, 1, 2, 255))
        if res["rc"] == 0:
            try:
                return parse_ip_route_get(res["stdout"])
            except ParseError:
                pass
        res = self.run_command(["ip", "route", "get", address], ok_rcs=(0, 1, 2, 255))
        if res["rc"] != 0:
            return None  # no route at all (network unreachable)
        return self.parse_output(res, parse_ip_route_get_text)

    def run_openwrt(self, args, task_vars):
        show = self.read_uci_show("network", ok_rcs=(0, 1))
        if show["rc"] == 1:
            raise AnsibleActionFail("uci: no network config on the target (%s gave rc=1)" % show["cmd"],
                                    result={"cmd": show["cmd"], "rc": show["rc"], "stderr": show["stderr"]})
        network = self.parse_output(show, parse_uci_show).get("network", {})
        routes, routes_cmd = self._routes()
        plan = plan_wg_endpoint_routes(network, routes, args["interfaces"], args["connection_address"])

        interfaces = {}
        for name, entry in plan["interfaces"].items():
            shown = dict(entry)
            shown["delete_routes"] = [_short(r) for r in entry["delete_routes"]]
            shown["kept_routes"] = [_short(r) for r in entry["kept_routes"]]
            interfaces[name] = shown
        result = {
            "changed": plan["changed"],
            "interfaces": interfaces,
            "commands": [" ".join(argv) for argv in plan["uci_commands"] + plan["route_commands"]],
            "full_tunnel_endpoints": plan["full_tunnel_endpoints"],
            "routes_source": routes_cmd,
            "preferred_device": uplink_device(network, args["preferred_uplink"]),
            "committed": False,
        }
        refused = [e["refused"] for e in plan["interfaces"].values() if e["refused"]]
        if refused:
            result["warnings"] = refused
        if self.diff_mode:
            result["diff"] = dict(plan["diff"], before_header="network (uci) and endpoint host routes",
                                  after_header="network (uci) and endpoint host routes")

        if plan["changed"] and not self.check_mode:
            for argv in plan["uci_commands"]:
                self.run_command(argv)
            if plan["uci_commands"]:
                self.run_command(["uci", "commit", "network"])
                result["committed"] = True
            for argv in plan["route_commands"]:
                self.run_command(argv)

        result["endpoint_routes"] = {}
        for entry in plan["interfaces"].values():
            for endpoint in entry["endpoints"]:
                used = self._route_get(endpoint)
                result["endpoint_routes"][endpoint] = (
                    None if used is None else {"dev": used.get("dev"), "gateway": used.get("gateway")})
        return result
