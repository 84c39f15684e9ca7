# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each fault's pure plan (Fault.plan): what its role would change, from the facts alone; [] converged, None cannot tell.

Both sides of every decision, the recorded lab views (fixtures/host_views: diagnose on a fresh lab,
and after remediate), and the defaults each plan assumes against the role's own defaults/main.yml.
"""

import copy
import json
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.plan import APPLY_PLAN, limit_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import route_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import (
    BY_ID, FAULTS, FIX_ROLES, every_role_plan, remediate_plans, role_plan)

REPO = Path(__file__).resolve().parents[5]
BANIP_ROLE, ROUTE_ROLE = BY_ID["banip_icmp_limit_drops_health_checks"].fix_role, BY_ID["endpoint_route_pinned"].fix_role
KEEPALIVE_ROLE = BY_ID["nat_peer_without_keepalive"].fix_role
CC_ROLE, BRIDGE_ROLE = BY_ID["loss_sensitive_congestion_control"].fix_role, BY_ID["bridge_offload_small_mtu_tunnel"].fix_role
MTU_ROLE = BY_ID["path_mtu_black_hole"].fix_role   # needs wireguard_mtu_tunnels: skipped wherever it is unset
UDP_GRO_ROLE = BY_ID["udp_gro_forwarding_off"].fix_role   # opt-in: skipped wherever udp_gro_forwarding_enable is unset
KEY_A, KEY_B = "A" * 43 + "=", "B" * 43 + "="
DIRS = {"wg_quick": "/etc/wireguard", "networkd": "/etc/systemd/network"}


@pytest.fixture
def lab(load_fixture):
    """The recorded views, with one fact they were recorded without: the owrt router's full-tunnel hook (fault 1's
    reading probes it since). It had none: its image ships /etc/hotplug.d/iface/ with mwan3's two scripts only
    (lab/images/openwrt/README.md) and its one tunnel, wg0, is split, for which the role never installs it."""
    views = {phase: json.loads(load_fixture("host_views", "lab_%s.json" % phase)) for phase in ("before", "after")}
    for phase in views.values():
        phase["owrt"]["openwrt"]["endpoint_routes"].setdefault("hotplug_hook_exists", False)
        phase["owrt"]["openwrt"]["endpoint_routes"].setdefault("old_hotplug_hook_exists", False)
    return views


def test_every_fixing_fault_has_a_plan_and_its_defaults_are_the_roles():
    for fault in FAULTS:
        if not fault.fix_role:
            continue
        assert fault.plan(fault_view := {}, {}) is None, fault.id   # no facts: cannot tell
        assert fault_view == {}
        defaults = yaml.safe_load((REPO / "roles" / fault.fix_role.rsplit(".", 1)[1] / "defaults" / "main.yml").read_text())
        assert fault.fix_defaults and {name: defaults[name] for name in fault.fix_defaults} == fault.fix_defaults, fault.id


def test_the_fresh_lab_plans_the_planted_faults(lab):
    owrt, peer = lab["before"]["owrt"], lab["before"]["peer"]
    assert role_plan(BANIP_ROLE, owrt, {}) == ["banip.global.ban_icmplimit: unset -> 250",
                                               "live ICMP flood rule: 25/s -> 250/s (%s)" % APPLY_PLAN["replace_rule"]]
    assert role_plan(ROUTE_ROLE, owrt, {}) == ["network.wg0.nohostroute: unset -> '1'",
                                               "delete the pinned route 198.51.100.1 via 100.64.20.1 dev wwan0 (endpoint of wg0)"]
    # recorded before the facts read the configuration files: cannot tell; with the fresh peer's wg0.conf
    # (the lab's, without PersistentKeepalive: fixtures/wg_config_peers/lab_peer.txt before the fix), the change
    assert role_plan(KEEPALIVE_ROLE, peer, {}) is None
    peer = copy.deepcopy(peer)
    peer["tunnelfix"]["wireguard"].update(config_dirs=DIRS, configs=[
        {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
         "peers": [{"public_key": KEY_A, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": None}]}])
    assert role_plan(KEEPALIVE_ROLE, peer, {}) == ["/etc/wireguard/wg0.conf: PersistentKeepalive of peer %s: unset -> 25" % KEY_A,
                                                   "wg set wg0 peer %s persistent-keepalive 25" % KEY_A]
    # these views were recorded before the facts read the drop-ins: a plan that cannot tell ...
    assert role_plan(CC_ROLE, peer, {}) is None
    # ... and with the fresh peer's drop-ins (the lab's own 10-tunnelfix-lab.conf; fixtures/sysctl_dropins)
    peer = copy.deepcopy(peer)
    peer["tunnelfix"]["tcp"].update(sysctl_dropins={"/etc/sysctl.d/10-tunnelfix-lab.conf": {"net.ipv4.tcp_congestion_control": "cubic"}},
                                    tcp_bbr_module_files=[])
    assert role_plan(CC_ROLE, peer, {}) == [
        "net.ipv4.tcp_congestion_control: cubic -> bbr", "net.ipv4.tcp_wmem: 4096 16384 4194304 -> 4096 16384 33554432",
        "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf: write net.ipv4.tcp_congestion_control = bbr, "
        "net.ipv4.tcp_rmem = 4096 131072 33554432, net.ipv4.tcp_wmem = 4096 16384 33554432"]


def test_the_fixed_lab_is_converged_where_the_facts_can_tell(lab):
    owrt, peer = lab["after"]["owrt"], lab["after"]["peer"]
    for role in (BANIP_ROLE, ROUTE_ROLE, KEEPALIVE_ROLE):
        assert role_plan(role, owrt, {}) == [], role
    # Linux: recorded before the facts read the files the roles write: cannot tell
    assert role_plan(KEEPALIVE_ROLE, peer, {"wireguard_keepalive_persistent_keepalive_s": 5}) is None
    assert role_plan(CC_ROLE, peer, {}) is None
    plan = every_role_plan(owrt["groups"], {"bridge_gso_off_bridges": ["br-lan"]}, owrt)
    assert plan["roles"] == [CC_ROLE, BRIDGE_ROLE]
    assert sorted(plan["skipped"]) == sorted([BANIP_ROLE, ROUTE_ROLE, KEEPALIVE_ROLE, MTU_ROLE, UDP_GRO_ROLE])
    assert all(reason.startswith("converged") for role, reason in plan["skipped"].items() if role not in (MTU_ROLE, UDP_GRO_ROLE))
    assert plan["skipped"][MTU_ROLE].startswith("wireguard_mtu_tunnels is not set")
    assert plan["skipped"][UDP_GRO_ROLE].startswith("left alone: udp_gro_forwarding_enable is not true")


def test_a_changed_variable_is_a_change(lab):
    """The user CI's every-role run applies a changed inventory value: the plan sees it."""
    owrt = lab["after"]["owrt"]
    assert role_plan(KEEPALIVE_ROLE, owrt, {"wireguard_keepalive_persistent_keepalive_s": 30}) == [
        "network.hub.persistent_keepalive: 25 -> 30", "wg set wg0 peer %s persistent-keepalive 30" % KEY_A]
    assert role_plan(BANIP_ROLE, owrt, {"banip_icmp_limit_per_second": "300"}) == [
        "banip.global.ban_icmplimit: '250' -> 300", "live ICMP flood rule: 250/s -> 300/s (%s)" % APPLY_PLAN["replace_rule"]]


# banIP ------------------------------------------------------------------------------------------

def banip_view(**banip):
    return {"openwrt": {"banip": dict({"installed": True, "enabled": True, "nft_installed": True, "nft_table_loaded": True,
                                       "ban_icmplimit": None, "icmp_limit_rule": None}, **banip)}}


LIVE = "live ICMP flood rule: %s/s -> %s/s (%s)"
IN_PLACE, RESTART = APPLY_PLAN["replace_rule"], APPLY_PLAN["restart"]


@pytest.mark.parametrize("banip, role_vars, expected", [
    ({"ban_icmplimit": "250"}, {}, []),
    ({"ban_icmplimit": "250", "icmp_limit_rule": {"rate_per_second": 250}}, {}, []),
    # issue 28: uci already right, the live rule stale (a reload did not rebuild it): the live rule is planned
    ({"ban_icmplimit": "250", "icmp_limit_rule": {"rate_per_second": 25}}, {}, [LIVE % (25, 250, IN_PLACE)]),
    ({"ban_icmplimit": "250", "icmp_limit_rule": {"rate_per_second": 10}}, {"banip_icmp_apply": "restart"},
     [LIVE % (10, 250, RESTART)]),
    ({"icmp_limit_rule": {"rate_per_second": 25}}, {}, ["banip.global.ban_icmplimit: unset -> 250", LIVE % (25, 250, IN_PLACE)]),
    ({"ban_icmplimit": "249"}, {}, ["banip.global.ban_icmplimit: '249' -> 250"]),
    ({"ban_icmplimit": "251"}, {}, ["banip.global.ban_icmplimit: '251' -> 250"]),
    ({}, {}, ["banip.global.ban_icmplimit: unset -> 250"]),
    ({"enabled": None}, {}, ["banip.global.ban_icmplimit: unset -> 250"]),   # unset: banIP's call
    ({"ban_icmplimit": "100"}, {"banip_icmp_limit_per_second": 100}, []),
    ({"installed": False, "ban_icmplimit": "25"}, {}, []),          # the role changes nothing without banIP
    # nor where banIP is switched off, stopped, or its table cannot be read: no write, no restart
    ({"enabled": False, "ban_icmplimit": "25", "icmp_limit_rule": {"rate_per_second": 25}}, {}, []),
    ({"nft_table_loaded": False, "ban_icmplimit": "25"}, {}, []),
    ({"nft_installed": False, "nft_table_loaded": None}, {}, []),
    ({"installed": None}, {}, None),
    ({}, {"banip_icmp_limit_per_second": "lots"}, None),            # the role fails naming it
    ({}, {"banip_icmp_limit_per_second": True}, None),
    ({}, {"banip_icmp_apply": "reload"}, None),
])
def test_banip_plan(banip, role_vars, expected):
    assert limit_plan(banip_view(**banip), role_vars) == expected


# endpoint route ---------------------------------------------------------------------------------

def route_view(tunnel="split", nohostroute=False, pinned=None, in_uci=True, interface="wg0", options=None):
    return {"openwrt": {
        "wireguard": {"interfaces": {interface: {"in_uci": in_uci, "tunnel": tunnel, "nohostroute": nohostroute, "peers": [],
                                                 "options": options or {}}}},
        "endpoint_routes": {"endpoints": [{"interface": "wg0", "address": "203.0.113.10", "pinned_routes": pinned or []}],
                            "hotplug_hook_exists": False, "old_hotplug_hook_exists": False}}}


PINNED = [{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0"}]


@pytest.mark.parametrize("view, role_vars, expected", [
    (route_view(nohostroute=True), {}, []),
    (route_view(), {}, ["network.wg0.nohostroute: unset -> '1'"]),
    # written but not the literal '1' that netifd honours: still pinned, still a change
    (route_view(options={"nohostroute": "true"}), {}, ["network.wg0.nohostroute: 'true' (netifd honours only '1') -> '1'"]),
    (route_view(nohostroute=True, pinned=PINNED), {},
     ["delete the pinned route 203.0.113.10 via 198.51.100.1 dev wwan0 (endpoint of wg0)"]),
    (route_view(nohostroute=True, pinned=PINNED, interface="wg1"), {}, []),    # another interface's endpoint
    (route_view(in_uci=False), {}, []),                                        # live only: not the role's
    (route_view(tunnel="full", nohostroute=True), {"openwrt_mwan3_wg_full_tunnel_hotplug": False},
     ["network.wg0.nohostroute: '1' -> unset (a full tunnel needs the endpoint's host route)"]),
    (route_view(tunnel="full"), {"openwrt_mwan3_wg_full_tunnel_hotplug": False}, []),
    (route_view(tunnel="full"), {}, None),                                     # the hotplug file is not in the facts
    (route_view(tunnel=None), {}, None),
    (route_view(nohostroute=True), {"openwrt_mwan3_wg_interfaces": ["wg9"]}, None),
    (route_view(nohostroute=True), {"openwrt_mwan3_wg_interfaces": "wg0"}, []),
])
def test_route_plan(view, role_vars, expected):
    assert route_plan(view, role_vars) == expected


def test_route_plan_needs_both_facts():
    view = route_view()
    del view["openwrt"]["endpoint_routes"]
    assert route_plan(view, {}) is None


# the registry -----------------------------------------------------------------------------------

def test_role_plan_of_odd_facts_cannot_tell():
    assert role_plan(BANIP_ROLE, {"openwrt": {"banip": "installed"}}, {}) is None


def test_every_role_mode_skips_only_what_the_facts_show_converged(lab):
    host_vars = {"owrt": {"group_names": lab["after"]["owrt"]["groups"],
                          "tunnelfix_gathered_facts": {"ansible_facts": {"tunnelfix_openwrt": lab["after"]["owrt"]["openwrt"]}}},
                 "fresh": {"group_names": lab["before"]["owrt"]["groups"],
                           "tunnelfix_gathered_facts": {"ansible_facts": {"tunnelfix_openwrt": lab["before"]["owrt"]["openwrt"]}}},
                 "unread": {"group_names": ["tunnelfix_openwrt"]}}
    plans = remediate_plans(None, host_vars, ["owrt", "fresh", "unread"], True)
    assert plans["owrt"]["roles"] == [CC_ROLE]                          # the router's TCP facts are not gathered
    assert [role for role in FIX_ROLES if role in plans["owrt"]["skipped"]] == [
        BANIP_ROLE, ROUTE_ROLE, KEEPALIVE_ROLE, MTU_ROLE, BRIDGE_ROLE, UDP_GRO_ROLE]
    assert plans["fresh"]["roles"] == [BANIP_ROLE, ROUTE_ROLE, CC_ROLE]   # its keepalive was right before the fix
    assert plans["fresh"]["changes"][ROUTE_ROLE][0] == "network.wg0.nohostroute: unset -> '1'"
    assert CC_ROLE not in plans["fresh"]["changes"]                     # runs, but nothing to list
    assert plans["unread"]["roles"] == [BANIP_ROLE, ROUTE_ROLE]         # no facts: every role of its groups runs
    assert plans["unread"]["changes"] == {}


def test_plans_do_not_change_the_view(lab):
    view = copy.deepcopy(lab["before"]["owrt"])
    for role in FIX_ROLES:
        role_plan(role, view, {})
    assert view == lab["before"]["owrt"]
