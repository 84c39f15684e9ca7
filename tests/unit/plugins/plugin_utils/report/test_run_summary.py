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
    assert checked["next"] == {"playbook": "remediate", "check": False, "why": "apply the changes listed above", "hosts": ["a"]}
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
        "ansible-playbook -i inv/hosts.yml -i 'my inventory.ini' --limit 'peers,!bad,localhost' %s --check --diff" % target)


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


# Issue 30.3: every summary line says what the next command will really do.

UDP_GRO_ROLE = "tunnelfix.fleet.udp_gro_forwarding"
OPT_IN_LEFT = {"roles": [], "vars": {}, "changes": {}, "skipped": {UDP_GRO_ROLE: "left alone: udp_gro_forwarding_enable is not true"}}


def _lines(stage, invocation=None, failures=(), unreachable=()):
    invocation = FQCN if invocation is None else invocation
    tally = RunTally()
    tally.record_stage(stage)
    for host, task, message in failures:
        tally.record_failure(host, task, message)
    for host in unreachable:
        tally.record_failure(host, "Gather", "Failed to connect", unreachable=True)
    return summary_lines(tally, invocation)


def test_diagnose_proposes_no_remediate_when_the_only_fix_is_an_opt_in_not_set_and_names_the_variable():
    document = _document([_finding("exit-01", "udp_gro_forwarding_off", UDP_GRO_ROLE)])
    lines = _lines(stage_summary(document, "diagnose", False, {"exit-01": OPT_IN_LEFT}))
    assert not any("remediate" in line and "ansible-playbook" in line for line in lines), lines
    assert lines[-1] == ("next: nothing for remediate to run: udp_gro_forwarding is opt-in: set udp_gro_forwarding_enable=true "
                         "(in the inventory, or -e udp_gro_forwarding_enable=true) for 1 host: exit-01 to let remediate fix "
                         "udp_gro_forwarding_off")
    # another finding remediate does fix: remediate in check mode, and the opt-in as a note
    both = _document([_finding("exit-01", "udp_gro_forwarding_off", UDP_GRO_ROLE), _finding("exit-02", "f1")])
    plans = {"exit-01": OPT_IN_LEFT, "exit-02": {"roles": ["tunnelfix.fleet.some_role"], "skipped": {}}}
    lines = _lines(stage_summary(both, "diagnose", False, plans))
    assert lines[-2].startswith("next: ansible-playbook -i inventory.yml tunnelfix.fleet.remediate --check --diff   # see what")
    assert lines[-1].startswith("note: udp_gro_forwarding is opt-in: set udp_gro_forwarding_enable=true")
    with pytest.raises(ValueError):
        stage_summary(both, "remediate", False, plans)          # plans are diagnose's


def test_remediate_that_runs_nothing_but_an_opt_in_says_so_instead_of_no_host_needed_a_role():
    data = {"findings": _document([_finding("exit-01", "udp_gro_forwarding_off", UDP_GRO_ROLE)]), "plans": {"exit-01": OPT_IN_LEFT}}
    step = stage_summary(data, "remediate", True)["next"]
    assert step["playbook"] is None and step["why"].startswith("nothing for remediate to run: udp_gro_forwarding is opt-in")


@pytest.mark.parametrize("check", [True, False])
def test_after_a_failed_canary_the_summary_never_widens_the_run(check):
    """A canary (--limit canary,localhost, or tunnelfix_canary=1) failed: the failed host again, in the same mode; no
    real remediate and no verify for 'the others' (they never ran, or the rollout must not go on)."""
    data = {"findings": _document([_finding("lnx-%02d" % n, "f1") for n in range(1, 41)]),
            "plans": {"lnx-%02d" % n: {"roles": ["r"]} for n in range(1, 41)}}
    invocation = dict(FQCN, playbook="playbooks/remediate.yml", check=check, limit="lnx-01,localhost")
    lines = _lines(stage_summary(data, "remediate", check), invocation, failures=[("lnx-01", "r : Set it", "permission denied")])
    assert lines[-2] == ("next: fix what failed above, then run again on those hosts: ansible-playbook -i inventory.yml "
                         "--limit lnx-01,localhost playbooks/remediate.yml" + (" --check --diff" if check else ""))
    assert lines[-1].startswith("next for the others: nothing yet; once the failed hosts pass, ")
    assert not [line for line in lines if "ansible-playbook" in line and ("--check" not in line) == check and line != lines[-2]]
    assert not any("verify" in line and "ansible-playbook" in line for line in lines)


def test_after_a_failure_a_step_that_changes_nothing_is_still_offered_for_the_others():
    lines = _lines(stage_summary(_document([_finding("lnx-02", "f1")]), "diagnose"), unreachable=["lnx-01"])
    assert lines[-1].startswith("next for the others: ansible-playbook -i inventory.yml tunnelfix.fleet.remediate --check --diff")


def test_a_rejected_extra_var_is_not_repeated_in_the_next_command():
    """-e tunnelfix_measure=flase rejected by the switch check was echoed into next: (issue 30.3)."""
    invocation = dict(FQCN, limit="lnx-02,localhost", extra_vars=["tunnelfix_measure=flase", "tunnelfix_serial=2"])
    tally = RunTally()
    tally.record_failure("localhost", "Check tunnelfix_measure and tunnelfix_sweep are true or false",
                         'tunnelfix_measure must be true or false, got "flase"')
    lines = summary_lines(tally, invocation)
    # no runnable command: without the -e it would do a full measuring diagnose, not the facts-only pass meant (30.3)
    assert lines[-1] == "next: correct -e tunnelfix_measure (rejected above: must be true or false) and run the same command again"
    assert not [line for line in lines if line.startswith("next") and "ansible-playbook" in line], lines
    assert not any("flase" in line for line in lines if line.startswith("next"))


@pytest.mark.parametrize("extra, rejected", [
    ("tunnelfix_measure=flase", True),
    ('{"tunnelfix_measure": "flase", "x": 1}', True),
    ("{tunnelfix_measure: flase}", True),
    ("a=1 tunnelfix_measure=flase", True),
    ("tunnelfix_measure_seed=5", False),          # another variable whose name starts the same
    ("@vars.yml", False),
])
def test_rejected_extra_vars_are_found_by_name(extra, rejected):
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import rejected_extra_vars
    found = rejected_extra_vars([extra], ['tunnelfix_measure must be true or false, got "flase"'])
    assert (extra in found) is rejected


@pytest.mark.parametrize("limit, expected", [
    ("localhost,localhost", "localhost"),
    ("localhost,lnx-02,localhost", "lnx-02,localhost"),
    ("lnx-02", "lnx-02,localhost"),
    ("all:!lnx-01", "all,!lnx-01,localhost"),
    ("all:!localhost", "all,localhost"),
    ("web[01:03]", "web[01:03],localhost"),
    ("peers:&web", "peers:&web"),                 # an intersection: left as it is
])
def test_a_limit_gets_localhost_once(limit, expected):
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import limit_with_localhost
    assert limit_with_localhost(limit) == expected
    assert "localhost,localhost" not in next_command({"playbook": "x.yml", "limit": limit}, "verify")


def test_a_limit_without_localhost_gets_the_same_run_back_with_it():
    """diagnose/remediate/verify with --limit lnx-02: the controller's plays were skipped and the check failed there."""
    tally = RunTally()
    tally.record_failure("lnx-02", "Check localhost is in this run", "diagnose judges the hosts ... on localhost")
    lines = summary_lines(tally, dict(FQCN, limit="lnx-02"))
    assert lines[-1] == ("next: localhost is not in --limit, so the controller's plays did not run; run again with it: "
                         "ansible-playbook -i inventory.yml --limit lnx-02,localhost tunnelfix.fleet.diagnose")
    # 'all' holds a localhost the inventory names: it ran, so the failure is another one
    tally.hosts_run = {"lnx-02", "localhost"}
    assert summary_lines(tally, dict(FQCN, limit="all"))[-1].startswith("next: fix what failed above, then run again on those hosts")


def test_remediate_counts_the_hosts_of_the_run_and_says_how_many_more_the_findings_name():
    """'findings it fixes: ... 40 hosts' under a 4-host --limit (issue 30.3)."""
    hosts = ["lnx-%02d" % n for n in range(1, 41)]
    data = {"findings": _document([_finding(host, "f1") for host in hosts]),
            "plans": {host: {"roles": ["r"]} for host in hosts}, "hosts": hosts[:4]}
    summary = stage_summary(data, "remediate", True)
    assert summary["sections"][0]["groups"] == [{"label": "f1", "hosts": hosts[:4]}]
    assert summary["next"]["notes"] == [
        "findings.json also names 36 hosts with findings a role fixes, outside this run (--limit): not counted above"]
    lines = _lines(summary, dict(FQCN, limit="lnx-[01:04],localhost"))
    assert "  f1: 4 hosts: lnx-[01:04]" in lines and not any("40 hosts" in line for line in lines)
    with pytest.raises(ValueError):
        stage_summary(dict(data, hosts="lnx-01"), "remediate")


def test_an_unreachable_hosts_reason_is_one_group_not_one_per_fault():
    reason = "no facts were read from this host in this run: Failed to connect"
    checks = {"lnx-01": {"f%d" % n: {"status": "not_checked", "reason": reason} for n in range(13)},
              "lnx-02": {"f%d" % n: {"status": "not_checked" if n < 2 else "clear", "reason": "no hub" if n < 2 else None}
                         for n in range(13)}}
    groups = stage_summary(_document([], checks), "diagnose")["sections"][1]["groups"]
    assert groups == [{"label": "every fault (%s)" % reason, "hosts": ["lnx-01"]}, {"label": "f0, f1 (no hub)", "hosts": ["lnx-02"]}]


def test_a_limited_verify_notes_the_hosts_outside_it_and_calls_none_of_them_still_present():
    outcomes = [{"host": "canary", "id": "f1", "outcome": "fixed", "rechecked": True}]
    summary = stage_summary({"outcomes": outcomes, "outside_hosts": ["b", "c"]}, "verify")
    assert [s["heading"] for s in summary["sections"]] == ["fixed (hosts per finding id)"]
    assert summary["next"]["why"] == "every finding is fixed"
    [note] = summary["next"]["notes"]
    assert note.startswith("findings.json also names 2 hosts with findings a role fixes, outside this run (--limit)")
    with pytest.raises(ValueError):
        stage_summary({"outcomes": outcomes, "outside_hosts": "b"}, "verify")


def test_the_report_line_names_the_report_playbook_as_the_run_was_started():
    """Diagnose's report pointer is in the callback's block, by FQCN when diagnose was run by name (issue 30.3)."""
    stage = dict(stage_summary(_document([]), "diagnose"), report={"findings": "/srv/run/reports/findings.json", "extra_vars": []})
    lines = _lines(stage)
    assert "report: /srv/run/reports/findings.json; for report.html and before-after.md now: ansible-playbook " \
           "tunnelfix.fleet.report (verify writes them with the after side)" in lines
    by_path = _lines(dict(stage, report=dict(stage["report"], extra_vars=["tunnel_measure_report_dir=/srv/r"])),
                     dict(FQCN, playbook="/opt/tf/playbooks/diagnose.yml"))
    assert any(line.endswith("now: ansible-playbook /opt/tf/playbooks/report.yml -e tunnel_measure_report_dir=/srv/r "
                             "(verify writes them with the after side)") for line in by_path), by_path


def test_remediate_without_findings_names_diagnose_not_itself():
    """remediate stopped (no findings file): running it again fails the same way; the next command is diagnose with the
    same inventory and --limit (issue 30.3)."""
    step = {"playbook": "diagnose", "check": False, "fixes_failure": True, "why": "remediate needs diagnose's findings"}
    stage = {"stage": "remediate", "sections": [], "next": step}
    invocation = dict(FQCN, playbook="tunnelfix.fleet.remediate", limit="lnx-01,localhost")
    lines = _lines(stage, invocation, failures=[("localhost", "Stop when there is no findings file", "no findings file x")])
    nexts = [line for line in lines if line.startswith("next")]
    assert nexts == ["next: ansible-playbook -i inventory.yml --limit lnx-01,localhost tunnelfix.fleet.diagnose   "
                     "# remediate needs diagnose's findings"], lines


@pytest.mark.parametrize("check", [True, False])
def test_no_line_for_the_others_when_the_run_had_no_other_host(check):
    """--limit one-host,localhost and that host failed: no 'others', and no reference to a list that is empty (30.3)."""
    data = {"findings": _document([_finding("exit-01", "f1")]), "plans": {"exit-01": {"roles": ["r"]}}, "hosts": ["exit-01"]}
    invocation = dict(FQCN, playbook="tunnelfix.fleet.remediate", check=check, limit="exit-01,localhost")
    tally = RunTally()
    tally.record_stage(stage_summary(data, "remediate", check))
    tally.record_failure("exit-01", "r : Set it", "permission denied")
    tally.hosts_run = {"exit-01", "localhost"}
    lines = summary_lines(tally, invocation)
    assert not [line for line in lines if "others" in line], lines
    assert lines[-1].startswith("next: fix what failed above, then run again on those hosts: ")


def test_the_others_line_never_points_at_an_empty_list():
    data = {"findings": _document([_finding("lnx-%02d" % n, "f1") for n in (1, 2)]),
            "plans": {"lnx-%02d" % n: {"roles": ["r"]} for n in (1, 2)}}
    lines = _lines(stage_summary(data, "remediate", True), dict(FQCN, check=True),
                   failures=[("lnx-01", "r : Set it", "permission denied")])
    assert "would change (check mode): nothing" in lines
    assert lines[-1] == ("next for the others: nothing yet; once the failed hosts pass, run the same check on them "
                         "(nothing above lists a change for them yet)"), lines


def test_verify_outcomes_are_one_line_per_outcome_id_and_reason():
    """40 identical STILL_PRESENT lines every 5 minutes in the journal: one line with the hosts in range notation (30.3)."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import outcome_lines
    left = "left alone: udp_gro_forwarding_enable is not set for this host"
    outcomes = [{"host": "tfb-owrt-%02d" % n, "id": "udp_gro_forwarding_off", "outcome": "still_present", "rechecked": True,
                 "left_alone": left} for n in range(1, 41)]
    outcomes += [{"host": "a", "id": "f1", "outcome": "fixed", "rechecked": False},
                 {"host": "b", "id": "f1", "outcome": "not_checked", "rechecked": False, "reason": "no facts"},
                 {"host": "c", "id": "f1", "outcome": "not_checked", "rechecked": False, "reason": "no facts"}]
    assert outcome_lines(outcomes) == [
        "STILL_PRESENT udp_gro_forwarding_off on 40 hosts: tfb-owrt-[01:40] (%s)" % left,
        "FIXED f1 on 1 host: a (host not re-checked)",
        "NOT_CHECKED f1 on 2 hosts: b, c: no facts"]
    assert outcome_lines([]) == []
    with pytest.raises(ValueError):
        outcome_lines([{"host": "a"}])
