# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph in the reports: the inline SVG (elements, colours by state, layout, folding) and the problem table."""

import re
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.html import render_report_html, report_document
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.tunnel_graph import (
    FOLD_AT, STATE_COLOURS, graph_svg, problem_rows, problem_table)

NS = ""   # inline SVG in HTML: no namespace (the page names no URL)


def _key(host):
    return (host.replace("-", "") * 44)[:43] + "="


def _export(pairs, hosts=None, one_way=(), node_findings=None):
    """An export (faults/tunnel_graph/export.py's shape) of ``pairs`` [(a, b, state, findings)]: an entry a -> b in
    ``state`` and, unless (a, b) is in ``one_way``, b -> a healthy."""
    names = sorted(set(hosts or []) | {h for a, b, *_rest in pairs for h in (a, b)})
    nodes = [{"id": h + "/wg0", "host": h, "interface": "wg0", "public_key": _key(h), "listen_port": 51820, "platform": "linux",
              "addresses": None, "alias_of": None, "findings": (node_findings or {}).get(h, [])} for h in names]
    edges = []

    def entry(a, b, state, findings):
        edges.append({"id": "%s/wg0>%s" % (a, _key(b)), "from": a + "/wg0", "to": [b + "/wg0"], "public_key": _key(b),
                      "state": state, "findings": list(findings), "handshake_age_s": 5, "rx_bytes": 1})
    for a, b, state, findings in pairs:
        entry(a, b, state, findings)
        if (a, b) not in one_way:
            entry(b, a, "healthy", [])
    return {"format": "tunnelfix.tunnel_graph/1", "stale_after_s": 180, "nodes": nodes, "edges": edges, "unreadable": {}}


SMALL = [("peer", "hub", "healthy", []), ("stale", "hub", "stale", []), ("dead", "hub", "dead", []),
         ("owrt", "hub", "one_sided", ["one_sided_peer"]), ("clone", "hub", "conflict", ["duplicate_public_key"]),
         ("peer", "owrt", "healthy", [])]


def _svg(html):
    return ET.fromstring(re.search(r"<svg class=\"tunnel-graph\".*?</svg>", html, re.S).group(0))


def _lines(svg):
    return [line for line in svg.iter(NS + "line") if "tunnel" in line.get("class", "").split()]


def _hosts(svg):
    return [g for g in svg.iter(NS + "g") if "host" in g.get("class", "").split()]


def test_a_line_per_pair_of_hosts_coloured_by_state():
    svg = _svg(graph_svg(_export(SMALL, one_way={("owrt", "hub")})))
    lines = {(line.get("data-from"), line.get("data-to")): line for line in _lines(svg)}
    assert {pair: line.get("data-state") for pair, line in lines.items()} == {
        ("hub", "peer"): "healthy", ("hub", "stale"): "stale", ("dead", "hub"): "dead", ("hub", "owrt"): "one_sided",
        ("clone", "hub"): "conflict", ("owrt", "peer"): "healthy"}
    for line in lines.values():
        assert line.get("stroke") == STATE_COLOURS[line.get("data-state")]
        assert line.find(NS + "title").text.startswith("%s <-> %s: %s" % (line.get("data-from"), line.get("data-to"), line.get("data-state")))
    assert lines[("hub", "owrt")].get("stroke-dasharray") and lines[("hub", "owrt")].get("data-findings") == "one_sided_peer"
    # both entries of a pair are on its line; the worse state wins (the hub's entry back is healthy)
    assert lines[("hub", "stale")].get("data-edges").split() == ["stale/wg0>%s" % _key("hub"), "hub/wg0>%s" % _key("stale")]
    assert len(set(STATE_COLOURS.values())) == 5


def test_hosts_hubs_and_order():
    svg = _svg(graph_svg(_export(SMALL)))
    hosts = {g.get("data-host"): g for g in _hosts(svg)}
    assert {host: g.get("data-role") for host, g in hosts.items()} == {
        "hub": "hub", "peer": "peer", "stale": "peer", "dead": "peer", "owrt": "peer", "clone": "peer"}
    assert all(g.get("data-group") == "hub" for g in hosts.values())
    assert hosts["peer"].get("data-problem") == "false" and hosts["dead"].get("data-problem") == "true"
    # worst lines are drawn last (on top)
    states = [line.get("data-state") for line in _lines(svg)]
    assert states.index("conflict") > states.index("dead") > states.index("healthy")
    # one hub: at the centre
    hub_circle = hosts["hub"].find(NS + "circle")
    assert (hub_circle.get("cx"), hub_circle.get("cy")) == ("0.0", "0.0")
    assert "The hub (tunnels to 3 or more hosts) in the centre" in graph_svg(_export(SMALL))


def test_the_same_input_draws_the_same_picture():
    assert graph_svg(_export(SMALL)) == graph_svg(_export(SMALL))


def _fleet(count, hubs=4, every=10):
    """``count`` hosts: ``hubs`` hubs in a mesh, each site to one hub; every ``every``-th site's tunnel is stale."""
    hub_names = ["hub-%d" % i for i in range(hubs)]
    pairs = [(a, b, "healthy", []) for i, a in enumerate(hub_names) for b in hub_names[i + 1:]]
    for i in range(count - hubs):
        pairs.append(("site-%03d" % i, hub_names[i % hubs], "stale" if i % every == 0 else "healthy", []))
    return _export(pairs)


def test_forty_hosts_are_all_drawn_with_their_names():
    svg = _svg(graph_svg(_fleet(40)))
    assert svg.get("data-folded") == "false" and len(_hosts(svg)) == 40
    assert len([g for g in _hosts(svg) if g.get("data-role") == "hub"]) == 4
    labels = [t for t in svg.iter(NS + "text") if t.get("class") == "label"]
    assert len(labels) == 36
    assert len(_lines(svg)) == 6 + 36


def test_four_hundred_hosts_fold_the_healthy_ones_and_keep_every_problem():
    export = _fleet(400, hubs=8)
    html = graph_svg(export)
    svg = _svg(html)
    assert svg.get("data-folded") == "true" and svg.get("data-hosts") == "400"
    folds = [g for g in _hosts(svg) if "fold" in g.get("class").split()]
    shown = [g for g in _hosts(svg) if "fold" not in g.get("class").split()]
    assert len(folds) == 8
    assert sum(int(g.get("data-count")) for g in folds) + len(shown) == 400
    problems = {(line.get("data-from"), line.get("data-to")) for line in _lines(svg) if line.get("data-state") != "healthy"}
    assert len(problems) == len([i for i in range(392) if i % 10 == 0]) == 40
    assert len([line for line in _lines(svg) if "folded" in line.get("class")]) == 8
    assert not [t for t in svg.iter(NS + "text") if t.get("class") == "label"] or len(shown) <= 120
    assert "More than %d hosts" % FOLD_AT in html


def test_a_mesh_has_no_hubs():
    names = ["m%d" % i for i in range(6)]
    svg = _svg(graph_svg(_export([(a, b, "healthy", []) for i, a in enumerate(names) for b in names[i + 1:]])))
    assert {g.get("data-role") for g in _hosts(svg)} == {"peer"} and len(_lines(svg)) == 15


def test_an_alias_an_entry_to_nobody_and_an_unreadable_host():
    export = _export([("peer", "hub", "healthy", [])], hosts=["hub.example.com"])
    export["nodes"][1]["alias_of"] = "hub/wg0"          # hub.example.com: the hub listed twice in the inventory
    export["edges"].append({"id": "peer/wg0>GONE", "from": "peer/wg0", "to": [], "public_key": "GONE", "state": "dead",
                            "findings": [], "handshake_age_s": None, "rx_bytes": 0})
    export["unreadable"] = {"zz": "its WireGuard facts have an unexpected shape"}
    html = graph_svg(export)
    hosts = {g.get("data-host"): g for g in _hosts(_svg(html))}
    assert sorted(hosts) == ["hub", "peer"] and "also listed as: hub.example.com" in hosts["hub"].find("title").text
    assert "1 peer entry whose key no host of this run has" in hosts["peer"].find("title").text
    assert "1 peer entry lists a key no host of this run has" in html and "Left out (facts of an unexpected shape): zz." in html
    assert [row["to"] for row in problem_rows(export)] == ["(no host of this run)"]
    assert hosts["peer"].get("data-problem") == "true"   # its own dead entry, though its one line is healthy


def test_only_public_keys_and_escaped_names():
    export = _export([("<b>x</b>", "hub", "dead", [])] + SMALL)
    html = graph_svg(export)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    public = {node["public_key"] for node in export["nodes"]}
    assert set(re.findall(r"[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=", html)) <= public


def test_the_problem_table():
    export = _export(SMALL, one_way={("owrt", "hub")})
    rows = problem_rows(export)
    assert [(row["from"], row["state"], row["findings"]) for row in rows] == [
        ("clone/wg0", "conflict", "duplicate_public_key"), ("owrt/wg0", "one_sided", "one_sided_peer"),
        ("dead/wg0", "dead", "-"), ("stale/wg0", "stale", "-")]
    table = problem_table(export)
    assert table.splitlines()[:3] == ["| from | to | state | finding |", "|---|---|---|---|",
                                      "| clone/wg0 | hub/wg0 | conflict | duplicate_public_key |"]
    assert "| owrt/wg0 | hub/wg0 | one-sided | one_sided_peer |" in table.splitlines() and len(table.splitlines()) == 2 + 4
    assert problem_table(_export([("a", "b", "healthy", [])])) == "All 2 WireGuard peer entries are healthy.\n"
    assert problem_table(_export([])) == "No WireGuard peer entry in this run.\n"


def test_in_the_page_and_the_document():
    export = _export(SMALL)
    html = render_report_html([], [], None, None, export)
    assert html.count('<svg class="tunnel-graph"') == 1 and "<script" not in html
    assert html.index("What diagnose found") < html.index("The tunnel graph")
    assert '<svg class="tunnel-graph"' not in render_report_html([], [], None, None)
    assert report_document([], [], None, None, export)["tunnel_graph"] == export
    assert report_document([], [])["tunnel_graph"] is None


@pytest.mark.parametrize("bad", ["graph", {"nodes": [], "edges": [{"state": "odd", "to": []}]}, {"edges": []}])
def test_what_is_not_an_export(bad):
    with pytest.raises(ValueError):
        render_report_html([], [], None, None, bad)
