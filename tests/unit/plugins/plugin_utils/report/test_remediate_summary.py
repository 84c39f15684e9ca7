# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""remediate's choice for a fleet: one line per role and distinct change, whatever the number of hosts (issue 16.4/16.5)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.remediate_summary import remediate_summary_lines

BANIP, ROUTE, BRIDGE = "tunnelfix.fleet.banip_icmp", "tunnelfix.fleet.openwrt_mwan3_wg", "tunnelfix.fleet.bridge_gso_off"
NEEDS = "bridge_gso_off_bridges is not set for this host (the role needs it; diagnose's findings would name it)"


def fleet(routers=20):
    plans = {}
    for number in range(1, routers + 1):
        host = "owrt-%02d" % number
        converged = number > 3
        skipped = {BRIDGE: NEEDS}
        if converged:
            skipped[BANIP] = "converged: the facts show nothing this role would change"
        plans[host] = {"roles": [] if converged else [BANIP], "vars": {}, "skipped": skipped,
                       "changes": {} if converged else {BANIP: ["banip.global.ban_icmplimit: 10 -> 250", "reload banIP"]}}
    return plans


def test_a_fleet_in_a_few_lines():
    lines = remediate_summary_lines(fleet(), every_role=True)
    assert lines == [
        "every role on every host that its facts do not show converged (tunnelfix_remediate_all_roles is set): "
        "3 host(s) get a role: owrt-[01:03]",
        "tunnelfix.fleet.banip_icmp: runs on 3: owrt-[01:03]; skipped on 17 (converged: the facts show nothing "
        "this role would change): owrt-[04:20]",
        "  would change banip.global.ban_icmplimit: 10 -> 250 on 3: owrt-[01:03]",
        "  would change reload banIP on 3: owrt-[01:03]",
        "tunnelfix.fleet.bridge_gso_off: skipped on 20 (%s): owrt-[01:20]" % NEEDS]
    assert len(remediate_summary_lines(fleet(400), every_role=True)) == len(lines)


def test_from_findings():
    plans = {"peer": {"roles": [ROUTE], "vars": {}, "skipped": {}, "changes": {}}}
    assert remediate_summary_lines(plans) == ["roles from the findings: 1 host(s) get a role: peer",
                                              "tunnelfix.fleet.openwrt_mwan3_wg: runs on 1: peer"]
    assert remediate_summary_lines({}) == ["no finding names a role: nothing to change"]
    assert remediate_summary_lines({}, every_role=True)[0].startswith("every-role mode (tunnelfix_remediate_all_roles): no role")


@pytest.mark.parametrize("plans", [[], {"h": []}, {"h": {"roles": "x"}}, {"h": {"skipped": []}}])
def test_odd_plans_are_refused(plans):
    with pytest.raises(ValueError, match="plans"):
        remediate_summary_lines(plans)


UDP_GRO = "tunnelfix.fleet.udp_gro_forwarding"


@pytest.mark.parametrize("host_vars, said", [
    ({"a": {"udp_gro_forwarding_persist": False}, "b": {"udp_gro_forwarding_persist": "no"}, "c": {}}, ["a", "b"]),
    ({"a": {"udp_gro_forwarding_persist": True}, "b": {"udp_gro_forwarding_persist": "yes"}, "c": {}}, []),
    (None, []),                                                                       # no hostvars given: no line
])
def test_a_role_without_its_hook_is_runtime_only_on_the_hosts_that_turn_it_off(host_vars, said):
    """Issue 30.4: udp_gro_forwarding_persist=false (or bridge_gso_off_persist=false) leaves a change that a reboot undoes."""
    plans = {host: {"roles": [UDP_GRO], "vars": {}, "skipped": {}, "changes": {}} for host in ("a", "b", "c")}
    plans["d"] = {"roles": [], "vars": {}, "skipped": {UDP_GRO: "left alone"}, "changes": {}}   # not run there: not named
    lines = remediate_summary_lines(plans, False, 8, dict(host_vars or {}, d={"udp_gro_forwarding_persist": False}) if host_vars else None)
    runtime = [line for line in lines if "runtime only" in line]
    assert runtime == (["  runtime only: lost at reboot (udp_gro_forwarding_persist=false) on %d: %s" % (len(said), ", ".join(said))]
                       if said else [])
    if said:
        assert lines.index(runtime[0]) == lines.index("%s: runs on 3: a, b, c; skipped on 1 (left alone): d" % UDP_GRO) + 1


def test_bridge_gso_off_without_its_units_is_runtime_only_too():
    plans = {"owrt": {"roles": [BRIDGE], "vars": {}, "skipped": {}, "changes": {}}}
    assert "  runtime only: lost at reboot (bridge_gso_off_persist=false) on 1: owrt" in remediate_summary_lines(
        plans, False, 8, {"owrt": {"bridge_gso_off_persist": "false"}})


def test_every_persist_variable_is_its_roles_default_true():
    """The faults' fix_persist names a variable of the role's defaults that is true there (unset means persisted)."""
    from pathlib import Path

    import yaml

    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FIX_PERSIST
    assert set(FIX_PERSIST) == {UDP_GRO, BRIDGE}
    for role, variable in FIX_PERSIST.items():
        defaults = Path(__file__).resolve().parents[5] / "roles" / role.rsplit(".", 1)[1] / "defaults" / "main.yml"
        assert yaml.safe_load(defaults.read_text(encoding="utf-8"))[variable] is True, (role, variable)
