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
(``remote/tcp_reader.py``, Linux), ``routes_table_all``/``route_get`` (``remote/route_reader.py``) and ``wg_live``
(``remote/wg_live_reader.py``, OpenWrt): the readers the fixing actions share, so a fix reads what its fault read.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.reads import BRIDGES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import gather_endpoint_routes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.reads import udp_gro_reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.endpoint_route import describe_endpoint_route
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.mwan3 import (
    banip_default_icmplimit, banip_settings, parse_banip_version, parse_mwan3_interfaces, parse_mwan3_tracking)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.nft import find_icmp_limit, icmp_flood_counter, parse_nft_counters
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard, split_dated_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import default_routes, parse_ip_route_get, parse_ip_route_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.wg_config_peers import parse_wg_config_peers
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ForEachLine, Step, foreach_name, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    LINK_COUNTERS, LIVE_ENDPOINT_LINES, NETWORKD_DIR, NOT_FOUND, ROUTE_GET_JSON, ROUTE_GET_TEXT, ROUTES_JSON,
    UCI_AND_LIVE_ENDPOINT_LINES, WG_CONFIG_PEERS, WG_CONFIG_PEERS_NAME, WG_DUMP, WG_DUMP_NAME, WG_QUICK_DIR)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import uci_show_redacted_argv
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import route_table_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import tcp_read_steps

# banIP's init script: the one place it is written (the fault's reasons; roles/banip_icmp/vars/main.yml, pinned by a test)
BANIP_INIT = "/etc/init.d/banip"
# banIP's nft table (banIP 0.9.5 and later, old and new counter names alike)
BANIP_TABLE = ("inet", "banIP")
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


def uci_show(action, config, parser):
    """``parser(uci -q show CONFIG)`` (redacted on the router); a missing config (rc 1) parses as empty output."""
    res = action.step(uci_show_redacted_argv(config), ok_rcs=(0, 1), name=uci_step(config).name)
    if res["rc"] == 1:
        res = dict(res, stdout="")
    return action.parse_output(res, parser)


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
    """``{"wg_installed", "live", "note", "interfaces"}``: uci's view merged with the live state (``wg_live``)."""
    installed, live, note = action.wg_live()
    return {"wg_installed": installed, "live": bool(live), "note": note,
            "interfaces": merge_wireguard(facts["network"], live)}


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


# Fault 1's reading (its gather and parsers: faults/endpoint_route/reads.py); here because the udp_gro reading needs it.
ENDPOINT_ROUTES = Reading("endpoint_routes", {
    "openwrt": Read(steps=(*route_table_steps(),
                           ForEachLine(UCI_AND_LIVE_ENDPOINT_LINES, (uci_step("network").name, WG_DUMP_NAME),
                                       (ROUTE_GET_JSON, ROUTE_GET_TEXT)),
                           step_of(LINK_COUNTERS)),
                    gather=gather_endpoint_routes, uses=(NETWORK, WIREGUARD)),
})


# --- tcp, netns (Linux) --------------------------------------------------------------------------

def _tcp(action, facts, args):
    """The TCP stack and what sets it at boot (``TcpReader.gather_tcp``: linux_bbr_fq's tcp_tuning reads alike)."""
    return action.gather_tcp()


def _netns(action, facts, args):
    """Whether the host runs in a child network namespace, and which container (``TcpReader.gather_netns``)."""
    return action.gather_netns()


TCP = Reading("tcp", {"linux": Read(steps=tuple(tcp_read_steps(tcp=True, netns=False)), gather=_tcp)})
NETNS = Reading("netns", {"linux": Read(steps=tuple(tcp_read_steps(tcp=False, netns=True)), gather=_netns)})


# --- udp_gro ---------------------------------------------------------------------------------------

# The UDP GRO fault's reading (faults/udp_gro_forwarding/reads.py), built here with the shared readings it needs.
UDP_GRO = udp_gro_reading(WIREGUARD, ROUTES, ENDPOINT_ROUTES)


# --- banip, mwan3 (OpenWrt) ------------------------------------------------------------------------

def _version_and_default(text):
    return parse_banip_version(text), banip_default_icmplimit(text)


def banip_version(action):
    """``(parse_banip_version, default ICMP limit)`` from apk (OpenWrt 25.12) or opkg (before).

    ``(None, None)`` without either package manager or when neither lists banIP.
    """
    for tool, argv in BANIP_PACKAGES:
        if action.command_exists(tool):
            return action.parse_output(action.step(argv, ok_rcs=(0, 1)), _version_and_default)
    return None, None


def banip_nft(action):
    """``(nft_installed, table_loaded, counter, limit_rule)`` from banIP's nft table."""
    if not action.command_exists("nft"):
        return False, None, None, None
    res = action.step(NFT_JSON, ok_rcs=(0, 1))
    if res["rc"] == 1 and "json" in res["stderr"].lower():  # nft built without JSON support
        res = action.step(NFT_TEXT, ok_rcs=(0, 1))
    if res["rc"] == 1 and "No such file or directory" in res["stderr"]:  # banIP not started, or stopped
        return True, False, None, None
    if res["rc"] != 0:  # not root, no CAP_NET_ADMIN, ...: a real failure, not a missing table
        raise AnsibleActionFail("%s failed with rc=%s: %s" % (res["cmd"], res["rc"], res["stderr"].strip()[:500]),
                                result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
    counter = icmp_flood_counter(action.parse_output(res, parse_nft_counters))  # one table listed
    return True, True, counter, action.parse_output(res, find_icmp_limit)


def _banip(action, facts, args):
    """banIP: installed, its version and default ICMP limit, its uci settings, its nft table's counter and limit rule."""
    installed = action.step(BANIP_PROBE, ok_rcs=(0, 1, 2))["rc"] == 0
    out = {"installed": installed, "version": None, "upstream_version": None,
           "icmplimit_default_per_second": None, "enabled": None, "ban_icmplimit": None,
           "icmplimit_per_second": None, "icmplimit_source": None, "settings": {},
           "nft_installed": None, "nft_table_loaded": None, "icmp_counter": None, "icmp_limit_rule": None}
    if not installed:
        return out
    version, default = banip_version(action)
    if version is not None:
        out.update(version=version["version"], upstream_version=version["upstream_version"],
                   icmplimit_default_per_second=default)
    out.update(uci_show(action, "banip", lambda text: banip_settings(text, default)))
    nft_installed, loaded, counter, rule = banip_nft(action)
    out.update(nft_installed=nft_installed, nft_table_loaded=loaded, icmp_counter=counter, icmp_limit_rule=rule)
    return out


def _banip_steps():
    """The script cannot ask the controller, so banIP's version and table are listed even when banIP turns out to be
    absent (a command nobody reads costs less than a second round trip); only ``nft list`` (a big table twice)
    waits for ``nft -j`` to fail."""
    steps = [step_of(BANIP_PROBE)]
    for tool, argv in BANIP_PACKAGES:
        steps += [step_of(["command", "-v", tool]), step_of(argv)]
    return tuple(steps + [uci_step("banip"), step_of(["command", "-v", "nft"]), step_of(NFT_JSON),
                          Step(step_name(NFT_TEXT), NFT_TEXT, after_failure=True)])


def _mwan3(action, facts, args):
    """mwan3: installed, its interfaces' status and its tracking settings."""
    if not action.command_exists("mwan3"):
        return {"installed": False, "interfaces": {}, "tracking": {}}
    status = action.parse_output(action.step(["mwan3", "interfaces"]), parse_mwan3_interfaces)
    return {"installed": True, "interfaces": status, "tracking": uci_show(action, "mwan3", parse_mwan3_tracking)}


BANIP = Reading("banip", {"openwrt": Read(steps=_banip_steps(), gather=_banip)})
MWAN3 = Reading("mwan3", {"openwrt": Read(steps=(Step("command -v mwan3", ["command", "-v", "mwan3"]),
                                                 Step("mwan3 interfaces", ["mwan3", "interfaces"]), uci_step("mwan3")),
                                          gather=_mwan3)})

ORDER = (BANIP, MWAN3, WIREGUARD, ROUTES, TCP, NETNS, BRIDGES, ENDPOINT_ROUTES, UDP_GRO)
