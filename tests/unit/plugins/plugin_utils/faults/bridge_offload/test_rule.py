# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bridge_offload_small_mtu_tunnel (fault 5): the rule through the registry on facts built from recorded output, both
sides of each decision, and on the lab's recorded views (moved from test_registry_lab.py with the fault's folder)."""

import json
import types

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings, fix_vars_by_host
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import (
    add_offloads, bridges_subset, parse_ip_link_bridges)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    parse_ip_forward, parse_ip_link_tunnels)


@pytest.fixture
def before(load_fixture):
    return json.loads(load_fixture("host_views", "lab_before.json"))


# --- bridge_offload_small_mtu_tunnel (fault 5) -----------------------------------------------------
# Facts built the way tunnel_facts and openwrt_facts build them, from recorded output: the tfh1-rec
# namespace's ip -d -j link show (br-lan MTU 1500 + veth lan1, TUN tailscale0 MTU 1280, TAP tap0; see
# test_tunnel_links.py), ethtool -k of such a bridge and veth port (netns_*), /proc ip_forward.

GSO, TSO, GRO = "generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload"
OWNED, NO_CARRIER = "netns_bridge_veth_tun1280_owned_tap.txt", "netns_bridge_veth_tun1280_no_carrier_tap.txt"
ON = types.MappingProxyType({"br-lan": "netns_bridge.txt", "lan1": "netns_veth_port.txt"})
ALL_OFF = "netns_bridge_after_tso_gso_gro_off.txt"


def bridge_facts(load_fixture, links=OWNED, ethtool=ON, forward="netns_on.txt", edit_links=None):
    """The ``bridges`` subset from recorded output; ``ethtool`` maps device -> ethtool_k fixture (None: no ethtool)."""
    text = load_fixture("ip_d_j_link_show", links)
    if edit_links:
        text = json.dumps(edit_links(json.loads(text)))
    bridges, tunnels = parse_ip_link_bridges(text), parse_ip_link_tunnels(text)
    installed = add_offloads(bridges, lambda device: None if ethtool is None else parse_ethtool_features(
        load_fixture("ethtool_k", ethtool[device])))
    ip_forward = parse_ip_forward(load_fixture("proc_sys_net_ipv4_ip_forward", forward)) if forward else None
    return bridges_subset(bridges, tunnels, ip_forward, installed)


def _link(name, **changes):
    """An ``edit_links`` that changes one recorded link's top-level keys (``linkinfo`` replaced whole)."""
    def edit(links):
        for link in links:
            if link["ifname"] == name:
                link.update(changes)
        return links
    return edit


def _add_wg0(links):
    """A second tunnel next to tailscale0: tap0 relabelled as in-kernel WireGuard (no such driver here)."""
    return _link("tap0", ifname="wg0", mtu=1420, operstate="UNKNOWN", link_type="none",
                 linkinfo={"info_kind": "wireguard"})(links)


def _fixed_only(facts):
    """Every gso/tso/gro that is on marked [fixed], as on a NIC that cannot turn them off."""
    for device in [facts["bridges"]["br-lan"]] + list(facts["bridges"]["br-lan"]["ports"].values()):
        split = device["gso_tso_gro"]
        split["on_fixed"], split["on"] = split["on"], []
    return facts


EVIDENCE = {"bridge": "br-lan", "bridge_mtu_bytes": 1500, "tunnel": "tailscale0", "tunnel_mtu_bytes": 1280,
            "kind": "tun", "offloads_on": {"br-lan": [GSO, TSO, GRO], "lan1": [GSO, TSO]}, "ip_forward": 1}


@pytest.mark.parametrize("key, build, change, expected", [
    # present: Linux (tunnel_facts) and OpenWrt (openwrt_facts) read alike
    ("tunnelfix", {}, None, EVIDENCE),
    ("openwrt", {}, None, EVIDENCE),
    # only the port still has them on, or only the bridge
    ("tunnelfix", {"ethtool": {"br-lan": ALL_OFF, "lan1": "netns_veth_port.txt"}}, None,
     dict(EVIDENCE, offloads_on={"lan1": [GSO, TSO]})),
    ("openwrt", {"ethtool": {"br-lan": "netns_bridge.txt", "lan1": ALL_OFF}}, None,
     dict(EVIDENCE, offloads_on={"br-lan": [GSO, TSO, GRO]})),
    # WireGuard is up with operstate UNKNOWN (it never reports carrier); tailscale0 is smaller and named
    ("tunnelfix", {"edit_links": _add_wg0}, None, EVIDENCE),
    # tailscale0 without its daemon (NO-CARRIER, DOWN): the up WireGuard is the one named
    ("tunnelfix", {"links": NO_CARRIER, "edit_links": _add_wg0}, None,
     dict(EVIDENCE, tunnel="wg0", tunnel_mtu_bytes=1420, kind="wireguard")),
    # absent: tunnel down, forwarding off or unknown, offloads off or [fixed] or unknown, MTU not smaller
    ("tunnelfix", {"links": NO_CARRIER}, None, None),
    ("tunnelfix", {"forward": "netns_off.txt"}, None, None),
    ("openwrt", {"forward": None}, None, None),
    ("tunnelfix", {"ethtool": {"br-lan": ALL_OFF, "lan1": ALL_OFF}}, None, None),
    ("openwrt", {}, _fixed_only, None),
    ("tunnelfix", {"ethtool": None}, None, None),
    ("tunnelfix", {"edit_links": _link("tailscale0", mtu=1500)}, None, None),
    ("openwrt", {"edit_links": _link("br-lan", mtu=1280)}, None, None),
    ("openwrt", {"links": "openwrt_image_bridge_two_veth.txt",
                 "ethtool": {"br-lan": "openwrt_image_br-lan.txt", "lan1": "openwrt_image_lan1.txt",
                             "lan2": "openwrt_image_lan2_gro_on.txt"}}, None, None),   # no tunnel at all
    # facts that say ip failed: nothing known, nothing found
    ("tunnelfix", {}, lambda facts: dict(facts, ip_json=False), None),
])
def test_bridge_offload_small_mtu_tunnel(load_fixture, key, build, change, expected):
    facts = bridge_facts(load_fixture, **build)
    views = {"router": {key: {"bridges": change(facts) if change else facts}}}
    found = [f for f in find_findings(views) if f["id"] == "bridge_offload_small_mtu_tunnel"]
    if expected is None:
        assert found == []
        return
    assert len(found) == 1
    finding = found[0]
    assert finding["evidence"] == expected
    assert (finding["host"], finding["severity"], finding["fix_role"]) == ("router", "high", "tunnelfix.fleet.bridge_gso_off")
    assert finding["fix_vars"] == {"bridge_gso_off_bridges": ["br-lan"]}
    assert expected["tunnel"] in finding["explanation"] and "\n" not in finding["explanation"]
    assert find_findings(views) == found  # nothing else from these facts


def test_one_finding_per_bridge(load_fixture):
    """lan1p relabelled a second bridge (MTU 1500, no ports): each bridge gets its own finding and role variable."""
    facts = bridge_facts(load_fixture, ethtool=dict(ON, lan1p="netns_bridge.txt"),
                         edit_links=_link("lan1p", linkinfo={"info_kind": "bridge", "info_data": {"stp_state": 0}}))
    found = find_findings({"router": {"tunnelfix": {"bridges": facts}}})
    assert [(f["evidence"]["bridge"], f["fix_vars"]) for f in found] == [
        ("br-lan", {"bridge_gso_off_bridges": ["br-lan"]}), ("lan1p", {"bridge_gso_off_bridges": ["lan1p"]})]
    assert found[1]["evidence"]["offloads_on"] == {"lan1p": [GSO, TSO, GRO]}


@pytest.mark.parametrize("view", [
    {"tunnelfix": {"bridges": None}},
    {"openwrt": {"bridges": {"ip_json": True, "ethtool_installed": None, "bridges": {}}}},  # lab_before's owrt shape
    {"openwrt": {"bridges": {"ip_json": True, "ip_forward": 1, "tunnels": {"wg0": {"kind": "tun", "mtu": None}},
                             "bridges": {"br-lan": {"mtu": 1500, "gso_tso_gro": {"on": [GSO]}, "ports": {}}}}}},
])
def test_bridge_offload_missing_facts_give_no_guess(view):
    assert find_findings({"router": view}) == []


def test_only_the_bridge_finding_has_fix_vars(before):
    found = find_findings(before)
    assert [f["id"] for f in found if "fix_vars" in f] == ["bridge_offload_small_mtu_tunnel"]
    assert fix_vars_by_host(found) == {"owrt": {"bridge_gso_off_bridges": ["br-lan"]}}


def test_the_lab_bridge_evidence(before):
    """owrt's br-lan as recorded on the lab: wireguard-go's TUN wg0 (1420) forwarding into br-lan (1500)."""
    found = [f for f in find_findings(before) if f["id"] == "bridge_offload_small_mtu_tunnel"]
    assert len(found) == 1
    evidence = found[0]["evidence"]
    assert (evidence["bridge"], evidence["bridge_mtu_bytes"], evidence["tunnel"], evidence["tunnel_mtu_bytes"],
            evidence["kind"], evidence["ip_forward"]) == ("br-lan", 1500, "wg0", 1420, "tun", 1)
    assert set(evidence["offloads_on"]) == {"br-lan", "lan1"}
    assert TSO in evidence["offloads_on"]["lan1"]
