# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""render_report_html / report_document: charts per host and test, escaping, the JSON document."""

import json
from html.parser import HTMLParser

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import before_after_rows, health_check_rows
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.html import (
    BAR_MAX, BAR_X, format_value, render_report_html, report_document)

BEFORE = {"owrt": {"hub": "hub", "idle_s": 25, "ping": {"loss_percent": 0.0},
                   "iperf3": {"bits_per_second": 1.83e6, "retransmits": 25, "sender_congestion_control": "cubic"}}}
AFTER = {"owrt": {"hub": "hub", "idle_s": 25, "ping": {"loss_percent": 0.0},
                  "iperf3": {"bits_per_second": 36.6e6, "retransmits": 94, "sender_congestion_control": "cubic"}}}
ROWS = before_after_rows(BEFORE, AFTER, {"owrt": 40e6}) + health_check_rows(
    {"owrt": {"sent": 20, "failed_pings": 10}}, {"owrt": {"sent": 20, "failed_pings": 0}})
FINDINGS = [{"id": "endpoint_route_pinned", "severity": "high", "host": "owrt",
             "fix_role": "tunnelfix.fleet.openwrt_mwan3_wg", "evidence": {"dev": "wwan0"},
             "explanation": "The endpoint route is pinned to wwan0."}]
META = {"generated": "2026-11-30T14:00:00Z", "collection_version": "0.1.0", "command": "ansible-playbook site.yml"}
TCP = "TCP single flow owrt -> hub"


class _Elements(HTMLParser):
    """Every start tag as (tag, attrs dict), and the text."""

    def __init__(self, page):
        super().__init__()
        self.tags, self.text = [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag, cls):
        return [attrs for name, attrs in self.tags if name == tag and cls in (attrs.get("class") or "").split()]


def _bars(page):
    return {(a["data-host"], a["data-test"], a["data-side"]): a for a in _Elements(page).find("rect", "bar")}


def test_a_chart_per_row_with_bars_proportional_to_the_values():
    bars = _bars(render_report_html(ROWS, FINDINGS, META))
    assert len(bars) == 6  # ping loss, TCP, health checks; before and after each
    before, after = bars[("owrt", TCP, "before")], bars[("owrt", TCP, "after")]
    assert (before["class"], after["class"]) == ("bar before", "bar after")
    assert float(after["data-value"]) == 36.6e6 and after["data-unit"] == "bits_per_second"
    assert float(after["width"]) / float(before["width"]) == pytest.approx(20.0, rel=0.01)
    # the longest of before, after and the reference spans the whole bar area
    assert float(after["width"]) == pytest.approx(BAR_MAX * 36.6 / 40, abs=0.1)


def test_reference_is_a_dashed_line_at_its_value():
    page = _Elements(render_report_html(ROWS, [], META))
    lines = page.find("line", "reference")
    assert len(lines) == 1  # only the TCP row has a reference above zero
    assert float(lines[0]["x1"]) == pytest.approx(BAR_X + BAR_MAX) and lines[0]["stroke-dasharray"]
    assert "40.0 Mbit/s" in page.text and "36.6 Mbit/s" in page.text and "1.83 Mbit/s" in page.text


def test_zero_values_draw_zero_wide_bars_and_missing_values_none():
    rows = [dict(ROWS[0], before_value=0.0, after_value=None, after="n/a")]
    bars = _bars(render_report_html(rows, [], META))
    assert list(bars) == [("owrt", rows[0]["test"], "before")] and bars[list(bars)[0]]["width"] == "0.0"


def test_rows_without_numbers_are_a_table_line():
    rows = [{"host": "hub", "test": "handshake", "before": "stale", "after": "fresh", "reference": ""}]
    page = _Elements(render_report_html(rows, [], META))
    assert page.find("rect", "bar") == [] and page.find("table", "plain")
    assert "stale" in page.text and "fresh" in page.text


def test_sweep_shaped_rows_in_ms_render():
    row = {"host": "peer", "test": "RTT under load", "before": "slow", "after": "fast", "reference": "idle",
           "before_value": 180.4, "after_value": 55.21, "reference_value": 50.0, "unit": "ms"}
    page = _Elements(render_report_html([row], [], META))
    assert {"180 ms", "55.2 ms", "50 ms"} <= set(page.text) and len(page.find("rect", "bar")) == 2


@pytest.mark.parametrize("value, unit, text", [
    (36.6e6, "bits_per_second", "36.6 Mbit/s"),
    (1831610.75, "bits_per_second", "1.83 Mbit/s"),
    (100.0, "percent", "100 %"),
    (0.5, "percent", "0.5 %"),
    (10.0, "count", "10"),
    (52.14, "ms", "52.1 ms"),
    (1234.0, "ms", "1234 ms"),
    (3.0, "packets", "3 packets"),
    (None, "ms", "n/a"),
])
def test_format_value(value, unit, text):
    assert format_value(value, unit) == text


def test_everything_is_escaped():
    evil = "<script>alert(1)</script>"
    rows = [dict(ROWS[1], host=evil, test='TCP "quoted" & <b>bold</b>', before=evil)]
    findings = [dict(FINDINGS[0], host=evil, id=evil, severity='"><i>', fix_role=evil, explanation=evil,
                     evidence={"note": evil})]
    page = render_report_html(rows, findings, {"command": evil, evil: "x"})
    assert "<script" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    drawn = list(_bars(page).values())[0]
    assert drawn["data-host"] == evil and drawn["data-test"] == 'TCP "quoted" & <b>bold</b>'  # parsed back intact
    assert 'class="severity sev-other"' in page


def test_link_and_image_syntax_is_text_on_the_page():
    """Issue 30.9: Markdown from a target (iperf3's congestion control name) or the inventory is text here too."""
    link, image = "[x](http://evil)", "![i](http://evil/p.png)"
    before = {image: dict(BEFORE["owrt"], hub=link, iperf3=dict(BEFORE["owrt"]["iperf3"], sender_congestion_control=link))}
    page = render_report_html(before_after_rows(before, {}, 40e6), [dict(FINDINGS[0], host=image, explanation=link)], {})
    assert not [tag for tag, _attrs in _Elements(page).tags if tag in ("a", "img")]
    assert link in page and image in page


def test_page_is_self_contained():
    page = render_report_html(ROWS, FINDINGS, META)
    assert page.startswith("<!DOCTYPE html>")
    for needle in ("<script", "src=", "href=", "url(", "http://", "https://", "@import"):
        assert needle not in page
    assert "default-src 'none'" in page  # the browser refuses anything external anyway


def test_findings_and_meta_are_shown():
    page = render_report_html(ROWS, FINDINGS, META)
    assert [a["data-finding"] for _tag, a in _Elements(page).tags if "data-finding" in a] == ["endpoint_route_pinned"]
    assert 'class="severity sev-high"' in page and "&quot;dev&quot;: &quot;wwan0&quot;" in page
    for value in META.values():
        assert value in page


@pytest.mark.parametrize("findings, text", [
    ([], "No finding."),
    (None, "No findings file"),
])
def test_no_findings_and_no_findings_file_differ(findings, text):
    assert text in render_report_html(ROWS, findings, META)


@pytest.mark.parametrize("findings, meta, text", [
    # evidence whose keys cannot be sorted (mixed types) is shown unsorted, not a TypeError
    ([{"id": "x", "evidence": {1: "one", "a": "<b>"}}], {}, "&quot;a&quot;: &quot;&lt;b&gt;&quot;"),
    ([], {1: "one"}, "<span>1: <code>one</code></span>"),
])
def test_odd_but_harmless_keys_render(findings, meta, text):
    assert text in render_report_html(ROWS, findings, meta)


def test_report_document_shape():
    document = report_document(ROWS, FINDINGS, META)
    assert list(document) == ["schema_version", "generated", "rows", "findings", "meta", "checks", "tunnel_graph"]
    assert document["checks"] is None
    assert document["schema_version"] == 1 and document["generated"] == META["generated"]
    assert document["rows"][1]["after_value"] == 36.6e6 and document["rows"][1]["unit"] == "bits_per_second"
    assert json.loads(json.dumps(document)) == document
    document["meta"]["command"] = "changed"
    assert META["command"] == "ansible-playbook site.yml"  # a copy, not the caller's dict


class _NoDeepCopyDict(dict):
    """Stands in for ansible-core's lazy dict: its deep copy would copy the templar and the plugin loaders
    (a deprecation warning on ansible-core 2.21)."""

    def __deepcopy__(self, memo):
        raise AssertionError("deep-copied a filter argument")


class _NoDeepCopyList(list):
    def __deepcopy__(self, memo):
        raise AssertionError("deep-copied a filter argument")


def test_report_document_copies_lazy_arguments_as_plain_data_without_deep_copying_them():
    findings = _NoDeepCopyList([_NoDeepCopyDict(FINDINGS[0])])
    meta = _NoDeepCopyDict(META)
    checks = _NoDeepCopyDict({"owrt": _NoDeepCopyDict({"f": {"status": "found", "reason": None}})})
    document = report_document(ROWS, findings, meta, checks)
    assert document["findings"] == [FINDINGS[0]] and not isinstance(document["findings"], _NoDeepCopyList)
    assert not isinstance(document["findings"][0], _NoDeepCopyDict) and not isinstance(document["meta"], _NoDeepCopyDict)
    assert document["checks"] == {"owrt": {"f": {"status": "found", "reason": None}}}
    assert not isinstance(document["checks"]["owrt"], _NoDeepCopyDict)
    document["meta"]["command"] = "changed"
    assert meta["command"] == "ansible-playbook site.yml"


def test_report_document_fills_in_missing_strings_and_values():
    document = report_document([{"host": "h", "test": "t", "after_value": 3}], None, None)
    assert document["rows"] == [{"host": "h", "test": "t", "before": "n/a", "after": "n/a", "reference": "",
                                 "before_value": None, "after_value": 3.0, "reference_value": None, "unit": None}]
    assert document["findings"] is None and document["meta"] == {} and document["generated"] is None


@pytest.mark.parametrize("rows, findings, meta, message", [
    ({}, [], {}, "rows must be a list of rows, got dict"),
    (["x"], [], {}, "rows[0] must be a dict (a row), got str 'x'"),
    ([{"test": "t"}], [], {}, "rows[0] lacks host: "),
    ([{"host": "h", "test": "t", "after_value": "fast"}], [], {},
     "rows[0].after_value must be a finite number >= 0 or None, got 'fast'"),
    ([{"host": "h", "test": "t", "before_value": -1}], [], {}, "rows[0].before_value must be a finite number >= 0"),
    ([{"host": "h", "test": "t", "before_value": float("nan")}], [], {}, "rows[0].before_value must be a finite"),
    ([{"host": "h", "test": "t", "before_value": 10 ** 400}], [], {}, "rows[0].before_value must be a finite"),
    ([{"host": "h", "test": "t", "reference_value": True}], [], {}, "rows[0].reference_value must be a finite"),
    ([{"host": "h", "test": "t", "unit": 3}], [], {}, "rows[0].unit must be a string, got 3"),
    ([], {"owrt": []}, {}, "findings must be a list of findings"),
    ([], ["x"], {}, "findings must be a list of findings"),
    ([], [], "now", "meta must be a dict"),
])
@pytest.mark.parametrize("func", [render_report_html, report_document])
def test_bad_input_names_the_argument_row_and_key(func, rows, findings, meta, message):
    with pytest.raises(ValueError) as err:
        func(rows, findings, meta)
    assert str(err.value).startswith(message)


def test_rows_without_a_reference_are_table_lines_and_findings_come_first():
    """Jitter has no reference to read it against: a table line, not a chart that looks alarming."""
    rows = [{"host": "peer", "test": "UDP at 10.0 Mbit/s peer -> hub jitter", "before": "0.0244 ms", "after": "0.0361 ms",
             "reference": "", "before_value": 0.0244, "after_value": 0.0361, "reference_value": None, "unit": "ms"}]
    findings = [{"id": "nat_peer_without_keepalive", "severity": "critical", "host": "peer", "fix_role": None,
                 "evidence": {}, "explanation": "x"}]
    html = render_report_html(rows, findings, {})
    assert 'class="bar' not in html and "<td>UDP at 10.0 Mbit/s peer -&gt; hub jitter</td>" in html
    assert html.index("What diagnose found") < html.index('data-host="peer"')


@pytest.mark.parametrize("rows, words", [
    ([], ["No measurement yet", "diagnose.yml", "tunnelfix_measure=false"]),               # diagnose without measuring
    (before_after_rows(BEFORE, {}), ["No measurement after the fix yet", "verify.yml"]),   # diagnose alone, no verify
])
def test_the_page_says_why_it_has_no_after_bars(rows, words):
    notes = [text for text in _Elements(render_report_html(rows, FINDINGS, META)).text if "No measurement" in text]
    assert len(notes) == 1 and all(word in notes[0] for word in words)


def test_a_page_with_both_sides_has_no_note():
    assert "No measurement" not in render_report_html(ROWS, FINDINGS, META)
