# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The summaries of remediate and verify when an opt-in fix (udp_gro_forwarding, issue 17.9) was left alone: said as
left alone, never as fixed, failed or "nothing names a role"."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import outcome_text
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.remediate_summary import remediate_summary_lines
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.run_summary import stage_summary

ROLE = "tunnelfix.fleet.udp_gro_forwarding"
REASON = "left alone: udp_gro_forwarding_enable is not true for this host (an opt-in fix)"
FOUND = {"host": "exit", "id": "udp_gro_forwarding_off", "fix_role": ROLE}
BDP = {"host": "exit", "id": "buffer_below_bdp", "fix_role": "tunnelfix.fleet.linux_bbr_fq"}


def test_remediate_says_the_role_is_skipped_not_that_no_finding_names_one():
    plans = {"exit": {"roles": [], "vars": {}, "skipped": {ROLE: REASON}, "changes": {}}}
    assert remediate_summary_lines(plans) == [
        "no role to run: the roles the findings name are skipped (below), nothing to change",
        "%s: skipped on 1 (%s): exit" % (ROLE, REASON)]


def test_remediate_lists_a_left_alone_finding_apart_from_those_it_fixes():
    plans = {"exit": {"roles": [BDP["fix_role"]], "vars": {}, "skipped": {ROLE: REASON}, "changes": {}}}
    sections = stage_summary({"findings": {"findings": [FOUND, BDP]}, "plans": plans}, "remediate")["sections"]
    assert sections == [
        {"heading": "findings it fixes (hosts per finding id)", "groups": [{"label": "buffer_below_bdp", "hosts": ["exit"]}]},
        {"heading": "findings left alone (hosts per finding id; the role choice above says why)",
         "groups": [{"label": "udp_gro_forwarding_off", "hosts": ["exit"]}]}]


def test_verify_reports_left_alone_findings_in_their_own_section_and_does_not_call_them_failures():
    outcomes = [dict(FOUND, outcome="still_present", rechecked=True, left_alone=REASON),
                dict(BDP, outcome="fixed", rechecked=True)]
    summary = stage_summary(outcomes, "verify")
    assert [section["heading"] for section in summary["sections"]] == [
        "fixed (hosts per finding id)", "left alone: an opt-in fix not enabled for the host (hosts per finding id)"]
    assert summary["next"]["why"].startswith("every finding remediate worked on is fixed")
    # the same finding after the host opted in and the role ran: a finding still present, said so
    summary = stage_summary([dict(FOUND, outcome="still_present", rechecked=True)], "verify")
    assert summary["sections"][0]["heading"] == "still present (hosts per finding id)"
    assert summary["next"]["why"].startswith("reports/outcomes.json has the evidence")


def test_the_report_table_says_left_alone():
    assert outcome_text(dict(FOUND, outcome="still_present", rechecked=True, left_alone=REASON)) == "still_present (left alone: opt-in)"
    assert outcome_text(dict(FOUND, outcome="still_present", rechecked=True)) == "still_present"
