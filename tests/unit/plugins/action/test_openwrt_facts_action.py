# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The openwrt_facts action against a fake router that runs its one script: facts, missing tools, failures.

The fake (``shell_router`` in this folder's conftest.py) executes what the action sends with dash, bash and BusyBox sh,
PATH holding stub tools that print recorded fixtures, one answer per command; so the batch
script, the on-router redaction and the framing are tested for real. Answers for shell builtins
(``command -v ...``), which no stub can stand in for, replace the step's framed result instead.
"""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import MARKER, split_batch_output

WG_DUMP = "wg show all dump"
DATE = "date +%s"
ROUTE_SHOW = "ip -j route show table all"
IP_LINKS = "ip -d -j link show"
IP_ADDRS = "ip -j addr show"   # the PMTU fault's link_ipv6
IP_FORWARD = "cat /proc/sys/net/ipv4/ip_forward"
LINK_COUNTERS = "ip -s -j link show"
BANIP = "ls -1d /etc/init.d/banip"
NO_BANIP = (1, "", "ls: /etc/init.d/banip: No such file or directory\n")
# openwrt_mwan3_wg's full-tunnel hook and the file an earlier version left (tests/unit/fixtures/README.md)
HOOK_PROBE = "sha256sum /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint /etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"


def hook_probe(load_fixture, case, tool="busybox_openwrt24.10"):
    """The probe's answer as recorded: ``none``, ``hook_only`` or ``both`` (rc 0 only when both files are there)."""
    name = "%s_%s.txt" % (tool, case)
    return (0 if case == "both" else 1, load_fixture("sha256sum_hotplug_hook", name), load_fixture("sha256sum_hotplug_hook_stderr", name))


NO_TABLE = (1, "", "Error: No such file or directory\nlist table inet banIP\n                 ^^^^^\n")
SECRETS = ("K" * 43 + "=", "P" * 43 + "=")
OWN_PUBLIC_KEY = "H" * 43 + "="   # what the fake wg pubkey answers
# what the batch's bridge listing runs (any ls of /sys/class/net gets this answer from the fake)
BRIDGE_LS = "ls -1d /sys/class/net/*/brif/* /sys/class/net/*/bridge"


def _frame(steps, nonce):
    out = []
    for name, got in steps.items():
        out.append("%s %s begin %s\n%s\n%s %s stderr\n%s\n%s %s rc %s\n" % (
            MARKER, nonce, name, got["stdout"], MARKER, nonce, got["stderr"], MARKER, nonce, got["rc"]))
    return "".join(out) + "%s %s end\n" % (MARKER, nonce)


class FakeRouter(ActionModule):
    """The action, its connection replaced by a ShellRouter; ``answers`` as there, plus builtins."""

    def __init__(self, args, answers, make_router, check_mode=False, mangle=None):
        task = type("Task", (), dict(args=args, async_val=0, check_mode=check_mode, diff=False,
                                     action="tunnelfix.fleet.openwrt_facts"))()
        connection = type("Connection", (), {"_shell": type("Shell", (), {"tmpdir": None})()})()
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.openwrt_facts"
        answers = {key: value for key, value in answers.items() if value is not None}
        self.builtins = {key: value for key, value in answers.items() if key.startswith("command -v ")}
        self.router = make_router({k: v for k, v in answers.items() if k not in self.builtins})
        self.mangle = mangle
        self.ran, self.outputs = [], []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        res = self.router.execute(cmd)
        nonce = re.search(r"%s ([0-9a-f]+)'" % MARKER, cmd)
        if nonce and self.builtins:
            steps = split_batch_output(res["stdout"], nonce.group(1))
            for name, (rc, stdout, stderr) in self.builtins.items():
                if name in steps:
                    steps[name] = {"rc": rc, "stdout": stdout, "stderr": stderr}
            res["stdout"] = _frame(steps, nonce.group(1))
        if self.mangle:
            res = self.mangle(res, nonce.group(1) if nonce else None)
        self.outputs.append(res)
        return res


@pytest.fixture
def fake(shell_router):
    def make(args, answers, **kwargs):
        return FakeRouter(args, answers, shell_router, **kwargs)
    return make


def facts_of(result):
    assert result.get("failed") is not True, result
    assert result["changed"] is False
    return result["ansible_facts"]["tunnelfix_openwrt"]


def assert_one_execution(action):
    assert len(action.ran) == 1, action.ran
    assert action.ran[0].startswith("sh -c ")
    assert action.router.leftovers() == []  # the script's temp dir is gone


def wg(now, rc=0, dump="", stderr=""):
    """The answers behind the redacted dump: the router's clock, then wg (rc, output)."""
    return {DATE: (0, now, ""), WG_DUMP: (rc, dump, stderr)}


@pytest.fixture
def old_router(load_fixture):
    """banIP 1.0.1 from opkg, ban_icmplimit unset, nft with JSON, mwan3 with two WANs (cases 01, 05)."""
    return {
        BANIP: (0, "/etc/init.d/banip\n", ""),
        "opkg list-installed banip": (0, load_fixture("banip_version", "case05_opkg_old.txt"), ""),
        "uci -q show banip": (0, load_fixture("uci_show", "case05_banip.txt"), ""),
        # recorded from a banIP 1.0-shaped table named banIPold (the recording namespace held both)
        "nft -tj list table inet banIP": (0, load_fixture("nft_j_list", "netns_banip_old_table.txt"), ""),
        "mwan3 interfaces": (0, load_fixture("mwan3_interfaces", "case01_both_online.txt"), ""),
        "uci -q show mwan3": (0, load_fixture("uci_show", "case05_mwan3_aggressive.txt"), ""),
        # the image has no live WireGuard device and one bridge (see test_openwrt_facts_tunnels.py)
        "uci -q show network": (0, load_fixture("uci_show", "openwrt_image_network.txt"), ""),
        **wg("1796029496\n"),
        ROUTE_SHOW: (0, load_fixture("ip_j_route_show", "openwrt_image_endpoint_pinned.txt"), ""),
        "ip -j route get 203.0.113.10": (0, load_fixture("ip_j_route_get", "openwrt_image_endpoint_pinned.txt"), ""),
        IP_FORWARD: (0, "1\n", ""),
        IP_LINKS: (0, load_fixture("ip_d_j_link_show", "openwrt_image_bridge_two_veth.txt"), ""),
        IP_ADDRS: (0, load_fixture("ip_j_addr_show", "netns_veth_ula_wireguard_go.txt"), ""),
        BRIDGE_LS: (0, load_fixture("ls_sys_class_net_bridges", "openwrt_image_bridge_two_veth.txt"), ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "openwrt_image_lan1.txt"), ""),
        "ethtool -k lan2": (0, load_fixture("ethtool_k", "openwrt_image_lan2_gro_on.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "openwrt_image_br-lan.txt"), ""),
    }


@pytest.mark.parametrize("check_mode", [False, True])
def test_old_banip_and_mwan3(fake, old_router, check_mode):
    action = fake({}, old_router, check_mode=check_mode)
    result = action.run(task_vars={})
    facts = facts_of(result)
    assert facts["banip"] == {
        "installed": True, "version": "1.0.1-1", "upstream_version": "1.0.1", "icmplimit_default_per_second": 10,
        "enabled": True, "ban_icmplimit": None, "icmplimit_per_second": 10, "icmplimit_source": "default",
        "settings": {"ban_enabled": "1", "ban_autodetect": "1", "ban_feed": ["cinsscore", "firehol1"]},
        "nft_installed": True, "nft_table_loaded": True,
        "icmp_counter": {"name": "cnt-icmpflood", "packets": 27, "bytes": 2268},
        "icmp_limit_rule": {"rate_per_second": 10, "burst_packets": 5, "counter": "cnt-icmpflood", "rules": 2, "rates_per_second": [10, 10]},
    }
    assert facts["mwan3"]["installed"] is True
    assert facts["mwan3"]["interfaces"]["wan"]["status"] == "online"
    assert facts["mwan3"]["tracking"]["wan"]["track_ip"] == ["1.0.0.1", "1.1.1.1", "208.67.222.222", "208.67.220.220"]
    assert facts["mwan3"]["tracking"]["wan"]["interval_s"] == 1
    assert_one_execution(action)
    calls = action.router.calls()
    assert len(calls) == len(set(calls))  # each command once
    # everything answered ran; the text fallbacks only where the JSON form is answered too
    assert set(old_router) - {DATE} <= set(calls) | {"cat /proc/sys/net/ipv4/ip_forward"}
    assert "nft -t list table inet banIP" not in calls  # the JSON listing worked: no text listing
    network = old_router["uci -q show network"][1]
    assert SECRETS[0] in network  # the image's config holds a private key
    assert_no_secret(action, result, network)


def test_new_banip_apk_and_nft_without_json(fake, old_router, load_fixture):
    answers = dict(old_router)
    del answers["opkg list-installed banip"]
    answers.update({
        "apk list --installed banip": (0, load_fixture("banip_version", "case05_apk_new.txt"), ""),
        "uci -q show banip": (0, load_fixture("uci_show", "case05_banip.txt") + "banip.global.ban_icmplimit='250'\n", ""),
        "nft -tj list table inet banIP": (1, "", "Error: JSON support not compiled-in\n"),
        "nft -t list table inet banIP": (0, load_fixture("nft_list", "netns_icmplimit_250_burst10.txt"), ""),
    })
    action = fake({"gather_subset": ["banip"]}, answers)
    facts = facts_of(action.run(task_vars={}))
    banip = facts["banip"]
    assert list(facts) == ["banip"]
    assert (banip["version"], banip["icmplimit_default_per_second"]) == ("1.8.12-r1", 25)
    assert (banip["ban_icmplimit"], banip["icmplimit_per_second"], banip["icmplimit_source"]) == ("250", 250, "uci")
    assert banip["icmp_limit_rule"] == {"rate_per_second": 250, "burst_packets": 10, "counter": "cnt_icmpflood",
                                        "rules": 1, "rates_per_second": [250]}
    assert banip["icmp_counter"] is None  # a chain listing has no counter objects
    assert_one_execution(action)
    assert not [call for call in action.router.calls() if call.startswith(("uci -q show network", "mwan3", "ip "))]


RELEASE_BANIP = {  # release: (banIP version fixture, counter name, packets dropped, default limit, rules)
    "23.05": ("case05_opkg_old.txt", "cnt-icmpflood", 264, 10, 2),
    "24.10": (None, "cnt_icmpflood", 236, 25, 1),
    "25.12": ("case05_apk_new.txt", "cnt_icmpflood", 236, 25, 1),
}


@pytest.mark.parametrize("release", sorted(RELEASE_BANIP))
@pytest.mark.parametrize("json_support", [True, False])
def test_banip_read_from_each_releases_terse_listing(fake, old_router, load_fixture, release, json_support):
    # the real table of each release's f_nftinit with a filled blocklist set (tests/unit/fixtures/README.md);
    # only the terse listings are answered: the full ones would list every element of every feed
    _version, counter, packets, limit, rules = RELEASE_BANIP[release]
    answers = dict(old_router)
    if json_support:
        answers["nft -tj list table inet banIP"] = (0, load_fixture("nft_t_j_list", "%s_banip_default.txt" % release), "")
    else:
        answers["nft -tj list table inet banIP"] = (1, "", "Error: JSON support not compiled-in\n")
        answers["nft -t list table inet banIP"] = (0, load_fixture("nft_t_list", "%s_banip_default.txt" % release), "")
    action = fake({"gather_subset": ["banip"]}, answers)
    banip = facts_of(action.run(task_vars={}))["banip"]
    assert banip["icmp_counter"]["name"] == counter and banip["icmp_counter"]["packets"] == packets
    assert banip["icmp_limit_rule"] == {"rate_per_second": limit, "burst_packets": 5 if json_support else None,
                                        "counter": counter, "rules": rules, "rates_per_second": [limit] * rules}
    calls = action.router.calls()
    assert not [call for call in calls if call.startswith("nft ") and call.split()[1] not in ("-tj", "-t")]


NOTHING = {BANIP: NO_BANIP, "uci -q show network": (1, "", ""), DATE: (0, "1796029496\n", ""),
           IP_FORWARD: (0, "0\n", ""), IP_LINKS: (0, "[]", "")}


@pytest.mark.parametrize("answers, subset, expected_banip, expected_mwan3", [
    # a router with neither: no failure
    (NOTHING, ["all"], {"installed": False, "settings": {}}, {"installed": False, "interfaces": {}, "tracking": {}}),
    # banIP without a package manager or nft: version and default unknown, the uci value still read
    ({BANIP: (0, "/etc/init.d/banip\n", ""), "command -v opkg": (1, "", ""),
      "uci -q show banip": (0, "banip.global=banip\nbanip.global.ban_icmplimit='250'\n", "")},
     ["all", "!mwan3", "!wireguard", "!bridges", "!endpoint_routes", "!udp_gro"], {
         "installed": True, "version": None, "icmplimit_default_per_second": None, "icmplimit_per_second": 250,
         "icmplimit_source": "uci", "nft_installed": False, "nft_table_loaded": None, "icmp_counter": None},
     None),
    # banIP installed, not started (no nft table), no /etc/config/banip, opkg does not list it
    ({BANIP: (0, "/etc/init.d/banip\n", ""), "opkg list-installed banip": (0, "", ""),
      "uci -q show banip": (1, "", ""), "nft -tj list table inet banIP": NO_TABLE},
     ["banip"], {"installed": True, "version": None, "enabled": None, "icmplimit_per_second": None,
                 "icmplimit_source": None, "settings": {}, "nft_installed": True, "nft_table_loaded": False,
                 "icmp_counter": None, "icmp_limit_rule": None},
     None),
    # banIP's init script missing on a GNU ls (rc 2, BusyBox's is 1): not installed, no failure
    (dict(NOTHING, **{BANIP: (2, "", "ls: cannot access '/etc/init.d/banip': No such file or directory\n")}), ["banip"],
     {"installed": False, "version": None, "nft_installed": None}, None),
    # apk that does not list banIP exits 1: version and default unknown, no failure
    ({BANIP: (0, "/etc/init.d/banip\n", ""), "apk list --installed banip": (1, "", ""), "uci -q show banip": (1, "", ""),
      "nft -tj list table inet banIP": NO_TABLE},
     ["banip"], {"installed": True, "version": None, "upstream_version": None, "icmplimit_default_per_second": None,
                 "nft_table_loaded": False}, None),
    # mwan3 installed but no mwan3 config
    ({"mwan3 interfaces": (0, "Interface status:\n", ""), "uci -q show mwan3": (1, "", "")},
     ["mwan3"], None, {"installed": True, "interfaces": {}, "tracking": {}}),
])
def test_missing_tools_are_reported_not_failed(fake, answers, subset, expected_banip, expected_mwan3):
    action = fake({"gather_subset": subset}, answers)
    facts = facts_of(action.run(task_vars={}))
    if expected_banip is None:
        assert "banip" not in facts
    else:
        assert {key: facts["banip"][key] for key in expected_banip} == expected_banip
    if expected_mwan3 is None:
        assert "mwan3" not in facts
    else:
        assert facts["mwan3"] == expected_mwan3
    assert_one_execution(action)


def test_banip_not_installed_has_every_key_null(fake):
    facts = facts_of(fake({"gather_subset": ["banip"]}, NOTHING).run(task_vars={}))
    assert facts["banip"].pop("installed") is False and facts["banip"].pop("settings") == {}
    assert set(facts["banip"].values()) == {None}


@pytest.mark.parametrize("change, args, message, extra", [
    ({"mwan3 interfaces": (1, "", "mwan3: not running\n")}, {},
     "mwan3 interfaces failed with rc=1: mwan3: not running", {"cmd": "mwan3 interfaces", "rc": 1}),
    ({"nft -tj list table inet banIP": (2, "", "Error: Could not process rule: Operation not permitted\n")}, {},
     "nft -tj list table inet banIP failed with rc=2: Error: Could not process rule",
     {"cmd": "nft -tj list table inet banIP", "rc": 2}),
    ({"nft -tj list table inet banIP": (1, "", "Operation not permitted (you must be root)\n"
                                               "netlink: Error: cache initialization failed: Operation not permitted\n")},
     {}, "nft -tj list table inet banIP failed with rc=1: Operation not permitted (you must be root)",
     {"cmd": "nft -tj list table inet banIP", "rc": 1}),
    ({"command -v mwan3": (2, "", "sh: syntax error\n")}, {}, "command -v mwan3 failed with rc=2: sh: syntax error",
     {"cmd": "command -v mwan3", "rc": 2}),
    ({"nft -tj list table inet banIP": (0, "{not json", "")}, {},
     "cannot read the output of nft -tj list table inet banIP: nft -j output is not JSON",
     {"cmd": "nft -tj list table inet banIP", "rc": 0}),
    ({"uci -q show banip": (0, "banip.global=banip\nbanip.global.ban_icmplimit='fast'\n", "")}, {},
     "cannot read the output of uci -q show banip: banip.global.ban_icmplimit: expected a whole number", {}),
    ({"opkg list-installed banip": (0, "banip - v1\n", "")}, {},
     "cannot read the output of opkg list-installed banip: banIP version line 1", {}),
    ({}, {"gather_subset": ["wg"]}, "gather_subset: unknown subset 'wg'; choose from all, banip, mwan3, wireguard, "
     "bridges, endpoint_routes", {}),
    ({}, {"gather": ["all"]}, "gather", {}),
])
def test_failures_name_the_command(fake, old_router, change, args, message, extra):
    result = fake(args, dict(old_router, **change)).run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
    assert {key: result[key] for key in extra} == extra
    assert "ansible_facts" not in result


# --- wireguard, endpoint_routes, bridges -------------------------------------------------------

TUNNEL_SUBSETS = ["wireguard", "endpoint_routes", "bridges"]


@pytest.fixture
def tunnel_router(load_fixture):
    """Case 01 (uci, a live wg0 dated by the target's clock, endpoint pinned to wwan0) and the image's bridge."""
    return {
        "uci -q show network": (0, load_fixture("uci_show", "case01_network.txt"), ""),
        **wg("1767225600\n", dump=load_fixture("wg_show_all_dump", "case01_endpoint_hostroute.txt")),
        ROUTE_SHOW: (0, load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
        "ip -j route get 203.0.113.10": (0, load_fixture("ip_j_route_get", "endpoint_via_backup.txt"), ""),
        LINK_COUNTERS: (0, load_fixture("ip_s_j_link_show", "two_uplinks_after_traffic.txt"), ""),
        HOOK_PROBE: hook_probe(load_fixture, "none"),
        IP_FORWARD: (0, load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt"), ""),
        IP_LINKS: (0, load_fixture("ip_d_j_link_show", "openwrt_image_bridge_two_veth.txt"), ""),
        BRIDGE_LS: (0, load_fixture("ls_sys_class_net_bridges", "openwrt_image_bridge_two_veth.txt"), ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "openwrt_image_lan1.txt"), ""),
        "ethtool -k lan2": (0, load_fixture("ethtool_k", "openwrt_image_lan2_gro_on.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "openwrt_image_br-lan.txt"), ""),
        # wg0's own public key from its uci private_key (the fake key of the uci fixture), on the router
        "uci -q get network.wg0.private_key": (0, SECRETS[0] + "\n", ""),
        "wg pubkey": (0, OWN_PUBLIC_KEY + "\n", ""),
    }


def assert_no_secret(action, result, inputs):
    for secret in SECRETS:
        if secret in inputs:  # the fixtures hold it, so the checks below can fail
            assert secret not in json.dumps(result)
            assert not [res for res in action.outputs if secret in res["stdout"] + res["stderr"]]  # -vvv shows these
            assert not [cmd for cmd in action.ran if secret in cmd]


def test_one_call_gives_the_tunnel_view_each_command_once(fake, tunnel_router, load_fixture):
    action = fake({"gather_subset": TUNNEL_SUBSETS}, tunnel_router)
    result = action.run(task_vars={})
    facts = facts_of(result)
    assert_one_execution(action)
    calls = action.router.calls()
    assert sorted(calls) == sorted(set(tunnel_router) | {"ip route show table all", "ip route get 203.0.113.10",
                                                         "wg show all preshared-keys"})
    wireguard = facts["wireguard"]
    assert (wireguard["wg_installed"], wireguard["live"], wireguard["note"]) == (True, True, None)
    assert wireguard["interfaces"]["wg0"]["configured_public_key"] == OWN_PUBLIC_KEY
    assert wireguard["sampled_at_epoch"] == 1767225600   # the router's clock: the first sample's time
    peer = wireguard["interfaces"]["wg0"]["peers"][0]
    assert (peer["live"]["handshake_age_s"], peer["live"]["rx_bytes"], peer["persistent_keepalive_s"]) == (
        29, 48213344, 25)
    endpoint = facts["endpoint_routes"]["endpoints"][0]
    assert (endpoint["address"], endpoint["address_source"], endpoint["dev"], endpoint["static_host_route"]) == (
        "203.0.113.10", "live", "wwan0", True)
    assert facts["endpoint_routes"]["routes_source"] == ROUTE_SHOW
    assert (facts["endpoint_routes"]["hotplug_hook_exists"], facts["endpoint_routes"]["hotplug_hook_sha256"],
            facts["endpoint_routes"]["old_hotplug_hook_exists"]) == (False, None, False)
    assert "preferred_uplink_device" not in facts["endpoint_routes"]
    bridge = facts["bridges"]["bridges"]["br-lan"]
    assert list(bridge["ports"]) == ["lan1", "lan2"]
    assert bridge["ports"]["lan1"]["gso_tso_gro"]["off"] == ["generic-receive-offload"]
    assert bridge["features"]["large-receive-offload"] == "off [fixed]"
    assert (facts["bridges"]["ip_forward"], facts["bridges"]["tunnels"], facts["bridges"]["note"]) == (1, {}, None)
    # the uci private key and the dump's private key are nowhere: not in the result, not in what crossed the connection
    uci, dump = load_fixture("uci_show", "case01_network.txt"), load_fixture("wg_show_all_dump", "case01_endpoint_hostroute.txt")
    assert SECRETS[0] in uci and SECRETS[0] in dump
    assert_no_secret(action, result, uci + dump + tunnel_router["uci -q get network.wg0.private_key"][1])
    assert "<redacted>" not in json.dumps(result)


@pytest.mark.parametrize("subset", [["all"], ["banip"], ["mwan3"], ["wireguard"], ["endpoint_routes"], ["bridges"],
                                    ["link_mtu"], ["link_ipv6"], ["link_addresses"]])
def test_every_subset_is_one_remote_execution(fake, old_router, tunnel_router, subset):
    action = fake({"gather_subset": subset}, dict(old_router, **tunnel_router))
    facts = facts_of(action.run(task_vars={}))
    assert set(facts) == ({"banip", "mwan3", "wireguard", "endpoint_routes", "bridges", "udp_gro", "link_mtu", "link_ipv6",
                           "link_addresses"} if subset == ["all"] else set(subset))
    assert_one_execution(action)
    if "link_mtu" in facts:   # the PMTU fault's reading: the listing bridges reads, parsed for every device's MTU
        assert facts["link_mtu"]["note"] is None and facts["link_mtu"]["devices"]["br-lan"] == 1500
    if "link_ipv6" in facts:  # the PMTU fault's reading: every device's live IPv6 addresses, one listing
        assert facts["link_ipv6"]["note"] is None
        assert (facts["link_ipv6"]["devices"]["wg1"][0], facts["link_ipv6"]["devices"]["wg2"]) == ("fd77::2/64", [])
    if "link_addresses" in facts:   # the tunnel graph's reading: the same listing, every family
        assert facts["link_addresses"]["note"] is None and facts["link_addresses"]["devices"]["wg1"][:2] == ["10.78.0.2/24", "fd77::2/64"]
    assert action.router.calls().count(IP_ADDRS) == (1 if subset in (["all"], ["link_ipv6"], ["link_addresses"]) else 0)


@pytest.mark.parametrize("answer, note", [
    ((1, "", "busybox"), "ip -j addr show failed (rc=1: BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.): "
                         "live IPv6 addresses unknown"),
    ((0, "", ""), "ip -j addr show printed nothing: live IPv6 addresses unknown"),
    (None, "ip -j addr show failed (rc=99: fake router: no answer for ip -j addr show): live IPv6 addresses unknown"),
])
def test_an_address_listing_that_fails_is_unknown_not_a_failure(fake, old_router, load_fixture, answer, note):
    """BusyBox's ip has no -j (recorded stderr): the live addresses are unknown (the fault falls back to uci), the rest stands."""
    if answer is not None and answer[2] == "busybox":
        answer = (1, "", load_fixture("ip_j_addr_show_stderr", "busybox_1.35_no_json.txt"))
    action = fake({"gather_subset": ["link_ipv6", "link_mtu"]}, dict(old_router, **{IP_ADDRS: answer}))
    facts = facts_of(action.run(task_vars={}))
    assert facts["link_ipv6"] == {"devices": None, "note": note}
    assert facts["link_mtu"]["devices"]["br-lan"] == 1500
    assert_one_execution(action)


@pytest.mark.parametrize("uplink, device", [("wan", "eth1"), ("wanb", "wwan0"), ("eth9", "eth9")])
def test_preferred_uplink_names_its_device(fake, tunnel_router, uplink, device):
    action = fake({"gather_subset": ["endpoint_routes"], "preferred_uplink": uplink}, tunnel_router)
    routes = facts_of(action.run(task_vars={}))["endpoint_routes"]
    assert routes["preferred_uplink_device"] == device
    assert routes["endpoints"][0]["dev"] == "wwan0"
    assert_one_execution(action)


@pytest.mark.parametrize("uplink", [5, ["wan", "lte"], {"a": 1}, True, " wan", "wan\n", "$(reboot)", "", "x" * 16])
def test_a_bad_preferred_uplink_fails_naming_the_option_before_running_anything(fake, tunnel_router, uplink):
    action = fake({"gather_subset": ["endpoint_routes"], "preferred_uplink": uplink}, tunnel_router)
    result = action.run(task_vars={})
    assert result["failed"] is True and result["msg"].startswith("preferred_uplink: %s " % json.dumps(str(uplink))), result
    assert action.ran == []


def test_an_address_the_batch_did_not_list_is_looked_up_alone(fake, tunnel_router):
    """The shell's list of endpoint addresses missed one (here: its lookups are cut from the output)."""
    def drop_route_get(res, nonce):
        if nonce is None:
            return res
        steps = split_batch_output(res["stdout"], nonce)
        return dict(res, stdout=_frame({k: v for k, v in steps.items() if " route get " not in k}, nonce))

    action = fake({"gather_subset": ["endpoint_routes"]}, tunnel_router, mangle=drop_route_get)
    routes = facts_of(action.run(task_vars={}))["endpoint_routes"]
    assert routes["endpoints"][0]["dev"] == "wwan0"
    assert action.ran[1:] == ["ip -j route get 203.0.113.10"]


@pytest.mark.parametrize("cut", [0.5, 0.99])
def test_truncated_batch_output_fails_naming_the_script(fake, tunnel_router, cut):
    def truncate(res, nonce):
        return dict(res, stdout=res["stdout"][:int(len(res["stdout"]) * cut)])

    result = fake({"gather_subset": TUNNEL_SUBSETS}, tunnel_router, mangle=truncate).run(task_vars={})
    assert result["failed"] is True and "ansible_facts" not in result
    assert result["msg"].startswith("cannot read the output of sh -c '<openwrt_facts: ")
    assert "truncated" in result["msg"] or "marker" in result["msg"]


def test_preshared_keys_never_leak_through_the_action(fake, load_fixture):
    uci = load_fixture("uci_show", "x_flag_cfg_names.txt")
    dump = load_fixture("wg_show_all_dump", "ipv6_endpoint_psk_keepalive.txt")
    answers = {"uci -q show network": (0, uci, ""), **wg("1796029496\n", dump=dump)}
    action = fake({"gather_subset": ["wireguard"]}, answers)
    result = action.run(task_vars={})
    peers = facts_of(result)["wireguard"]["interfaces"]["wg0"]["peers"]
    assert [(p["public_key"][0], p["preshared_key_set"], (p["live"] or {}).get("has_preshared_key")) for p in peers] == [
        ("B", True, None), ("C", False, None), ("A", None, True)]
    for secret in SECRETS:
        assert secret in uci + dump
    assert_no_secret(action, result, uci + dump)


@pytest.mark.parametrize("wg_answer, installed, note", [
    (None, False, "wg is not installed (wireguard-tools); uci view only"),
    ((1, "", "Unable to access interface: Protocol not supported\n"), True,
     "wg show all dump failed with rc=1: Unable to access interface: Protocol not supported; uci view only"),
    ((0, "", ""), True, "no live WireGuard interface (wg show all dump printed nothing); uci view only"),
])
def test_no_live_wireguard_is_uci_view_only(fake, tunnel_router, wg_answer, installed, note):
    answers = dict(tunnel_router, **{WG_DUMP: wg_answer, "wg pubkey": tunnel_router["wg pubkey"] if installed else None})
    facts = facts_of(fake({"gather_subset": ["wireguard", "endpoint_routes"]}, answers).run(task_vars={}))
    assert (facts["wireguard"]["wg_installed"], facts["wireguard"]["live"], facts["wireguard"]["note"]) == (
        installed, False, note)
    wg0 = facts["wireguard"]["interfaces"]["wg0"]
    assert wg0["configured_public_key"] == (OWN_PUBLIC_KEY if installed else None)   # no wg: not known
    assert (wg0["live"], wg0["private_key_set"], wg0["peers"][0]["live"]) == (False, True, None)
    assert facts["endpoint_routes"]["endpoints"][0]["address_source"] == "uci"


def test_ip_without_json_and_unreachable_endpoint(fake, tunnel_router, load_fixture):
    answers = dict(tunnel_router, **{
        WG_DUMP: None, "ip -j route get 203.0.113.10": None,
        ROUTE_SHOW: (255, "", 'Option "-j" is unknown, try "ip -help".\n'),
        "ip route show table all": (0, load_fixture("ip_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
        "ip route get 203.0.113.10": (2, "", load_fixture("ip_route_get_stderr", "network_unreachable.txt")),
    })
    action = fake({"gather_subset": ["endpoint_routes"]}, answers)
    facts = facts_of(action.run(task_vars={}))
    routes = facts["endpoint_routes"]
    assert routes["routes_source"] == "ip route show table all"
    assert (routes["endpoints"][0]["dev"], routes["endpoints"][0]["error"]) == (
        None, "RTNETLINK answers: Network is unreachable")
    assert routes["endpoints"][0]["pinned_routes"][0]["dev"] == "wwan0"  # the pin is still reported
    assert "wireguard" not in facts
    assert_one_execution(action)


@pytest.mark.parametrize("tool", ["busybox_openwrt24.10", "gnu_debian12"])
@pytest.mark.parametrize("case, hook", [
    ("hook_only", {"hotplug_hook_exists": True, "hotplug_hook_sha256": "97029a11afe0d1e22a84f892289068096897cb9c43e9184496888a2dc4ed62ae",
                   "old_hotplug_hook_exists": False}),
    ("both", {"hotplug_hook_exists": True, "hotplug_hook_sha256": "97029a11afe0d1e22a84f892289068096897cb9c43e9184496888a2dc4ed62ae",
              "old_hotplug_hook_exists": True}),
    ("none", {"hotplug_hook_exists": False, "hotplug_hook_sha256": None, "old_hotplug_hook_exists": False}),
])
def test_no_endpoint_to_look_up_runs_no_route_lookup(fake, load_fixture, tool, case, hook):
    answers = {"uci -q show network": (0, load_fixture("uci_show", "case11_network_wg.txt"), ""), DATE: (0, "1\n", ""),
               ROUTE_SHOW: (0, "[]", ""), HOOK_PROBE: hook_probe(load_fixture, case, tool)}
    action = fake({"gather_subset": ["endpoint_routes"]}, answers)
    facts = facts_of(action.run(task_vars={}))
    assert facts["endpoint_routes"] == {"routes_source": None, "endpoints": [], "unresolved": [
        {"interface": "wg0", "public_key": "E" * 43 + "=", "section": "dc", "endpoint_host": "dc.example.net"}],
        "uplinks": None, "uplinks_note": None, "metered_unmatched": [],
        **hook}   # read with no endpoint too: a hook left from a full tunnel that is gone
    assert_one_execution(action)
    assert not [call for call in action.router.calls() if " route get " in call]  # a hostname is never looked up


NO_IP = {ROUTE_SHOW: None, "ip -j route get 203.0.113.10": None, IP_LINKS: None, LINK_COUNTERS: None}


@pytest.mark.parametrize("change, expected", [
    ({"ethtool -k lan1": None, "ethtool -k lan2": None, "ethtool -k br-lan": None},
     {"ethtool_installed": False, "ip_json": True}),
    ({"ethtool -k lan2": (76, "", "netlink error: no device matches name (offset 24)\n")},
     {"ethtool_installed": True, "ip_json": True}),
    ({IP_FORWARD: (0, "1\n", ""), IP_LINKS: (255, "", 'Option "-d" is unknown\n')},
     {"ethtool_installed": None, "ip_json": False, "bridges": {}, "tunnels": {}, "ip_forward": 1,
      "note": 'ip -d -j link show gave no link list (rc=255: Option "-d" is unknown): bridges and tunnels unknown'}),
    # no ip at all: the shell's exec fails; forwarding is still known
    (dict(NO_IP, **{IP_FORWARD: (0, "0\n", "")}),
     {"ethtool_installed": None, "ip_json": False, "tunnels": {}, "ip_forward": 0}),
    # an ip without -j prints text: no link list
    ({IP_FORWARD: (0, "1\n", ""), IP_LINKS: (0, "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue\n", "")},
     {"ip_json": False, "bridges": {}, "tunnels": {}, "ip_forward": 1}),
    # /proc/sys/net/ipv4/ip_forward unreadable: unknown, said in the note
    ({IP_FORWARD: (1, "", "cat: can't open '/proc/sys/net/ipv4/ip_forward': No such file or directory\n"),
      IP_LINKS: (0, "[]\n", "")},
     {"ip_json": True, "ip_forward": None, "ethtool_installed": None,
      "note": "net.ipv4.ip_forward could not be read: forwarding unknown"}),
])
def test_bridges_without_tools_are_reported(fake, tunnel_router, change, expected):
    action = fake({"gather_subset": ["bridges"]}, dict(tunnel_router, **change))
    bridges = facts_of(action.run(task_vars={}))["bridges"]
    assert {key: bridges[key] for key in expected} == expected
    assert_one_execution(action)
    if "ethtool -k lan2" in change and change["ethtool -k lan2"]:
        lan2 = bridges["bridges"]["br-lan"]["ports"]["lan2"]
        assert (lan2["features"], lan2["ethtool_error"]) == (None, "netlink error: no device matches name (offset 24)")
        assert bridges["bridges"]["br-lan"]["ports"]["lan1"]["features"]["generic-receive-offload"] == "off"


@pytest.mark.parametrize("links, why", [
    # BusyBox's ip (no -d, no -j) prints its usage and exits 1: the first 200 characters of it
    ("busybox", "rc=1: BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n\n"
                "Usage: ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]\n\n"
                "OPTIONS := -f[amily] inet|inet6|link | -o[neline]\n\nip addr add|del I"),
    ((255, "", ""), "rc=255: no output"),
    # an ip that prints text: the parser's message, its first 200 characters
    ("text", "ip -d -j link show output is not JSON (is `-j` supported by this ip?): '2: br-lan: <BROADCAST,MULTICAST,UP,"
             "LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\\n    link/ethe"),
], ids=["busybox_ip", "silent_failure", "text_listing"])
def test_a_failed_link_listing_is_a_note_saying_why(fake, tunnel_router, load_fixture, links, why):
    """The exit status and the start of what ip said (or why its listing is unreadable), not a failure; forwarding is
    still read."""
    if links == "busybox":
        links = (1, "", load_fixture("ip_d_j_link_show_stderr", "busybox_1.35_no_json.txt"))
    elif links == "text":
        links = (0, load_fixture("ip_link_show", "netns_bridge.txt"), "")
    action = fake({"gather_subset": ["bridges"]}, dict(tunnel_router, **{IP_LINKS: links}))
    assert facts_of(action.run(task_vars={}))["bridges"] == {
        "ip_json": False, "ethtool_installed": None, "ip_forward": 1, "bridges": {}, "tunnels": {},
        "note": "ip -d -j link show gave no link list (%s): bridges and tunnels unknown" % why}
    assert_one_execution(action)


@pytest.mark.parametrize("change, message", [
    (wg("Sun Nov 30\n"), "cannot read the output of wg show all dump: expected"),
    (wg("1796029496\n", dump="wg0\tonly-two\n"), "cannot read the output of wg show all dump"),
    ({"uci -q show network": (0, "not uci output\n", "")}, "cannot read the output of uci -q show network"),
    ({"ethtool -k lan1": (0, "Features for lan1:\ngarbage\n", "")}, "cannot read the output of ethtool -k lan1"),
    ({IP_FORWARD: (0, "yes\n", ""), IP_LINKS: (0, "[]", "")},
     "cannot read the output of sh -c 'cat /proc/sys/net/ipv4/ip_forward"),
])
def test_unreadable_tunnel_output_fails_naming_the_command(fake, tunnel_router, change, message):
    result = fake({"gather_subset": TUNNEL_SUBSETS}, dict(tunnel_router, **change)).run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert "ansible_facts" not in result


def test_bridges_and_the_tunnel_that_feeds_them(fake, load_fixture):
    """The tfh1-rec recording: br-lan + veth lan1, tailscale0 (TUN, MTU 1280, held open) and tap0, forwarding on."""
    answers = {
        IP_FORWARD: (0, load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt"), ""),
        IP_LINKS: (0, load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"), ""),
        BRIDGE_LS: (0, load_fixture("ls_sys_class_net_bridges", "openwrt_image_bridge_one_veth.txt"), ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "netns_veth_port.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "netns_bridge.txt"), ""),
        "ethtool -k tailscale0": (0, load_fixture("ethtool_k", "netns_tun_mtu1280.txt"), ""),
    }
    action = fake({"gather_subset": ["bridges"]}, answers)
    facts = facts_of(action.run(task_vars={}))["bridges"]
    assert_one_execution(action)
    assert sorted(action.router.calls()) == sorted(answers)  # forwarding, links, then ethtool per device, once each
    tunnel = facts["tunnels"]["tailscale0"]
    assert {key: tunnel[key] for key in ("kind", "mtu", "operstate", "ethtool_error")} == {
        "kind": "tun", "mtu": 1280, "operstate": "UP", "ethtool_error": None}
    # a TUN without its owner's offloads: tso off, gso on (the kernel's software GSO); no nft, no iptables: clamp unknown
    assert (tunnel["features"]["tcp-segmentation-offload"], tunnel["features"]["generic-segmentation-offload"]) == ("off", "on")
    assert tunnel["mss_clamp"] == {"to_tunnel": None, "from_tunnel": None}
    assert facts["mss_clamp_sources"] == {"nft": "not installed", "iptables": "not installed"}
    assert (facts["ip_forward"], facts["ip_json"], facts["ethtool_installed"], facts["note"]) == (1, True, True, None)
    assert list(facts["bridges"]) == ["br-lan"] and list(facts["bridges"]["br-lan"]["ports"]) == ["lan1"]
    assert facts["bridges"]["br-lan"]["gso_tso_gro"]["on"] == [
        "generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"]


@pytest.mark.parametrize("label", ["after", None])
def test_the_label_comes_back_as_given_and_only_when_given(fake, label):
    args = {"gather_subset": ["banip"]} if label is None else {"gather_subset": ["banip"], "label": label}
    result = fake(args, NOTHING).run(task_vars={})
    assert facts_of(result)["banip"]["installed"] is False
    assert result.get("label", "absent") == (label or "absent")


# the uplinks, metered or not, and their byte counters (issue 17, point 5) ---------------------------

@pytest.mark.parametrize("metered, expected", [
    ([], [("wan", "eth1", True, False), ("wanb", "wwan0", False, False)]),
    (["wanb"], [("wan", "eth1", True, False), ("wanb", "wwan0", False, True)]),
    (["eth1", "wwan0"], [("wan", "eth1", True, True), ("wanb", "wwan0", False, True)]),
])
def test_the_uplinks_are_read_in_the_same_execution_with_their_counters(fake, tunnel_router, metered, expected):
    action = fake({"gather_subset": ["endpoint_routes"], "preferred_uplink": "wan", "metered_uplinks": metered},
                  tunnel_router)
    routes = facts_of(action.run(task_vars={}))["endpoint_routes"]
    assert [(u["interface"], u["device"], u["preferred"], u["metered"]) for u in routes["uplinks"]] == expected
    assert [(u["rx_bytes"], u["tx_bytes"]) for u in routes["uplinks"]] == [(1838, 1838), (21468, 21468)]
    assert routes["uplinks_note"] is None and routes["metered_unmatched"] == []
    assert_one_execution(action)
    assert LINK_COUNTERS in action.router.calls()


def test_a_metered_name_that_is_no_uplink_is_listed(fake, tunnel_router):
    action = fake({"gather_subset": ["endpoint_routes"], "preferred_uplink": "wan", "metered_uplinks": ["wanb", "lte"]},
                  tunnel_router)
    routes = facts_of(action.run(task_vars={}))["endpoint_routes"]
    assert routes["metered_unmatched"] == ["lte"] and [u["metered"] for u in routes["uplinks"]] == [False, True]


def test_the_users_config_route_is_told_from_netifds_pin(fake, tunnel_router, load_fixture):
    tunnel_router.update({
        "uci -q show network": (0, load_fixture("uci_show", "user_route_fibre_endpoint.txt"), ""),
        ROUTE_SHOW: (0, load_fixture("ip_j_route_show", "user_route_fibre_pinned_backup_table_all.txt"), ""),
        "ip -j route get 203.0.113.10": (0, load_fixture("ip_j_route_get", "user_route_fibre_pinned_backup.txt"), "")})
    action = fake({"gather_subset": ["endpoint_routes"], "preferred_uplink": "wan"}, tunnel_router)
    [endpoint] = facts_of(action.run(task_vars={}))["endpoint_routes"]["endpoints"]
    assert [(r["gateway"], r["dev"]) for r in endpoint["pinned_routes"]] == [("198.51.100.1", "wwan0")]
    assert [(u["section"], u["installed"]["dev"]) for u in endpoint["user_routes"]] == [("wg_endpoint", "eth1")]


@pytest.mark.parametrize("answer, note", [
    ("busybox", "ip -s -j link show failed (rc=1: BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.): "
                "byte counters unknown"),
    ((0, "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536\n", ""), "ip -s -j link show output is not JSON"),
])
def test_counters_unknown_are_none_with_a_note_not_a_failure(fake, tunnel_router, load_fixture, answer, note):
    if answer == "busybox":  # BusyBox ip: no -s -j, its usage on stderr
        answer = (1, "", load_fixture("ip_s_j_link_show_stderr", "busybox_ip.txt"))
    action = fake({"gather_subset": ["endpoint_routes"], "preferred_uplink": "wan"}, dict(tunnel_router, **{LINK_COUNTERS: answer}))
    routes = facts_of(action.run(task_vars={}))["endpoint_routes"]
    assert [(u["device"], u["rx_bytes"], u["tx_bytes"]) for u in routes["uplinks"]] == [("eth1", None, None), ("wwan0", None, None)]
    assert routes["uplinks_note"].startswith(note)
    assert_one_execution(action)


@pytest.mark.parametrize("names", [["wan;reboot"], ["wanb", " wan"], ["x" * 16]])
def test_a_bad_metered_uplink_fails_naming_the_option_before_running_anything(fake, tunnel_router, names):
    action = fake({"gather_subset": ["endpoint_routes"], "metered_uplinks": names}, tunnel_router)
    result = action.run(task_vars={})
    assert result["failed"] is True and result["msg"].startswith("metered_uplinks: %s " % json.dumps(names[-1])), result
    assert action.ran == []


# Hostile JSON from the router (issue 30.10): a failure naming the command and the host, not RecursionError/ValueError.
@pytest.mark.parametrize("change, message", [
    ({"nft -tj list table inet banIP": (0, '{"nftables": ' + "[" * 100000, "")},
     "cannot read the output of nft -tj list table inet banIP on owrt1: nft -j output is JSON nested too deeply"),
    ({"ip -j route get 203.0.113.10": (0, '[{"dst": "203.0.113.10", "metric": %s}]' % ("9" * 5000), "")},
     "cannot read the output of ip -j route get 203.0.113.10 on owrt1: ip -j route get output holds a value that cannot be read"),
], ids=["nft_deep", "route_get_5000_digits"])
def test_hostile_json_fails_naming_the_command_and_the_host(fake, old_router, change, message):
    result = fake({}, dict(old_router, **change)).run(task_vars={"inventory_hostname": "owrt1"})
    assert result["failed"] is True and result["msg"].startswith(message), result["msg"][:300]
    assert "ansible_facts" not in result


def test_hostile_link_json_is_a_note_naming_the_command(fake, old_router):
    """The bridges subset reports an unreadable listing as its note (as for an ip without -j), not a failure."""
    result = fake({"gather_subset": ["bridges"]}, dict(old_router, **{IP_LINKS: (0, "[" * 100000, "")})).run(task_vars={})
    bridges = facts_of(result)["bridges"]
    assert bridges["ip_json"] is False and bridges["note"].startswith("ip -d -j link show gave no link list (ip -d -j link show "
                                                                      "output is JSON nested too deeply")


def test_banip_stopped_on_an_nft_without_json_is_a_table_not_loaded(fake, old_router):
    """nft without JSON support, banIP stopped: the text listing fails too (no table), which is no failure of the action."""
    answers = dict(old_router, **{"nft -tj list table inet banIP": (1, "", "Error: JSON support not compiled-in\n"),
                                  "nft -t list table inet banIP": NO_TABLE})
    action = fake({"gather_subset": ["banip"]}, answers)
    banip = facts_of(action.run(task_vars={}))["banip"]
    assert (banip["nft_installed"], banip["nft_table_loaded"], banip["icmp_counter"], banip["icmp_limit_rule"]) == (True, False, None, None)
    assert [call for call in action.router.calls() if call.startswith("nft ")] == [
        "nft -tj list table inet banIP", "nft -t list table inet banIP"]


def test_the_exact_message_of_a_failed_nft_listing(fake, old_router):
    """rc 1 is also nft's answer for a missing table (then no failure): any other rc 1 fails with nft's own words."""
    stderr = "  Operation not permitted (you must be root)\n" + "x" * 600 + "\n"
    result = fake({"gather_subset": ["banip"]}, dict(old_router, **{"nft -tj list table inet banIP": (1, "", stderr)})).run(task_vars={})
    assert result["msg"] == "nft -tj list table inet banIP failed with rc=1: %s" % stderr.strip()[:500]
    assert (result["cmd"], result["rc"], result["stderr"]) == ("nft -tj list table inet banIP", 1, stderr)


def test_a_live_peer_gets_its_preshared_key_fingerprint(batch_action, tunnel_router):
    """On the live entry, next to has_preshared_key, with the salt's id (the step's format: tests/unit/fixtures/psk_fingerprints/)."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import PRESHARED_KEY_FINGERPRINTS_NAME
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import salt_id
    salt, key = "ffeeddccbbaa99887766554433221100", "B" * 43 + "="
    overrides = {PRESHARED_KEY_FINGERPRINTS_NAME: (0, "wg0\t%s\t0910c51b3ca73833\n" % key, "")}
    action = batch_action(ActionModule, {"gather_subset": ["wireguard"], "fingerprint_salt": salt}, tunnel_router, overrides=overrides)
    wireguard = facts_of(action.run(task_vars={}))["wireguard"]
    live = {peer["public_key"]: peer["live"] for peer in wireguard["interfaces"]["wg0"]["peers"]}
    assert live[key]["preshared_key_fingerprint"] == "0910c51b3ca73833"
    assert [value["preshared_key_fingerprint"] for name, value in live.items() if name != key and value] == [None] * (len(live) - 1)
    assert wireguard["preshared_key_salt_id"] == salt_id(salt) and len(action.ran) == 1
