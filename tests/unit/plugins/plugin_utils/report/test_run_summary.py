"""The end-of-run summary (plugin_utils/report/run_summary.py): stage summaries, the tally, batches, next command."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import (
    RunTally,
    batch_progress,
    compact_hosts,
    next_command,
    serial_batches,
    stage_summary,
    summary_lines,
)

FQCN = {"playbook": "tunnelfix.fleet.diagnose", "inventory": ["inventory.yml"], "limit": None, "check": False}


def _document(findings, checks=None):
    return {"format": "tunnelfix.findings/2", "hosts": sorted(checks or {}), "checks": checks or {}, "findings": findings}


def _finding(host, fault_id, fix_role="tunnelfix.fleet.some_role"):
    return {"host": host, "id": fault_id, "severity": "high", "fix_role": fix_role, "explanation": "x", "evidence": {}}


@pytest.mark.parametrize("hosts, text", [
    ([], ""),
    (["a"], "a"),
    (["web-01", "web-02"], "web-01, web-02"),                       # two names stay names
    (["web-01", "web-02", "web-03"], "web-[01:03]"),
    (["web-01", "web-02", "web-03", "web-05"], "web-[01:03], web-05"),
    (["web-9", "web-10", "web-11"], "web-9, web-10, web-11"),       # widths differ: no range
    (["a-1", "b-2", "c-3"], "a-1, b-2, c-3"),                       # prefixes differ
    (["x1", "x2", "x3", "y", "x4"], "x[1:3], y, x4"),               # order kept, a run ends at another name
    (["h08", "h09", "h10"], "h[08:10]"),
])
def test_compact_hosts_uses_inventory_ranges_only_for_real_runs(hosts, text):
    assert compact_hosts(hosts) == text


def test_diagnose_groups_hosts_per_finding_id_and_not_checked_reason_and_names_remediate_check():
    checks = {"a": {"f1": {"status": "found", "reason": None}, "f2": {"status": "not_checked", "reason": "no hub"}},
              "b": {"f1": {"status": "found", "reason": None}, "f2": {"status": "not_checked", "reason": "no hub"}},
              "c": {"f1": {"status": "clear", "reason": None}, "f2": {"status": "clear", "reason": None}}}
    summary = stage_summary(_document([_finding("b", "f1"), _finding("a", "f1")], checks), "diagnose")
    assert summary["stage"] == "diagnose"
    assert summary["sections"][0]["groups"] == [{"label": "f1", "hosts": ["a", "b"]}]
    assert summary["sections"][1]["groups"] == [{"label": "f2 (no hub)", "hosts": ["a", "b"]}]
    assert summary["next"]["playbook"] == "remediate" and summary["next"]["check"] is True


def test_diagnose_without_a_fixable_finding_names_no_playbook():
    only_advice = stage_summary(_document([_finding("a", "f1", fix_role=None)]), "diagnose")
    assert only_advice["next"]["playbook"] is None and "explanations" in only_advice["next"]["why"]
    clean = stage_summary(_document([], {"a": {"f1": {"status": "not_checked", "reason": "r"}}}), "diagnose")
    assert clean["next"]["playbook"] is None and "not checked is not a clean one" in clean["next"]["why"]
    assert stage_summary(_document([]), "diagnose")["next"]["why"] == "nothing found"


def test_remediate_counts_only_hosts_that_get_a_role_and_steps_from_check_to_real_to_verify():
    data = {"findings": _document([_finding("a", "f1"), _finding("b", "f1"), _finding("c", "f2", fix_role=None)]),
            "plans": {"a": {"roles": ["r"]}, "b": {"roles": []}, "c": {"roles": []}}}
    checked = stage_summary(data, "remediate", True)
    assert checked["sections"][0]["groups"] == [{"label": "f1", "hosts": ["a"]}]
    assert checked["next"] == {"playbook": "remediate", "check": False, "why": "apply the changes listed above"}
    assert stage_summary(data, "remediate", False)["next"]["playbook"] == "verify"
    old_format = stage_summary(dict(data, findings=data["findings"]["findings"]), "remediate", True)
    assert old_format["sections"] == checked["sections"]                      # findings.json as a plain list
    nothing = stage_summary({"findings": None, "plans": {"a": {"roles": []}}}, "remediate")
    assert nothing["next"]["playbook"] is None


def test_verify_groups_per_outcome_and_points_at_the_evidence_when_something_survived():
    outcomes = [{"host": "a", "id": "f1", "outcome": "fixed", "rechecked": True},
                {"host": "b", "id": "f1", "outcome": "still_present", "rechecked": True}]
    summary = stage_summary(outcomes, "verify")
    assert [s["heading"] for s in summary["sections"]] == ["fixed (hosts per finding id)", "still present (hosts per finding id)"]
    assert "outcomes.json" in summary["next"]["why"]
    assert stage_summary(outcomes[:1], "verify")["next"]["why"] == "every finding is fixed"
    nothing = stage_summary([], "verify")
    assert nothing["sections"] == [] and nothing["next"]["why"] == "nothing was found to fix"
    tally = RunTally()
    tally.record_stage(nothing)
    assert summary_lines(tally, FQCN) == ["changed: nothing", "next: nothing was found to fix"]


def test_verify_says_what_it_could_not_judge_and_never_that_everything_is_fixed():
    outcomes = [{"host": "a", "id": "f1", "outcome": "fixed", "rechecked": True},
                {"host": "b", "id": "f2", "outcome": "not_checked", "rechecked": False, "reason": "no tunnelfix_tunnel_hub"},
                {"host": "c", "id": "f2", "outcome": "not_checked", "rechecked": False, "reason": "no tunnelfix_tunnel_hub"}]
    summary = stage_summary(outcomes, "verify")
    [section] = [s for s in summary["sections"] if s["heading"].startswith("not checked")]
    assert [(g["label"], g["hosts"]) for g in section["groups"]] == [("f2: no tunnelfix_tunnel_hub", ["b", "c"])]
    assert "could not be judged" in summary["next"]["why"] and summary["next"]["why"] != "every finding is fixed"


@pytest.mark.parametrize("data, stage", [
    ([], "diagnose"), ({"findings": {}}, "diagnose"), ([], "remediate"), ({"plans": []}, "remediate"),
    ({}, "verify"), ([{"host": "a"}], "verify"), ([], "sweep"),
])
def test_wrong_shapes_raise_value_error_naming_what_is_expected(data, stage):
    with pytest.raises(ValueError):
        stage_summary(data, stage)


def test_the_tally_keeps_the_last_failure_and_one_line_of_it():
    tally = RunTally()
    tally.record_failure("a", "task 1", "first")
    tally.record_failure("a", "task 2", "second\nline two")
    tally.record_failure("b", "task", "x" * 400)
    assert tally.failed["a"] == ("task 2", "second")
    assert len(tally.failed["b"][1]) == 300 and tally.failed["b"][1].endswith("...")
    tally.forget_failures_of(["a"])
    assert list(tally.failed) == ["b"]


def test_a_stage_summary_of_the_same_stage_replaces_the_earlier_one():
    tally = RunTally()
    tally.record_stage({"stage": "diagnose", "sections": [], "next": None})
    tally.record_stage({"stage": "verify", "sections": [], "next": None})
    tally.record_stage({"stage": "diagnose", "sections": [], "next": {"playbook": None, "why": "x"}})
    assert [s["stage"] for s in tally.stages] == ["verify", "diagnose"]
    with pytest.raises(ValueError):
        tally.record_stage({"stage": "elsewhere"})


def _fleet_tally():
    tally = RunTally()
    tally.record_stage(stage_summary(_document([_finding("lnx-%02d" % n, "f1") for n in range(1, 21)]), "diagnose"))
    for n in range(1, 21):
        tally.record_change("lnx-%02d" % n, "tunnelfix.fleet.some_role")
        tally.record_change("lnx-%02d" % n, "tunnelfix.fleet.some_role")
        tally.record_notices("lnx-%02d" % n, ["net.core.default_qdisc does not exist here"])
    tally.record_failure("lnx-07", "some_role : Set it", "permission denied")
    tally.record_failure("owrt-01", "Gather", "Failed to connect", unreachable=True)
    return tally


def test_a_fleet_summary_is_a_line_per_finding_id_role_notice_and_troubled_host():
    lines = summary_lines(_fleet_tally(), FQCN)
    text = "\n".join(lines)
    assert "  f1: 20 hosts: lnx-[01:20]" in lines
    assert "changed, per role:" in lines and "  tunnelfix.fleet.some_role: 20 hosts: lnx-[01:20]" in lines
    assert "  net.core.default_qdisc does not exist here (20 hosts: lnx-[01:20])" in lines
    assert "failed: 1 host: lnx-07" in lines and "  lnx-07: [some_role : Set it] permission denied" in lines
    assert "unreachable: 1 host: owrt-01" in lines and "  owrt-01: [Gather] Failed to connect" in lines
    assert text.count("default_qdisc") == 1
    assert lines[-2] == ("next: fix what failed above, then run again on those hosts: "
                         "ansible-playbook -i inventory.yml --limit lnx-07,owrt-01,localhost tunnelfix.fleet.diagnose")
    assert lines[-1].startswith("next for the others: ansible-playbook -i inventory.yml tunnelfix.fleet.remediate --check --diff")
    assert len(lines) < 20


def test_a_failure_on_the_controller_only_says_run_again_not_limit_localhost_twice():
    """Only localhost failed (the inventory has no fleet host, a bad variable): the same run again, no --limit."""
    tally = RunTally()
    tally.record_failure("localhost", "Check the inventory has a host in the collection's groups", "no host of the inventory")
    lines = summary_lines(tally, FQCN)
    assert "next: fix what failed above, then run again: ansible-playbook -i inventory.yml tunnelfix.fleet.diagnose" in lines
    assert not any("localhost,localhost" in line for line in lines)


def test_check_mode_says_would_change_and_a_quiet_run_says_nothing():
    lines = summary_lines(RunTally(), dict(FQCN, check=True))
    assert lines == ["would change (check mode): nothing"]


@pytest.mark.parametrize("started, target", [
    ("tunnelfix.fleet.diagnose", "tunnelfix.fleet.remediate"),
    ("playbooks/diagnose.yml", "playbooks/remediate.yml"),
    ("/abs/path/site.yml", "/abs/path/remediate.yml"),
    ("diagnose.yml", "remediate.yml"),
    (None, "tunnelfix.fleet.remediate"),
])
def test_the_next_command_has_the_form_the_run_was_started_with(started, target):
    invocation = {"playbook": started, "inventory": ["inv/hosts.yml", "my inventory.ini"], "limit": "peers:!bad"}
    assert next_command(invocation, "remediate", check=True) == (
        "ansible-playbook -i inv/hosts.yml -i 'my inventory.ini' --limit 'peers:!bad' %s --check --diff" % target)


@pytest.mark.parametrize("extra_vars, carried", [
    (None, ""),
    (["udp_gro_forwarding_enable=true"], " -e udp_gro_forwarding_enable=true"),    # an opt-in must reach the apply
    (["@vars/rollout.yml", '{"tunnelfix_serial": 5}'], " -e @vars/rollout.yml -e '{\"tunnelfix_serial\": 5}'"),
    (["ansible_become_password=hunter2", "tunnelfix_canary=1"], " -e tunnelfix_canary=1"),   # a secret is never printed
    (['{"wg_private_key": "x"}', "api_token=t", "vault_id=v", ""], ""),
    # a PSK and a WPS PIN (issue 30.7), a key under an innocent name; a ping setting is not a PIN
    (["wg_psk=abc", "wps_pin=12345670", "x=" + "K" * 43 + "=", "tunnel_measure_ping_count=5"],
     " -e tunnel_measure_ping_count=5"),
])
def test_the_next_command_carries_the_runs_extra_vars_but_no_secret(extra_vars, carried):
    invocation = {"playbook": "playbooks/remediate.yml", "inventory": ["inv.yml"], "extra_vars": extra_vars}
    assert next_command(invocation, "remediate") == "ansible-playbook -i inv.yml playbooks/remediate.yml" + carried


@pytest.mark.parametrize("started, quoted", [
    ("my playbooks/diagnose.yml", "'my playbooks/remediate.yml'"),
    ("$(touch /tmp/x)/diagnose.yml", "'$(touch /tmp/x)/remediate.yml'"),
])
def test_the_next_commands_playbook_path_is_quoted_for_the_shell(started, quoted):
    """A pasted next line must not split at a space nor run a command substitution in the path (issue 30.7)."""
    assert next_command({"playbook": started, "inventory": ["inv.yml"]}, "remediate") == (
        "ansible-playbook -i inv.yml %s" % quoted)


@pytest.mark.parametrize("count, serial, sizes", [
    (40, [0], [40]),
    (40, [], [40]),
    (40, 10, [10, 10, 10, 10]),
    (40, [1, "25%"], [1, 10, 10, 10, 9]),
    (5, [2], [2, 2, 1]),
    (3, ["10%"], [1, 1, 1]),                 # a percentage never gives 0 (at least one host)
    (10, [1, 3, 0], [1, 3, 6]),
    (0, [1], []),
])
def test_serial_batches_cut_like_ansible_core(count, serial, sizes):
    hosts = ["h%02d" % n for n in range(count)]
    batches = serial_batches(hosts, serial)
    assert [len(b) for b in batches] == sizes and sum(batches, []) == hosts


def test_batch_progress_names_k_of_n_from_any_active_host_of_the_batch():
    hosts = ["lnx-%02d" % n for n in range(1, 41)]
    assert batch_progress(["lnx-01"], hosts, [1, "25%"]) == "batch 1/5 of the play's 40 hosts: 1 host: lnx-01"
    assert batch_progress(["lnx-03"], hosts, [1, "25%"]) == "batch 2/5 of the play's 40 hosts: 10 hosts: lnx-[02:11]"
    assert batch_progress(["lnx-13", "lnx-12"], hosts, [1, "25%"]) == "batch 3/5 of the play's 40 hosts: 10 hosts: lnx-[12:21]"
    assert batch_progress(["lnx-40"], hosts, [1, "25%"]) == "batch 5/5 of the play's 40 hosts: 9 hosts: lnx-[32:40]"
    with pytest.raises(ValueError):
        batch_progress(["elsewhere"], hosts, [1])
    with pytest.raises(ValueError):
        serial_batches(hosts, ["two"])
