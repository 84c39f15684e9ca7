# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph's export (reports/findings.json's tunnel_graph): plain JSON, each entry's state, public keys only."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import graph as graph_module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import (
    STATES, edge_state, graph_export, worst)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph, edge_id

STALE = "STALESTALESTALESTALESTALESTALESTALESTALESTA="
DEAD = "DEADDEADDEADDEADDEADDEADDEADDEADDEADDEADDEA="
DUP = "DUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPD="
SECRET = "SECRETSECRETSECRETSECRETSECRETSECRETSECRET0="


def _fleet(tg):
    """hub lists peer (fresh), stale (old handshake), dead (never), the old key (one-sided back from nobody); owrt is
    one-sided (the hub has no entry for it); two hosts share DUP (conflict)."""
    ep = {tg.HUB: "203.0.113.1:51820"}
    return {
        "hub": tg.linux(tg.HUB, [tg.PEER, STALE, DEAD, DUP], ages={tg.PEER: 10, STALE: 900, DUP: 5},
                        counters={tg.PEER: (10, 20), STALE: (10, 20), DEAD: (148, 0), DUP: (1, 1)},
                        allowed={tg.PEER: ["10.77.0.2/32"], STALE: ["10.77.0.3/32"], DEAD: ["10.77.0.4/32"], DUP: ["10.77.0.5/32"]}),
        "peer": tg.linux(tg.PEER, [tg.HUB], endpoints=ep, ages={tg.HUB: 10}, counters={tg.HUB: (20, 10)}),
        "stale": tg.linux(STALE, [tg.HUB], endpoints=ep, ages={tg.HUB: 900}, counters={tg.HUB: (20, 10)}),
        "dead": tg.linux(DEAD, [tg.HUB], endpoints=ep, counters={tg.HUB: (148, 0)}),
        "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.1:51820"}, counters={tg.HUB: (148, 0)}),
        "clone1": tg.linux(DUP, [tg.HUB], endpoints=ep, ages={tg.HUB: 5}, counters={tg.HUB: (1, 1)}),
        "clone2": tg.linux(DUP, [tg.HUB], endpoints=ep, listen_port=51821, ages={tg.HUB: 5}, counters={tg.HUB: (1, 1)}),
    }


def _state(doc, host, key):
    return {edge["id"]: edge["state"] for edge in doc["edges"]}[edge_id(host + "/wg0", key)]


def test_every_state_through_the_diagnosis_document(tg):
    views = _fleet(tg)
    doc = diagnosis(views)["tunnel_graph"]
    assert doc["format"] == "tunnelfix.tunnel_graph/1" and doc["stale_after_s"] == 180 and doc["states"] == list(STATES)
    assert _state(doc, "hub", tg.PEER) == _state(doc, "peer", tg.HUB) == "healthy"
    assert _state(doc, "hub", STALE) == _state(doc, "stale", tg.HUB) == "stale"
    assert _state(doc, "hub", DEAD) == _state(doc, "dead", tg.HUB) == "dead"
    assert _state(doc, "owrt", tg.HUB) == "one_sided"
    one_sided = next(edge for edge in doc["edges"] if edge["from"] == "owrt/wg0")
    assert one_sided["findings"] == ["one_sided_peer"] and one_sided["to"] == ["hub/wg0"] and one_sided["back"] is None
    # the shared key: the hub's entry that lists it is in conflict, and both interfaces carry the finding
    assert _state(doc, "hub", DUP) == "conflict"
    assert {node["id"]: node["findings"] for node in doc["nodes"]}["clone2/wg0"] == ["duplicate_public_key"]
    assert sum(doc["counts"].values()) == len(doc["edges"]) == 10
    assert doc["counts"] == {"conflict": 1, "one_sided": 1, "dead": 2, "stale": 2, "healthy": 4}
    assert json.loads(json.dumps(doc)) == doc


def test_built_once_for_the_rules_and_the_export(tg, monkeypatch):
    views = _fleet(tg)
    calls = []
    real = graph_module.build_graph
    monkeypatch.setattr(graph_module, "build_graph", lambda v: calls.append(1) or real(v))
    graph_module._CACHE.clear()
    diagnosis(views)
    assert len(calls) == 1


@pytest.mark.parametrize("edge, state", [
    ({"running": True, "disabled": False, "handshake_age_s": 180, "rx_bytes": 5}, "healthy"),
    ({"running": True, "disabled": False, "handshake_age_s": 181, "rx_bytes": 5}, "stale"),
    ({"running": True, "disabled": False, "handshake_age_s": None, "rx_bytes": None}, "dead"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 0}, "dead"),
    ({"running": False, "disabled": False, "handshake_age_s": None, "rx_bytes": None}, "dead"),
    ({"running": True, "disabled": True, "handshake_age_s": 3, "rx_bytes": 9}, "dead"),
])
def test_the_state_of_an_entry_without_a_finding(edge, state):
    assert edge_state(edge) == state


def test_a_finding_decides_over_the_counters_and_conflict_over_one_sided():
    fresh = {"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 9}
    assert edge_state(fresh, ["return_path_not_allowed"]) == "conflict"
    assert edge_state(fresh, ["one_sided_peer"]) == "one_sided"
    assert edge_state(fresh, ["one_sided_peer", "endpoint_port_mismatch"]) == "conflict"
    assert edge_state(fresh, ["nat_peer_without_keepalive"]) == "healthy"   # not a graph finding: no state of its own
    assert worst(["healthy", "stale"]) == "stale" and worst([]) is None


def test_no_key_other_than_public_ones(tg):
    views = _fleet(tg)
    # facts that (wrongly) carry a private and a preshared key: the export copies named fields only
    iface = views["peer"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]
    iface["private_key"] = SECRET
    iface["peers"][0]["preshared_key"] = SECRET
    views["peer"]["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["preshared_key"] = SECRET
    text = json.dumps(graph_export(build_graph(views), []))
    assert SECRET not in text and "private" not in text and "preshared" not in text
    assert tg.HUB in text and tg.PEER in text


def test_an_empty_run_and_an_unreadable_host():
    doc = graph_export(build_graph({"a": {}, "zz": {"tunnelfix": {"wireguard": "garbage"}}}), None)
    assert doc["nodes"] == [] and doc["edges"] == [] and list(doc["unreadable"]) == ["zz"]
    assert doc["counts"] == dict.fromkeys(STATES, 0)


def test_every_graph_fault_says_what_state_its_entry_is_in():
    # a new fault of the graph must decide how the picture shows the entry it names (None: by the counters)
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FAULTS
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import FINDING_STATES
    graph_ids = {fault.id for fault in FAULTS if "faults/tunnel_graph/" in " ".join(fault.files)}
    assert set(FINDING_STATES) == graph_ids
    assert all(state in STATES or state is None for state in FINDING_STATES.values())


def test_a_keepalive_on_the_wrong_side_is_listed_on_its_entry_which_stays_healthy(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:1024"}, ages={tg.PEER: 20},
                             counters={tg.PEER: (20, 10)}, keepalive={tg.PEER: 25}),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.1:51820"}, ages={tg.HUB: 20},
                              counters={tg.HUB: (10, 20)})}
    doc = diagnosis(views)["tunnel_graph"]
    entry = {edge["id"]: edge for edge in doc["edges"]}[edge_id("peer/wg0", tg.HUB)]
    assert (entry["state"], entry["findings"]) == ("healthy", ["keepalive_on_wrong_side"])
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.tunnel_graph import problem_rows
    assert [row["id"] for row in problem_rows(doc)] == [edge_id("peer/wg0", tg.HUB)]
