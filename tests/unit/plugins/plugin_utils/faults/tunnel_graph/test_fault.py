# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph's Fault entries: a finding's subject (how verify pairs it with diagnose's) and what verify must
read again to call it fixed (``both_ends_read``), fake keys."""

from pathlib import Path

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings, finding_outcomes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.fault import (
    DUPLICATE_PUBLIC_KEY, ENDPOINT_PORT_MISMATCH, NO_ENDPOINT_EITHER_SIDE, ONE_SIDED_PEER, PAIR_HOSTS, PAIR_PROOF, RETURN_PATH_NOT_ALLOWED,
    both_ends_read, graph_fault)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided, one_sided_coverage

COLLECTION = Path(__file__).resolve().parents[6]
OWN = ("id", "title", "severity", "rule", "fires_when", "symptom", "fix", "evidence")


def _found(views, fault):
    return [f for f in find_findings(views) if f["id"] == fault.id]


def test_each_finding_is_named_by_its_interface_and_key(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OLD]), "peer": tg.linux(tg.PEER, [tg.HUB])}
    (finding,) = _found(views, ONE_SIDED_PEER)
    assert ONE_SIDED_PEER.subject(finding["evidence"]) == "wg0 " + tg.HUB
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "clone": tg.linux(tg.PEER, [tg.HUB], listen_port=51821)}
    assert [DUPLICATE_PUBLIC_KEY.subject(f["evidence"]) for f in _found(views, DUPLICATE_PUBLIC_KEY)] == ["wg0 " + tg.PEER] * 2
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    assert sorted(NO_ENDPOINT_EITHER_SIDE.subject(f["evidence"]) for f in _found(views, NO_ENDPOINT_EITHER_SIDE)) == [
        "wg0 " + tg.HUB, "wg0 " + tg.OWRT]
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], listen_port=51820),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51821"}, counters={tg.HUB: (1480, 0)})}
    (finding,) = _found(views, ENDPOINT_PORT_MISMATCH)
    assert ENDPOINT_PORT_MISMATCH.subject(finding["evidence"]) == "wg0 " + tg.HUB
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"], allowed={tg.PEER: ["10.77.0.3/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"])}
    (finding,) = _found(views, RETURN_PATH_NOT_ALLOWED)
    assert RETURN_PATH_NOT_ALLOWED.subject(finding["evidence"]) == "wg0 " + tg.PEER


def test_verify_pairs_two_findings_of_one_host_by_their_entries(tg):
    # the hub lists the peer and the router, neither lists it back; verify: the peer now has its entry, the router not
    before_views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT]), "peer": tg.linux(tg.PEER, []), "owrt": tg.owrt(tg.OWRT, [])}
    before = _found(before_views, ONE_SIDED_PEER)
    assert sorted(f["evidence"]["peer_public_key"] for f in before) == sorted([tg.PEER, tg.OWRT])
    after_views = dict(before_views, peer=tg.linux(tg.PEER, [tg.HUB]))
    outcomes = finding_outcomes(before, _found(after_views, ONE_SIDED_PEER), after_views)
    assert sorted((o["evidence"]["peer_public_key"], o["outcome"]) for o in outcomes) == sorted([(tg.PEER, "fixed"), (tg.OWRT, "still_present")])


def test_verify_pairs_duplicate_keys_by_the_key(tg):
    # the clone gets a key pair of its own: both findings (the peer's and the clone's) are gone
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "clone": tg.linux(tg.PEER, [tg.HUB], listen_port=51821)}
    before = _found(views, DUPLICATE_PUBLIC_KEY)
    after_views = dict(views, clone=tg.linux(tg.OLD, [tg.HUB], listen_port=51821))
    outcomes = finding_outcomes(before, _found(after_views, DUPLICATE_PUBLIC_KEY), after_views)
    assert sorted((o["host"], o["outcome"]) for o in outcomes) == [("clone", "fixed"), ("peer", "fixed")]
    # a subject without the key would pair a finding about another key on the same interface with the old one
    other = dict(before[0], evidence=dict(before[0]["evidence"], public_key=tg.OLD))
    assert [o["outcome"] for o in finding_outcomes([before[0]], [other], views)] == ["fixed", "new"]


def test_verify_must_read_both_ends_again():
    evidence = {"interface": "wg0", "other_host": "hub"}
    assert both_ends_read("peer", evidence, {"peer": {}, "hub": {}}) is True
    assert both_ends_read("peer", evidence, {"peer": {}}) is False     # the other end (where the entry is missing) not read
    assert both_ends_read("peer", evidence, {"hub": {}}) is False      # the finding's own host not read
    # duplicate_public_key: every other interface with the key, by its host
    evidence = {"interface": "wg0", "also_on": ["hub.example.com/wg0", "clone/wg1"]}
    assert both_ends_read("hub", evidence, {"hub": {}, "hub.example.com": {}, "clone": {}}) is True
    assert both_ends_read("hub", evidence, {"hub": {}, "hub.example.com": {}}) is False
    assert both_ends_read("hub", evidence, {"hub": {}, "clone": {}}) is False
    assert both_ends_read("hub", {"interface": "wg0", "also_on": None}, {"hub": {}}) is True
    # a node is HOST/INTERFACE, and a Linux interface name cannot hold a "/": the host is all before the last one
    assert both_ends_read("hub", {"interface": "wg0", "also_on": ["dc1/hub/wg0"]}, {"hub": {}, "dc1/hub": {}}) is True
    assert both_ends_read("hub", {"interface": "wg0", "also_on": ["dc1/hub/wg0"]}, {"hub": {}, "dc1": {}}) is False
    assert both_ends_read("hub", {"interface": "wg0", "other_host": None}, {"hub": {}}) is True


def test_graph_fault_gives_what_the_five_share_and_takes_the_rest():
    fault = graph_fault(id="x", title="t", severity="high", rule=one_sided, fires_when="w", symptom="s", fix="f", evidence=())
    assert (fault.number, fault.fix_role, fault.reads, fault.facts) == (
        None, None, ("tunnelfix.wireguard", "openwrt.wireguard", "every host's wireguard (the tunnel graph)"), (WIREGUARD,))
    assert (fault.rechecked, fault.coverage, fault.hosts, fault.proof) == (both_ends_read, one_sided_coverage, PAIR_HOSTS, PAIR_PROOF)
    assert fault.subject({"interface": "wg1", "peer_public_key": "K"}) == "wg1 K"
    assert fault.files == ("plugins/plugin_utils/faults/tunnel_graph/__init__.py", "playbooks/verify.yml")
    assert all((COLLECTION / path).is_file() for path in fault.files)
    assert graph_fault(id="x", title="t", severity="high", rule=one_sided, fires_when="w", symptom="s", fix="f", evidence=(),
                       hosts="h").hosts == "h"
    # the registry's entries are these shared values and their own
    for entry in (ONE_SIDED_PEER, NO_ENDPOINT_EITHER_SIDE, ENDPOINT_PORT_MISMATCH):
        assert graph_fault(**{name: getattr(entry, name) for name in OWN}) == entry
