# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The registry: fix order, the every-role plan, pairing diagnose's findings with verify's, the derived floor."""

import re
from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import (
    BY_ID, FAULTS, FIX_ROLES, NO_REGRESSION_SHARE, PATH_SHARE_FLOOR, every_role_plan, finding_outcomes,
    fix_roles_by_host, remediate_plans, unfixed_by_host, verify_floor)

REPO = Path(__file__).resolve().parents[5]
BANIP = BY_ID["banip_icmp_limit_drops_health_checks"]
ROUTE = BY_ID["endpoint_route_pinned"]
BRIDGE = BY_ID["bridge_offload_small_mtu_tunnel"]
CC = BY_ID["loss_sensitive_congestion_control"]
KERNEL = BY_ID["kernel_without_bbr"]
UDP_GRO = BY_ID["udp_gro_forwarding_off"]
BDP = BY_ID["buffer_below_bdp"]
MTU = BY_ID["path_mtu_black_hole"]


def test_ids_are_unique_and_every_fault_is_complete():
    assert len(BY_ID) == len(FAULTS)
    for fault in FAULTS:
        assert fault.severity in ("critical", "high", "medium", "low", "info"), fault.id
        assert fault.symptom and fault.fix and fault.proof.how and fault.fires_when and fault.reads, fault.id
        assert 1 <= len(fault.files) <= 3 and all((REPO / path).is_file() for path in fault.files), fault.id
        assert (fault.fix_role is None) == (not fault.fix_groups), fault.id
        if fault.fix_role:
            assert (REPO / "roles" / fault.fix_role.rsplit(".", 1)[1] / "meta" / "argument_specs.yml").is_file()


def test_banip_is_fixed_before_the_endpoint_route():
    """mwan3's view of the uplinks must be right before a route is re-pointed."""
    assert FIX_ROLES.index(BANIP.fix_role) < FIX_ROLES.index(ROUTE.fix_role)
    findings = [{"host": "owrt", "fix_role": ROUTE.fix_role}, {"host": "owrt", "fix_role": BRIDGE.fix_role},
                {"host": "owrt", "fix_role": BANIP.fix_role}, {"host": "owrt", "fix_role": ROUTE.fix_role}]
    assert fix_roles_by_host(findings) == {"owrt": [BANIP.fix_role, ROUTE.fix_role, BRIDGE.fix_role]}


def test_remediate_runs_banip_before_the_endpoint_route_whatever_order_the_findings_come_in():
    """Issue 17.3: the fix order lives in the registry (FAULTS), not in the findings file."""
    assert [fault.id for fault in FAULTS][:2] == [BANIP.id, ROUTE.id]
    findings = [{"host": "owrt", "id": ROUTE.id, "fix_role": ROUTE.fix_role},
                {"host": "owrt", "id": BANIP.id, "fix_role": BANIP.fix_role}]
    plans = remediate_plans(findings, {"owrt": {"group_names": ["tunnelfix_openwrt"]}}, ["owrt"], False)
    assert plans["owrt"]["roles"] == [BANIP.fix_role, ROUTE.fix_role]
    assert remediate_plans(None, {"owrt": {"group_names": ["tunnelfix_openwrt"]}}, ["owrt"], True)["owrt"]["roles"][:2] == [
        BANIP.fix_role, ROUTE.fix_role]


@pytest.mark.parametrize("groups, host_vars, roles, skipped", [
    (["tunnelfix_openwrt"], {}, [BANIP.fix_role, ROUTE.fix_role], [MTU.fix_role, BRIDGE.fix_role, UDP_GRO.fix_role]),
    (["tunnelfix_openwrt"], {"bridge_gso_off_bridges": ["br-lan"]}, [BANIP.fix_role, ROUTE.fix_role, BRIDGE.fix_role],
     [MTU.fix_role, UDP_GRO.fix_role]),
    (["tunnelfix_wireguard_hubs"], {"bridge_gso_off_bridges": []}, [CC.fix_role], [MTU.fix_role, BRIDGE.fix_role, UDP_GRO.fix_role]),
    (["tunnelfix_wireguard_hubs"], {"udp_gro_forwarding_enable": True}, [CC.fix_role, UDP_GRO.fix_role],
     [MTU.fix_role, BRIDGE.fix_role]),
    # the MTU role runs where the inventory names tunnels (a finding's fix_vars in the other mode)
    (["tunnelfix_wireguard_hubs"], {"wireguard_mtu_tunnels": {"wg0": 1380}}, [MTU.fix_role, CC.fix_role],
     [BRIDGE.fix_role, UDP_GRO.fix_role]),
    (["ungrouped"], {}, [], []),
])
def test_every_role_plan(groups, host_vars, roles, skipped):
    plan = every_role_plan(groups, host_vars)
    assert plan["roles"] == roles and sorted(plan["skipped"]) == sorted(skipped)
    needs = {UDP_GRO.fix_role: "udp_gro_forwarding_enable", MTU.fix_role: "wireguard_mtu_tunnels"}
    for role, reason in plan["skipped"].items():
        assert needs.get(role, "bridge_gso_off_bridges") in reason


def finding(host, fault, **evidence):
    return {"host": host, "id": fault.id, "fix_role": fault.fix_role, "severity": fault.severity, "evidence": evidence}


def test_outcomes_fixed_still_present_new_and_not_rechecked():
    before = [finding("owrt", ROUTE, interface="wg0"), finding("owrt", BRIDGE, bridge="br-lan"),
              finding("owrt", BRIDGE, bridge="br-guest"), finding("hub", KERNEL), finding("gone", ROUTE, interface="wg0")]
    after = [finding("owrt", BRIDGE, bridge="br-guest"), finding("hub", KERNEL), finding("owrt", BANIP)]
    got = {(o["host"], o["id"], (o.get("evidence") or {}).get("bridge")): (o["outcome"], o["rechecked"])
           for o in finding_outcomes(before, after, {"owrt": {}, "hub": {}})}
    assert got == {
        ("owrt", ROUTE.id, None): ("fixed", True),
        ("owrt", BRIDGE.id, "br-lan"): ("fixed", True),          # the subject tells two bridges apart
        ("owrt", BRIDGE.id, "br-guest"): ("still_present", True),
        ("hub", KERNEL.id, None): ("still_present", True),
        ("owrt", BANIP.id, None): ("new", True),
        ("gone", ROUTE.id, None): ("still_present", False),     # verify did not read this host again
    }


def test_unfixed_hosts_are_those_with_a_fixable_finding_left():
    views = {"owrt": {}, "hub": {}, "peer": {"measurement": {"ping": {}}}, "new": {}}
    outcomes = finding_outcomes([finding("owrt", ROUTE, interface="wg0"), finding("hub", KERNEL), finding("peer", CC)],
                                [finding("owrt", ROUTE, interface="wg0"), finding("hub", KERNEL), finding("new", BANIP)],
                                views)
    assert unfixed_by_host(outcomes) == {"new": [BANIP.id], "owrt": [ROUTE.id]}   # hub's kernel: no role, not failed
    assert unfixed_by_host(finding_outcomes([finding("peer", CC)], [], views)) == {}


@pytest.mark.parametrize("fault, evidence, views, rechecked", [
    (CC, {}, {"peer": {"measurement": {"ping": {}}}}, True),
    (CC, {}, {"peer": {"measurement": None}}, False),                       # verify took no single flow
    (CC, {"direction": "download"}, {"peer": {"tunnel_hub": "peer", "sweep": {"results": []}}}, True),
    (CC, {"direction": "download"}, {"peer": {}, "p2": {"tunnel_hub": "peer", "sweep": None}}, False),  # no sweep
    (BANIP, {}, {"peer": {"health_checks": {"sent": 20}}}, True),
    (BANIP, {}, {"peer": {}}, False),
    (ROUTE, {}, {"peer": {}}, True),                                        # facts only
    (ROUTE, {}, {}, False),                                                 # the host was not read again
])
def test_a_finding_is_fixed_only_when_verify_had_what_its_rule_reads(fault, evidence, views, rechecked):
    [outcome] = finding_outcomes([finding("peer", fault, **evidence)], [], views)
    assert (outcome["outcome"], outcome["rechecked"]) == (("fixed", True) if rechecked else ("still_present", False))
    if not rechecked and fault.fix_role:
        assert unfixed_by_host([outcome]) == {"peer": [fault.id]}


PEER_FACTS = {"tcp": {"tcp_wmem": "4096 16384 4194304", "tcp_rmem": "4096 131072 6291456", "congestion_control": "cubic"}}


@pytest.mark.parametrize("view, outcome, reason", [
    # a hub-less peer, read again: the rule cannot judge it (nothing to measure against), the host does not fail
    ({"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": None, "tunnelfix": PEER_FACTS, "path_bits_per_second": 4e7},
     "not_checked", "no tunnelfix_tunnel_hub: a peer without a hub in the inventory has nothing to measure its tunnel against"),
    # a peer with a hub whose RTT verify did not take (tunnelfix_measure=false): the rule says so
    ({"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "hub", "tunnelfix": PEER_FACTS, "path_bits_per_second": 4e7},
     "not_checked", "no RTT was measured on this host in this run"),
    # facts not read again (unreachable in verify): still present, and the host fails
    ({"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": None, "tunnelfix": None, "openwrt": None}, "still_present", None),
])
def test_a_finding_the_rule_cannot_judge_on_fresh_facts_is_not_checked_with_its_reason(view, outcome, reason):
    [entry] = finding_outcomes([finding("peer", BDP, sysctl="net.ipv4.tcp_wmem")], [], {"peer": view})
    assert (entry["outcome"], entry["rechecked"], entry.get("reason")) == (outcome, False, reason)
    assert unfixed_by_host([entry]) == ({} if outcome == "not_checked" else {"peer": [BDP.id]})


@pytest.mark.parametrize("bad", [{"h": []}, [{"id": "x"}], "[]"])
def test_outcomes_refuse_what_is_not_a_findings_list(bad):
    with pytest.raises(ValueError, match="findings must be"):
        finding_outcomes(bad, [], [])


def test_floor_from_the_finding_bound():
    found = [finding("peer", CC, mathis_bits_per_second=4e6)]
    floor = verify_floor(found, {}, "peer")
    assert floor["min_bits_per_second"] == pytest.approx(6e6) and CC.id in floor["source"]


def test_the_higher_of_the_bound_and_no_regression_wins():
    found = [finding("peer", CC, mathis_bits_per_second=4e6)]
    before = {"peer": {"iperf3": {"valid": True, "bits_per_second": 10e6}}}
    floor = verify_floor(found, before, "peer")
    assert floor["min_bits_per_second"] == pytest.approx(NO_REGRESSION_SHARE * 10e6) and "no regression" in floor["source"]


def test_a_hub_download_finding_sets_no_single_flow_floor():
    assert verify_floor([finding("hub", CC, mathis_bits_per_second=4e6, direction="download")], {}, "hub")[
        "min_bits_per_second"] is None


@pytest.mark.parametrize("record", [{"iperf3": {"valid": False, "bits_per_second": 9e6}},
                                    {"iperf3": {"valid": True, "bits_per_second": 0}}, {}, "junk"])
def test_an_invalid_before_flow_sets_no_floor(record):
    assert verify_floor([], {"peer": record}, "peer", "") == {
        "min_bits_per_second": None, "source": pytest.approx(verify_floor(None, None, "peer")["source"])}


def test_the_path_when_nothing_else_is_known():
    floor = verify_floor(None, None, "peer", "40000000")
    assert floor["min_bits_per_second"] == pytest.approx(PATH_SHARE_FLOOR * 40e6) and "path" in floor["source"]
    assert verify_floor(None, None, "peer", "40M")["min_bits_per_second"] == pytest.approx(PATH_SHARE_FLOOR * 40e6)
    with pytest.raises(ValueError, match="tunnelfix_path_bits_per_second.*cannot parse bitrate 'fast'"):
        verify_floor(None, None, "peer", "fast")


def test_another_hosts_findings_do_not_count():
    assert verify_floor([finding("other", CC, mathis_bits_per_second=4e6)], {}, "peer")["min_bits_per_second"] is None


# Modules' documentation may say which role uses them (ansible-doc text); they never choose one.
SCANNED = [p for root in ("plugins", "playbooks") for p in sorted((REPO / root).rglob("*"))
           if p.is_file() and p.suffix in (".py", ".yml", ".yaml")
           and not any(part in p.as_posix() for part in ("plugin_utils/faults", "plugins/modules/"))]


def test_no_finding_id_or_fixing_role_outside_the_registry():
    """diagnose, remediate, verify, the report and the filters iterate the registry; none names a fault or its role."""
    names = [fault.id for fault in FAULTS] + list(FIX_ROLES)
    pattern = re.compile(r"\b(%s)\b" % "|".join(re.escape(name) for name in names))
    hits = ["%s: %s" % (path.relative_to(REPO), match.group(1)) for path in SCANNED
            for match in pattern.finditer(path.read_text(encoding="utf-8"))
            if not _documentation(path, match)]
    assert SCANNED and hits == []


def _documentation(path, match):
    """A mention inside a docstring's example output (module docs show a Prometheus line) is not a use."""
    line = path.read_text(encoding="utf-8")[:match.start()].count("\n")
    text = path.read_text(encoding="utf-8").splitlines()[line]
    return text.lstrip().startswith(("tunnelfix_findings{", "#"))


def test_the_scan_would_see_a_literal():
    assert re.search(r"\b%s\b" % re.escape(ROUTE.id), "when: '%s' in ids" % ROUTE.id)
    assert registry.FAULTS is FAULTS


def test_floor_sources_say_where_the_number_came_from():
    assert verify_floor([finding("peer", CC, mathis_bits_per_second=4e6)], {}, "peer")["source"] == (
        "loss_sensitive_congestion_control: 1.5 x the Mathis bound the finding computed (the rule's own boundary)")
    before = {"peer": {"iperf3": {"valid": True, "bits_per_second": 12.5e6}}}
    assert verify_floor([], before, "peer")["source"] == "70 % of diagnose's single flow (12.5 Mbit/s): no regression"
    assert verify_floor(None, None, "peer", 40e6)["source"] == "50 % of the path's rate (40.0 Mbit/s, tunnelfix_path_bits_per_second)"
    assert verify_floor(None, None, "peer", "")["source"] == (
        "no floor: no finding of this host sets one, diagnose measured no valid single flow, and the path's rate is unknown")


def test_another_hosts_finding_first_does_not_hide_this_hosts():
    found = [finding("other", CC, mathis_bits_per_second=9e6), finding("peer", CC, mathis_bits_per_second=4e6)]
    assert verify_floor(found, {}, "peer")["min_bits_per_second"] == pytest.approx(6e6)
    assert verify_floor(["junk", finding("peer", CC, mathis_bits_per_second=4e6)], {}, "peer")["min_bits_per_second"] == pytest.approx(6e6)


@pytest.mark.parametrize("before_bps, floor", [(1, NO_REGRESSION_SHARE), (0.5, NO_REGRESSION_SHARE * 0.5), (0, None), (-5, None)])
def test_any_positive_before_flow_sets_the_no_regression_floor(before_bps, floor):
    got = verify_floor([], {"peer": {"iperf3": {"valid": True, "bits_per_second": before_bps}}}, "peer")["min_bits_per_second"]
    assert got == (pytest.approx(floor) if floor else None)


@pytest.mark.parametrize("path, floor", [(1, PATH_SHARE_FLOOR), (0.5, PATH_SHARE_FLOOR * 0.5), (0, None), (None, None)])
def test_any_positive_path_sets_the_path_floor(path, floor):
    got = verify_floor(None, None, "peer", path)["min_bits_per_second"]
    assert got == (pytest.approx(floor) if floor else None)


@pytest.mark.parametrize("views, message", [
    ([], "views must be a dict of host -> view (dict), got list"),
    ({"h": "x"}, "views['h'] must be a dict (the host's view), got str"),
    ({"": {}}, "views: a host name must be a non-empty string, got ''"),
    ({3: {}}, "views: a host name must be a non-empty string, got 3"),
])
def test_bad_views_are_named(views, message):
    with pytest.raises(ValueError) as err:
        registry.find_findings(views)
    assert str(err.value) == message


def test_outcomes_pair_by_id_as_well_as_host_and_subject():
    before = [finding("owrt", ROUTE, interface="wg0")]
    after = [finding("owrt", BANIP)]
    kinds = sorted((o["id"], o["outcome"]) for o in finding_outcomes(before, after, {"owrt": {}}))
    assert kinds == [(BANIP.id, "new"), (ROUTE.id, "fixed")]
    unknown = [{"host": "owrt", "id": "not_a_fault", "evidence": {"interface": "wg0"}}]
    assert [o["outcome"] for o in finding_outcomes(unknown, unknown, {"owrt": {}})] == ["still_present"]
    assert [o["outcome"] for o in finding_outcomes(unknown, [], {"owrt": {}})] == ["fixed"]
    with pytest.raises(ValueError, match="views must be"):
        finding_outcomes([], [], ["owrt"])


def test_remediate_plans_from_findings_leave_converged_and_foreign_hosts_out():
    with_vars = dict(finding("owrt", BRIDGE, bridge="br-lan"), fix_vars={"bridge_gso_off_bridges": ["br-lan"]})
    findings = [finding("owrt", BRIDGE, bridge="br-lan"), with_vars, finding("hub", KERNEL), finding("elsewhere", ROUTE)]
    host_vars = {"owrt": {"group_names": ["tunnelfix_openwrt"]}}
    plans = registry.remediate_plans(findings, host_vars, ["hub", "owrt", "clean"], False)
    assert plans == {"owrt": {"roles": [BRIDGE.fix_role], "vars": {"bridge_gso_off_bridges": ["br-lan"]}, "skipped": {},
                              "changes": {}}}
    assert registry.remediate_plans(None, {}, ["hub"], False) == {}


def test_remediate_plans_refuse_a_role_outside_its_groups():
    """A findings file from another inventory: the router role named for a Linux hub."""
    with pytest.raises(ValueError, match="the findings name tunnelfix.fleet.openwrt_mwan3_wg for hub, which is in none of its groups"):
        registry.remediate_plans([finding("hub", ROUTE, interface="wg0")], {"hub": {"group_names": ["tunnelfix_wireguard_hubs"]}},
                                 ["hub"], False)


def test_remediate_plans_with_every_role_read_groups_and_needed_variables():
    host_vars = {"owrt": {"group_names": ["tunnelfix_openwrt"]},
                 "lnx": {"group_names": ["tunnelfix_wireguard_peers"], "bridge_gso_off_bridges": ["br0"]},
                 "other": {"group_names": ["ungrouped"]}}
    plans = registry.remediate_plans(None, host_vars, ["owrt", "lnx", "other"], True)
    assert plans["owrt"]["roles"] == [BANIP.fix_role, ROUTE.fix_role]
    assert list(plans["owrt"]["skipped"]) == [MTU.fix_role, BRIDGE.fix_role, UDP_GRO.fix_role]
    assert plans["lnx"]["roles"][-1] == BRIDGE.fix_role and plans["lnx"]["vars"] == {}
    assert "other" not in plans


@pytest.mark.parametrize("findings, before, allowed", [
    ([finding("owrt", BANIP)], {"owrt": {"sent": 20, "failed_pings": 20}}, 0),   # banIP's proof: none may fail
    ({"findings": [finding("owrt", ROUTE, interface="wg0")]}, {"owrt": {"sent": 20, "failed_pings": 20}}, 20),
    (None, {"owrt": {"sent": 20, "failed_pings": 3}}, 3),                           # no more than diagnose lost
    ([finding("other", BANIP)], {"owrt": {"sent": 20, "failed_pings": 3}}, 3),       # another router's finding
    (None, {}, 0),                                                                  # diagnose measured none
    (None, None, 0),
    (None, {"owrt": {"sent": 20, "failed_pings": 21}}, 0),                          # cannot be true: not trusted
    (None, {"owrt": {"sent": 0, "failed_pings": 0}}, 0),
    (None, {"owrt": {"sent": "20", "failed_pings": "20"}}, 0),
    (None, {"owrt": "junk"}, 0),
])
def test_health_check_allowance(findings, before, allowed):
    got = registry.health_check_allowance(findings, before, "owrt")
    assert got["max_failed_pings"] == allowed and got["source"]


# Issue 30 (breaker): a finding verify's rule could not judge on what verify took is never "fixed". A single flow
# that got no measurement slot (or an invalid one) is a measurement record all the same (needs_own is satisfied),
# and facts whose part the rule reads could not be read (ethtool failed) are a re-read host all the same: both
# used to come out "fixed", verify rc 0, the summary "every finding is fixed".
NO_SLOT = {"ping": {"loss_percent": 0.0},
           "iperf3": {"valid": False, "invalid_reason": "no measurement slot within 600 s", "not_measured": True, "failed": False,
                      "bits_per_second": None}}


@pytest.mark.parametrize("fault, evidence, view, reason", [
    (CC, {}, {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "hub", "tunnelfix": PEER_FACTS,
              "path_bits_per_second": 4e7, "measurement": NO_SLOT},
     "the single flow was invalid (no measurement slot within 600 s)"),
    (BRIDGE, {"bridge": "br-lan"}, {"groups": ["tunnelfix_openwrt"], "openwrt": {"bridges": {
        "ip_json": True, "ip_forward": 1, "bridges": {"br-lan": {"ports": {"lan1": {}}}}, "note": "ethtool timed out"}}},
     "the offload features of br-lan, lan1 could not be read (ethtool timed out)"),
])
def test_a_finding_whose_rule_could_not_judge_what_verify_took_is_not_fixed_and_fails_its_host(fault, evidence, view, reason):
    [entry] = finding_outcomes([finding("peer", fault, **evidence)], [], {"peer": view})
    assert (entry["outcome"], entry["rechecked"], entry.get("reason")) == ("still_present", False, reason)
    assert unfixed_by_host([entry]) == {"peer": [fault.id]}


def test_outcomes_of_a_limited_verify_are_of_its_hosts_only():
    """A canary's verify (--limit canary,localhost) judged nothing on the other hosts: their findings are not paired."""
    before = [finding("canary", ROUTE, interface="wg0"), finding("rest", ROUTE, interface="wg0")]
    outcomes = finding_outcomes(before, [], {"canary": {}}, None, ["canary"])
    assert [(o["host"], o["outcome"]) for o in outcomes] == [("canary", "fixed")]
    assert [o["host"] for o in finding_outcomes(before, [], {"canary": {}})] == ["canary", "rest"]   # no hosts: every one
