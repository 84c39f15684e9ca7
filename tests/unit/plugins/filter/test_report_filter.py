# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report filters turn every bad input into an AnsibleFilterError naming the filter and the value."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.report import FilterModule

FILTERS = FilterModule().filters()


@pytest.mark.parametrize("name, value, args, message", [
    ("before_after_rows", {"peer": {}}, ({}, 10 ** 400), "bottleneck_bits_per_second['peer']: cannot parse bitrate"),
    ("health_check_rows", {"r1": {"rate_per_second": 10 ** 400}}, ({},), "before['r1']: int too large"),
    ("before_after_rows", {}, ("x",), "after must be a dict"),
    ("report_html", [{"host": "h", "test": "t", "after_value": "fast"}], ([], {}),
     "rows[0].after_value must be a finite number >= 0 or None, got 'fast'"),
    ("report_html", [], ({"owrt": []}, {}), "findings must be a list"),
    ("report_document", [{"test": "t"}], ([], {}), "rows[0] lacks host"),
    ("report_document", [], ([], "now"), "meta must be a dict"),
    ("markdown_table", [None], (), "rows[0] must be a row (a dict with host, test, before, after, reference), got None"),
    ("markdown_table", [{"host": "h"}], (), "rows[0] must be a row (a dict with host, test, before, after, reference)"),
    ("tunnel_graph_table", {"nodes": []}, (), "tunnel_graph must be reports/findings.json's tunnel_graph"),
    ("tunnel_graph_table", {"nodes": [], "edges": [{"to": [], "state": "fine"}]}, (), "tunnel_graph.edges[0] must be an edge"),
    ("report_html", [], ([], {}, None, {"nodes": []}), "tunnel_graph must be reports/findings.json's tunnel_graph"),
    ("report_document", [], ([], {}, None, "graph"), "graph must be reports/findings.json's tunnel_graph (a dict)"),
])
def test_garbage_is_a_filter_error(name, value, args, message):
    with pytest.raises(AnsibleFilterError, match="^%s: bad input: " % name) as err:
        FILTERS[name](value, *args)
    assert message in str(err.value)


@pytest.mark.parametrize("name", ["report_html", "report_document"])
def test_report_filters_want_a_list_of_rows(name):
    with pytest.raises(AnsibleFilterError, match="^%s expects list as input, got dict$" % name):
        FILTERS[name]({"host": "h"}, [], {})


def test_report_filters_take_findings_and_meta_positionally():
    rows = [{"host": "h", "test": "t", "before_value": 1.0, "after_value": 2.0, "reference_value": 0.0, "unit": "count"}]
    document = FILTERS["report_document"](rows, [], {"generated": "2026-11-30T14:00:00Z"})
    assert document["generated"] == "2026-11-30T14:00:00Z" and document["rows"][0]["after_value"] == 2.0
    assert 'class="bar after"' in FILTERS["report_html"](rows)


def test_the_tunnel_graph_filters():
    graph = {"nodes": [{"id": "a/wg0", "host": "a", "alias_of": None}, {"id": "b/wg0", "host": "b", "alias_of": None}],
             "edges": [{"id": "a/wg0>KB", "from": "a/wg0", "to": ["b/wg0"], "state": "one_sided", "findings": ["one_sided_peer"]}]}
    assert FILTERS["tunnel_graph_table"](graph).splitlines()[2] == "| a/wg0 | b/wg0 | one-sided | one_sided_peer |"
    assert 'data-state="one_sided"' in FILTERS["report_html"]([], [], {}, None, graph)
    assert FILTERS["report_document"]([], [], {}, None, graph)["tunnel_graph"] == graph
    with pytest.raises(AnsibleFilterError, match="^tunnel_graph_table expects dict as input, got list$"):
        FILTERS["tunnel_graph_table"]([])
