# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather banIP, mwan3, WireGuard, bridge and endpoint-route facts on OpenWrt, with no Python on the router.

Documentation: plugins/modules/openwrt_facts.py (``ansible-doc tunnelfix.fleet.openwrt_facts``).
All parsing and merging is in module_utils (_mwan3, _nft, _uci, _wireguard, _openwrt_wireguard,
_bridges, _tunnel_links, _openwrt_endpoints, _ethtool, _route); this file only decides which commands
to run and puts the parsed results together. Every command of the requested subsets runs in ONE
remote execution (``_remote_batch``: a framed sh script, ``run_batch``); the gather_* methods then
read the steps' results, and only a result the batch lacks (an endpoint address or a device the
shell did not list) is read with a command of its own. A missing tool is reported, never a failure.
"""

from __future__ import annotations


from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.mwan3 import (
    banip_default_icmplimit, banip_settings, parse_banip_version, parse_mwan3_interfaces, parse_mwan3_tracking)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.nft import (
    find_icmp_limit, icmp_flood_counter, parse_nft_counters)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.bridge_offload import is_interface_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import bridges_subset, parse_ip_link_bridges
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.link_counters import parse_link_counters
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_endpoints import (
    endpoint_route_facts, endpoint_targets)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import (
    merge_wireguard)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.subset import resolve_gather_subset
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    FORWARD_AND_LINKS_ARGV, parse_ip_link_tunnels, split_forward_and_links)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import foreach_name, ForEachLine, Step, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import uci_show_redacted_argv
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    ETHTOOL_K, LINK_COUNTERS, ROUTE_GET_JSON, ROUTE_GET_TEXT,
    NOT_FOUND, UCI_AND_LIVE_ENDPOINT_LINES as ENDPOINT_LINES, WG_DUMP, WG_DUMP_NAME, ethtool_loop)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.wg_route_plan import find_uplinks, metered_unmatched, uplink_device
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tunnel_reader import TunnelReader, mss_clamp_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import RouteReader, json_source, route_table_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.udp_gro_reader import UdpGroReader, udp_gro_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.wg_live_reader import WgLiveReader

SUBSETS = ("banip", "mwan3", "wireguard", "bridges", "endpoint_routes", "udp_gro")
BANIP_INIT = "/etc/init.d/banip"
# banIP's nft table (banIP 0.9.5 and later, old and new counter names alike)
BANIP_TABLE = ("inet", "banIP")
BATCH_SHOWN = "sh -c '<openwrt_facts: %d commands in one script>'"

# banIP is installed when its init script exists. ls, not test -e: the same answer (rc 0, else 1 in
# BusyBox, 2 in GNU ls), and a command a test can stand in for, where test is a shell builtin.
BANIP_PROBE = ["ls", "-1d", BANIP_INIT]
BANIP_PACKAGES = (("apk", ["apk", "list", "--installed", "banip"]), ("opkg", ["opkg", "list-installed", "banip"]))
# -t (terse): without the sets' elements, which real feeds make megabytes (banIP lists its table the same way,
# net/banip/files/banip-functions.sh@42525d32c4); the counters and rules read are the same (tests/unit/fixtures/nft_t_j_list)
NFT_JSON = ["nft", "-tj", "list", "table", *BANIP_TABLE]
NFT_TEXT = ["nft", "-t", "list", "table", *BANIP_TABLE]


def uci_step(config):
    """The batch step for the redacted ``uci -q show CONFIG``, named as the action reports it."""
    return Step("uci -q show %s" % config, uci_show_redacted_argv(config))


def batch_steps(subsets) -> list:
    """The batch for ``subsets`` (names from SUBSETS): every command any gather_* may read.

    The script cannot ask the controller, so it runs every command a subset may need: banIP's
    version and table are listed even when banIP turns out to be absent, and ``ip route show``
    and ``ip route get`` run next to their ``-j`` forms. A command nobody reads costs less than a
    second round trip. Only ``nft list`` (a big table twice) waits for ``nft -j`` to fail.
    """
    steps = []
    if "banip" in subsets:
        steps += [step_of(BANIP_PROBE)]
        for tool, argv in BANIP_PACKAGES:
            steps += [step_of(["command", "-v", tool]), step_of(argv)]
        steps += [uci_step("banip"), step_of(["command", "-v", "nft"]), step_of(NFT_JSON),
                  Step(step_name(NFT_TEXT), NFT_TEXT, after_failure=True)]
    if "mwan3" in subsets:
        steps += [Step("command -v mwan3", ["command", "-v", "mwan3"]),
                  Step("mwan3 interfaces", ["mwan3", "interfaces"]), uci_step("mwan3")]
    if subsets & {"wireguard", "endpoint_routes"}:
        steps += [uci_step("network"), Step(WG_DUMP_NAME, WG_DUMP)]
    if "endpoint_routes" in subsets:
        steps += route_table_steps()
        steps += [ForEachLine(ENDPOINT_LINES, ("uci -q show network", WG_DUMP_NAME), (ROUTE_GET_JSON, ROUTE_GET_TEXT)),
                  step_of(LINK_COUNTERS)]
    if "bridges" in subsets:
        steps += [step_of(FORWARD_AND_LINKS_ARGV)]
    if "udp_gro" in subsets:
        steps += [step for step in route_table_steps() + udp_gro_steps() if step not in steps]
    # one ethtool loop for bridges, tunnels and default-route NICs: a device in two is one step
    steps += ethtool_loop(step_name(FORWARD_AND_LINKS_ARGV) if "bridges" in subsets else None,
                          [step.name for step in route_table_steps()] if "udp_gro" in subsets else ())
    if "bridges" in subsets:
        steps += mss_clamp_steps()
    return steps


def endpoint_routes(facts) -> dict:
    """``{interface: [(dev, gateway), ...]}`` from the ``endpoint_routes`` facts: the route to each of its endpoints."""
    out = {}
    for endpoint in facts.get("endpoints") or []:
        hop = (endpoint.get("dev"), endpoint.get("gateway"))
        if endpoint.get("dev") and hop not in out.get(endpoint.get("interface"), []):
            out.setdefault(endpoint.get("interface"), []).append(hop)
    return out


def _version_and_default(text):
    return parse_banip_version(text), banip_default_icmplimit(text)


class ActionModule(RouteReader, WgLiveReader, TunnelReader, UdpGroReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.openwrt_facts`` action."""

    ARGUMENT_SPEC = {
        "gather_subset": {"type": "list", "elements": "str", "default": ["all"]},
        "label": {"type": "str"},
        "preferred_uplink": {"type": "str"},
        "metered_uplinks": {"type": "list", "elements": "str", "default": []},
    }

    def run_openwrt(self, args, task_vars):
        subsets = resolve_gather_subset(args["gather_subset"], SUBSETS)
        if "udp_gro" in subsets:
            subsets = subsets | {"endpoint_routes"}  # the route table, and the endpoints' routes for a full tunnel
        uplink, given = args["preferred_uplink"], self._task.args.get("preferred_uplink")
        if given is not None and (not isinstance(given, str) or not is_interface_name(uplink)):
            raise AnsibleActionFail("preferred_uplink: %r is not a uci interface or device name (1-15 letters, digits or _.:@=+-)"
                                    % (given,))
        for name in args["metered_uplinks"]:
            if not is_interface_name(name):
                raise AnsibleActionFail("metered_uplinks: %r is not a uci interface or device name (1-15 letters, digits or "
                                        "_.:@=+-)" % (name,))
        steps = batch_steps(subsets)
        self.batch = self.run_batch(steps, shown=BATCH_SHOWN % len(steps)) if steps else {}
        facts = {}
        if "banip" in subsets:
            facts["banip"] = self.gather_banip()
        if "mwan3" in subsets:
            facts["mwan3"] = self.gather_mwan3()
        if subsets & {"wireguard", "endpoint_routes"}:
            network, wireguard = self.gather_wireguard()  # endpoint_routes needs the peers: read once, share
            if "wireguard" in subsets:
                facts["wireguard"] = wireguard
            if "endpoint_routes" in subsets:
                facts["endpoint_routes"] = self.gather_endpoint_routes(wireguard["interfaces"], network,
                                                                       uplink_device(network, uplink), args["metered_uplinks"])
                if uplink:
                    facts["endpoint_routes"]["preferred_uplink_device"] = uplink_device(network, uplink)
        if "bridges" in subsets:
            facts["bridges"] = self.gather_bridges()
        if "udp_gro" in subsets:
            facts["udp_gro"] = self.gather_udp_gro(self.udp_gro_routes(), endpoint_routes(facts["endpoint_routes"]))
        result = {"changed": False, "ansible_facts": {"tunnelfix_openwrt": facts}}
        if args["label"] is not None:
            result["label"] = args["label"]
        return result

    def uci_show(self, config, parser):
        """``parser(uci -q show CONFIG)`` (redacted on the router); a missing config (rc 1) parses as empty output."""
        res = self.step(uci_show_redacted_argv(config), ok_rcs=(0, 1), name=uci_step(config).name)
        if res["rc"] == 1:
            res = dict(res, stdout="")
        return self.parse_output(res, parser)

    def banip_version(self):
        """``(parse_banip_version, default ICMP limit)`` from apk (OpenWrt 25.12) or opkg (before).

        ``(None, None)`` without either package manager or when neither lists banIP.
        """
        for tool, argv in BANIP_PACKAGES:
            if self.command_exists(tool):
                return self.parse_output(self.step(argv, ok_rcs=(0, 1)), _version_and_default)
        return None, None

    def banip_nft(self):
        """``(nft_installed, table_loaded, counter, limit_rule)`` from banIP's nft table."""
        if not self.command_exists("nft"):
            return False, None, None, None
        res = self.step(NFT_JSON, ok_rcs=(0, 1))
        if res["rc"] == 1 and "json" in res["stderr"].lower():  # nft built without JSON support
            res = self.step(NFT_TEXT, ok_rcs=(0, 1))
        if res["rc"] == 1 and "No such file or directory" in res["stderr"]:  # banIP not started, or stopped
            return True, False, None, None
        if res["rc"] != 0:  # not root, no CAP_NET_ADMIN, ...: a real failure, not a missing table
            raise AnsibleActionFail("%s failed with rc=%s: %s" % (res["cmd"], res["rc"], res["stderr"].strip()[:500]),
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
        counter = icmp_flood_counter(self.parse_output(res, parse_nft_counters))  # one table listed
        return True, True, counter, self.parse_output(res, find_icmp_limit)

    def gather_banip(self):
        installed = self.step(BANIP_PROBE, ok_rcs=(0, 1, 2))["rc"] == 0
        facts = {"installed": installed, "version": None, "upstream_version": None,
                 "icmplimit_default_per_second": None, "enabled": None, "ban_icmplimit": None,
                 "icmplimit_per_second": None, "icmplimit_source": None, "settings": {},
                 "nft_installed": None, "nft_table_loaded": None, "icmp_counter": None, "icmp_limit_rule": None}
        if not installed:
            return facts
        version, default = self.banip_version()
        if version is not None:
            facts.update(version=version["version"], upstream_version=version["upstream_version"],
                         icmplimit_default_per_second=default)
        facts.update(self.uci_show("banip", lambda text: banip_settings(text, default)))
        nft_installed, loaded, counter, rule = self.banip_nft()
        facts.update(nft_installed=nft_installed, nft_table_loaded=loaded, icmp_counter=counter, icmp_limit_rule=rule)
        return facts

    def gather_mwan3(self):
        if not self.command_exists("mwan3"):
            return {"installed": False, "interfaces": {}, "tracking": {}}
        status = self.parse_output(self.step(["mwan3", "interfaces"]), parse_mwan3_interfaces)
        return {"installed": True, "interfaces": status, "tracking": self.uci_show("mwan3", parse_mwan3_tracking)}

    def gather_wireguard(self):
        """``(network, facts)``: the parsed uci network config (``{}`` without one) and the wireguard facts."""
        network = self.uci_show("network", parse_uci_show).get("network", {})
        installed, live, note = self.wg_live()
        return network, {"wg_installed": installed, "live": bool(live), "note": note,
                         "interfaces": merge_wireguard(network, live)}

    def gather_endpoint_routes(self, interfaces, network, preferred_device, metered):
        """The endpoints' routes (netifd's pinned ones apart from the user's), and the uplinks with their byte counters.

        ``uplinks`` (``find_uplinks``: which are metered, from ``metered``) is None when there is no
        endpoint to look up; ``uplinks_note`` says why the counters are unknown (no ``ip -s -j``);
        ``metered_unmatched`` the names in ``metered`` that are no uplink's.
        """
        wanted = endpoint_targets(interfaces)
        facts = {"routes_source": None, "endpoints": [], "unresolved": wanted["unresolved"], "uplinks": None,
                 "uplinks_note": None, "metered_unmatched": []}
        if not wanted["targets"]:
            return facts
        routes, source = self.routes_table_all()
        facts["routes_source"] = source
        json_ok = json_source(source)
        looked_up = {}
        for target in wanted["targets"]:
            if target["address"] not in looked_up:  # one ip route get per address
                looked_up[target["address"]] = self.route_get(target["address"], json_ok)
            used, error = looked_up[target["address"]]
            facts["endpoints"].append(endpoint_route_facts(target, used, routes, error, network))
        counters, facts["uplinks_note"] = self.link_counters()
        found = find_uplinks(network, routes, preferred_device, metered)
        facts["uplinks"] = [dict(uplink, **counters.get(uplink["device"], {"rx_bytes": None, "tx_bytes": None}))
                            for uplink in found]
        facts["metered_unmatched"] = metered_unmatched(network, found, metered)
        return facts

    def link_counters(self):
        """``({device: {"rx_bytes", "tx_bytes"}}, note)`` from ``ip -s -j link show``; ``({}, why)`` when that fails."""
        res = self.step(LINK_COUNTERS, ok_rcs=range(256))
        if res["rc"] != 0:
            return {}, "%s failed (rc=%s: %s): byte counters unknown" % (
                res["cmd"], res["rc"], ((res["stderr"] or "").strip() or "no output").splitlines()[0][:200])
        try:
            return parse_link_counters(res["stdout"]), None
        except ParseError as exc:  # an ip that ignores -s -j prints text
            return {}, "%s: byte counters unknown" % str(exc)[:200]

    def udp_gro_routes(self):
        """Every route (``routes_table_all``), or None when neither listing can be read: the udp_gro facts say so."""
        try:
            return self.routes_table_all()[0]
        except AnsibleActionFail:
            return None

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
        """Bridges, ports, offloads, tunnels and ip_forward from the forwarding-and-links step and the ethtool steps."""
        res = self.step(FORWARD_AND_LINKS_ARGV, ok_rcs=(0, 1, 255, NOT_FOUND))
        ip_forward, links = self.parse_output(res, split_forward_and_links)
        if res["rc"] != 0:  # 255: an ip without -d or -j; 127: no ip at all
            error = "rc=%s: %s" % (res["rc"], (res["stderr"] or "no output").strip()[:200])
            return bridges_subset({}, {}, ip_forward, None, error)
        try:
            bridges, tunnels = parse_ip_link_bridges(links), parse_ip_link_tunnels(links)
        except ParseError as exc:  # an ip without -j prints text or usage
            return bridges_subset({}, {}, ip_forward, None, str(exc)[:200])
        return self.bridges_and_tunnels(bridges, tunnels, ip_forward)
