# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fix WireGuard endpoint host routes pinned to an uplink on OpenWrt, with no Python on the router.

Documentation: plugins/modules/wg_endpoint_route.py (``ansible-doc tunnelfix.fleet.wg_endpoint_route``).
The decisions are fault 1's one plan (plugins/plugin_utils/faults/endpoint_route/plan.py,
``plan_endpoint_routes``), the plan the fault computes for remediate, on the facts built the one way the
``endpoint_routes`` reading builds them (faults/endpoint_route/reads.py, ``read_endpoint_routes``: the
endpoints, a peer's live endpoint else its uci IP literal, their routes and the uplinks); this file only
reads, runs and reports.

Every read runs in ONE remote execution (``_remote_batch``, ``run_batch``): the redacted
``uci -q show network`` and ``uci changes network``, the redacted ``wg show all dump``, the routes and
``ip [-j] route get`` for every endpoint address uci or the live state names (the reading's
``endpoint_lookup_steps``), read by openwrt_facts' readers (remote/route_reader.py, remote/wg_live_reader.py):
the fix sees the endpoints and routes the finding saw, and the SHA-256 of openwrt_mwan3_wg's full-tunnel hook and
of the file an earlier version left (``hotplug_hook``: the plan says whether the role installs, rewrites or removes
them, and gives the hook's text; this action never writes it). What differs from the facts: the fix reads them
again at fix time (not diagnose's facts: an uplink may have changed since), it reads ``uci changes network``
(staged changes) and not the uplinks' byte counters (the finding's evidence; no decision reads them), and a
router without a network config fails here (the facts read it as empty). When uci must
change and ``network`` holds staged changes the action did not make, it fails naming them, in check
mode too, unless ``commit_staged``. When something must change (not in check mode), the uci
commands, ``uci commit network``, the route deletions and the lookups after them run in one more;
the results are checked in order and the first failure is reported. A result the batch lacks is read with a command of its own.
A route a ``config route`` section asks for is the user's: kept, and reported in ``conflicts`` when it
sends an endpoint over another uplink than the preferred one. When every uplink is in ``metered_uplinks``
nothing changes and ``refused`` says why (the role fails on it).
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import HOOK_PROBE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import plan_endpoint_routes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import endpoint_lookup_steps, read_endpoint_routes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import short_route
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import add_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import uplink_option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard, uci_wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    ROUTE_GET_JSON, ROUTE_GET_TEXT, WG_DUMP, WG_DUMP_NAME)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import (
    uci_changes_redacted_argv, uci_show_redacted_argv)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import RouteReader, json_source
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.wg_live_reader import WgLiveReader

_UCI_SECTION_NAME = re.compile(r"[A-Za-z0-9_]+")  # fullmatch: uci section names
SHOW_NAME = "uci -q show network"
CHANGES_NAME = "uci changes network"
BATCH_SHOWN = "sh -c '<wg_endpoint_route: %s in one script>'"


def read_steps() -> list:
    """The first batch: the redacted uci show and ``uci changes``, the redacted live state, the routes, and
    ``ip [-j] route get`` of every endpoint address uci or the live state names (``endpoint_lookup_steps``, as
    openwrt_facts reads them), and the SHA-256 of the role's full-tunnel hook and of the old one (``hook.HOOK_PROBE``)."""
    return [Step(SHOW_NAME, uci_show_redacted_argv("network")), Step(CHANGES_NAME, uci_changes_redacted_argv("network")),
            Step(WG_DUMP_NAME, WG_DUMP), *endpoint_lookup_steps(), step_of(HOOK_PROBE)]


def change_steps(commands, endpoints, json_ok) -> list:
    """The second batch: ``commands`` in order, stopping at the first that fails (the ones after it
    do not run), then ``ip [-j] route get`` per endpoint (``-j`` when ``json_ok``: the form the routes were read in)."""
    steps = [Step(step_name(argv), argv, after_success=index > 0) for index, argv in enumerate(commands)]
    prefix = ROUTE_GET_JSON if json_ok else ROUTE_GET_TEXT
    steps += [step_of(prefix + [address]) for address in dict.fromkeys(endpoints)]
    return list({step.name: step for step in steps}.values())


class ActionModule(RouteReader, WgLiveReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.wg_endpoint_route`` action."""

    ARGUMENT_SPEC = {
        "interfaces": {"type": "list", "elements": "str", "default": []},
        "preferred_uplink": {"type": "str"},
        "connection_address": {"type": "str"},
        "commit_staged": {"type": "bool", "default": False},
        "metered_uplinks": {"type": "list", "elements": "str", "default": []},
        "full_tunnel_hotplug": {"type": "bool", "default": True},
    }

    batch: dict = {}  # the results of the latest run_batch

    def run_openwrt(self, args, task_vars):
        for name in args["interfaces"]:  # before any command runs on the router
            if not _UCI_SECTION_NAME.fullmatch(name or ""):
                raise AnsibleActionFail("interfaces: %r is not a uci interface name ([A-Za-z0-9_]+)" % (name,))
        errors = uplink_option_errors(self._task.args.get("preferred_uplink"), args["metered_uplinks"])  # openwrt_facts' check
        if errors:
            raise AnsibleActionFail("; ".join(errors))
        self.batch = self.run_batch(read_steps(), shown=BATCH_SHOWN % "uci show, routes and route lookups")
        show = self.batch_step(self.batch, SHOW_NAME, uci_show_redacted_argv("network"), ok_rcs=(0, 1))
        if show["rc"] == 1:
            raise AnsibleActionFail("uci: no network config on the target (%s gave rc=1)" % show["cmd"],
                                    result={"cmd": show["cmd"], "rc": show["rc"], "stderr": show["stderr"]})
        network = self.parse_output(show, parse_uci_show).get("network", {})
        _installed, live, _note = self.wg_live()
        try:  # the WireGuard facts openwrt_facts gathers: uci merged with the live state
            wireguard = add_tunnels(merge_wireguard(network, live))
        except ParseError as exc:
            raise AnsibleActionFail("uci network: %s" % exc) from None
        # the endpoint_routes facts, built as the reading builds them, and the one plan on them: fault 1's for remediate
        facts = read_endpoint_routes(self, network, wireguard, args["preferred_uplink"], args["metered_uplinks"], counters=False)
        routes_cmd, preferred = facts["routes_source"], facts.get("preferred_uplink_device")
        plan = plan_endpoint_routes(wireguard, facts["endpoints"], args["interfaces"], uplinks=facts["uplinks"],
                                    preferred_device=preferred, connection_address=args["connection_address"],
                                    hotplug=args["full_tunnel_hotplug"], hook=facts, preferred_uplink=args["preferred_uplink"])

        interfaces = {}
        for name, entry in plan["interfaces"].items():
            shown = dict(entry)
            shown["delete_routes"] = [short_route(r) for r in entry["delete_routes"]]
            shown["kept_routes"] = [short_route(r) for r in entry["kept_routes"]]
            interfaces[name] = shown
        result = {
            "changed": plan["changed"],
            "interfaces": interfaces,
            "commands": [" ".join(argv) for argv in plan["uci_commands"] + plan["route_commands"]],
            "wireguard_interfaces": sorted(uci_wireguard_interfaces(network)),
            "full_tunnel_endpoints": plan["full_tunnel_endpoints"],
            "hotplug_hook": plan["hotplug_hook"],
            "routes_source": routes_cmd,
            "preferred_device": preferred,
            "uplinks": plan["uplinks"],
            "refused": plan["refused"],
            "committed": False,
        }
        refused = [e["refused"] for e in plan["interfaces"].values() if e["refused"]]
        refused += ["metered_uplinks: %r is no uplink's uci interface or device (uplinks: %s); a modem interface's device is "
                    "named at run time, list the device (wwan0)" % (name, ", ".join(u["device"] for u in plan["uplinks"]) or "none")
                    for name in facts["metered_unmatched"]]
        if refused:
            result["warnings"] = refused
        if self.diff_mode:
            result["diff"] = dict(plan["diff"], before_header="network (uci) and endpoint host routes",
                                  after_header="network (uci) and endpoint host routes")

        endpoints = [endpoint for entry in plan["interfaces"].values() for endpoint in entry["endpoints"]]
        if plan["uci_commands"]:   # in check mode too: a run that would fail says so when planned
            changes = self.batch_step(self.batch, CHANGES_NAME, uci_changes_redacted_argv("network"),
                                      shown=["uci", "changes", "network"])
            self.refuse_foreign_staged_changes("network", args["commit_staged"], changes)
        if plan["changed"] and not self.check_mode:
            commit = [["uci", "commit", "network"]] if plan["uci_commands"] else []
            self.batch = self.run_batch(change_steps(plan["uci_commands"] + commit + plan["route_commands"], endpoints,
                                                     json_source(routes_cmd)),
                                        shown=BATCH_SHOWN % "uci, route changes and route lookups")
            for argv in plan["uci_commands"]:
                self.step(argv)
            if commit:
                self.step(commit[0])
                result["committed"] = True
            for argv in plan["route_commands"]:
                self.step(argv)

        result["endpoint_routes"] = {}
        for entry in plan["interfaces"].values():
            for endpoint in entry["endpoints"]:
                used, _error = self.route_get(endpoint, json_source(routes_cmd))
                result["endpoint_routes"][endpoint] = (
                    None if used is None else {"dev": used.get("dev"), "gateway": used.get("gateway")})
        return result
