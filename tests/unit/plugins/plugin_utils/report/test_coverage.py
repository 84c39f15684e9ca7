# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What diagnose judged, for a fleet: grouped by fault, status and reason; only the run's hosts; text escaped."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import (
    check_checks, coverage_groups, coverage_lines, coverage_table, host_list)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.html import render_report_html, report_document
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import findings_table, markdown_table, md_cell

CLEAR = {"status": "clear", "reason": None}
NO_HUB = {"status": "not_checked", "reason": "its hub hub is not in this run"}


def fleet(peers=40):
    """Checks of a facts-only run on ``peers`` peers without their hub: one dead, the rest clear."""
    checks = {}
    for number in range(1, peers + 1):
        host = "lnx-%02d" % number
        checks[host] = {"fault_a": NO_HUB, "fault_b": CLEAR,
                        "fault_c": {"status": "found", "reason": None} if number == 3 else CLEAR}
    return checks


def test_groups_by_fault_status_and_reason():
    groups = coverage_groups(fleet(4))
    assert [(g["fault"], g["status"], len(g["hosts"])) for g in groups] == [
        ("fault_a", "not_checked", 4), ("fault_b", "clear", 4), ("fault_c", "found", 1), ("fault_c", "clear", 3)]
    assert groups[2]["hosts"] == ["lnx-03"]


def test_the_console_summary_is_one_line_per_fault_whatever_the_fleet():
    document = {"format": "tunnelfix.findings/2", "hosts": sorted(fleet()), "checks": fleet(),
                "findings": [{"host": "lnx-03", "id": "fault_c", "fix_role": None}]}
    lines = coverage_lines(document)
    assert lines[0] == "1 finding(s) on 1 of the 40 host(s) of this run (lnx-[01:40])"
    assert lines[1] == "fault_a: not checked on 40 (its hub hub is not in this run): lnx-[01:40]"
    assert lines[2] == "fault_b: clear on all 40"
    assert lines[3] == "fault_c: found on 1: lnx-03; clear on 39"
    assert lines[4] == "not checked on any host: fault_a (the reasons above say what was missing)"
    assert len(lines) == 5


def test_a_fixable_finding_names_the_next_command():
    document = {"checks": {"a": {"f": {"status": "found", "reason": None}}}, "findings": [
        {"host": "a", "id": "f", "fix_role": "tunnelfix.fleet.banip_icmp"}]}
    assert coverage_lines(document)[-1] == "next: remediate.yml with the same inventory runs tunnelfix.fleet.banip_icmp on the hosts with findings"


def test_no_finding_with_something_unchecked_is_not_called_clean():
    assert coverage_lines({"checks": {"a": {"f": NO_HUB}}, "findings": []})[-1] == "no finding; a not-checked fault is not a clean one"
    assert coverage_lines({"checks": {"a": {"f": CLEAR}}, "findings": []})[-1] == "no finding"


def test_only_the_hosts_of_the_run_are_named():
    checks = {"tfb-lnx-01": {"f": CLEAR}, "tfb-owrt-01": {"f": CLEAR}}
    lines = coverage_lines({"checks": checks, "findings": []})
    assert lines[0] == "0 finding(s) on 0 of the 2 host(s) of this run (tfb-lnx-01, tfb-owrt-01)"


def test_host_list():
    assert host_list(["a", "b", "c"], 2) == "a, b and 1 more" and host_list(["a"], 2) == "a" and host_list([], 2) == ""
    # numbered names in range notation; "and N more" counts hosts, not ranges (issue 30.3)
    assert host_list(["a", "w-01", "w-02", "w-03", "w-05", "x-1", "x-2", "x-3"], 3) == "a, w-[01:03], w-05 and 3 more"
    assert host_list(["w-01", "w-02", "w-03", "w-05"], None) == "w-[01:03], w-05"


def test_a_table_cell_of_many_hosts_is_short():
    """A fault not checked on 20 numbered routers: one range, not 20 names (issue 30.3: cells of up to 672 chars)."""
    checks = {"tfb-owrt-%02d" % n: {"buffer_below_bdp": {"status": "not_checked", "reason": "no measurement in this run"}}
              for n in range(1, 21)}
    assert coverage_table(checks).splitlines()[2] == (
        "| buffer_below_bdp | - | 20 (no measurement in this run): tfb-owrt-\\[01:20\\] | - |")   # [ ] escaped for Markdown
    assert "tfb-owrt-[01:20]" in render_report_html([], [], {}, checks)


@pytest.mark.parametrize("checks", [[], {"a": []}, {"a": {"f": {"status": "gone"}}}, {"a": {"f": {"status": "clear", "reason": 5}}}])
def test_odd_checks_are_refused_naming_the_entry(checks):
    with pytest.raises(ValueError, match="checks"):
        check_checks(checks)


def test_the_markdown_table():
    table = coverage_table(fleet(3), max_hosts=2)
    assert table.splitlines() == [
        "| finding | found | not checked | clear |", "|---|---|---|---|",
        "| fault_a | - | 3 (its hub hub is not in this run): lnx-\\[01:03\\] | - |",
        "| fault_b | - | - | 3 |",
        "| fault_c | 1: lnx-03 | - | 2 |"]


HOSTILE = "<script>alert(1)</script> a|b & c\\d"


def test_a_markdown_cell_is_text():
    assert md_cell(HOSTILE) == "&lt;script&gt;alert(1)&lt;/script&gt; a\\|b &amp; c\\\\d"
    assert md_cell("two\nlines") == "two lines" and md_cell(None) == ""


def test_hostile_names_and_reasons_are_escaped_everywhere():
    checks = {HOSTILE: {"f|x": {"status": "not_checked", "reason": HOSTILE}}}
    table = coverage_table(checks)
    assert "<script>" not in table and table.count("\\|") == 3
    assert all(line.count(" | ") == 3 for line in table.splitlines()[2:])     # still four cells
    rows = [{"host": HOSTILE, "test": "t|1", "before": "<b>", "after": "1", "reference": ""}]
    assert "<script>" not in markdown_table(rows) and markdown_table(rows).splitlines()[2].count(" | ") == 4
    findings = [{"host": HOSTILE, "severity": "high", "id": "f", "fix_role": None}]
    assert "<script>" not in findings_table(findings)
    html = render_report_html([], findings, {}, checks)
    assert "<script>" not in html and "&lt;script&gt;" in html and 'data-coverage="f|x"' in html


def test_the_report_carries_the_checks():
    checks = fleet(2)
    assert report_document([], [], {}, checks)["checks"] == checks
    assert "What diagnose judged" in render_report_html([], [], {}, checks)
    assert "What diagnose judged" not in render_report_html([], [], {}, None)


def test_finding_lines():
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import finding_lines
    assert finding_lines([{"severity": "high", "host": "owrt", "id": "f", "fix_role": None, "explanation": "why",
                           "evidence": {"bridge": "br-lan", "mtu_bytes": 1420}},
                          {"severity": "critical", "host": "peer", "id": "g", "fix_role": "r", "explanation": "x"}]) == [
        "HIGH f (fix: see the explanation) on 1 host: owrt", "  why", "  owrt: bridge=br-lan mtu_bytes=1420",
        "CRITICAL g (fix: r) on 1 host: peer", "  x", "  peer: -",
        "each host's full explanation and evidence: reports/findings.json (the report: playbooks/report.yml)"]
    assert finding_lines([]) == []
    with pytest.raises(ValueError, match="findings must be a list"):
        finding_lines({"findings": []})


def test_finding_lines_print_each_explanation_once_per_id_and_a_short_line_per_host():
    """Issue 30.3: 2 findings on 40 hosts printed 389 lines of up to ~700 characters (the explanation per host)."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import finding_lines
    explanation = "A long paragraph on why this matters and what the role does about it. " * 10     # ~700 characters
    findings = [{"severity": "low", "host": "tfb-lnx-%02d" % n, "id": fault_id, "fix_role": "tunnelfix.fleet.r",
                 "explanation": explanation, "evidence": {"nic": "eth0", "rx_udp_gro_forwarding": "off", "ratio": 0.123456,
                                                          "peer_public_key": "K" * 43 + "=", "routes": [{"dev": "x"}],
                                                          "families": ["inet", "inet6"], "note": "x" * 300}}
                for n in range(1, 41) for fault_id in ("fault_a", "fault_b")]
    lines = finding_lines(findings)
    assert len(lines) == 2 * (2 + 40) + 1
    assert lines[0] == "LOW fault_a (fix: tunnelfix.fleet.r) on 40 hosts: tfb-lnx-[01:40]"
    assert lines[1] == "  %s (as on tfb-lnx-01)" % explanation.strip()
    assert sum(explanation.strip() in line for line in lines) == 2                    # once per finding id
    host_lines = [line for line in lines if line.startswith("  tfb-lnx-")]
    assert len(host_lines) == 80 and max(len(line) for line in host_lines) <= 2 + len("tfb-lnx-01: ") + 100
    assert host_lines[0].startswith("  tfb-lnx-01: nic=eth0 rx_udp_gro_forwarding=off ratio=0.1235 families=inet+inet6 note=xx")
    assert "K" * 43 not in "\n".join(lines) and "dev" not in host_lines[0]          # no key, no nested record
    assert lines[-1].startswith("each host's full explanation and evidence: reports/findings.json")


def test_an_unreachable_host_is_one_line_not_one_per_fault():
    """Issue 30.3: the reason of a host without facts was printed once per fault (13 lines)."""
    unreachable = {"status": "not_checked", "reason": "no facts were read from this host in this run: Connection refused"}
    checks = {"lnx-01": {"fault_a": unreachable, "fault_b": unreachable, "fault_c": unreachable},
              "lnx-02": {"fault_a": CLEAR, "fault_b": NO_HUB, "fault_c": {"status": "found", "reason": None}}}
    lines = coverage_lines({"checks": checks, "findings": [{"host": "lnx-02", "id": "fault_c", "fix_role": None}]})
    assert sum("Connection refused" in line for line in lines) == 1
    assert lines[1] == "every fault not checked on 1 (%s): lnx-01" % unreachable["reason"]
    assert lines[2:5] == ["fault_a: clear on all 1 read", "fault_b: not checked on 1 (its hub hub is not in this run): lnx-02",
                          "fault_c: found on 1: lnx-02"]
    assert "not checked on any host: fault_b (the reasons above say what was missing)" in lines


OPT_IN_FINDING = {"host": "exit-01", "id": "udp_gro_forwarding_off", "fix_role": "tunnelfix.fleet.udp_gro_forwarding"}
OPT_IN_SKIPPED = {"roles": [], "vars": {}, "changes": {},
                  "skipped": {"tunnelfix.fleet.udp_gro_forwarding": "left alone: udp_gro_forwarding_enable is not true"}}


def test_an_opt_in_fix_the_host_did_not_opt_into_is_named_not_proposed():
    """Issue 30.3: 'next: remediate.yml ... runs tunnelfix.fleet.udp_gro_forwarding' while remediate skips it."""
    document = {"checks": {"exit-01": {"udp_gro_forwarding_off": {"status": "found", "reason": None}}}, "findings": [OPT_IN_FINDING]}
    lines = coverage_lines(document, 8, {"exit-01": OPT_IN_SKIPPED})
    assert not any("remediate.yml" in line for line in lines)
    assert lines[-1] == ("next: nothing for remediate to run: udp_gro_forwarding is opt-in: set udp_gro_forwarding_enable=true "
                         "(in the inventory, or -e udp_gro_forwarding_enable=true) for 1 host: exit-01 to let remediate fix "
                         "udp_gro_forwarding_off")
    opted_in = {"exit-01": {"roles": ["tunnelfix.fleet.udp_gro_forwarding"], "vars": {}, "skipped": {}, "changes": {}}}
    assert coverage_lines(document, 8, opted_in)[-1] == (
        "next: remediate.yml with the same inventory runs tunnelfix.fleet.udp_gro_forwarding on the hosts with findings")
    bdp = {"host": "exit-01", "id": "buffer_below_bdp", "fix_role": "tunnelfix.fleet.linux_bbr_fq"}
    both = coverage_lines(dict(document, findings=[OPT_IN_FINDING, bdp]), 8,
                          {"exit-01": dict(OPT_IN_SKIPPED, roles=["tunnelfix.fleet.linux_bbr_fq"])})
    assert both[-2] == "next: remediate.yml with the same inventory runs tunnelfix.fleet.linux_bbr_fq on the hosts with findings"
    assert both[-1].startswith("note: udp_gro_forwarding is opt-in: set udp_gro_forwarding_enable=true")
