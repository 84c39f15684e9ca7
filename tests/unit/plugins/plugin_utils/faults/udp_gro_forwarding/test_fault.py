# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""udp_gro_forwarding_off (issue 17.9): the rule on both sides of each boundary, its coverage, its plan, the opt-in
gate in remediate's role choice and verify's outcome for a finding left alone."""

import copy

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import (
    BY_ID, FIX_OPT_IN, FIX_VAR_NAMES, diagnosis, every_role_plan, find_findings, finding_outcomes, fix_vars_by_host,
    remediate_plans, role_plan, unfixed_by_host)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.plan import FIX_DEFAULTS

FAULT = BY_ID["udp_gro_forwarding_off"]
ROLE = FAULT.fix_role
OFF = {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"}
GOOD = {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off", "generic-receive-offload": "on"}


def facts(**changes):
    """A Tailscale exit node on Debian 13's 6.12: forwarding, tailscale0 up, eth0 with the kernel's defaults."""
    base = {"kernel_release": "6.12.48+deb13-amd64", "kernel_version": [6, 12, 48], "ip_forward": 1,
            "tunnels": {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UNKNOWN"}},
            "nics": [{"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"}, "through_tunnel": None,
                      "features": dict(OFF), "ethtool_error": None}],
            "ethtool_installed": True, "note": None}
    base.update(changes)
    return base


def view(udp_gro=None, router=False, groups=("tunnelfix_wireguard_hubs",)):
    key = "openwrt" if router else "tunnelfix"
    return {"groups": list(groups), key: {"udp_gro": facts() if udp_gro is None else udp_gro}}


def with_features(**features):
    nic = dict(facts()["nics"][0], features=dict(OFF, **features))
    return facts(nics=[nic])


def rule(udp_gro):
    return FAULT.rule("exit", view(udp_gro), {})


def status(udp_gro):
    return diagnosis({"exit": view(udp_gro)})["checks"]["exit"][FAULT.id]


def test_the_exit_node_with_the_kernels_defaults_is_found_with_its_evidence():
    [(evidence, explanation)] = rule(facts())
    assert evidence == {"nic": "eth0", "kernel_release": "6.12.48+deb13-amd64", "rx_udp_gro_forwarding": "off",
                        "rx_gro_list": "off", "ip_forward": 1, "tunnel": "tailscale0", "tunnel_kind": "tun",
                        "families": ["inet"], "through_tunnel": None}
    assert "eth0" in explanation and "6.12.48+deb13-amd64" in explanation
    [finding] = find_findings({"exit": view()})
    assert (finding["severity"], finding["fix_role"], finding["fix_vars"]) == ("low", ROLE, {"udp_gro_forwarding_device": "eth0"})
    assert FAULT.subject(finding["evidence"]) == "eth0"
    assert status(facts()) == {"status": "found", "reason": None}


@pytest.mark.parametrize("udp_gro, found", [
    # the kernel: 6.2 is the first with UDP GSO on TUN devices
    (facts(kernel_release="6.1.0-26-amd64", kernel_version=[6, 1, 0]), False),
    (facts(kernel_release="6.1.999", kernel_version=[6, 1, 999]), False),
    (facts(kernel_release="6.2", kernel_version=[6, 2, 0]), True),
    (facts(kernel_release="5.15.167", kernel_version=[5, 15, 167]), False),
    (facts(kernel_release=None, kernel_version=None), False),                      # unknown: no guess
    # forwarding
    (facts(ip_forward=0), False), (facts(ip_forward=1), True), (facts(ip_forward=2), True), (facts(ip_forward=None), False),
    # a tunnel that carries the traffic, up
    (facts(tunnels={}), False),
    (facts(tunnels={"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "DOWN"}}), False),
    (facts(tunnels={"gre1": {"kind": "gre", "mtu": 1476, "operstate": "UP"}}), False),
    (facts(tunnels={"wg0": {"kind": "wireguard", "mtu": 1420, "operstate": "UNKNOWN"}}), True),
    (facts(tunnels=None), False),
    # the two features, changeable or [fixed], and GRO under them
    (with_features(**{"rx-udp-gro-forwarding": "on"}), False),
    (with_features(**{"rx-udp-gro-forwarding": "on", "rx-gro-list": "on"}), True),
    (with_features(**{"rx-udp-gro-forwarding": "on", "rx-gro-list": "on [fixed]"}), False),
    (with_features(**{"rx-udp-gro-forwarding": "off [fixed]"}), False),
    (with_features(**{"rx-udp-gro-forwarding": "off [fixed]", "rx-gro-list": "on"}), True),
    (with_features(**{"generic-receive-offload": "off"}), False),
    (facts(nics=[]), False),
    (facts(nics=[dict(facts()["nics"][0], features=None, ethtool_error="netlink error: Operation not permitted")]), False),
])
def test_each_condition_on_both_sides(udp_gro, found):
    assert bool(rule(udp_gro)) is found
    assert (status(udp_gro)["status"] == "found") is found


@pytest.mark.parametrize("udp_gro, expected", [
    (facts(kernel_release="6.1.0-26-amd64", kernel_version=[6, 1, 0]),
     ("clear", "does not apply: kernel 6.1.0-26-amd64 is older than 6.2 (TUN devices take UDP GSO from Linux 6.2 on)")),
    (facts(ip_forward=0), ("clear", "does not apply: IP forwarding is off (net.ipv4.ip_forward=0): not an exit node or subnet router")),
    (facts(tunnels={}), ("clear", "does not apply: no WireGuard or TUN tunnel is up")),
    (with_features(**{"generic-receive-offload": "off"}),
     ("clear", "does not apply: GRO is off on eth0 (generic-receive-offload): UDP GRO forwarding works inside GRO")),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), ("clear", None)),
    (with_features(**{"rx-udp-gro-forwarding": "off [fixed]"}), ("clear", None)),
    (facts(kernel_version=None, note="the kernel release is unknown (kernel_release: rc=127: sh: uname: not found)"),
     ("not_checked", "forwarding, the tunnels or the kernel release could not be read (the kernel release is unknown "
                     "(kernel_release: rc=127: sh: uname: not found))")),
    (facts(nics=[], note="no default route in the main table"),
     ("not_checked", "the default-route NIC is unknown (no default route in the main table)")),
    (facts(nics=[dict(facts()["nics"][0], features=None)], ethtool_installed=False,
           note="ethtool is not installed: the NIC's offload features are unknown"),
     ("not_checked", "the offload features of eth0 (ethtool is not installed: the NIC's offload features are unknown) could not be read")),
    (facts(nics=[dict(facts()["nics"][0], features={"generic-receive-offload": "on"})]),
     ("not_checked", "the offload features of eth0 (ethtool -k does not show rx-udp-gro-forwarding) could not be read")),
    (facts(nics=[dict(facts()["nics"][0], features=dict(GOOD)),
                 dict(facts()["nics"][0], device="eth1", features=None, ethtool_error="No such device")]),
     ("clear", "judged without the offload features of eth1 (No such device)")),
])
def test_coverage_says_why(udp_gro, expected):
    assert status(udp_gro) == {"status": expected[0], "reason": expected[1]}


def test_coverage_without_the_subset_and_on_a_router():
    assert diagnosis({"exit": {"groups": [], "tunnelfix": {"routes": {}}}})["checks"]["exit"][FAULT.id] == {
        "status": "not_checked", "reason": "the udp_gro facts were not read (gather_subset without udp_gro, or an older collection)"}
    # a router's facts (openwrt_facts) carry the same subset
    assert FAULT.rule("owrt", view(router=True, groups=["tunnelfix_openwrt"]), {})[0][0]["nic"] == "eth0"


def test_one_finding_per_default_route_nic():
    nics = [dict(facts()["nics"][0], features=dict(OFF)),
            dict(facts()["nics"][0], device="eth1", families=["inet6"], features=dict(OFF, **{"rx-gro-list": "on"}))]
    found = find_findings({"exit": view(facts(nics=nics))})
    assert [(f["evidence"]["nic"], f["fix_vars"]) for f in found] == [
        ("eth0", {"udp_gro_forwarding_device": "eth0"}), ("eth1", {"udp_gro_forwarding_device": "eth1"})]


# ---- the plan --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("udp_gro, role_vars, expected", [
    (facts(), {}, ["ethtool -K eth0 rx-udp-gro-forwarding on"]),
    (with_features(**{"rx-gro-list": "on"}), {}, ["ethtool -K eth0 rx-udp-gro-forwarding on", "ethtool -K eth0 rx-gro-list off"]),
    (with_features(**{"rx-udp-gro-forwarding": "on", "rx-gro-list": "on"}), {}, ["ethtool -K eth0 rx-gro-list off"]),
    (facts(), {"udp_gro_forwarding_device": "eth0"}, ["ethtool -K eth0 rx-udp-gro-forwarding on"]),
    # converged: the hook is a file the facts do not read, unless persisting is off
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {}, None),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": False}, []),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "false"}, []),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "no"}, []),     # -e ...=no
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "0"}, []),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": 0}, []),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "off"}, []),    # Ansible's bool: off
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "False"}, []),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "n"}, []),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": "yes"}, None),
    (with_features(**{"rx-udp-gro-forwarding": "on"}), {"udp_gro_forwarding_persist": True}, None),
    # a change is listed whatever persisting says
    (facts(), {"udp_gro_forwarding_persist": False}, ["ethtool -K eth0 rx-udp-gro-forwarding on"]),
    # left alone by the role: nothing changes
    (facts(kernel_version=[6, 1, 0]), {}, []), (facts(ip_forward=0), {}, []), (facts(tunnels={}), {}, []),
    # the role would fail: cannot tell
    (facts(), {"udp_gro_forwarding_device": "eth9"}, None),
    (facts(nics=[]), {}, None),
    (facts(ip_forward=None), {}, None),
    (facts(nics=[dict(facts()["nics"][0], features=None)]), {}, None),
])
def test_plan(udp_gro, role_vars, expected):
    assert FAULT.plan(view(udp_gro), role_vars) == expected
    assert role_plan(ROLE, view(udp_gro), role_vars) == expected


def test_the_plan_does_not_read_the_opt_in():
    """The opt-in decides whether the role runs (the registry); the plan says what it would change if it did."""
    assert FAULT.plan(view(), {"udp_gro_forwarding_enable": False}) == FAULT.plan(view(), {"udp_gro_forwarding_enable": True})
    assert FIX_DEFAULTS["udp_gro_forwarding_enable"] is False


# ---- the opt-in: remediate's role choice and verify's outcome ------------------------------------------------

FOUND = {"host": "exit", "id": FAULT.id, "fix_role": ROLE, "severity": "low", "evidence": {"nic": "eth0"},
         "fix_vars": {"udp_gro_forwarding_device": "eth0"}}
OTHER = {"host": "exit", "id": "buffer_below_bdp", "fix_role": BY_ID["buffer_below_bdp"].fix_role, "severity": "medium",
         "evidence": {}}


def test_the_opt_in_is_declared_and_no_findings_file_can_set_it():
    assert FIX_OPT_IN == {ROLE: "udp_gro_forwarding_enable"}
    assert "udp_gro_forwarding_enable" not in FIX_VAR_NAMES
    with pytest.raises(ValueError, match="names 'udp_gro_forwarding_enable', which no fault's role takes"):
        fix_vars_by_host([dict(FOUND, fix_vars={"udp_gro_forwarding_enable": True})])


@pytest.mark.parametrize("opt_in, runs", [
    (None, False), (False, False), ("false", False), ("no", False), ("", False), ("maybe", False),
    (True, True), ("true", True), ("yes", True), ("1", True), ("True", True),
])
def test_remediate_from_findings_runs_the_role_only_where_opted_in(opt_in, runs):
    host_vars = {"exit": {"group_names": ["tunnelfix_wireguard_hubs"]}}
    if opt_in is not None:
        host_vars["exit"]["udp_gro_forwarding_enable"] = opt_in
    plan = remediate_plans([FOUND, OTHER], host_vars, ["exit"], False)["exit"]
    assert plan["roles"] == ([OTHER["fix_role"], ROLE] if runs else [OTHER["fix_role"]])
    if runs:
        assert plan["skipped"] == {}
    else:
        assert plan["skipped"] == {ROLE: "left alone: udp_gro_forwarding_enable is not true for this host (an opt-in fix: "
                                         "set it in the inventory or with -e udp_gro_forwarding_enable=true to apply it)"}


def test_a_host_whose_only_finding_is_left_alone_gets_no_role_but_is_said():
    plans = remediate_plans([FOUND], {"exit": {"group_names": ["tunnelfix_wireguard_hubs"]}}, ["exit"], False)
    assert plans["exit"]["roles"] == [] and list(plans["exit"]["skipped"]) == [ROLE]


@pytest.mark.parametrize("host_vars, runs", [({}, False), ({"udp_gro_forwarding_enable": True}, True)])
def test_every_role_mode_gates_the_role_too(host_vars, runs):
    plan = every_role_plan(["tunnelfix_wireguard_hubs"], host_vars, view())
    assert (ROLE in plan["roles"]) is runs and (ROLE in plan["skipped"]) is not runs
    if runs:
        assert plan["changes"][ROLE] == ["ethtool -K eth0 rx-udp-gro-forwarding on"]


@pytest.mark.parametrize("host_vars, left_alone, failed", [
    (None, False, True),                                          # no host variables given: as before, a fixable finding
    ({}, True, False),                                            # the host is not in hostvars: not opted in
    ({"exit": {}}, True, False),
    ({"exit": {"udp_gro_forwarding_enable": "no"}}, True, False),
    ({"exit": {"udp_gro_forwarding_enable": True}}, False, True),  # opted in and the role ran: a failed fix
])
def test_verify_reports_a_finding_left_alone_as_still_present_without_failing_the_host(host_vars, left_alone, failed):
    views = {"exit": view()}
    [outcome] = finding_outcomes([FOUND], [FOUND], views, host_vars)
    assert outcome["outcome"] == "still_present"
    assert ("left_alone" in outcome) is left_alone
    if left_alone:
        assert outcome["left_alone"].startswith("left alone: udp_gro_forwarding_enable is not true")
    assert unfixed_by_host([outcome]) == ({"exit": [FAULT.id]} if failed else {})


def test_a_fixed_finding_is_fixed_whatever_the_opt_in():
    views = {"exit": view(with_features(**{"rx-udp-gro-forwarding": "on"}))}
    [outcome] = finding_outcomes([FOUND], [], views, {"exit": {}})
    assert outcome["outcome"] == "fixed" and "left_alone" not in outcome


def test_plans_do_not_change_the_view():
    before = view()
    kept = copy.deepcopy(before)
    FAULT.plan(before, {})
    FAULT.rule("exit", before, {})
    assert before == kept


def test_opt_ins_left_names_the_variable_and_the_hosts_remediate_leaves_alone():
    """What diagnose's and remediate's summaries name instead of proposing the role (issue 30.3)."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import opt_ins_left
    findings = find_findings({"exit-01": view(), "exit-02": view(), "exit-03": view()})
    host_vars = {host: {"group_names": ["tunnelfix_wireguard_hubs"]} for host in ("exit-01", "exit-02", "exit-03")}
    host_vars["exit-03"]["udp_gro_forwarding_enable"] = "yes"
    plans = remediate_plans(findings, host_vars, sorted(host_vars), False)
    assert opt_ins_left(findings, plans) == [{"role": ROLE, "variable": "udp_gro_forwarding_enable",
                                              "ids": ["udp_gro_forwarding_off"], "hosts": ["exit-01", "exit-02"]}]
    assert opt_ins_left(findings, {}) == []
    with pytest.raises(ValueError):
        opt_ins_left(findings, None)


def test_diagnoses_look_ahead_does_not_refuse_a_role_outside_the_hosts_groups():
    """diagnose asks remediate_plans what remediate would run (strict=False): a finding whose role the host's groups do
    not allow is a skipped role with the reason there, where remediate itself refuses the findings file."""
    findings = [{"host": "owrt", "id": "buffer_below_bdp", "fix_role": "tunnelfix.fleet.linux_bbr_fq"}]
    host_vars = {"owrt": {"group_names": ["tunnelfix_openwrt"]}}
    with pytest.raises(ValueError, match="none of its groups"):
        remediate_plans(findings, host_vars, ["owrt"], False)
    plan = remediate_plans(findings, host_vars, ["owrt"], False, False)["owrt"]
    assert plan["roles"] == [] and "remediate refuses these findings" in plan["skipped"]["tunnelfix.fleet.linux_bbr_fq"]


# ---- the finding's words and the coverage's, where a fact is missing ------------------------------------------

def test_the_explanation_names_each_fact_it_rests_on():
    [(_evidence, explanation)] = rule(with_features(**{"rx-gro-list": "on"}))
    assert " ".join(explanation.split()) == (
        "This host forwards (ip_forward=1) for the tun tunnel tailscale0 on kernel 6.12.48+deb13-amd64, and its "
        "default-route NIC eth0 has rx-udp-gro-forwarding off and rx-gro-list on. Since Linux 6.2 a TUN device takes UDP "
        "in segmentation-offload batches, so with UDP GRO forwarding on the NIC the UDP an exit node or subnet router "
        "forwards (QUIC, video calls, DNS, other tunnels) is aggregated on receive and crosses the forwarding path and the "
        "tunnel as a few large buffers instead of one packet at a time; fraglist GRO (rx-gro-list) takes precedence over "
        "it when both are on. A throughput gain, not a break: Tailscale's guide recommends ethtool -K eth0 "
        "rx-udp-gro-forwarding on rx-gro-list off on exit nodes and subnet routers, and the role applies it only where "
        "udp_gro_forwarding_enable is set.")


def test_a_nic_whose_ethtool_does_not_show_rx_gro_list():
    features = {"rx-udp-gro-forwarding": "off", "generic-receive-offload": "on"}
    [(evidence, explanation)] = rule(facts(nics=[dict(facts()["nics"][0], features=features)]))
    assert evidence["rx_gro_list"] is None
    assert "rx-udp-gro-forwarding off and rx-gro-list (not shown)." in " ".join(explanation.split())


def test_a_nic_with_nothing_to_do_does_not_hide_the_next_one():
    """The first default-route NIC unread, the second with GRO off, the third converged: only the fourth is found."""
    base = facts()["nics"][0]
    nics = [dict(base, device="eth0", features=None), dict(base, device="eth1", features=dict(OFF, **{"generic-receive-offload": "off"})),
            dict(base, device="eth2", features=dict(GOOD)), dict(base, device="eth3", families=["inet6"], through_tunnel="wg0",
                                                                 features=dict(OFF))]
    udp_gro = facts(nics=nics, tunnels={"tailscale0": {"kind": "tun", "operstate": "UNKNOWN"},
                                        "wg0": {"kind": "wireguard", "operstate": "UP"}})
    assert [(e["nic"], e["families"], e["through_tunnel"], e["tunnel"], e["tunnel_kind"]) for e, _text in rule(udp_gro)] == [
        ("eth3", ["inet6"], "wg0", "tailscale0", "tun")]


@pytest.mark.parametrize("udp_gro, expected", [
    # nothing said of why: a placeholder, never an empty pair of brackets
    (facts(ip_forward=None, note=None), ("not_checked", "forwarding, the tunnels or the kernel release could not be read (?)")),
    (facts(nics=[], note=None), ("not_checked", "the default-route NIC is unknown (no default route)")),
    (facts(nics=[dict(facts()["nics"][0], features=None, ethtool_error=None)], note=None),
     ("not_checked", "the offload features of eth0 (not read) could not be read")),
    # the NIC's own error before the facts' note
    (facts(nics=[dict(facts()["nics"][0], features=None, ethtool_error="No such device")], note="something else"),
     ("not_checked", "the offload features of eth0 (No such device) could not be read")),
    # every NIC unread: each named
    (facts(nics=[dict(facts()["nics"][0], features=None, ethtool_error="No such device"),
                 dict(facts()["nics"][0], device="eth1", features={"generic-receive-offload": "on"})]),
     ("not_checked", "the offload features of eth0 (No such device), eth1 (ethtool -k does not show rx-udp-gro-forwarding) "
                     "could not be read")),
    # GRO off on every NIC: each named; on one only, the other is judged
    (facts(nics=[dict(facts()["nics"][0], features=dict(OFF, **{"generic-receive-offload": "off"})),
                 dict(facts()["nics"][0], device="eth1", features=dict(OFF, **{"generic-receive-offload": "off [fixed]"}))]),
     ("clear", "does not apply: GRO is off on eth0, eth1 (generic-receive-offload): UDP GRO forwarding works inside GRO")),
    (facts(nics=[dict(facts()["nics"][0], features=dict(OFF, **{"generic-receive-offload": "off"})),
                 dict(facts()["nics"][0], device="eth1", features=dict(GOOD))]), ("clear", None)),
])
def test_coverage_where_the_facts_say_little(udp_gro, expected):
    assert status(udp_gro) == {"status": expected[0], "reason": expected[1]}
