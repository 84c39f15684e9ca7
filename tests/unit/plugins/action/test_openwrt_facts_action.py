# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The openwrt_facts action against a fake router: which commands run, missing tools, failures.

The fake answers ``_low_level_execute_command`` from a table of command → (rc, stdout, stderr)
and records what ran; a command missing from the table fails the test, so every command the
action runs is listed here.
"""

import json
import shlex
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._remote_redact import (
    uci_show_redacted_argv, wg_dump_redacted_argv)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tunnel_links import FORWARD_AND_LINKS_ARGV

MISSING = (127, "", "")
WG_DUMP = "wg show all dump"
# the bridges subset's one round trip: net.ipv4.ip_forward, then ip -d -j link show
LINKS = shlex.join(FORWARD_AND_LINKS_ARGV)
# The commands that redact on the router, by the name the action reports them under. The fake
# answers with unredacted fixtures: the parsers must not pass a key on either way.
SHOWN = {shlex.join(uci_show_redacted_argv(config)): "uci -q show %s" % config for config in ("network", "banip", "mwan3")}
SHOWN[shlex.join(wg_dump_redacted_argv())] = WG_DUMP
NO_TABLE = (1, "", "Error: No such file or directory\nlist table inet banIP\n                 ^^^^^\n")


class FakeRouter(ActionModule):
    def __init__(self, args, answers, check_mode=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=False,
                               action="tunnelfix.fleet.openwrt_facts")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.openwrt_facts"
        self.answers = answers
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        cmd = SHOWN.get(cmd, cmd)
        self.ran.append(cmd)
        assert cmd in self.answers, "unexpected command %r" % cmd
        rc, stdout, stderr = self.answers[cmd]
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


def facts_of(result):
    assert result.get("failed") is not True, result
    assert result["changed"] is False
    return result["ansible_facts"]["tunnelfix_openwrt"]


@pytest.fixture
def old_router(load_fixture):
    """banIP 1.0.1 from opkg, ban_icmplimit unset, nft with JSON, mwan3 with two WANs (cases 01, 05)."""
    return {
        "test -e /etc/init.d/banip": (0, "", ""),
        "command -v apk": MISSING,
        "command -v opkg": (0, "/bin/opkg\n", ""),
        "opkg list-installed banip": (0, load_fixture("banip_version", "case05_opkg_old.txt"), ""),
        "uci -q show banip": (0, load_fixture("uci_show", "case05_banip.txt"), ""),
        "command -v nft": (0, "/usr/sbin/nft\n", ""),
        # recorded from a banIP 1.0-shaped table named banIPold (the recording namespace held both)
        "nft -j list table inet banIP": (0, load_fixture("nft_j_list", "netns_banip_old_table.txt"), ""),
        "command -v mwan3": (0, "/usr/sbin/mwan3\n", ""),
        "mwan3 interfaces": (0, load_fixture("mwan3_interfaces", "case01_both_online.txt"), ""),
        "uci -q show mwan3": (0, load_fixture("uci_show", "case05_mwan3_aggressive.txt"), ""),
        # the image has no live WireGuard device and one bridge (see test_openwrt_facts_tunnels.py)
        "uci -q show network": (0, load_fixture("uci_show", "openwrt_image_network.txt"), ""),
        WG_DUMP: (0, "1796029496\n", ""),
        "ip -j route show table all": (0, load_fixture("ip_j_route_show", "openwrt_image_endpoint_pinned.txt"), ""),
        "ip -j route get 203.0.113.10": (0, load_fixture("ip_j_route_get", "openwrt_image_endpoint_pinned.txt"), ""),
        LINKS: (0, "1\n" + load_fixture("ip_d_j_link_show", "openwrt_image_bridge_two_veth.txt"), ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "openwrt_image_lan1.txt"), ""),
        "ethtool -k lan2": (0, load_fixture("ethtool_k", "openwrt_image_lan2_gro_on.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "openwrt_image_br-lan.txt"), ""),
    }


@pytest.mark.parametrize("check_mode", [False, True])
def test_old_banip_and_mwan3(old_router, check_mode):
    action = FakeRouter({}, old_router, check_mode=check_mode)
    facts = facts_of(action.run(task_vars={}))
    assert facts["banip"] == {
        "installed": True, "version": "1.0.1-1", "upstream_version": "1.0.1", "icmplimit_default_per_second": 10,
        "enabled": True, "ban_icmplimit": None, "icmplimit_per_second": 10, "icmplimit_source": "default",
        "settings": {"ban_enabled": "1", "ban_autodetect": "1", "ban_feed": ["cinsscore", "firehol1"]},
        "nft_installed": True, "nft_table_loaded": True,
        "icmp_counter": {"name": "cnt-icmpflood", "packets": 27, "bytes": 2268},
        "icmp_limit_rule": {"rate_per_second": 10, "burst_packets": 5, "counter": "cnt-icmpflood", "rules": 2},
    }
    assert facts["mwan3"]["installed"] is True
    assert facts["mwan3"]["interfaces"]["wan"]["status"] == "online"
    assert facts["mwan3"]["tracking"]["wan"]["track_ip"] == ["1.0.0.1", "1.1.1.1", "208.67.222.222", "208.67.220.220"]
    assert facts["mwan3"]["tracking"]["wan"]["interval_s"] == 1
    assert action.ran == list(old_router)  # each command once, in this order


def test_new_banip_apk_and_nft_without_json(old_router, load_fixture):
    answers = dict(old_router)
    del answers["command -v opkg"], answers["opkg list-installed banip"]
    answers.update({
        "command -v apk": (0, "/usr/bin/apk\n", ""),
        "apk list --installed banip": (0, load_fixture("banip_version", "case05_apk_new.txt"), ""),
        "uci -q show banip": (0, load_fixture("uci_show", "case05_banip.txt") + "banip.global.ban_icmplimit='250'\n", ""),
        "nft -j list table inet banIP": (1, "", "Error: JSON support not compiled-in\n"),
        "nft list table inet banIP": (0, load_fixture("nft_list", "netns_icmplimit_250_burst10.txt"), ""),
    })
    facts = facts_of(FakeRouter({"gather_subset": ["banip"]}, answers).run(task_vars={}))
    banip = facts["banip"]
    assert list(facts) == ["banip"]
    assert (banip["version"], banip["icmplimit_default_per_second"]) == ("1.8.12-r1", 25)
    assert (banip["ban_icmplimit"], banip["icmplimit_per_second"], banip["icmplimit_source"]) == ("250", 250, "uci")
    assert banip["icmp_limit_rule"] == {"rate_per_second": 250, "burst_packets": 10, "counter": "cnt_icmpflood",
                                        "rules": 1}
    assert banip["icmp_counter"] is None  # a chain listing has no counter objects


NOTHING = {"test -e /etc/init.d/banip": (1, "", ""), "command -v mwan3": MISSING,
           "uci -q show network": (1, "", ""), WG_DUMP: (127, "1796029496\n", "sh: exec: line 0: wg: not found\n"),
           LINKS: (0, "0\n[]", "")}


@pytest.mark.parametrize("answers, subset, expected_banip, expected_mwan3, ran", [
    # a router with neither: two probes, nothing else, no failure
    (NOTHING, ["all"], {"installed": False, "settings": {}}, {"installed": False, "interfaces": {}, "tracking": {}},
     ["test -e /etc/init.d/banip", "command -v mwan3", "uci -q show network", WG_DUMP, LINKS]),
    # banIP without a package manager or nft: version and default unknown, the uci value still read
    ({"test -e /etc/init.d/banip": (0, "", ""), "command -v apk": MISSING, "command -v opkg": (1, "", ""),
      "uci -q show banip": (0, "banip.global=banip\nbanip.global.ban_icmplimit='250'\n", ""),
      "command -v nft": MISSING},
     ["all", "!mwan3", "!wireguard", "!bridges", "!endpoint_routes"], {"installed": True, "version": None, "icmplimit_default_per_second": None,
                  "icmplimit_per_second": 250, "icmplimit_source": "uci", "nft_installed": False,
                  "nft_table_loaded": None, "icmp_counter": None},
     None, ["test -e /etc/init.d/banip", "command -v apk", "command -v opkg", "uci -q show banip", "command -v nft"]),
    # banIP installed, not started (no nft table), no /etc/config/banip, opkg does not list it
    ({"test -e /etc/init.d/banip": (0, "", ""), "command -v apk": MISSING, "command -v opkg": (0, "/bin/opkg\n", ""),
      "opkg list-installed banip": (0, "", ""), "uci -q show banip": (1, "", ""),
      "command -v nft": (0, "/usr/sbin/nft\n", ""), "nft -j list table inet banIP": NO_TABLE},
     ["banip"], {"installed": True, "version": None, "enabled": None, "icmplimit_per_second": None,
                 "icmplimit_source": None, "settings": {}, "nft_installed": True, "nft_table_loaded": False,
                 "icmp_counter": None, "icmp_limit_rule": None},
     None, None),
    # mwan3 installed but no mwan3 config
    ({"command -v mwan3": (0, "/usr/sbin/mwan3\n", ""), "mwan3 interfaces": (0, "Interface status:\n", ""),
      "uci -q show mwan3": (1, "", "")},
     ["mwan3"], None, {"installed": True, "interfaces": {}, "tracking": {}}, None),
])
def test_missing_tools_are_reported_not_failed(answers, subset, expected_banip, expected_mwan3, ran):
    action = FakeRouter({"gather_subset": subset}, answers)
    facts = facts_of(action.run(task_vars={}))
    if expected_banip is None:
        assert "banip" not in facts
    else:
        assert {key: facts["banip"][key] for key in expected_banip} == expected_banip
    if expected_mwan3 is None:
        assert "mwan3" not in facts
    else:
        assert facts["mwan3"] == expected_mwan3
    if ran is not None:
        assert action.ran == ran


def test_banip_not_installed_has_every_key_null():
    facts = facts_of(FakeRouter({"gather_subset": ["banip"]}, NOTHING).run(task_vars={}))
    assert facts["banip"].pop("installed") is False and facts["banip"].pop("settings") == {}
    assert set(facts["banip"].values()) == {None}


@pytest.mark.parametrize("change, args, message, extra", [
    ({"mwan3 interfaces": (1, "", "mwan3: not running\n")}, {},
     "mwan3 interfaces failed with rc=1: mwan3: not running", {"cmd": "mwan3 interfaces", "rc": 1}),
    ({"nft -j list table inet banIP": (2, "", "Error: Could not process rule: Operation not permitted\n")}, {},
     "nft -j list table inet banIP failed with rc=2: Error: Could not process rule",
     {"cmd": "nft -j list table inet banIP", "rc": 2}),
    ({"nft -j list table inet banIP": (1, "", "Operation not permitted (you must be root)\n"
                                              "netlink: Error: cache initialization failed: Operation not permitted\n")},
     {}, "nft -j list table inet banIP failed with rc=1: Operation not permitted (you must be root)",
     {"cmd": "nft -j list table inet banIP", "rc": 1}),
    ({"command -v mwan3": (2, "", "sh: syntax error\n")}, {}, "command -v mwan3 failed with rc=2: sh: syntax error",
     {"cmd": "command -v mwan3", "rc": 2}),
    ({"nft -j list table inet banIP": (0, "{not json", "")}, {},
     "cannot read the output of nft -j list table inet banIP: nft -j output is not JSON",
     {"cmd": "nft -j list table inet banIP", "rc": 0}),
    ({"uci -q show banip": (0, "banip.global=banip\nbanip.global.ban_icmplimit='fast'\n", "")}, {},
     "cannot read the output of uci -q show banip: banip.global.ban_icmplimit: expected a whole number", {}),
    ({"opkg list-installed banip": (0, "banip - v1\n", "")}, {},
     "cannot read the output of opkg list-installed banip: banIP version line 1", {}),
    ({}, {"gather_subset": ["wg"]}, "gather_subset: unknown subset 'wg'; choose from all, banip, mwan3, wireguard, "
     "bridges, endpoint_routes", {}),
    ({}, {"gather": ["all"]}, "gather", {}),
])
def test_failures_name_the_command(old_router, change, args, message, extra):
    answers = dict(old_router, **change)
    result = FakeRouter(args, answers).run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
    assert {key: result[key] for key in extra} == extra
    assert "ansible_facts" not in result


# --- wireguard, endpoint_routes, bridges -------------------------------------------------------

TUNNEL_SUBSETS = ["wireguard", "endpoint_routes", "bridges"]
ROUTE_SHOW = "ip -j route show table all"


@pytest.fixture
def tunnel_router(load_fixture):
    """Case 01 (uci, a live wg0 dated by the target's clock, endpoint pinned to wwan0) and the image's bridge."""
    return {
        "uci -q show network": (0, load_fixture("uci_show", "case01_network.txt"), ""),
        WG_DUMP: (0, "1767225600\n" + load_fixture("wg_show_all_dump", "case01_endpoint_hostroute.txt"), ""),
        ROUTE_SHOW: (0, load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
        "ip -j route get 203.0.113.10": (0, load_fixture("ip_j_route_get", "endpoint_via_backup.txt"), ""),
        LINKS: (0, load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt")
                + load_fixture("ip_d_j_link_show", "openwrt_image_bridge_two_veth.txt"), ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "openwrt_image_lan1.txt"), ""),
        "ethtool -k lan2": (0, load_fixture("ethtool_k", "openwrt_image_lan2_gro_on.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "openwrt_image_br-lan.txt"), ""),
    }


def test_one_call_gives_the_tunnel_view_each_command_once(tunnel_router, load_fixture):
    action = FakeRouter({"gather_subset": TUNNEL_SUBSETS}, tunnel_router)
    result = action.run(task_vars={})
    facts = facts_of(result)
    assert action.ran == list(tunnel_router)  # uci show network and wg read once for two subsets
    wireguard = facts["wireguard"]
    assert (wireguard["wg_installed"], wireguard["live"], wireguard["note"]) == (True, True, None)
    peer = wireguard["interfaces"]["wg0"]["peers"][0]
    assert (peer["live"]["handshake_age_s"], peer["live"]["rx_bytes"], peer["persistent_keepalive_s"]) == (
        29, 48213344, 25)
    endpoint = facts["endpoint_routes"]["endpoints"][0]
    assert (endpoint["address"], endpoint["address_source"], endpoint["dev"], endpoint["static_host_route"]) == (
        "203.0.113.10", "live", "wwan0", True)
    assert facts["endpoint_routes"]["routes_source"] == ROUTE_SHOW
    bridge = facts["bridges"]["bridges"]["br-lan"]
    assert list(bridge["ports"]) == ["lan1", "lan2"]
    assert bridge["ports"]["lan1"]["gso_tso_gro"]["off"] == ["generic-receive-offload"]
    assert bridge["features"]["large-receive-offload"] == "off [fixed]"
    assert (facts["bridges"]["ip_forward"], facts["bridges"]["tunnels"], facts["bridges"]["note"]) == (1, {}, None)
    # the uci private key and the dump's private key must not be anywhere in the result
    secrets = {"K" * 43 + "="}
    assert secrets <= set(load_fixture("uci_show", "case01_network.txt").replace("'", " ").split())
    dumped = json.dumps(result)
    assert not [secret for secret in secrets if secret in dumped] and "<redacted>" not in dumped


def test_preshared_keys_never_leak_through_the_action(load_fixture):
    uci = load_fixture("uci_show", "x_flag_cfg_names.txt")
    dump = load_fixture("wg_show_all_dump", "ipv6_endpoint_psk_keepalive.txt")
    answers = {"uci -q show network": (0, uci, ""), WG_DUMP: (0, "1796029496\n" + dump, "")}
    result = FakeRouter({"gather_subset": ["wireguard"]}, answers).run(task_vars={})
    peers = facts_of(result)["wireguard"]["interfaces"]["wg0"]["peers"]
    assert [(p["public_key"][0], p["preshared_key_set"], (p["live"] or {}).get("has_preshared_key")) for p in peers] == [
        ("B", True, None), ("C", False, None), ("A", None, True)]
    dumped = json.dumps(result)
    for secret in ("K" * 43 + "=", "P" * 43 + "="):
        assert secret in uci + dump  # the inputs hold them, so the check below can fail
        assert secret not in dumped


@pytest.mark.parametrize("wg_answer, installed, note", [
    ((127, "1796029496\n", "sh: exec: line 0: wg: not found\n"), False, "wg is not installed (wireguard-tools); uci view only"),
    ((1, "1796029496\n", "Unable to access interface: Protocol not supported\n"), True,
     "wg show all dump failed with rc=1: Unable to access interface: Protocol not supported; uci view only"),
    ((0, "1796029496\n", ""), True, "no live WireGuard interface (wg show all dump printed nothing); uci view only"),
])
def test_no_live_wireguard_is_uci_view_only(tunnel_router, wg_answer, installed, note):
    answers = dict(tunnel_router, **{WG_DUMP: wg_answer})
    facts = facts_of(FakeRouter({"gather_subset": ["wireguard", "endpoint_routes"]}, answers).run(task_vars={}))
    assert (facts["wireguard"]["wg_installed"], facts["wireguard"]["live"], facts["wireguard"]["note"]) == (
        installed, False, note)
    wg0 = facts["wireguard"]["interfaces"]["wg0"]
    assert (wg0["live"], wg0["private_key_set"], wg0["peers"][0]["live"]) == (False, True, None)
    assert facts["endpoint_routes"]["endpoints"][0]["address_source"] == "uci"


def test_ip_without_json_and_unreachable_endpoint(tunnel_router, load_fixture):
    answers = dict(tunnel_router)
    del answers["ip -j route get 203.0.113.10"]
    answers.update({
        WG_DUMP: MISSING,
        ROUTE_SHOW: (255, "", 'Option "-j" is unknown, try "ip -help".\n'),
        "ip route show table all": (0, load_fixture("ip_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
        "ip route get 203.0.113.10": (2, "", load_fixture("ip_route_get_stderr", "network_unreachable.txt")),
    })
    action = FakeRouter({"gather_subset": ["endpoint_routes"]}, answers)
    facts = facts_of(action.run(task_vars={}))
    routes = facts["endpoint_routes"]
    assert routes["routes_source"] == "ip route show table all"
    assert (routes["endpoints"][0]["dev"], routes["endpoints"][0]["error"]) == (
        None, "RTNETLINK answers: Network is unreachable")
    assert routes["endpoints"][0]["pinned_routes"][0]["dev"] == "wwan0"  # the pin is still reported
    assert "wireguard" not in facts


def test_no_endpoint_to_look_up_runs_no_route_command(load_fixture):
    answers = {"uci -q show network": (0, load_fixture("uci_show", "case11_network_wg.txt"), ""), WG_DUMP: MISSING}
    action = FakeRouter({"gather_subset": ["endpoint_routes"]}, answers)
    facts = facts_of(action.run(task_vars={}))
    assert facts["endpoint_routes"] == {"routes_source": None, "endpoints": [], "unresolved": [
        {"interface": "wg0", "public_key": "E" * 43 + "=", "section": "dc", "endpoint_host": "dc.example.net"}]}
    assert action.ran == ["uci -q show network", WG_DUMP]


@pytest.mark.parametrize("change, expected, ran_ethtool", [
    ({"ethtool -k lan1": MISSING}, {"ethtool_installed": False, "ip_json": True}, ["ethtool -k lan1"]),
    ({"ethtool -k lan2": (76, "", "netlink error: no device matches name (offset 24)\n")},
     {"ethtool_installed": True, "ip_json": True}, ["ethtool -k lan1", "ethtool -k lan2", "ethtool -k br-lan"]),
    ({LINKS: (255, "1\n", 'Option "-d" is unknown\n')},
     {"ethtool_installed": None, "ip_json": False, "bridges": {}, "tunnels": {}, "ip_forward": 1,
      "note": 'ip -d -j link show gave no link list (rc=255: Option "-d" is unknown): bridges and tunnels unknown'}, []),
    # no ip at all: the shell's exec fails; forwarding is still known
    ({LINKS: (127, "0\n", "sh: exec: line 0: ip: not found\n")},
     {"ethtool_installed": None, "ip_json": False, "tunnels": {}, "ip_forward": 0}, []),
    # an ip without -j prints text: no link list
    ({LINKS: (0, "1\n1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue\n", "")},
     {"ip_json": False, "bridges": {}, "tunnels": {}, "ip_forward": 1}, []),
    # /proc/sys/net/ipv4/ip_forward unreadable: unknown, said in the note
    ({LINKS: (0, "\n[]\n", "")}, {"ip_json": True, "ip_forward": None, "ethtool_installed": None,
                                  "note": "net.ipv4.ip_forward could not be read: forwarding unknown"}, []),
])
def test_bridges_without_tools_are_reported(tunnel_router, change, expected, ran_ethtool):
    action = FakeRouter({"gather_subset": ["bridges"]}, dict(tunnel_router, **change))
    bridges = facts_of(action.run(task_vars={}))["bridges"]
    assert {key: bridges[key] for key in expected} == expected
    assert [cmd for cmd in action.ran if cmd.startswith("ethtool")] == ran_ethtool
    if "ethtool -k lan2" in change:
        lan2 = bridges["bridges"]["br-lan"]["ports"]["lan2"]
        assert (lan2["features"], lan2["ethtool_error"]) == (None, "netlink error: no device matches name (offset 24)")
        assert bridges["bridges"]["br-lan"]["ports"]["lan1"]["features"]["generic-receive-offload"] == "off"


@pytest.mark.parametrize("change, message", [
    ({WG_DUMP: (0, "Sun Nov 30\n", "")}, "cannot read the output of wg show all dump: expected"),
    ({WG_DUMP: (0, "1796029496\nwg0\tonly-two\n", "")}, "cannot read the output of wg show all dump"),
    ({"uci -q show network": (0, "not uci output\n", "")}, "cannot read the output of uci -q show network"),
    ({"ethtool -k lan1": (0, "Features for lan1:\ngarbage\n", "")}, "cannot read the output of ethtool -k lan1"),
    ({LINKS: (0, "yes\n[]", "")}, "cannot read the output of sh -c 'cat /proc/sys/net/ipv4/ip_forward"),
])
def test_unreadable_tunnel_output_fails_naming_the_command(tunnel_router, change, message):
    result = FakeRouter({"gather_subset": TUNNEL_SUBSETS}, dict(tunnel_router, **change)).run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert "ansible_facts" not in result


def test_bridges_and_the_tunnel_that_feeds_them(load_fixture):
    """The tfh1-rec recording: br-lan + veth lan1, tailscale0 (TUN, MTU 1280, held open) and tap0, forwarding on."""
    answers = {
        LINKS: (0, load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt")
                + load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"), ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "netns_veth_port.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "netns_bridge.txt"), ""),
    }
    action = FakeRouter({"gather_subset": ["bridges"]}, answers)
    facts = facts_of(action.run(task_vars={}))["bridges"]
    assert action.ran == list(answers)  # one round trip for forwarding and links, then ethtool per device
    assert facts["tunnels"] == {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UP"}}
    assert (facts["ip_forward"], facts["ip_json"], facts["ethtool_installed"], facts["note"]) == (1, True, True, None)
    assert list(facts["bridges"]) == ["br-lan"] and list(facts["bridges"]["br-lan"]["ports"]) == ["lan1"]
    assert facts["bridges"]["br-lan"]["gso_tso_gro"]["on"] == [
        "generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"]
