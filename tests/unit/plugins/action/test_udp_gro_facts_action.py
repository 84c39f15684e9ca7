# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The udp_gro subset of tunnel_facts and openwrt_facts (issue 17.9), against a fake host that runs the one script
(``shell_router``, this folder's conftest.py): the kernel, forwarding, tunnels, the default-route NIC (a full
tunnel's underlay from its endpoint's route) and its features, in one remote execution; what is missing is said."""

import json
from dataclasses import replace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule as OpenWrtFacts
from ansible_collections.tunnelfix.fleet.plugins.action.tunnel_facts import ActionModule as TunnelFacts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.reads import udp_gro_reading

BRIDGE_LS = "ls -1d /sys/class/net/*/brif/* /sys/class/net/*/bridge"
ROUTES = "ip -j route show table all"


@pytest.fixture(autouse=True)
def reading_built_now(monkeypatch):
    """Every test here gathers the reading ``udp_gro_reading`` builds when the test runs (the registry's own ``UDP_GRO``
    was built at import), so the commands, loop and gathers it declares per platform are what these tests pin."""
    built = udp_gro_reading(readings.WIREGUARD, readings.ROUTES, readings.ENDPOINT_ROUTES)
    faults = tuple(replace(fault, facts=tuple(built if reading is readings.UDP_GRO else reading for reading in fault.facts))
                   for fault in registry.FAULTS)
    assert any(reading is built for fault in faults for reading in fault.facts)
    monkeypatch.setattr(registry, "FAULTS", faults)


def fake(action_class, args, router):
    class Fake(action_class):
        def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                       encoding_errors="surrogate_then_replace", chdir=None):
            self.ran.append(cmd)
            return self.router.execute(cmd)

    name = "tunnelfix.fleet.%s" % ("openwrt_facts" if action_class is OpenWrtFacts else "tunnel_facts")
    task = type("Task", (), dict(args=args, async_val=0, check_mode=False, diff=False, action=name))()
    connection = type("Connection", (), {"_shell": type("Shell", (), {"tmpdir": None})()})()
    action = Fake(task, connection, None, None, None)
    action._load_name, action.router, action.ran = name, router, []
    return action


@pytest.fixture
def exit_node(load_fixture):
    """A Linux exit node: defaults via eth0 (200), eth1 (100) and IPv6 via eth1, table 100 via eth2; tailscale0 up."""
    return {
        "uname -r": (0, load_fixture("uname_r", "ubuntu_24.04_6.8.txt"), ""),
        "cat /proc/sys/net/ipv4/ip_forward": (0, load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt"), ""),
        "ip -d -j link show": (0, load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"), ""),
        ROUTES: (0, load_fixture("ip_j_route_show", "netns_two_defaults_v4_v6_table_all.txt"), ""),
        "ethtool -k eth1": (0, load_fixture("ethtool_k", "netns_eth0_gro_on_udp_gro_fwd_off.txt").replace("eth0", "eth1"), ""),
        "wg show all dump": (0, "", ""), "date +%s": (0, "1796029496\n", ""),
    }


def udp_gro_of(result, key="tunnelfix"):
    assert result.get("failed") is not True, result
    return result["ansible_facts"][key]["udp_gro"]


def test_tunnel_facts_reads_the_nic_in_one_execution(shell_router, exit_node):
    action = fake(TunnelFacts, {"gather_subset": ["udp_gro"]}, shell_router(exit_node))
    facts = udp_gro_of(action.run(task_vars={}))
    assert len(action.ran) == 1
    assert (facts["kernel_release"], facts["kernel_version"], facts["ip_forward"]) == ("6.8.0-45-generic", [6, 8, 0], 1)
    assert facts["tunnels"] == {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UP"}}
    assert facts["nics"] == [{"device": "eth1", "families": ["inet", "inet6"], "gateways": {"inet": "198.51.100.1", "inet6": "fe80::1"},
                              "through_tunnel": None, "ethtool_error": None,
                              "features": {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"}}]
    assert (facts["ethtool_installed"], facts["note"]) == (True, None)
    # the loop asked ethtool for every device a default route names, each once (eth2's table 100 too)
    assert sorted(call for call in action.router.calls() if call.startswith("ethtool")) == [
        "ethtool -k eth0", "ethtool -k eth1", "ethtool -k eth2"]


def test_a_bridge_that_carries_the_default_route_is_one_ethtool_step(shell_router, exit_node, load_fixture):
    """bridges and udp_gro share the ethtool loop: br-lan printed by both is read once (two would break the framing)."""
    exit_node.update({BRIDGE_LS: (0, "/sys/class/net/br-lan/brif/lan1\n/sys/class/net/br-lan/bridge\n", ""),
                      ROUTES: (0, '[{"dst":"default","gateway":"192.168.10.254","dev":"br-lan","flags":[]}]', ""),
                      "ethtool -k br-lan": (0, load_fixture("ethtool_k", "netns_bridge.txt"), ""),
                      "ethtool -k lan1": (0, load_fixture("ethtool_k", "netns_veth_port.txt"), "")})
    action = fake(TunnelFacts, {"gather_subset": ["bridges", "udp_gro"]}, shell_router(exit_node))
    result = action.run(task_vars={})
    assert len(action.ran) == 1
    assert udp_gro_of(result)["nics"][0]["device"] == "br-lan"
    assert result["ansible_facts"]["tunnelfix"]["bridges"]["bridges"]["br-lan"]["gso_tso_gro"] is not None
    assert action.router.calls().count("ethtool -k br-lan") == 1


def full_tunnel(load_fixture):
    return {
        "uname -r": (0, load_fixture("uname_r", "openwrt_24.10_6.6.txt"), ""),
        "cat /proc/sys/net/ipv4/ip_forward": (0, "1\n", ""),
        "ip -d -j link show": (0, load_fixture("ip_d_j_link_show", "netns_eth0_tun_wg0_no_carrier.txt"), ""),
        ROUTES: (0, load_fixture("ip_j_route_show", "netns_full_tunnel_case04_table_all.txt"), ""),
        "ip -j route get 203.0.113.55": (0, load_fixture("ip_j_route_get", "netns_full_tunnel_case04.txt"), ""),
        "wg show all dump": (0, load_fixture("wg_show_all_dump", "case04_full_tunnel_never.txt"), ""),
        "date +%s": (0, "1767225600\n", ""),
        "ethtool -k eth0": (0, load_fixture("ethtool_k", "netns_eth0_gro_on_udp_gro_fwd_off.txt"), ""),
        "ethtool -k wg0": (0, load_fixture("ethtool_k", "netns_tun_mtu1280.txt"), ""),
    }


def test_a_full_tunnel_names_the_nic_of_its_endpoint_route(shell_router, load_fixture):
    """wg0's default (metric 0) wins; the peer's endpoint 203.0.113.55 leaves through eth0: eth0 is the NIC."""
    action = fake(TunnelFacts, {"gather_subset": ["udp_gro"]}, shell_router(full_tunnel(load_fixture)))
    facts = udp_gro_of(action.run(task_vars={}))
    assert [(nic["device"], nic["through_tunnel"], nic["gateways"]) for nic in facts["nics"]] == [
        ("eth0", "wg0", {"inet": "192.0.2.1"})]
    assert facts["nics"][0]["features"]["rx-udp-gro-forwarding"] == "off"
    assert facts["tunnels"]["wg0"]["kind"] == "tun"
    assert len(action.ran) == 1                                 # eth0's own default put it in the batch's ethtool loop


def test_an_underlay_without_a_default_of_its_own_is_read_with_a_command_of_its_own(shell_router, load_fixture):
    host = full_tunnel(load_fixture)
    routes = json.loads(host[ROUTES][1])
    host[ROUTES] = (0, json.dumps([route for route in routes if route.get("gateway") != "192.0.2.1" or route["dst"] != "default"]), "")
    action = fake(TunnelFacts, {"gather_subset": ["udp_gro"]}, shell_router(host))
    facts = udp_gro_of(action.run(task_vars={}))
    assert facts["nics"][0]["device"] == "eth0" and facts["nics"][0]["features"]["rx-udp-gro-forwarding"] == "off"
    assert action.ran[1:] == ["ethtool -k eth0"]


@pytest.mark.parametrize("missing, note", [
    ("uname -r", "the kernel release is unknown (kernel_release: rc="),
    ("ethtool -k eth1", None),                                           # ethtool there, no answer for eth1: its error
])
def test_what_could_not_be_read_is_said_not_failed(shell_router, exit_node, missing, note):
    del exit_node[missing]
    if missing.startswith("ethtool"):
        exit_node["ethtool -k eth0"] = (0, "", "")                       # keeps a stub ethtool on the PATH
    facts = udp_gro_of(fake(TunnelFacts, {"gather_subset": ["udp_gro"]}, shell_router(exit_node)).run(task_vars={}))
    if note:
        assert facts["note"].startswith(note) and facts["kernel_version"] is None
    else:
        assert facts["nics"][0]["features"] is None and "no answer for ethtool -k eth1" in facts["nics"][0]["ethtool_error"]


def test_openwrt_facts_reads_the_same_shape_python_free(shell_router, load_fixture):
    """The OpenWrt-like image: BusyBox-free answers for what the batch runs; routes from ip -j, the NIC eth0."""
    router = {
        "uname -r": (0, load_fixture("uname_r", "openwrt_24.10_6.6.txt"), ""),
        "cat /proc/sys/net/ipv4/ip_forward": (0, "1\n", ""),
        "ip -d -j link show": (0, load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"), ""),
        ROUTES: (0, load_fixture("ip_j_route_show", "openwrt_image_endpoint_pinned.txt"), ""),
        "ip route show table all": (0, "", ""),
        "uci -q show network": (1, "", ""),
        "wg show all dump": (0, "", ""), "date +%s": (0, "1796029496\n", ""),
        "ip -s -j link show": (0, "[]", ""),
        "ethtool -k eth0": (0, load_fixture("ethtool_k", "netns_eth0_udp_gro_fwd_on_gro_list_off.txt"), ""),
    }
    action = fake(OpenWrtFacts, {"gather_subset": ["udp_gro"]}, shell_router(router))
    result = action.run(task_vars={})
    facts = udp_gro_of(result, "tunnelfix_openwrt")
    assert len(action.ran) == 1
    assert set(result["ansible_facts"]["tunnelfix_openwrt"]) == {"udp_gro", "endpoint_routes"}
    assert facts["kernel_version"] == [6, 6, 73] and facts["nics"][0]["device"] == "eth0"
    assert facts["nics"][0]["features"] == {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off", "generic-receive-offload": "on"}


def test_openwrt_facts_says_when_no_route_listing_works(shell_router, load_fixture):
    router = {"uname -r": (0, "6.6.73\n", ""), "cat /proc/sys/net/ipv4/ip_forward": (0, "1\n", ""),
              "ip -d -j link show": (0, "[]", ""), ROUTES: (255, "", "Option \"-j\" is unknown\n"),
              "ip route show table all": (1, "", "ip: RTNETLINK answers: Operation not permitted\n"),
              "uci -q show network": (1, "", ""), "wg show all dump": (0, "", ""), "date +%s": (0, "1796029496\n", ""),
              "ip -s -j link show": (0, "[]", "")}
    facts = udp_gro_of(fake(OpenWrtFacts, {"gather_subset": ["udp_gro"]}, shell_router(router)).run(task_vars={}),
                       "tunnelfix_openwrt")
    assert facts["nics"] == [] and "the routes could not be read" in facts["note"]


def test_openwrt_facts_names_the_nic_of_a_full_tunnels_endpoint_route(shell_router, load_fixture):
    """Case 04 on a router: wg0 is the default route (route_allowed_ips); the endpoint_routes reading found the peer's
    endpoint 203.0.113.55 behind eth0, and the udp_gro gather takes that route as wg0's underlay: eth0 is the NIC."""
    router = dict(full_tunnel(load_fixture), **{
        "uci -q show network": (0, load_fixture("uci_show", "case04_network.txt"), ""),
        "ip route show table all": (0, "", ""), "ip -s -j link show": (0, "[]", "")})
    action = fake(OpenWrtFacts, {"gather_subset": ["udp_gro"]}, shell_router(router))
    result = action.run(task_vars={})
    facts = udp_gro_of(result, "tunnelfix_openwrt")
    assert len(action.ran) == 1
    assert [endpoint["dev"] for endpoint in result["ansible_facts"]["tunnelfix_openwrt"]["endpoint_routes"]["endpoints"]] == ["eth0"]
    assert [(nic["device"], nic["through_tunnel"], nic["gateways"]) for nic in facts["nics"]] == [
        ("eth0", "wg0", {"inet": "192.0.2.1"})]
    assert facts["nics"][0]["features"]["rx-udp-gro-forwarding"] == "off" and facts["note"] is None
