"""before_after_rows / health_check_rows / markdown_table."""
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import (
    before_after_rows, findings_table, health_check_rows, markdown_table, terminal_text)

BEFORE = {"peer": {"hub": "hub", "idle_s": 15, "ping": {"loss_percent": 100.0},
                   "iperf3": {"bits_per_second": 3.1e6, "retransmits": 412, "sender_congestion_control": "cubic"}}}
AFTER = {"peer": {"hub": "hub", "idle_s": 15, "ping": {"loss_percent": 0.0},
                  "iperf3": {"bits_per_second": 37.9e6, "retransmits": 80, "sender_congestion_control": "bbr"}}}
TEXT_KEYS = ("host", "test", "before", "after", "reference")


def _text(row):
    """The string columns of a row (what before-after.md prints)."""
    return {key: row[key] for key in TEXT_KEYS}


def test_rows_pair_before_and_after():
    rows = before_after_rows(BEFORE, AFTER, 40e6)
    assert _text(rows[0]) == {"host": "peer", "test": "hub -> peer ping loss after 15 s idle",
                              "before": "100 %", "after": "0 %", "reference": "0 %"}
    assert rows[1]["before"] == "3.10 Mbit/s (412 retransmits, cubic)"
    assert rows[1]["after"] == "37.9 Mbit/s (80 retransmits, bbr)"
    assert rows[1]["reference"] == "40.0 Mbit/s"


def test_missing_after_reads_na():
    rows = before_after_rows(BEFORE, {}, None)
    assert rows[0]["after"] == "n/a" and rows[1]["after"] == "n/a" and rows[1]["reference"] == ""


def test_failed_measurement_shows_the_reason():
    after = {"peer": dict(AFTER["peer"], iperf3={"bits_per_second": None, "msg": "unable to connect"})}
    assert before_after_rows(BEFORE, after)[1]["after"] == "failed: unable to connect"


@pytest.mark.parametrize("iperf3, text", [
    ({"bits_per_second": 5e6, "failed": True, "msg": "below the required 32.0 Mbit/s"}, "failed: below the required 32.0 Mbit/s"),
    ({"bits_per_second": 5e6, "valid": False, "invalid_reason": "lost_percent 120 outside 0-100"},
     "invalid: lost_percent 120 outside 0-100"),
])
def test_a_failed_or_invalid_result_is_never_shown_as_a_rate(iperf3, text):
    after = {"peer": dict(AFTER["peer"], iperf3=iperf3)}
    row = before_after_rows(BEFORE, after)[1]
    assert (row["after"], row["after_value"]) == (text, None)


def test_markdown_table_has_a_row_per_test():
    table = markdown_table(before_after_rows(BEFORE, AFTER, 40e6))
    lines = table.splitlines()
    assert lines[0].startswith("| host | test | before | after |")
    assert len(lines) == 4


def test_bottleneck_per_host_from_a_dict():
    rows = before_after_rows(dict(BEFORE, owrt=BEFORE["peer"]), dict(AFTER, owrt=AFTER["peer"]), {"owrt": "40M"})
    by_host = {row["host"]: row["reference"] for row in rows if row["test"].startswith("TCP")}
    assert by_host == {"owrt": "40.0 Mbit/s", "peer": ""}


# Records as health_check_measure writes them (lab run: banIP default 25/s, then 250/s).
HC_BEFORE = {"owrt": {"sent": 20, "failed_pings": 10, "rate_per_second": 100.0, "banip_icmplimit_per_second": 25,
                      "icmp_counter_name": "cnt_icmpflood", "icmp_flood_drops_packets": 10}}
HC_AFTER = {"owrt": {"sent": 20, "failed_pings": 0, "rate_per_second": 100.0, "banip_icmplimit_per_second": 250,
                     "icmp_counter_name": "cnt_icmpflood", "icmp_flood_drops_packets": 0}}


def test_health_check_rows_show_lost_pings_limit_and_drops():
    rows = health_check_rows(HC_BEFORE, HC_AFTER)
    assert [_text(row) for row in rows] == [{"host": "owrt", "test": "mwan3-like one-shot health-check pings at 100/s",
                                             "before": "10 of 20 lost (banIP ICMP limit 25/s, cnt_icmpflood 10 drops)",
                                             "after": "0 of 20 lost (banIP ICMP limit 250/s, cnt_icmpflood 0 drops)",
                                             "reference": "0 lost"}]


def test_health_check_rows_show_the_passive_window_first():
    window = {"window_s": 30, "window_icmp_flood_growth_packets": 58, "mwan3_failed_checks": 3}
    before = {"owrt": dict(HC_BEFORE["owrt"], rate_per_second=5.0, failed_pings=1, icmp_flood_drops_packets=9, **window)}
    after = {"owrt": dict(HC_AFTER["owrt"], rate_per_second=10.0, window_s=30, window_icmp_flood_growth_packets=0,
                          mwan3_failed_checks=None)}
    [row] = health_check_rows(before, after)
    assert row["before"] == ("passive 30 s: cnt_icmpflood +58, 3 failed mwan3 checks; probe: 1 of 20 lost "
                             "(banIP ICMP limit 25/s, cnt_icmpflood 9 drops)")
    assert row["after"] == ("passive 30 s: cnt_icmpflood +0, unknown failed mwan3 checks; probe: 0 of 20 lost "
                            "(banIP ICMP limit 250/s, cnt_icmpflood 0 drops)")
    assert (row["before_value"], row["after_value"]) == (1.0, 0.0)


def test_health_check_rows_without_banip_or_after():
    rows = health_check_rows({"r1": {"sent": 5, "failed_pings": 0, "banip_icmplimit_per_second": None,
                                     "icmp_flood_drops_packets": None}}, {})
    assert rows[0]["before"] == "0 of 5 lost" and rows[0]["after"] == "n/a" and rows[0]["test"].endswith("pings")


@pytest.mark.parametrize("func", [before_after_rows, health_check_rows])
@pytest.mark.parametrize("before, after, message", [
    ({}, "x", "after must be a dict {host: record}, got str 'x'"),
    ([], {}, "before must be a dict {host: record}, got list []"),
    ({"peer": "x"}, {}, "before['peer'] must be a dict (a measurement record), got str 'x'"),
])
def test_bad_records_name_the_argument_and_host(func, before, after, message):
    with pytest.raises(ValueError) as err:
        func(before, after)
    assert str(err.value) == message


def test_bad_fields_name_the_side_and_host():
    with pytest.raises(ValueError, match=r"^after\['peer'\]: "):
        before_after_rows({}, {"peer": {"iperf3": {"bits_per_second": 1, "retransmits": "x"}}})
    with pytest.raises(ValueError, match=r"^bottleneck_bits_per_second\['peer'\]: cannot parse bitrate"):
        before_after_rows({"peer": {}}, {}, 10 ** 400)
    with pytest.raises(ValueError, match=r"^before\['r1'\]: could not convert"):
        health_check_rows({"r1": {"rate_per_second": "fast"}}, {})


VALUE_KEYS = ("before_value", "after_value", "reference_value", "unit")


def _values(row):
    return tuple(row[key] for key in VALUE_KEYS)


def test_rows_carry_numbers_and_units():
    rows = before_after_rows(BEFORE, AFTER, "40M")
    assert [_values(row) for row in rows] == [(100.0, 0.0, 0.0, "percent"),
                                              (3.1e6, 37.9e6, 40e6, "bits_per_second")]
    assert [_values(row) for row in health_check_rows(HC_BEFORE, HC_AFTER)] == [(10.0, 0.0, 0.0, "count")]


@pytest.mark.parametrize("iperf3, expected", [
    ({"bits_per_second": None, "msg": "unable to connect"}, None),          # failed, no number
    ({"bits_per_second": 1.2e6, "failed": True}, None),                     # failed with a partial number
    ({"bits_per_second": 1.2e6, "valid": False}, None),                     # judged invalid by the action
    ({"bits_per_second": float("nan")}, None),
    ({"bits_per_second": 1.2e6, "valid": True, "failed": False}, 1.2e6),
    ({}, None),
])
def test_throughput_value_is_none_unless_a_valid_number(iperf3, expected):
    after = {"peer": dict(AFTER["peer"], iperf3=iperf3)}
    assert before_after_rows({}, after)[1]["after_value"] == expected


def test_a_flow_without_a_measurement_slot_reads_not_measured_never_a_rate():
    reason = "no measurement slot within 60 s (tunnel_measure_slot_wait_max_s): its slot, 3 of 3, would start about 68 s after the first"
    after = {"peer": dict(AFTER["peer"], iperf3={"bits_per_second": None, "valid": False, "failed": False, "not_measured": True,
                                                 "invalid_reason": reason})}
    row = before_after_rows({}, after)[1]
    assert (row["after"], row["after_value"]) == ("not measured: " + reason, None)


@pytest.mark.parametrize("record, expected", [
    ({"sent": 20, "failed_pings": 3}, 3.0),
    ({"sent": 20, "failed_pings": None}, None),
    ({"sent": 20, "failed_pings": True}, None),
    ({}, None),
])
def test_health_check_value_is_the_lost_pings(record, expected):
    assert health_check_rows({"r1": record}, {})[0]["before_value"] == expected


def test_missing_side_and_bottleneck_have_no_value():
    rows = before_after_rows(BEFORE, {}, None)
    assert [(row["after_value"], row["reference_value"]) for row in rows] == [(None, 0.0), (None, None)]


def test_findings_table_lists_host_severity_id_and_role():
    table = findings_table([
        {"host": "peer", "severity": "critical", "id": "nat_peer_without_keepalive", "fix_role": "tunnelfix.fleet.wireguard_keepalive"},
        {"host": "hub", "severity": "medium", "id": "kernel_without_bbr", "fix_role": None}])
    assert table.splitlines() == [
        "| host | severity | finding | fixed by |", "|---|---|---|---|",
        "| peer | critical | nat_peer_without_keepalive | tunnelfix\\.fleet\\.wireguard_keepalive |",
        "| hub | medium | kernel_without_bbr | - |"]
    assert findings_table([]) == "No finding.\n"
    import pytest
    with pytest.raises(ValueError, match="findings must be"):
        findings_table({"peer": []})


@pytest.mark.parametrize("bottleneck, reference", [
    (None, "40.0 Mbit/s"),                  # nothing given: the path the measurement recorded
    ({}, "40.0 Mbit/s"),                    # the host not named: the same
    ({"peer": "20M"}, "20.0 Mbit/s"),       # named: that wins
])
def test_the_reference_falls_back_to_the_recorded_path(bottleneck, reference):
    after = {"peer": dict(AFTER["peer"], path_bits_per_second=40000000)}
    assert before_after_rows(BEFORE, after, bottleneck)[1]["reference"] == reference


# ---- the command line in report.html / report.json: secrets out by name and by shape
def _fake_key(label):
    import base64
    import hashlib
    return base64.b64encode(hashlib.sha256(label.encode()).digest()).decode()


@pytest.mark.parametrize("words, expected", [
    (["ansible-playbook", "-e", "wg_psk=" + _fake_key("a")], ["ansible-playbook", "-e", "<redacted>"]),
    (["-e", "x=" + _fake_key("b")], ["-e", "x=<redacted>"]),                        # an innocent name
    (["-e", "modem_PINCODE=1234", "--vault-password-file=v"], ["-e", "<redacted>", "<redacted>"]),
    (["-e", "{\"a\": \"%s\"}" % _fake_key("c")], ["-e", "{\"a\": \"<redacted>\"}"]),
    (["-i", "inv.yml", "--limit", "a,b", "playbooks/site.yml"], ["-i", "inv.yml", "--limit", "a,b", "playbooks/site.yml"]),
    (["-e", "n=" + "A" * 42 + "=="], ["-e", "n=" + "A" * 42 + "=="]),              # not 32 bytes of base64
])
def test_redact_command_words(words, expected):
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import redact_command_words
    assert redact_command_words(words) == expected


def test_redact_command_words_refuses_non_strings():
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import redact_command_words
    with pytest.raises(ValueError, match=r"words\[1\] must be a string, got 'int'"):
        redact_command_words(["a", 3])


def test_findings_table_shows_verifys_outcome_when_there_is_one():
    plain = [{"host": "owrt", "severity": "high", "id": "endpoint_route_pinned", "fix_role": "r"}]
    assert "after verify" not in findings_table(plain)
    verified = [dict(plain[0], outcome="fixed", rechecked=True),
                dict(plain[0], host="gone", outcome="still_present", rechecked=False)]
    table = findings_table(verified)
    assert table.splitlines()[0] == "| host | severity | finding | fixed by | after verify |"
    assert table.splitlines()[2].endswith("| fixed |")
    assert table.splitlines()[3].endswith("| still_present (not re-checked) |")


def test_the_single_flow_record_keeps_what_the_report_shows_of_an_invalid_result():
    """tunnel_measure's record carries iperf3's invalid_reason, so before-after.md names why (not "out of range")."""
    from pathlib import Path

    import yaml

    record_yml = Path(__file__).resolve().parents[5] / "roles" / "tunnel_measure" / "tasks" / "record.yml"
    record = yaml.safe_load(record_yml.read_text())[0]["ansible.builtin.set_fact"]["tunnel_measure_record"]["iperf3"]
    assert {"bits_per_second", "valid", "invalid_reason", "failed", "msg"} <= set(record)
    assert "invalid_reason" in record["invalid_reason"]


def test_terminal_text_reads_as_plain_text_and_keeps_a_literal_entity():
    """The .md's cells carry entities; the console's text has the characters, and a host's own "&lt;" stays as typed."""
    rows = before_after_rows(BEFORE, AFTER, 40e6)
    rows[0]["before"] = "a&b <c> &lt; x|y C:\\path\\|z"
    table = markdown_table(rows)
    assert "hub -&gt; peer" in table and "a&amp;b &lt;c&gt; &amp;lt; x\\|y C:\\\\path\\\\\\|z" in table
    text = terminal_text(table)
    assert "hub -> peer ping loss" in text and "| a&b <c> &lt; x|y C:\\path\\|z |" in text
    assert "&gt;" not in text.replace("&lt;", "")


def test_terminal_text_refuses_a_non_string():
    with pytest.raises(ValueError, match="terminal_text expects the text of a table, got list"):
        terminal_text(["| a |"])


# ---- issue 30.9: what a target or the inventory writes is text in every Markdown table, never a link or an image
LINK, IMAGE = "[x](http://evil)", "![i](http://evil/p.png)"


def _rendered(markdown):
    """The HTML a GFM renderer (markdown-it-py's gfm-like preset: tables, strikethrough, linkify) makes of ``markdown``."""
    from markdown_it import MarkdownIt
    return MarkdownIt("gfm-like").render(markdown)


def _hostile_tables():
    """Each Markdown writer, fed link and image syntax where a target or the inventory puts text."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import coverage_table
    before = {IMAGE: dict(BEFORE["peer"], hub=LINK, iperf3=dict(BEFORE["peer"]["iperf3"], sender_congestion_control=LINK))}
    after = {IMAGE: dict(AFTER["peer"], iperf3=dict(AFTER["peer"]["iperf3"], sender_congestion_control=IMAGE))}
    return {
        "markdown_table": markdown_table(before_after_rows(before, after, 40e6)),
        "findings_table": findings_table([{"host": IMAGE, "severity": LINK, "id": "f", "fix_role": LINK}]),
        "coverage_table": coverage_table({IMAGE: {"f": {"status": "not_checked", "reason": LINK}}}),
    }


@pytest.mark.parametrize("writer", ["markdown_table", "findings_table", "coverage_table"])
def test_link_and_image_syntax_from_a_target_is_literal_text(writer):
    table = _hostile_tables()[writer]
    assert "![" not in table and not re.search(r"(?<!\\)\]\(", table)     # no image, no inline link left active
    html = _rendered(table)
    assert "<a " not in html and "<img" not in html and html.count("<tr>") == len(table.splitlines()) - 1
    assert IMAGE in html and IMAGE in terminal_text(table)                  # shown as typed, on the page and the console
    assert LINK in html and LINK in terminal_text(table)


@pytest.mark.parametrize("text", [
    "*bold* _em_ __strong__ ~~gone~~ `code` $x^2$ <b>b</b> <http://evil> http://evil www.evil.example x@evil.example",
    "a\\*b \\[c\\] back\\\\slash | bar &lt; entity [ref]: http://evil [ref]",
    # a bare domain: markdown-it's linkify (VS Code's preview, the gfm-like preset) links it without www. or a scheme
    "evil.com evil.com/x.png bbr.ko 1.5 Mbit/s",
])
def test_no_markdown_in_a_cell_survives_and_the_console_gets_it_back(text):
    rows = [{"host": "tf_owrt_1", "test": "t", "before": text, "after": "1", "reference": ""}]
    table = markdown_table(rows)
    html = _rendered(table)
    assert not re.search(r"<(a|img|em|strong|del|s|code|b)\b", html), html
    assert "| tf_owrt_1 |" in table                                          # a name's inner "_" stays as typed
    assert "| %s |" % text in terminal_text(table)


# ---- issue 30.4: after diagnose alone the report says why the before/after table is empty or has no after side
def test_no_measurement_is_a_sentence_not_an_empty_table():
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import NO_MEASUREMENT
    table = markdown_table(before_after_rows({}, {}) + health_check_rows({}, {}))
    assert table == NO_MEASUREMENT + "\n" and "|" not in table
    assert "diagnose.yml" in table and "verify.yml" in table and "tunnelfix_measure=false" in table
    assert terminal_text(table) == table


def test_a_baseline_without_verify_says_the_after_column_comes_with_verify():
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import NO_AFTER, measurement_note
    rows = before_after_rows(BEFORE, {})
    table = markdown_table(rows)
    assert table.splitlines()[2].startswith("| peer |") and table.endswith("\n\n" + NO_AFTER + "\n")
    assert "verify.yml" in NO_AFTER
    assert measurement_note(before_after_rows(BEFORE, AFTER)) is None                 # both sides: no note
    assert NO_AFTER not in markdown_table(before_after_rows({}, AFTER))               # an after side alone is one
