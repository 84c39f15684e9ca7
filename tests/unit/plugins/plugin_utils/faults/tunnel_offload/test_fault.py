# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tunnel_offload_small_mtu (issue 17.8): tso/gso on a layer-3 tunnel below 1500 bytes, no bridge needed.

Facts are built the way tunnel_facts and openwrt_facts build them (remote/tunnel_reader.py), from the
recording of fixtures/README.md "Tunnels' offloads and MSS clamps": tailscale0 (TUN, MTU 1280) and wg0
(TUN, MTU 1420) opened as wireguard-go opens them (tso and gso on), tun0 (plain TUN, MTU 1500), veth eth0,
forwarding on, and firewall4-shaped rulesets. Each decision on both sides of its boundary.
"""

import copy
import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import (
    BY_ID, diagnosis, every_role_plan, find_findings, finding_outcomes, fix_vars_by_host, role_plan)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.fault import TUNNEL_OFFLOAD_SMALL_MTU as TUNNEL
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.plan import tunnel_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.rule import LAN_MTU_BYTES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import (
    add_offloads, add_tunnel_offloads, bridges_subset, parse_ip_link_bridges)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.mss_clamp import clamp_sources, tunnel_mss_clamp
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import parse_ip_forward, parse_ip_link_tunnels

BRIDGE = BY_ID["bridge_offload_small_mtu_tunnel"]
TSO, GSO, GRO = "tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload"
ETHTOOL = {"tailscale0": "netns_tun_vnet_hdr_tso_mtu1280.txt", "wg0": "netns_tun_vnet_hdr_tso_mtu1420.txt",
           "tun0": "netns_tun_plain_mtu1500.txt", "br-lan": "netns_bridge.txt", "lan1": "netns_veth_port.txt"}
NO_CLAMP = {"to_tunnel": False, "from_tunnel": False}


def facts(load_fixture, links="netns_tun_offload_veth_no_bridge.txt", ethtool=None, forward="netns_on.txt",
          ruleset="fw4_mtu_fix_wan_only", edit=None):
    """The bridges subset from recorded output; ``edit(links)`` changes the link list, ``ethtool`` maps device -> fixture."""
    text = load_fixture("ip_d_j_link_show", links)
    if edit:
        text = json.dumps(edit(json.loads(text)))
    bridges, tunnels = parse_ip_link_bridges(text), parse_ip_link_tunnels(text)
    files = dict(ETHTOOL, **(ethtool or {}))

    def reader(device):
        return parse_ethtool_features(load_fixture("ethtool_k", files[device]))

    installed = add_tunnel_offloads(tunnels, reader, add_offloads(bridges, reader))
    subset = bridges_subset(bridges, tunnels, parse_ip_forward(load_fixture("proc_sys_net_ipv4_ip_forward", forward)), installed)
    nft = ("read", load_fixture("nft_list", "netns_ruleset_%s.txt" % ruleset)) if ruleset else ("not installed", "")
    read = clamp_sources({"nft": nft, "iptables": ("not installed", "")})
    for name, tunnel in tunnels.items():
        tunnel["mss_clamp"] = tunnel_mss_clamp(read["rules"], name, tunnel["mtu"], read["complete"])
    return subset


def link(name, **changes):
    def edit(links):
        for item in links:
            if item["ifname"] == name:
                item.update(changes)
        return links
    return edit


def tunnel_findings(subset, key="tunnelfix"):
    return [f for f in find_findings({"router": {key: {"bridges": subset}}}) if f["id"] == TUNNEL.id]


def test_the_recorded_tunnels(load_fixture):
    """wireguard-go-style TUNs at 1280 and 1420 with tso and gso on, firewall4 clamping only the wan zone."""
    found = tunnel_findings(facts(load_fixture))
    assert [f["evidence"] for f in found] == [
        {"tunnel": "tailscale0", "kind": "tun", "tunnel_mtu_bytes": 1280, "offloads_on": [TSO, GSO], "mss_clamp": NO_CLAMP,
         "ip_forward": 1},
        {"tunnel": "wg0", "kind": "tun", "tunnel_mtu_bytes": 1420, "offloads_on": [TSO, GSO], "mss_clamp": NO_CLAMP,
         "ip_forward": 1}]
    finding = found[0]
    assert (finding["severity"], finding["fix_role"], finding["fix_vars"]) == (
        "medium", "tunnelfix.fleet.bridge_gso_off", {"bridge_gso_off_tunnels": ["tailscale0"]})
    text = finding["explanation"]
    assert "MTU of 1280 bytes" in text and "tcp-segmentation-offload and generic-segmentation-offload are on" in text
    assert "No rule clamps the TCP SYNs forwarded into tailscale0" in text and "1460-byte MSS" in text
    assert "no rule clamps the SYNs coming out of tailscale0" in text and "\n" not in text


@pytest.mark.parametrize("ruleset, clamp, said, not_said", [
    ("fw4_mtu_fix_vpn_zone", {"to_tunnel": True, "from_tunnel": True}, "An MSS clamp covers both directions", "No rule"),
    ("iptables_nft_wg_quick", {"to_tunnel": False, "from_tunnel": False}, "No rule clamps", "covers both"),   # wg0 only
    ("fixed_size_clamp", {"to_tunnel": True, "from_tunnel": False}, "No rule clamps the SYNs coming out of tailscale0",
     "forwarded into tailscale0"),
    (None, {"to_tunnel": None, "from_tunnel": None}, "It is unknown whether a rule clamps the TCP SYNs forwarded into", "No rule"),
])
def test_the_clamp_is_evidence_and_named_per_direction(load_fixture, ruleset, clamp, said, not_said):
    """The clamp never decides the finding: the offload does. It says which direction lacks one, or that nobody knows."""
    [finding] = [f for f in tunnel_findings(facts(load_fixture, ruleset=ruleset)) if f["evidence"]["tunnel"] == "tailscale0"]
    assert finding["evidence"]["mss_clamp"] == clamp
    assert said in finding["explanation"] and not_said not in finding["explanation"]


@pytest.mark.parametrize("edit, tunnels", [
    (None, ["tailscale0", "wg0"]),
    # the MTU: 1499 is below Ethernet's 1500, 1500 is not (tun0 is recorded at 1500 and never found)
    (link("tailscale0", mtu=LAN_MTU_BYTES - 1), ["tailscale0", "wg0"]),
    (link("tailscale0", mtu=LAN_MTU_BYTES), ["wg0"]),
    (link("tun0", mtu=1400), ["tailscale0", "wg0"]),        # the plain TUN: gso alone (the kernel's software GSO) is none
    # down is not up; WireGuard and TUNs without carrier say UNKNOWN, which is up
    (link("wg0", operstate="DOWN"), ["tailscale0"]),
    (link("wg0", operstate="UNKNOWN"), ["tailscale0", "wg0"]),
    # a TAP is layer 2, not a tunnel
    (link("tailscale0", linkinfo={"info_kind": "tun", "info_data": {"type": "tap"}}), ["wg0"]),
])
def test_which_tunnels(load_fixture, edit, tunnels):
    assert [f["evidence"]["tunnel"] for f in tunnel_findings(facts(load_fixture, edit=edit))] == tunnels


@pytest.mark.parametrize("state, offloads", [
    ({TSO: "on", GSO: "on"}, [TSO, GSO]),
    ({TSO: "off", GSO: "on"}, None),                      # gso alone: every device's default, cut in software
    ({TSO: "on", GSO: "off"}, [TSO]),
    ({TSO: "on [fixed]", GSO: "on"}, None),               # [fixed] cannot be turned off: the fix could not help
    ({TSO: "on [fixed]", GSO: "on [fixed]"}, None),
    ({TSO: "off", GSO: "off"}, None),
    ({TSO: "off [fixed]", GSO: "off"}, None),
])
def test_the_offloads_on_and_changeable(load_fixture, state, offloads):
    subset = facts(load_fixture)
    subset["tunnels"]["tailscale0"]["features"].update(state)
    found = {f["evidence"]["tunnel"]: f["evidence"]["offloads_on"] for f in tunnel_findings(subset)}
    assert found.get("tailscale0") == offloads


@pytest.mark.parametrize("forward, found", [("netns_on.txt", True), ("netns_off.txt", False)])
def test_forwarding(load_fixture, forward, found):
    assert bool(tunnel_findings(facts(load_fixture, forward=forward))) is found


@pytest.mark.parametrize("change", [
    lambda subset: subset.update(ip_forward=None),                          # unknown is no guess
    lambda subset: [t.update(features=None) for t in subset["tunnels"].values()],     # ethtool could not read them
    lambda subset: [t.pop("features") for t in subset["tunnels"].values()],           # facts of an older collection
    lambda subset: subset.update(ip_json=False, tunnels={}),
    lambda subset: subset["tunnels"]["tailscale0"].update(mtu=True),       # junk
])
def test_missing_facts_give_no_guess(load_fixture, change):
    subset = facts(load_fixture, edit=link("wg0", operstate="DOWN"))
    change(subset)
    assert tunnel_findings(subset) == []


def test_openwrt_facts_read_alike(load_fixture):
    subset = facts(load_fixture)
    assert tunnel_findings(subset, "openwrt") == tunnel_findings(subset, "tunnelfix")


def test_a_bridge_only_host_is_the_bridge_faults_alone(load_fixture):
    """The tfh1-rec host of the bridge fault (br-lan + lan1 with offloads on, tailscale0 a TUN without its owner's offloads,
    gso on) - with the tunnel's gso off, only the bridge is reported: one finding for one device, never two."""
    subset = facts(load_fixture, links="netns_bridge_veth_tun1280_owned_tap.txt",
                   ethtool={"tailscale0": "netns_tun_vnet_hdr_after_tso_gso_off.txt"})
    assert [(f["id"], f["evidence"].get("bridge"), f["evidence"].get("tunnel")) for f in
            find_findings({"router": {"tunnelfix": {"bridges": subset}}})] == [(BRIDGE.id, "br-lan", "tailscale0")]
    checks = diagnosis({"router": {"tunnelfix": {"bridges": subset}}})["checks"]["router"]
    assert checks[TUNNEL.id] == {"status": "clear", "reason": None}


def test_a_bridge_and_its_tunnel_both_on_are_two_findings_on_two_devices(load_fixture):
    subset = facts(load_fixture, links="netns_tun_offload_veth_bridge.txt", edit=link("wg0", operstate="DOWN"))
    found = find_findings({"router": {"tunnelfix": {"bridges": subset}}})
    assert [(f["id"], f["fix_vars"]) for f in found] == [
        (BRIDGE.id, {"bridge_gso_off_bridges": ["br-lan"]}), (TUNNEL.id, {"bridge_gso_off_tunnels": ["tailscale0"]})]
    # one run of the role fixes both
    assert fix_vars_by_host(found) == {"router": {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_tunnels": ["tailscale0"]}}


def test_verify_pairs_findings_by_tunnel(load_fixture):
    before = tunnel_findings(facts(load_fixture))
    fixed = facts(load_fixture, ethtool={"tailscale0": "netns_tun_vnet_hdr_after_tso_gso_off.txt"})
    after = tunnel_findings(fixed)
    outcomes = {(o["evidence"]["tunnel"], o["outcome"]) for o in finding_outcomes(before, after, {"router": {}})}
    assert outcomes == {("tailscale0", "fixed"), ("wg0", "still_present")}


# plan -----------------------------------------------------------------------------------------------

def view(load_fixture, **kwargs):
    return {"tunnelfix": {"bridges": facts(load_fixture, **kwargs)}}


AFTER = {"tailscale0": "netns_tun_vnet_hdr_after_tso_gso_off.txt"}


@pytest.mark.parametrize("kwargs, role_vars, expected", [
    # the action's command: one per device, features in the order asked (the default: tso, gso)
    ({}, {"bridge_gso_off_tunnels": ["tailscale0"]}, ["ethtool -K tailscale0 tso off gso off"]),
    ({}, {"bridge_gso_off_tunnels": "tailscale0", "bridge_gso_off_tunnel_features": "tso"}, ["ethtool -K tailscale0 tso off"]),
    ({"ethtool": AFTER}, {"bridge_gso_off_tunnels": ["tailscale0"], "bridge_gso_off_persist": False}, []),
    ({"ethtool": AFTER}, {"bridge_gso_off_tunnels": ["tailscale0"]}, None),      # the udev rule / hotplug script is not read
    ({}, {"bridge_gso_off_tunnels": []}, []),                                   # no tunnel named: the bridges' plan speaks
    ({}, {}, []),
    ({}, {"bridge_gso_off_tunnels": ["eth9"]}, None),                           # not a tunnel the facts know: the role says
    ({}, {"bridge_gso_off_tunnels": ["tailscale0"], "bridge_gso_off_tunnel_features": ["rx"]}, None),
])
def test_tunnel_plan(load_fixture, kwargs, role_vars, expected):
    assert tunnel_plan(view(load_fixture, **kwargs), role_vars) == expected


def test_plan_without_facts_cannot_tell(load_fixture):
    assert tunnel_plan({}, {"bridge_gso_off_tunnels": ["wg0"]}) is None
    unread = view(load_fixture)
    unread["tunnelfix"]["bridges"]["tunnels"]["tailscale0"]["features"] = None
    assert tunnel_plan(unread, {"bridge_gso_off_tunnels": ["tailscale0"], "bridge_gso_off_persist": False}) is None


def test_the_role_plan_joins_bridges_and_tunnels(load_fixture):
    both = view(load_fixture, links="netns_tun_offload_veth_bridge.txt")
    role_vars = {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_tunnels": ["wg0"], "bridge_gso_off_persist": False}
    assert role_plan(TUNNEL.fix_role, both, role_vars) == [
        "ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off", "ethtool -K wg0 tso off gso off"]


@pytest.mark.parametrize("host_vars, runs", [
    ({"bridge_gso_off_tunnels": ["wg0"]}, True),        # tunnels alone are enough to run the role
    ({"bridge_gso_off_bridges": ["br-lan"]}, True),
    ({"bridge_gso_off_bridges": [], "bridge_gso_off_tunnels": []}, False),
    ({}, False),
])
def test_every_role_mode_runs_the_role_for_bridges_or_tunnels(host_vars, runs):
    plan = every_role_plan(["tunnelfix_openwrt"], host_vars)
    assert (TUNNEL.fix_role in plan["roles"]) is runs
    if not runs:
        assert plan["skipped"][TUNNEL.fix_role].startswith(
            "bridge_gso_off_bridges or bridge_gso_off_tunnels is not set for this host (the role needs one of them")


def test_the_rule_does_not_change_the_facts(load_fixture):
    subset = facts(load_fixture)
    kept = copy.deepcopy(subset)
    tunnel_findings(subset)
    assert subset == kept


@pytest.mark.parametrize("kind, found", [("tun", True), ("wireguard", False), ("gre", True)])
def test_in_kernel_wireguard_cuts_its_own_super_packets(load_fixture, kind, found):
    """tso on and changeable on every kind: in-kernel WireGuard segments to its MTU before encrypting (no finding)."""
    subset = facts(load_fixture)
    subset["tunnels"]["tailscale0"]["kind"] = kind
    assert ("tailscale0" in [f["evidence"]["tunnel"] for f in tunnel_findings(subset)]) is found


def test_one_offload_is_on(load_fixture):
    subset = facts(load_fixture)
    subset["tunnels"]["tailscale0"]["features"]["generic-segmentation-offload"] = "off"
    [finding] = [f for f in tunnel_findings(subset) if f["evidence"]["tunnel"] == "tailscale0"]
    assert "while tcp-segmentation-offload is on for it" in finding["explanation"]
