# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bridges and ports from ``ip -d -j link show``; offload facts from ``ethtool -k``; the ``bridges`` subset."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import (
    add_offloads, add_tunnel_offloads, bridges_subset, device_offloads, load_ip_links, parse_ip_link_bridges)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import parse_ip_link_tunnels

GSO, TSO, GRO = "generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"


def test_recorded_bridge_with_two_veth_ports(load_fixture):
    bridges = parse_ip_link_bridges(load_fixture("ip_d_j_link_show", "openwrt_image_bridge_two_veth.txt"))
    port = {"kind": "veth", "mtu": 1500, "operstate": "UP", "port_state": "forwarding"}
    assert bridges == {"br-lan": {"mtu": 1500, "operstate": "UP", "stp": False, "vlan_filtering": False,
                                  "ports": {"lan1": port, "lan2": port}}}  # not eth0, lan1p, lan2p


def test_bridge_without_ports_and_non_bridge_master(load_fixture):
    links = json.loads(load_fixture("ip_d_j_link_show", "openwrt_image_bridge_two_veth.txt"))
    for link in links:
        if link["ifname"] == "lan2":
            link["master"] = "bond0"  # a bond port is not a bridge port
            link["linkinfo"]["info_slave_kind"] = "bond"
        if link["ifname"] == "lan1p":
            link["linkinfo"] = {"info_kind": "bridge"}  # a second bridge, no details printed
    bridges = parse_ip_link_bridges(json.dumps(links))
    assert list(bridges["br-lan"]["ports"]) == ["lan1"]
    assert bridges["lan1p"] == {"mtu": 1500, "operstate": "UP", "stp": None, "vlan_filtering": None, "ports": {}}


@pytest.mark.parametrize("text, expected", [("", {}), ("[]", {})])
def test_no_links(text, expected):
    assert parse_ip_link_bridges(text) == expected


@pytest.mark.parametrize("text, message", [
    ("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536\n", "is not JSON"),
    ('{"ifname": "lo"}', "JSON list of links"),
    ('[{"mtu": 1500}]', "JSON list of links"),
    (None, "must be text"),
])
def test_bad_link_output(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ip_link_bridges(text)


@pytest.mark.parametrize("case, on, on_fixed, off", [
    ("openwrt_image_lan1.txt", [GSO, TSO], [], [GRO]),
    ("openwrt_image_lan2_gro_on.txt", [GSO, TSO, GRO], [], []),
    ("netns_bridge_after_tso_gso_gro_off.txt", [], [], [GSO, TSO, GRO]),
])
def test_gso_tso_gro_split(load_fixture, case, on, on_fixed, off):
    facts = device_offloads(parse_ethtool_features(load_fixture("ethtool_k", case)))
    assert facts["gso_tso_gro"] == {"on": on, "on_fixed": on_fixed, "off": off}


def test_fixed_is_marked(load_fixture):
    features = device_offloads(parse_ethtool_features(load_fixture("ethtool_k", "openwrt_image_br-lan.txt")))["features"]
    assert features["rx-checksumming"] == "off [fixed]"
    assert features["large-receive-offload"] == "off [fixed]"
    assert (features[GSO], features["rx-gro-list"]) == ("on", "off")


def test_on_and_fixed_lands_in_on_fixed():
    parsed = parse_ethtool_features("Features for x:\ngeneric-segmentation-offload: on [fixed]\n"
                                    "generic-receive-offload: off [requested on]\n")
    facts = device_offloads(parsed)
    assert facts == {"features": {GSO: "on [fixed]", GRO: "off"},
                     "gso_tso_gro": {"on": [], "on_fixed": [GSO], "off": [GRO]}}


def test_device_offloads_needs_parsed_features():
    with pytest.raises(ParseError, match="parse_ethtool_features"):
        device_offloads({"interface": "x"})


def test_recorded_linux_bridge_next_to_a_tun_and_a_tap(load_fixture):
    """tfh1-rec (test_tunnel_links.py): tailscale0 and tap0 are not bridge ports, lan1p is lan1's peer."""
    bridges = parse_ip_link_bridges(load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"))
    assert bridges == {"br-lan": {"mtu": 1500, "operstate": "UP", "stp": False, "vlan_filtering": False, "ports": {
        "lan1": {"kind": "veth", "mtu": 1500, "operstate": "UP", "port_state": "forwarding"}}}}


def test_load_ip_links_gives_every_device(load_fixture):
    links = load_ip_links(load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"))
    assert [link["ifname"] for link in links] == ["lo", "br-lan", "lan1p", "lan1", "tailscale0", "tap0"]


NO_DEVICE = "netlink error: no device matches name (offset 24)"


def _ethtool_reader(load_fixture, answers, asked):
    """add_offloads' reader: an ethtool_k fixture name is parsed, an error string or None (no ethtool) returned as is."""
    def read(device):
        asked.append(device)
        answer = answers[device]
        return parse_ethtool_features(load_fixture("ethtool_k", answer)) if answer and answer.endswith(".txt") else answer
    return read


@pytest.mark.parametrize("answers, installed, asked, bridge_on, lan1", [
    ({"lan1": "netns_veth_port.txt", "br-lan": "netns_bridge.txt"}, True, ["lan1", "br-lan"],
     [GSO, TSO, GRO], {"on": [GSO, TSO], "on_fixed": [], "off": [GRO]}),
    ({"lan1": "netns_veth_port.txt", "br-lan": "netns_bridge_after_tso_gso_gro_off.txt"}, True, ["lan1", "br-lan"],
     [], {"on": [GSO, TSO], "on_fixed": [], "off": [GRO]}),
    # the port's ethtool failed: its facts stay null, the bridge is still read
    ({"lan1": NO_DEVICE, "br-lan": "netns_bridge.txt"}, True, ["lan1", "br-lan"], [GSO, TSO, GRO], None),
    # no ethtool: asked once, nothing more
    ({"lan1": None}, False, ["lan1"], None, None),
])
def test_add_offloads(load_fixture, answers, installed, asked, bridge_on, lan1):
    bridges = parse_ip_link_bridges(load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"))
    seen = []
    assert add_offloads(bridges, _ethtool_reader(load_fixture, answers, seen)) is installed
    assert seen == asked
    bridge, port = bridges["br-lan"], bridges["br-lan"]["ports"]["lan1"]
    assert (bridge["gso_tso_gro"] or {}).get("on") == bridge_on
    assert port["gso_tso_gro"] == lan1
    if lan1 is None:
        assert port["features"] is None
        assert port["ethtool_error"] == (answers["lan1"] if installed else None)


def test_add_offloads_without_a_bridge_asks_nothing():
    assert add_offloads({}, lambda device: pytest.fail("asked for %s" % device)) is None


@pytest.mark.parametrize("args, expected", [
    (({"br-lan": {}}, {"wg0": {}}, 1, True), {"ip_json": True, "ethtool_installed": True, "ip_forward": 1, "note": None,
                                              "bridges": {"br-lan": {}}, "tunnels": {"wg0": {}}}),
    (({"br-lan": {}}, {}, None, False), {"ip_json": True, "ethtool_installed": False, "ip_forward": None,
                                         "note": "ethtool is not installed: offload features unknown; "
                                                 "net.ipv4.ip_forward could not be read: forwarding unknown",
                                         "bridges": {"br-lan": {}}, "tunnels": {}}),
    (({}, {}, 0, None, "rc=255: Option \"-d\" is unknown"),
     {"ip_json": False, "ethtool_installed": None, "ip_forward": 0,
      "note": "ip -d -j link show gave no link list (rc=255: Option \"-d\" is unknown): bridges and tunnels unknown",
      "bridges": {}, "tunnels": {}}),
])
def test_bridges_subset(args, expected):
    assert bridges_subset(*args) == expected


@pytest.mark.parametrize("before, answers, installed, asked", [
    # no bridge: the tunnels are the first devices asked
    (None, {"tailscale0": "netns_tun_vnet_hdr_tso_mtu1280.txt", "wg0": "netns_tun_vnet_hdr_tso_mtu1420.txt",
            "tun0": "netns_tun_plain_mtu1500.txt"}, True, ["tailscale0", "tun0", "wg0"]),
    (True, {"tailscale0": "netns_tun_vnet_hdr_tso_mtu1280.txt", "wg0": "error", "tun0": "error"}, True, ["tailscale0", "tun0", "wg0"]),
    (None, {"tailscale0": None}, False, ["tailscale0"]),     # no ethtool: asked once, then nothing more
    (False, {}, False, []),                                  # the bridges found no ethtool: the tunnels ask nothing
])
def test_add_tunnel_offloads(load_fixture, before, answers, installed, asked):
    """Issue 17.8: each tunnel gains the bridges' offload keys; ethtool_installed covers bridges and tunnels alike."""
    tunnels = parse_ip_link_tunnels(load_fixture("ip_d_j_link_show", "netns_tun_offload_veth_no_bridge.txt"))
    seen = []

    def read(device):
        seen.append(device)
        case = answers.get(device)
        if case == "error":
            return "netlink error: no device matches name (offset 24)"
        return None if case is None else parse_ethtool_features(load_fixture("ethtool_k", case))

    assert add_tunnel_offloads(tunnels, read, before) is installed
    assert seen == asked and sorted(tunnels) == ["tailscale0", "tun0", "wg0"]
    tailscale0 = tunnels["tailscale0"]
    if installed:
        assert tailscale0["gso_tso_gro"]["on"] == [GSO, TSO, GRO] and tailscale0["ethtool_error"] is None
        assert tailscale0["features"]["tcp-segmentation-offload"] == "on"
    else:
        assert (tailscale0["features"], tailscale0["gso_tso_gro"], tailscale0["ethtool_error"]) == (None, None, None)
    if answers.get("wg0") == "error":
        assert tunnels["wg0"]["ethtool_error"].startswith("netlink error") and tunnels["wg0"]["features"] is None


# Hostile JSON from a target (issue 30.10): each a ParseError naming the listing, never RecursionError or a bare ValueError.
HOSTILE_LINKS = ["[" * 100000, '[{"ifname": "eth0", "mtu": %s}]' % ("9" * 5000),
                 '[{"ifname": "eth0", "altnames": %s}]' % ("[" * 600 + "]" * 600)]


@pytest.mark.parametrize("parser", [parse_ip_link_bridges, parse_ip_link_tunnels, load_ip_links])
@pytest.mark.parametrize("text", HOSTILE_LINKS, ids=["deep", "5000_digits", "600_levels"])
def test_hostile_json_is_a_parse_error_naming_the_command(parser, text):
    with pytest.raises(ParseError, match=r"^ip -d -j link show output (is JSON nested|holds a value that cannot be read)"):
        parser(text)
