# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""keepalive_on_wrong_side fixed by wireguard_keepalive on the end that keeps the endpoint: the finding's role and vars
per owner (wg-quick, networkd, uci; none for a live-only entry), what the role's plan changes with them, remediate's
choice (a finding's own groups; every-role mode unchanged) and verify's outcome on the views after the fix. Fake keys."""

import copy
import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import (
    BY_ID, FIX_VAR_NAMES, every_role_plan, find_findings, finding_outcomes, fix_vars_by_host, remediate_plans, role_plan)

FAULT = BY_ID["keepalive_on_wrong_side"]
NAT_PEER = BY_ID["nat_peer_without_keepalive"]
ROLE = "tunnelfix.fleet.wireguard_keepalive"
DIRS = {"wg_quick": "/etc/wireguard", "networkd": "/etc/systemd/network"}
HUBS, PEERS, ROUTERS = "tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"


def _found(views):
    return [finding for finding in find_findings(views) if finding["id"] == FAULT.id]


def _with_dirs(view):
    view["tunnelfix"]["wireguard"]["config_dirs"] = dict(DIRS)
    return view


def _hub_starts(tg, owner="wg-quick"):
    """The hub keeps the peer's endpoint and sends no keepalive; the peer keeps none and sends one every 25 s: the
    finding is the hub's (A: a hub, not a peer). ``owner``: who keeps the hub's entry."""
    hub = _with_dirs(tg.linux(tg.HUB, [tg.PEER], endpoints={tg.PEER: "198.51.100.9:41000"}, ages={tg.PEER: 20}))
    if owner == "networkd":
        hub["tunnelfix"]["wireguard"]["configs"][0].update(kind="netdev", path="/etc/systemd/network/30-wg0.netdev")
    elif owner == "live only":
        hub["tunnelfix"]["wireguard"]["configs"] = []
    peer = tg.linux(tg.PEER, [tg.HUB], learned={tg.HUB: "203.0.113.10:51820"}, ages={tg.HUB: 20}, keepalive={tg.HUB: 25})
    return {"hub": hub, "peer": peer}


def _router_starts(tg):
    """An OpenWrt router keeps the hub's endpoint in uci and sends no keepalive; the hub sends one."""
    return {"hub": tg.linux(tg.HUB, [tg.OWRT], learned={tg.OWRT: "198.51.100.7:51820"}, ages={tg.OWRT: 20}, keepalive={tg.OWRT: 25}),
            "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"})}


@pytest.mark.parametrize("owner", ["wg-quick", "networkd"])
def test_a_linux_entry_a_file_keeps_gets_the_role_aimed_at_it(tg, owner):
    (finding,) = _found(_hub_starts(tg, owner))
    assert (finding["host"], finding["evidence"]["owner"], finding["fix_role"]) == ("hub", owner, ROLE)
    assert finding["fix_vars"] == {"wireguard_keepalive_interfaces": ["wg0"], "wireguard_keepalive_public_keys": [tg.PEER]}


def test_a_uci_entry_gets_the_role_aimed_at_it(tg):
    (finding,) = _found(_router_starts(tg))
    assert (finding["host"], finding["evidence"]["owner"], finding["fix_role"]) == ("owrt", "uci", ROLE)
    assert finding["fix_vars"] == {"wireguard_keepalive_interfaces": ["wg0"], "wireguard_keepalive_public_keys": [tg.HUB]}


def test_a_live_only_entry_names_no_role(tg):
    # no file or uci section keeps it: the role would find no peer with the key and fail naming it; wg set alone is lost
    # on the next restart of whatever added the entry, so the finding names the line and no role
    (finding,) = _found(_hub_starts(tg, "live only"))
    assert finding["evidence"]["owner"] == "live only"
    assert finding["fix_role"] is None and "fix_vars" not in finding
    assert "no role: no configuration keeps this entry" in finding["explanation"]
    assert FAULT.fixable(finding["evidence"]) is False


def test_the_fix_vars_hold_only_the_interface_and_the_public_key(tg):
    # never a private or preshared key (the facts read neither), and never the keepalive value: the role's applies
    assert set(FAULT.fix_var_names) == {"wireguard_keepalive_interfaces", "wireguard_keepalive_public_keys"} <= FIX_VAR_NAMES
    assert not [name for name in FIX_VAR_NAMES if "private" in name or "preshared" in name]
    views = _hub_starts(tg)
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["has_preshared_key"] = True
    (finding,) = _found(views)
    # the key named is the other end's own, as its running interface reports it
    assert finding["fix_vars"]["wireguard_keepalive_public_keys"] == [views["peer"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["public_key"]]
    assert "preshared" not in json.dumps(finding["fix_vars"]) and "private" not in json.dumps(finding["fix_vars"])


@pytest.mark.parametrize("owner, lines", [
    ("wg-quick", ["/etc/wireguard/wg0.conf: PersistentKeepalive of peer {k}: unset -> 25", "wg set wg0 peer {k} persistent-keepalive 25"]),
    ("networkd", ["/etc/systemd/network/30-wg0.netdev: PersistentKeepalive of peer {k}: unset -> 25",
                  "wg set wg0 peer {k} persistent-keepalive 25"]),
])
def test_the_roles_plan_with_the_fix_vars_changes_the_entry_in_its_file_and_live(tg, owner, lines):
    views = _hub_starts(tg, owner)
    (finding,) = _found(views)
    assert role_plan(ROLE, views["hub"], finding["fix_vars"]) == [line.format(k=tg.PEER) for line in lines]
    assert FAULT.plan(views["hub"], finding["fix_vars"]) == [line.format(k=tg.PEER) for line in lines]


def test_the_roles_plan_with_the_fix_vars_changes_the_uci_section_and_live(tg):
    views = _router_starts(tg)
    (finding,) = _found(views)
    assert role_plan(ROLE, views["owrt"], finding["fix_vars"]) == [
        "network.@wireguard_wg0[0].persistent_keepalive: unset -> 25", "wg set wg0 peer %s persistent-keepalive 25" % tg.HUB]


def test_the_inventorys_keepalive_value_is_the_one_applied(tg):
    # the finding carries no value: an operator's shorter value for a tight NAT wins over the role's 25 s
    views = _router_starts(tg)
    (finding,) = _found(views)
    role_vars = dict({"wireguard_keepalive_persistent_keepalive_s": 15}, **finding["fix_vars"])
    assert role_plan(ROLE, views["owrt"], role_vars) == [
        "network.@wireguard_wg0[0].persistent_keepalive: unset -> 15", "wg set wg0 peer %s persistent-keepalive 15" % tg.HUB]


def test_the_fix_vars_leave_the_hosts_other_entries_alone(tg):
    # the hub also keeps the router's endpoint without a keepalive, and the router keeps the hub's: both can start that
    # tunnel, no finding; the role on its defaults (every peer with an endpoint) would change it too, the finding's not
    views = _hub_starts(tg)
    hub = _with_dirs(tg.linux(tg.HUB, [tg.PEER, tg.OWRT], endpoints={tg.PEER: "198.51.100.9:41000", tg.OWRT: "198.51.100.7:51820"},
                              ages={tg.PEER: 20, tg.OWRT: 20}))
    views.update(hub=hub, owrt=tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, keepalive={tg.HUB: 25}))
    (finding,) = _found(views)
    assert [line for line in role_plan(ROLE, hub, {}) if tg.OWRT in line]      # the defaults would touch the router's entry
    assert role_plan(ROLE, hub, finding["fix_vars"]) == [
        "/etc/wireguard/wg0.conf: PersistentKeepalive of peer %s: unset -> 25" % tg.PEER, "wg set wg0 peer %s persistent-keepalive 25" % tg.PEER]


def _after_fix(views, host, key, seconds=25):
    """``views`` as verify reads them after the role: the entry's keepalive in its file or uci and live."""
    after = copy.deepcopy(views)
    facts = after[host].get("openwrt") or after[host]["tunnelfix"]
    for iface in facts["wireguard"]["interfaces"].values():
        for peer in iface.get("peers") or []:
            if peer.get("public_key") == key:
                peer["persistent_keepalive_s"] = seconds               # Linux: the running peer; OpenWrt: uci's
                if isinstance(peer.get("live"), dict):
                    peer["live"]["persistent_keepalive_s"] = seconds   # OpenWrt: the running peer
    for config in facts["wireguard"].get("configs") or []:
        for peer in config.get("peers") or []:
            if peer.get("public_key") == key:
                peer["persistent_keepalive_s"] = seconds
    return after


@pytest.mark.parametrize("case", ["wg-quick", "networkd", "uci"])
def test_verify_rebuilds_the_graph_and_the_finding_ends_fixed_and_the_plan_converged(tg, case):
    views = _router_starts(tg) if case == "uci" else _hub_starts(tg, case)
    host, key = ("owrt", tg.HUB) if case == "uci" else ("hub", tg.PEER)
    before = _found(views)
    after_views = _after_fix(views, host, key)
    assert role_plan(ROLE, after_views[host], before[0]["fix_vars"]) == []        # the role's re-run changes nothing
    outcomes = finding_outcomes(before, _found(after_views), after_views)
    assert [(o["host"], o["outcome"], o["rechecked"]) for o in outcomes] == [(host, "fixed", True)]
    # a verify that read only this end cannot tell: the other end's entry is half of the rule
    only = {host: after_views[host]}
    assert [(o["outcome"], o["rechecked"]) for o in finding_outcomes(before, _found(only), only)] == [("still_present", False)]


# ---- remediate: a finding's own groups; every-role mode as before ------------------------------------------------


def test_remediate_runs_the_role_on_a_hub_and_a_router_from_their_findings(tg):
    findings = _found(_hub_starts(tg)) + _found(_router_starts(tg))
    host_vars = {"hub": {"group_names": [HUBS]}, "owrt": {"group_names": [ROUTERS]}}
    plans = remediate_plans(findings, host_vars, ["hub", "owrt"], False)
    assert plans == {
        "hub": {"roles": [ROLE], "skipped": {}, "changes": {},
                "vars": {"wireguard_keepalive_interfaces": ["wg0"], "wireguard_keepalive_public_keys": [tg.PEER]}},
        "owrt": {"roles": [ROLE], "skipped": {}, "changes": {},
                 "vars": {"wireguard_keepalive_interfaces": ["wg0"], "wireguard_keepalive_public_keys": [tg.HUB]}}}


def test_remediate_still_refuses_a_finding_for_a_host_of_no_wireguard_group(tg):
    findings = _found(_hub_starts(tg))
    host_vars = {"hub": {"group_names": ["monitoring"]}}
    with pytest.raises(ValueError, match="tunnelfix.fleet.wireguard_keepalive for hub, which is in none of its groups .*"
                                         "refusing a findings file from another inventory"):
        remediate_plans(findings, host_vars, ["hub"], False)
    plan = remediate_plans(findings, host_vars, ["hub"], False, False)["hub"]
    assert plan["roles"] == [] and "remediate refuses these findings" in plan["skipped"][ROLE]


def _nat_peer_finding(host, key):
    return {"id": NAT_PEER.id, "host": host, "fix_role": ROLE, "severity": NAT_PEER.severity, "evidence": {"peer_public_key": key}}


def test_each_finding_is_held_to_its_own_faults_groups(tg):
    # fault 4's finding only ever comes from a peer: one for a hub is from another inventory, even beside a graph finding
    # that lets the role run there
    host_vars = {"hub": {"group_names": [HUBS]}}
    with pytest.raises(ValueError, match="which is in none of its groups \\(tunnelfix_wireguard_peers\\)"):
        remediate_plans([_nat_peer_finding("hub", tg.PEER)], host_vars, ["hub"], False)
    with pytest.raises(ValueError, match="refusing a findings file"):
        remediate_plans(_found(_hub_starts(tg)) + [_nat_peer_finding("hub", tg.PEER)], host_vars, ["hub"], False)
    # a finding whose id names no fault of the role: the groups every-role mode runs it on (peers), as before
    unknown = [{"id": "not_a_fault", "host": "hub", "fix_role": ROLE}]
    with pytest.raises(ValueError, match="refusing a findings file"):
        remediate_plans(unknown, host_vars, ["hub"], False)
    assert remediate_plans(unknown, {"hub": {"group_names": [PEERS]}}, ["hub"], False)["hub"]["roles"] == [ROLE]


@pytest.mark.parametrize("groups, runs", [([HUBS], False), ([ROUTERS], False), ([PEERS], True), ([ROUTERS, PEERS], True)])
def test_every_role_mode_runs_the_role_where_it_did_before(groups, runs):
    plan = every_role_plan(groups, {})
    assert (ROLE in plan["roles"]) is runs and ROLE not in plan["skipped"]
    plans = remediate_plans(None, {"h": {"group_names": groups}}, ["h"], True)
    assert (ROLE in plans.get("h", {}).get("roles", [])) is runs


def test_a_finding_on_the_roles_defaults_keeps_the_role_unnarrowed(tg):
    # a peer with fault 4 (its hub's entry, role on its defaults: every peer with an endpoint) and a graph finding for
    # another entry: the graph's vars would narrow the role to that entry and leave fault 4 unfixed; its defaults cover both
    graph = dict(_found(_hub_starts(tg))[0], host="peer")
    assert fix_vars_by_host([graph]) == {"peer": graph["fix_vars"]}
    assert fix_vars_by_host([graph, _nat_peer_finding("peer", tg.OLD)]) == {}
    assert fix_vars_by_host([graph, _nat_peer_finding("other", tg.OLD)]) == {"peer": graph["fix_vars"]}
    plans = remediate_plans([graph, _nat_peer_finding("peer", tg.OLD)], {"peer": {"group_names": [PEERS]}}, ["peer"], False)
    assert plans["peer"] == {"roles": [ROLE], "vars": {}, "skipped": {}, "changes": {}}


def test_two_findings_on_one_host_aim_the_role_at_both_entries(tg):
    first = _found(_hub_starts(tg))[0]
    second = dict(first, evidence=dict(first["evidence"], interface="wg1", peer_public_key=tg.OLD),
                  fix_vars=FAULT.fix_vars(dict(first["evidence"], interface="wg1", peer_public_key=tg.OLD)))
    assert fix_vars_by_host([first, second]) == {"hub": {"wireguard_keepalive_interfaces": ["wg0", "wg1"],
                                                         "wireguard_keepalive_public_keys": sorted([tg.PEER, tg.OLD])}}


@pytest.mark.parametrize("fix_vars", [None, {}, {"wireguard_keepalive_interfaces": ["wg0"]},
                                      {"wireguard_keepalive_interfaces": ["wg0"], "wireguard_keepalive_public_keys": []}])
def test_a_graph_finding_without_the_vars_that_aim_it_runs_nothing_on_a_hub(tg, fix_vars):
    # a keepalive_on_wrong_side finding (its groups let the role run on hubs) with no or partial fix_vars (a file edited
    # by hand, or from another version) would run the role on its defaults there: a keepalive on every entry of the hub
    # that keeps an endpoint, which every-role mode never does on a hub (breaker session 41)
    finding = dict(_found(_hub_starts(tg))[0])
    finding.pop("fix_vars")
    if fix_vars is not None:
        finding["fix_vars"] = fix_vars
    host_vars = {"hub": {"group_names": [HUBS]}}
    with pytest.raises(ValueError, match="keepalive_on_wrong_side on hub names tunnelfix.fleet.wireguard_keepalive without "
                                         "wireguard_keepalive_interfaces and wireguard_keepalive_public_keys"):
        remediate_plans([finding], host_vars, ["hub"], False)
    plan = remediate_plans([finding], host_vars, ["hub"], False, False)["hub"]
    assert plan["roles"] == [] and "remediate refuses these findings" in plan["skipped"][ROLE]
