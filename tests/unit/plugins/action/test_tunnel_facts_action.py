# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The python-free tunnel_facts action against a fake Linux host that runs its one script.

The fake (``shell_router`` in this folder's conftest.py) executes what the action sends with dash,
bash and BusyBox sh, PATH holding stub tools that print recorded fixtures; so the batch script,
the redaction of the WireGuard dump on the target and the framing are tested for real.
"""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.tunnel_facts import ActionModule, SUBSETS
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import TCP_FACT_KEYS
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import WG_CONFIG_PEERS_NAME
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import SYSCTL_BOOT_FILES_NAME

GSO, TSO, GRO = "generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"
PRESENT = ("ls -1d /sys/module/tcp_bbr /sys/module/tcp_bbr/initstate /sys/module/sch_fq /sys/module/sch_fq/initstate"
           " /proc/sys/net/ipv4 /proc/sys/net/core/default_qdisc /run/.containerenv /.dockerenv")
BRIDGE_LS = "ls -1d /sys/class/net/*/brif/* /sys/class/net/*/bridge"
SECRETS = ("K" * 43 + "=", "P" * 43 + "=")
NO_FILE = "cat: %s: No such file or directory\n"


class FakeHost(ActionModule):
    def __init__(self, args, router):
        task = type("Task", (), dict(args=args, async_val=0, check_mode=False, diff=False,
                                     action="tunnelfix.fleet.tunnel_facts"))()
        connection = type("Connection", (), {"_shell": type("Shell", (), {"tmpdir": None})()})()
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.tunnel_facts"
        self.router, self.ran = router, []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        return self.router.execute(cmd)


def sysctl_answers(load_fixture, child_netns=True):
    """cat of every TCP key: recorded values; in a child netns the host-level keys are missing."""
    values = {
        "net.ipv4.tcp_congestion_control": "cubic\n",
        "net.ipv4.tcp_available_congestion_control": load_fixture("proc_tcp_available_congestion_control", "netns.txt"),
        "net.ipv4.tcp_allowed_congestion_control": load_fixture("proc_tcp_allowed_congestion_control", "host.txt"),
        "net.core.default_qdisc": None if child_netns else "pfifo_fast\n",
        "net.ipv4.tcp_rmem": "4096\t131072\t6291456\n",
        "net.ipv4.tcp_wmem": "4096\t16384\t4194304\n",
        "net.core.netdev_max_backlog": None if child_netns else "1000\n",
    }
    assert set(values) == set(TCP_FACT_KEYS)
    answers = {}
    for key, value in values.items():
        path = "/proc/sys/" + key.replace(".", "/")
        answers["cat " + path] = (1, "", NO_FILE % path) if value is None else (0, value, "")
    return answers


@pytest.fixture
def peer(load_fixture):
    """A NATed Linux peer in a podman container: wg0 to 10.199.0.1, a bridge with a veth port and a TUN."""
    return {
        "date +%s": (0, "1796029496\n", ""),
        "wg show all dump": (0, load_fixture("wg_show_all_dump", "nat_peer_no_keepalive.txt"), ""),
        "ip -j route show table all": (0, load_fixture("ip_j_route_show", "host_table_all.txt"), ""),
        "ip -j route get 10.199.0.1": (0, load_fixture("ip_j_route_get", "host_default.txt"), ""),
        "ip -d -j link show": (0, load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"), ""),
        "ip -j addr show": (0, load_fixture("ip_j_addr_show", "netns_veth_ula_wireguard_go.txt"), ""),
        "cat /proc/sys/net/ipv4/ip_forward": (0, load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt"), ""),
        BRIDGE_LS: (0, "/sys/class/net/br-lan/brif/lan1\n/sys/class/net/br-lan/bridge\n", ""),
        "ethtool -k lan1": (0, load_fixture("ethtool_k", "netns_veth_port.txt"), ""),
        "ethtool -k br-lan": (0, load_fixture("ethtool_k", "netns_bridge.txt"), ""),
        "ethtool -k tailscale0": (0, load_fixture("ethtool_k", "netns_tun_mtu1280.txt"), ""),
        PRESENT: (2, load_fixture("ls_1d_presence", "lab_peer_podman.txt"), "ls: cannot access '/.dockerenv'\n"),
        "systemd-detect-virt --container": (0, load_fixture("systemd_detect_virt", "lab_peer_podman.txt"), ""),
        "modinfo -F filename tcp_bbr": (1, "", "modinfo: ERROR: Module tcp_bbr not found.\n"),
        "modinfo -F filename sch_fq": (1, "", "modinfo: ERROR: Module sch_fq not found.\n"),
        **sysctl_answers(load_fixture),
    }


def run(shell_router, answers, **args):
    host = FakeHost(args, shell_router(answers))
    result = host.run(task_vars={})
    return host, result


def test_everything_in_one_execution(shell_router, peer):
    host, result = run(shell_router, peer)
    assert result.get("failed") is not True, result
    assert len(host.ran) == 1 and host.ran[0].startswith("sh -c ")
    assert host.router.leftovers() == []
    facts = result["ansible_facts"]["tunnelfix"]
    assert set(facts) == set(SUBSETS)
    (peer_facts,) = facts["wireguard"]["interfaces"]["wg0"]["peers"]
    assert (peer_facts["endpoint_host"], peer_facts["persistent_keepalive_s"], peer_facts["handshake_age_s"]) == (
        "10.199.0.1", None, 1796029496 - 1796029418)  # the age comes from the target's clock
    assert facts["routes"]["endpoints"]["10.199.0.1"]["dev"] == "eth0"
    assert facts["tcp"]["congestion_control"] == "cubic"
    assert facts["tcp"]["default_qdisc"] is None and facts["tcp"]["congestion_control_allowed"] == ["reno", "bbr"]
    assert (facts["tcp"]["tcp_bbr_available"], facts["tcp"]["tcp_bbr_loadable_module"]) == (True, False)
    assert facts["netns"] == {"child_netns": True, "container": "podman"}
    bridges = facts["bridges"]
    tunnel = bridges["tunnels"]["tailscale0"]
    assert (bridges["ip_forward"], tunnel["kind"], tunnel["mtu"], tunnel["operstate"]) == (1, "tun", 1280, "UP")
    assert tunnel["gso_tso_gro"]["on"] == [GSO, GRO] and tunnel["mss_clamp"] == {"to_tunnel": None, "from_tunnel": None}
    assert bridges["bridges"]["br-lan"]["gso_tso_gro"]["on"] == [GSO, TSO, GRO]
    assert bridges["bridges"]["br-lan"]["ports"]["lan1"]["gso_tso_gro"]["on"] == [GSO, TSO]
    # the PMTU fault's live IPv6 addresses: every device, one without IPv6 too (an IPv4-only WireGuard device)
    assert facts["link_ipv6"]["note"] is None and facts["link_ipv6"]["devices"]["wg2"] == []
    assert facts["link_ipv6"]["devices"]["veth0"] == ["fd99:6::1/64", "fe80::482c:18ff:fe44:fa9e/64"]
    # the tunnel graph's connected prefixes: the same listing (run once), every family
    assert facts["link_addresses"]["devices"]["veth0"] == ["192.0.2.20/24", "fd99:6::1/64", "fe80::482c:18ff:fe44:fa9e/64"]


@pytest.mark.parametrize("dump", ["nat_peer_no_keepalive.txt", "ipv6_endpoint_psk_keepalive.txt"])
def test_no_key_crosses_the_connection(shell_router, peer, load_fixture, dump):
    answers = dict(peer, **{"wg show all dump": (0, load_fixture("wg_show_all_dump", dump), "")})
    host, result = run(shell_router, answers, gather_subset=["wireguard"])
    raw = host.router.execute(host.ran[0])["stdout"]  # what -vvv would print
    secrets = [secret for secret in SECRETS if secret in answers["wg show all dump"][1]]
    assert secrets  # the fixture has keys, so the check can fail
    for secret in secrets:
        assert secret not in raw and secret not in json.dumps(result)
    assert result["ansible_facts"]["tunnelfix"]["wireguard"]["available"] is True


@pytest.mark.parametrize("subset, ran", [
    (["tcp"], {"cat /proc/sys/net/ipv4/tcp_congestion_control", "modinfo -F filename tcp_bbr", PRESENT}),
    (["netns"], {"systemd-detect-virt --container", PRESENT}),
    (["wireguard"], {"date +%s", "wg show all dump"}),
    (["bridges"], {"ip -d -j link show", "ethtool -k br-lan"}),
    (["link_ipv6"], {"ip -j addr show"}),
    (["link_addresses"], {"ip -j addr show"}),
])
def test_a_subset_runs_its_commands_only_in_one_execution(shell_router, peer, subset, ran):
    host, result = run(shell_router, peer, gather_subset=subset)
    assert set(result["ansible_facts"]["tunnelfix"]) == set(subset)
    assert len(host.ran) == 1
    calls = set(host.router.calls())
    assert ran <= calls
    assert not ({"wg show all dump", "ip -d -j link show", "systemd-detect-virt --container", "ip -j addr show"} - ran) & calls


def test_routes_bring_the_peers(shell_router, peer):
    _host, result = run(shell_router, peer, gather_subset=["routes"])
    assert set(result["ansible_facts"]["tunnelfix"]) == {"wireguard", "routes"}


def test_each_peers_endpoint_route_is_read_once(shell_router, peer):
    """Peers without an endpoint, and a second peer at an endpoint already read, are passed over; the next peer's
    endpoint is still read: one ``ip -j route get`` per endpoint address, none for a peer without one."""
    interface, first = peer["wg show all dump"][1].splitlines()
    fields = first.split("\t")

    def peer_line(index, endpoint):
        return "\t".join([fields[0], chr(ord("A") + index) * 43 + "=", *fields[2:3], endpoint, *fields[4:]])

    dump = "\n".join([interface, peer_line(0, "(none)"), first, peer_line(1, "10.199.0.1:51821"), peer_line(2, "10.199.0.7:51820")])
    answers = dict(peer, **{"wg show all dump": (0, dump + "\n", ""),
                            "ip -j route get 10.199.0.7": peer["ip -j route get 10.199.0.1"]})
    host, result = run(shell_router, answers, gather_subset=["routes"])
    assert result.get("failed") is not True, result
    assert [p["endpoint_host"] for p in result["ansible_facts"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"]] == [
        None, "10.199.0.1", "10.199.0.1", "10.199.0.7"]
    endpoints = result["ansible_facts"]["tunnelfix"]["routes"]["endpoints"]
    assert sorted(endpoints) == ["10.199.0.1", "10.199.0.7"] and endpoints["10.199.0.7"]["dev"] == "eth0"
    assert sorted(call for call in host.router.calls() if call.startswith("ip -j route get")) == [
        "ip -j route get 10.199.0.1", "ip -j route get 10.199.0.7"]


def test_host_namespace_and_builtin_bbr(shell_router, peer, load_fixture):
    answers = dict(peer, **sysctl_answers(load_fixture, child_netns=False))
    answers[PRESENT] = (2, load_fixture("ls_1d_presence", "docker_host_namespace.txt"), "")
    answers["systemd-detect-virt --container"] = (1, "none\n", "")
    answers["modinfo -F filename tcp_bbr"] = (0, "(builtin)\n", "")
    _host, result = run(shell_router, answers, gather_subset=["tcp", "netns"])
    facts = result["ansible_facts"]["tunnelfix"]
    assert facts["netns"] == {"child_netns": False, "container": "docker"}  # the marker file
    assert facts["tcp"]["default_qdisc"] == "pfifo_fast" and facts["tcp"]["netdev_max_backlog"] == 1000


def test_no_wg_is_reported_not_failed(shell_router, peer):
    answers = {k: v for k, v in peer.items() if k != "wg show all dump"}
    _host, result = run(shell_router, answers, gather_subset=["wireguard"])
    assert result["ansible_facts"]["tunnelfix"]["wireguard"] == {
        "available": False, "interfaces": {}, "configs": [], "sampled_at_epoch": None, "preshared_key_salt_id": None,
        "config_dirs": {"wg_quick": "/etc/wireguard", "networkd": "/etc/systemd/network"}}


def test_the_configuration_files_come_with_the_live_state(batch_action, peer, load_fixture):
    """What the wg-quick and .netdev files say of each peer (BusyBox awk over hand-made files), in the same execution."""
    overrides = {WG_CONFIG_PEERS_NAME: (0, load_fixture("wg_config_peers", "wg_quick_and_netdev_busybox.txt"), "")}
    action = batch_action(ActionModule, {"gather_subset": ["wireguard"]}, peer, overrides=overrides)
    wireguard = action.run(task_vars={})["ansible_facts"]["tunnelfix"]["wireguard"]
    assert [(config["interface"], config["kind"], len(config["peers"])) for config in wireguard["configs"]] == [
        ("wg0", "wg-quick", 1), ("wg1", "netdev", 2)]
    assert wireguard["available"] is True and "wg0" in wireguard["interfaces"]
    assert len(action.ran) == 1


def test_sysctl_lines_the_boot_rejects_are_warned_about_not_failed(batch_action, peer, load_fixture):
    """Every sysctl file the boot reads comes in the same execution; lines procps rejects become warnings."""
    overrides = {SYSCTL_BOOT_FILES_NAME: (0, load_fixture("sysctl_boot_files", "debian12_sysctl_conf_comments_and_typo.txt"), "")}
    action = batch_action(ActionModule, {"gather_subset": ["tcp"]}, peer, overrides=overrides)
    result = action.run(task_vars={})
    boot = result["ansible_facts"]["tunnelfix"]["tcp"]["sysctl_boot"]
    assert result.get("failed") is not True and len(action.ran) == 1
    assert result["warnings"] == [warning["message"] for warning in boot["warnings"]] and len(result["warnings"]) == 3
    assert result["warnings"][1].startswith("/etc/sysctl.d/99-sysctl.conf line 70: net.ipv4.tcp_congestion_contol does not exist")
    assert boot["effective"]["net.core.netdev_max_backlog"]["value"] == "16384"


def test_no_warnings_without_rejected_lines(batch_action, peer, load_fixture):
    overrides = {SYSCTL_BOOT_FILES_NAME: (0, load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt"), "")}
    result = batch_action(ActionModule, {"gather_subset": ["tcp"]}, peer, overrides=overrides).run(task_vars={})
    assert "warnings" not in result
    assert result["ansible_facts"]["tunnelfix"]["tcp"]["sysctl_boot"]["effective"]["net.ipv4.tcp_congestion_control"]["value"] == "cubic"


@pytest.mark.parametrize("change, message", [
    ({"wg show all dump": (1, "", "Unable to access interface: Operation not permitted\n")}, "wg show all dump failed with rc=1"),
    ({"ip -j route show table all": (1, "", "RTNETLINK answers: Operation not permitted\n")}, "ip -j route show table all failed"),
    ({"ethtool -k br-lan": (0, "Features for br-lan:\ngarbage\n", "")}, "cannot read the output of ethtool -k br-lan"),
    ({"wg show all dump": (0, "wg0\tgarbage\n", "")}, "cannot read the output of wg show all dump"),
])
def test_failures_name_the_command(shell_router, peer, change, message):
    _host, result = run(shell_router, dict(peer, **change))
    assert result["failed"] is True and message in result["msg"], result
    assert "Traceback" not in json.dumps(result)


def test_missing_ethtool_and_ip_are_reported(shell_router, peer):
    answers = {k: v for k, v in peer.items() if not k.startswith("ethtool")}
    _host, result = run(shell_router, answers, gather_subset=["bridges"])
    bridges = result["ansible_facts"]["tunnelfix"]["bridges"]
    assert (bridges["ethtool_installed"], bridges["note"]) == (False, "ethtool is not installed: offload features unknown")


BUSYBOX_USAGE_200 = ("BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n\n"
                     "Usage: ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]\n\n"
                     "OPTIONS := -f[amily] inet|inet6|link | -o[neline]\n\nip addr add|del I")
NOT_JSON_200 = ("ip -d -j link show output is not JSON (is `-j` supported by this ip?): '2: br-lan: <BROADCAST,MULTICAST,UP,"
                "LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\\n    link/ethe")


@pytest.mark.parametrize("links, why", [
    (None, "ip (iproute2) is not installed"),
    # BusyBox's ip (no -d, no -j) prints its usage and exits 1: the first 200 characters of it
    ("busybox", "rc=1: " + BUSYBOX_USAGE_200),
    ((2, "", ""), "rc=2: no output"),
    # an ip that prints text: the parser's message, its first 200 characters
    ("text", NOT_JSON_200),
], ids=["no_ip", "busybox_ip", "silent_failure", "text_listing"])
def test_no_link_list_is_reported_not_failed(shell_router, peer, load_fixture, links, why):
    """Bridges and tunnels unknown, said in the note with why; forwarding is still read."""
    answers = {k: v for k, v in peer.items() if not k.startswith(("ethtool", "ip "))}
    if links == "busybox":
        answers["ip -d -j link show"] = (1, "", load_fixture("ip_d_j_link_show_stderr", "busybox_1.35_no_json.txt"))
    elif links == "text":
        answers["ip -d -j link show"] = (0, load_fixture("ip_link_show", "netns_bridge.txt"), "")
    elif links is not None:
        answers["ip -d -j link show"] = links
    _host, result = run(shell_router, answers, gather_subset=["bridges"])
    assert result["ansible_facts"]["tunnelfix"]["bridges"] == {
        "ip_json": False, "ethtool_installed": None, "ip_forward": 1, "bridges": {}, "tunnels": {},
        "note": "ip -d -j link show gave no link list (%s): bridges and tunnels unknown" % why}


@pytest.mark.parametrize("label", ["after", None])
def test_the_label_comes_back_as_given_and_only_when_given(shell_router, peer, label):
    args = {"gather_subset": ["tcp"]} if label is None else {"gather_subset": ["tcp"], "label": label}
    _host, result = run(shell_router, peer, **args)
    assert result.get("label", "absent") == (label or "absent")


@pytest.mark.parametrize("nft, iptables, sources, clamp", [
    # firewall4's mtu_fix on the tunnels' zone, iptables refusing a non-root user: the clamp nft shows counts
    ((0, "netns_ruleset_fw4_mtu_fix_vpn_zone.txt"), (4, "netns_not_root.txt"),
     {"nft": "read", "iptables": "rc=4: iptables-save v1.8.9 (nf_tables): Could not fetch rule set generation id: "
                                 "Permission denied (you must be root)"},
     {"to_tunnel": True, "from_tunnel": True}),
    # wg-quick's PostUp clamp in iptables (for wg0, not tailscale0), an empty nft ruleset: read, and no clamp
    ((0, "netns_ruleset_empty.txt"), (0, "netns_wg_quick_postup_clamp.txt"), {"nft": "read", "iptables": "read"},
     {"to_tunnel": False, "from_tunnel": False}),
    # nft refusing, no iptables: unknown, never "no clamp"
    ((1, "netns_ruleset_not_root.txt"), None, {"nft": "rc=1: Operation not permitted (you must be root)",
                                               "iptables": "not installed"}, {"to_tunnel": None, "from_tunnel": None}),
])
def test_the_tunnels_offloads_and_clamps_come_in_the_same_execution(shell_router, peer, load_fixture,
                                                                    nft, iptables, sources, clamp):
    """Issue 17.8: tailscale0 opened with its owner's offloads (tso, gso on); the clamp rules of nft and iptables-save."""
    answers = dict(peer, **{"ethtool -k tailscale0": (0, load_fixture("ethtool_k", "netns_tun_vnet_hdr_tso_mtu1280.txt"), "")})
    answers["nft list ruleset"] = ((nft[0], load_fixture("nft_list", nft[1]), "") if nft[0] == 0
                                   else (nft[0], "", load_fixture("nft_stderr", nft[1])))
    if iptables:
        answers["iptables-save"] = ((0, load_fixture("iptables_save", iptables[1]), "") if iptables[0] == 0
                                    else (iptables[0], "", load_fixture("iptables_save_stderr", iptables[1])))
    host, result = run(shell_router, answers, gather_subset=["bridges"])
    assert len(host.ran) == 1, host.ran
    bridges = result["ansible_facts"]["tunnelfix"]["bridges"]
    tunnel = bridges["tunnels"]["tailscale0"]
    assert tunnel["gso_tso_gro"]["on"] == [GSO, TSO, GRO] and tunnel["features"][TSO] == "on"
    assert (bridges["mss_clamp_sources"], tunnel["mss_clamp"]) == (sources, clamp)
    assert {"nft list ruleset", "ethtool -k tailscale0"} <= set(host.router.calls())


def test_hostile_route_json_fails_naming_the_command_and_the_host(shell_router, peer):
    """Issue 30.10: 100000 '[' from ip -j route show is a failure naming it and the host, not a RecursionError."""
    host = FakeHost({}, shell_router(dict(peer, **{"ip -j route show table all": (0, "[" * 100000, "")})))
    result = host.run(task_vars={"inventory_hostname": "peer1"})
    assert result["failed"] is True and result["msg"].startswith(
        "cannot read the output of ip -j route show table all on peer1: ip -j route show output is JSON nested too deeply")
    assert "Traceback" not in json.dumps(result)


FINGERPRINT_SALT = "00112233445566778899aabbccddeeff"   # a test's fixed salt (a run's is random)


def test_each_peer_gets_its_preshared_key_fingerprint_and_the_salts_id_in_the_same_execution(batch_action, peer):
    """The step's output (the recorded format, tests/unit/fixtures/psk_fingerprints/) lands on its peer, with the id of
    the salt the task gave; the salt itself is in no fact."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import PRESHARED_KEY_FINGERPRINTS_NAME
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import salt_id
    key = "A" * 43 + "="
    overrides = {PRESHARED_KEY_FINGERPRINTS_NAME: (0, "wg0\t%s\t0910c51b3ca73833\n" % key, "")}
    action = batch_action(ActionModule, {"gather_subset": ["wireguard"], "fingerprint_salt": FINGERPRINT_SALT}, peer, overrides=overrides)
    result = action.run(task_vars={})
    wireguard = result["ansible_facts"]["tunnelfix"]["wireguard"]
    (found,) = wireguard["interfaces"]["wg0"]["peers"]
    assert (found["public_key"], found["preshared_key_fingerprint"]) == (key, "0910c51b3ca73833")
    assert wireguard["preshared_key_salt_id"] == salt_id(FINGERPRINT_SALT)
    assert len(action.ran) == 1 and "export TF_SALT=%s" % FINGERPRINT_SALT in action.ran[0]
    assert FINGERPRINT_SALT not in json.dumps(result)


def test_without_a_salt_each_execution_makes_its_own(batch_action, peer):
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import PRESHARED_KEY_FINGERPRINTS_NAME
    ids = set()
    # no line: no peer has a PSK (the fake host has no sha256sum: the step's own rc 3 would leave the id None)
    action = batch_action(ActionModule, {"gather_subset": ["wireguard"]}, peer, overrides={PRESHARED_KEY_FINGERPRINTS_NAME: (0, "", "")})
    for _attempt in range(2):
        wireguard = action.run(task_vars={})["ansible_facts"]["tunnelfix"]["wireguard"]
        assert wireguard["interfaces"]["wg0"]["peers"][0]["preshared_key_fingerprint"] is None   # no PSK there
        ids.add(wireguard["preshared_key_salt_id"])
    assert len(ids) == 2 and None not in ids


def test_a_salt_that_is_not_32_hex_digits_fails_the_task(batch_action, peer):
    action = batch_action(ActionModule, {"gather_subset": ["wireguard"], "fingerprint_salt": "0011"}, peer)
    result = action.run(task_vars={})
    assert result["failed"] is True and "fingerprint_salt must be 32 lower-case hex digits" in result["msg"]
    assert action.ran == []
