# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bridges and ports from ``ip -d -j link show``; offload facts from ``ethtool -k``."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.module_utils._openwrt_bridges import (
    device_offloads, parse_ip_link_bridges)

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
