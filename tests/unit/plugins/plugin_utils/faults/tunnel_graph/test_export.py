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
    monkeypatch.setattr(graph_module, "build_graph", lambda v, **kw: calls.append(1) or real(v, **kw))
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


def _two(tg):
    """peer (keeps the hub's endpoint, a keepalive, its Address) and hub (learned the peer's endpoint), both fresh."""
    return {"peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.1:51820"}, ages={tg.HUB: 10}, counters={tg.HUB: (20, 10)},
                             addresses=["10.77.0.2/24"], keepalive={tg.HUB: 25}),
            "hub": tg.linux(tg.HUB, [tg.PEER], ages={tg.PEER: 10}, counters={tg.PEER: (10, 20)}, learned={tg.PEER: "198.51.100.2:1024"})}


def test_the_whole_export_of_a_tunnel(tg):
    doc = graph_export(build_graph(_two(tg)), [])
    node = {"interface": "wg0", "listen_port": 51820, "platform": "linux", "alias_of": None, "findings": []}
    assert doc["nodes"] == [dict(node, id="hub/wg0", host="hub", public_key=tg.HUB, addresses=None),
                            dict(node, id="peer/wg0", host="peer", public_key=tg.PEER, addresses=["10.77.0.2/24"])]
    hub_id, peer_id = edge_id("hub/wg0", tg.PEER), edge_id("peer/wg0", tg.HUB)
    assert doc["edges"] == [
        {"id": hub_id, "from": "hub/wg0", "to": ["peer/wg0"], "public_key": tg.PEER, "running": True, "disabled": False,
         "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf", "endpoint_host": "198.51.100.2", "endpoint_port": 1024,
         "allowed_ips": ["10.77.0.0/24"], "persistent_keepalive_s": None, "handshake_age_s": 10, "rx_bytes": 20, "tx_bytes": 10,
         "back": peer_id, "findings": [], "state": "healthy"},
        {"id": peer_id, "from": "peer/wg0", "to": ["hub/wg0"], "public_key": tg.HUB, "running": True, "disabled": False,
         "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf", "endpoint_host": "203.0.113.1", "endpoint_port": 51820,
         "allowed_ips": ["10.77.0.0/24"], "persistent_keepalive_s": 25, "handshake_age_s": 10, "rx_bytes": 10, "tx_bytes": 20,
         "back": hub_id, "findings": [], "state": "healthy"}]
    assert doc["counts"] == {"conflict": 0, "one_sided": 0, "dead": 0, "stale": 0, "healthy": 2} and doc["unreadable"] == {}


def test_the_export_copies_lists_so_a_reader_cannot_change_the_graph(tg):
    graph = build_graph(_two(tg))
    graph["nodes"]["hub/wg0"]["addresses"] = ("10.77.0.1/24",)        # a tuple comes out a JSON list
    doc = graph_export(graph)
    assert {node["id"]: node["addresses"] for node in doc["nodes"]}["hub/wg0"] == ["10.77.0.1/24"]
    doc["edges"][0]["allowed_ips"].append("0.0.0.0/0")
    doc["edges"][0]["to"].append("x/wg0")
    assert graph["edges"][0]["allowed_ips"] == ["10.77.0.0/24"] and graph["edges"][0]["to"] == ["peer/wg0"]


def test_only_the_graphs_findings_name_entries_and_nodes(tg):
    views = _two(tg)
    views["clone"] = tg.linux(tg.PEER, [tg.HUB], listen_port=51821)
    graph = build_graph(views)
    hub_id, peer_id = edge_id("hub/wg0", tg.PEER), edge_id("peer/wg0", tg.HUB)
    findings = [
        None, "one_sided_peer", {"id": None},
        {"id": "nat_peer_without_keepalive", "host": "peer", "evidence": {"interface": "wg0", "peer_public_key": tg.HUB}},
        {"id": "one_sided_peer", "host": "peer", "evidence": None},
        {"id": "one_sided_peer", "host": "peer", "evidence": [{"interface": "wg0", "peer_public_key": tg.HUB}]},
        {"id": "return_path_not_allowed", "host": "peer", "evidence": {"interface": "wg0", "peer_public_key": tg.HUB}},
        {"id": "endpoint_port_mismatch", "host": "peer", "evidence": {"interface": "wg0", "peer_public_key": tg.HUB}},
        {"id": "return_path_not_allowed", "host": "peer", "evidence": {"interface": "wg0", "peer_public_key": tg.HUB}},
        {"id": "keepalive_on_wrong_side", "host": "hub", "evidence": {"interface": "wg0", "peer_public_key": tg.PEER}},
        {"id": "duplicate_public_key", "host": "peer", "evidence": {"interface": "wg0", "public_key": tg.PEER, "also_on": ["clone/wg0"]}},
    ]
    doc = graph_export(graph, findings)
    edges = {edge["id"]: (edge["findings"], edge["state"]) for edge in doc["edges"]}
    assert edges[peer_id] == (["endpoint_port_mismatch", "return_path_not_allowed"], "conflict")
    assert edges[hub_id] == (["duplicate_public_key", "keepalive_on_wrong_side"], "conflict")
    assert edges[edge_id("clone/wg0", tg.HUB)] == ([], "dead")                   # never a handshake
    assert {node["id"]: node["findings"] for node in doc["nodes"]} == {
        "clone/wg0": ["duplicate_public_key"], "hub/wg0": [], "peer/wg0": ["duplicate_public_key"]}
    assert doc["counts"] == {"conflict": 2, "one_sided": 0, "dead": 1, "stale": 0, "healthy": 0}


def test_a_duplicate_without_also_on_names_its_own_node():
    graph = build_graph({})
    doc = graph_export(dict(graph, nodes={"a/wg0": {field: None for field in ("host", "interface", "public_key", "listen_port",
                                                                              "platform", "addresses", "alias_of")}}),
                       [{"id": "duplicate_public_key", "host": "a", "evidence": {"interface": "wg0", "public_key": "K", "also_on": None}}])
    assert doc["nodes"][0]["findings"] == ["duplicate_public_key"]


@pytest.mark.parametrize("edge, finding_ids, state", [
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": None}, (), "healthy"),     # received bytes not known
    ({"running": True, "disabled": False, "handshake_age_s": 0, "rx_bytes": 1}, (), "healthy"),
    ({"running": True, "disabled": False, "handshake_age_s": 900, "rx_bytes": 1}, ("keepalive_on_wrong_side",), "stale"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("no_such_finding",), "healthy"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("handshake_never_completes",), "dead"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("allowed_ips_overlap",), "conflict"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("allowed_ips_shadow_lan",), "conflict"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("no_endpoint_either_side",), "conflict"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("duplicate_public_key",), "conflict"),
    ({"running": True, "disabled": False, "handshake_age_s": 3, "rx_bytes": 1}, ("handshake_never_completes", "one_sided_peer"), "one_sided"),
    ({}, (), "dead"),
    ({"running": True, "handshake_age_s": 3}, (), "healthy"),
])
def test_the_state_of_an_entry_more(edge, finding_ids, state):
    assert edge_state(edge, finding_ids) == state


def test_worst_ignores_what_is_no_state():
    assert worst(["healthy", "unknown", None]) == "healthy"
    assert worst(["stale", "conflict", "dead"]) == "conflict" and worst(["one_sided", "dead"]) == "one_sided"
    assert worst(iter(["unknown"])) is None


def test_unreadable_hosts_in_name_order():
    doc = graph_export(build_graph({"zz": {"tunnelfix": {"wireguard": "garbage"}}, "aa": {"tunnelfix": {"wireguard": "garbage"}}}))
    assert list(doc["unreadable"]) == ["aa", "zz"]
