# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""duplicate_public_key: one key on two running interfaces of the run (fake keys)."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.duplicate_key import duplicate_keys

GRAPH = {"one_sided_peer", "duplicate_public_key", "no_endpoint_either_side", "endpoint_port_mismatch", "return_path_not_allowed"}


def test_a_key_on_two_interfaces_is_found_on_both_with_who_lists_it(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "clone": tg.owrt(tg.PEER, [tg.HUB])}
    for host, other in (("peer", "clone/wg0"), ("clone", "peer/wg0")):
        (evidence, text), = duplicate_keys(host, views[host], views)
        assert evidence == {"interface": "wg0", "public_key": tg.PEER, "also_on": [other], "listed_by": ["hub/wg0"], "identical": False}
        assert "and so does %s" % other in " ".join(text.split())
        assert "keepalived" in text   # the one pair that shares a key on purpose
    assert duplicate_keys("hub", views["hub"], views) == []


def test_an_interface_listing_its_own_key_is_no_finding(tg):
    # the kernel's set_peer skips a peer with the device's own key: a mesh generator listing every node is harmless
    views = {"hub": tg.linux(tg.HUB, [tg.HUB, tg.PEER]),
             "peer": tg.linux(tg.PEER, [tg.HUB, tg.PEER], endpoints={tg.HUB: "203.0.113.1:51820"})}
    assert [f["id"] for f in find_findings(views) if f["id"] in GRAPH] == []


def test_two_hosts_alike_in_everything_are_named_once_and_hide_no_other_finding(tg):
    # hub and hub.example.com show the same facts: one machine listed twice, or an untouched clone (a cloned VM image
    # is the commonest duplicate key); one of the names (the one sorted last: hub, after "hub.example.com/wg0") gets the
    # finding, and the peer's entry for the key joins once, so its missing entry back still shows
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "hub.example.com": tg.linux(tg.HUB, [tg.OWRT]),
             "peer": tg.linux(tg.PEER, [tg.HUB])}
    found = sorted((f["host"], f["id"]) for f in find_findings(views) if f["id"] in GRAPH)
    assert found == [("hub", "duplicate_public_key"), ("peer", "one_sided_peer")]
    (evidence, text), = duplicate_keys("hub", views["hub"], views)
    assert (evidence["also_on"], evidence["identical"]) == (["hub.example.com/wg0"], True)
    assert "one machine listed twice in the inventory" in " ".join(text.split())
    assert "hub is a clone of hub.example.com nobody has changed yet" in " ".join(text.split())


def test_unique_keys_and_interfaces_that_do_not_run_give_no_duplicate(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "down": tg.owrt(None, [tg.HUB]), "down2": tg.owrt(None, [tg.HUB])}
    assert [duplicate_keys(host, views[host], views) for host in views] == [[], [], [], []]


def test_duplicate_keys_through_the_registry(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "clone": tg.linux(tg.PEER, [tg.HUB], listen_port=51821)}
    found = sorted((f["host"], f["evidence"]["also_on"]) for f in find_findings(views) if f["id"] == "duplicate_public_key")
    assert found == [("clone", ["peer/wg0"]), ("peer", ["clone/wg0"])]
    assert {f["evidence"]["identical"] for f in find_findings(views) if f["id"] == "duplicate_public_key"} == {False}
    views["clone"] = tg.linux(tg.PEER, [tg.HUB, tg.OWRT])   # the same port, other peers: a clone put to use
    assert len([f for f in find_findings(views) if f["id"] == "duplicate_public_key"]) == 2


def _two_interfaces(wg0, wg1):
    """A Linux host running wg1 with key ``wg1`` and, when ``wg0``, wg0 with that key (else wg0 is only in its file, down)."""
    interfaces = {"wg1": {"public_key": wg1, "listen_port": 51821, "peers": []}}
    if wg0:
        interfaces["wg0"] = {"public_key": wg0, "listen_port": 51820, "peers": []}
    configs = [{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True, "addresses": None,
                "peers": [{"public_key": "GONEGONEGONEGONEGONEGONEGONEGONEGONEGONEGON=", "endpoint": None}]}]
    return {"tunnelfix": {"wireguard": {"interfaces": interfaces, "configs": configs}}}


def test_an_interface_that_does_not_run_hides_no_duplicate_on_the_next(tg):
    views = {"hub": tg.linux(tg.HUB, []), "r": _two_interfaces(None, tg.HUB)}
    (evidence, _text), = duplicate_keys("r", views["r"], views)
    assert (evidence["interface"], evidence["also_on"]) == ("wg1", ["hub/wg0"])


def test_a_name_listed_twice_hides_no_duplicate_on_its_next_interface(tg):
    # r.example.com's wg0 and r's are alike (one machine, or a clone); r's wg1 has the key of another host's interface
    views = {"r.example.com": _two_interfaces(tg.OWRT, tg.OLD), "r": _two_interfaces(tg.OWRT, tg.PEER), "peer": tg.linux(tg.PEER, [])}
    found = duplicate_keys("r", views["r"], views)
    assert [(evidence["interface"], evidence["identical"]) for evidence, _text in found] == [("wg0", True), ("wg1", False)]


def test_the_evidence_of_one_machine_listed_twice(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "hub.example.com": tg.linux(tg.HUB, [tg.OWRT])}
    (evidence, _text), = duplicate_keys("hub", views["hub"], views)
    assert evidence == {"interface": "wg0", "public_key": tg.HUB, "also_on": ["hub.example.com/wg0"], "listed_by": [], "identical": True}
    views = dict(views, peer=tg.linux(tg.PEER, [tg.HUB]), owrt=tg.owrt(tg.OWRT, [tg.HUB]))   # a new dict: graph_of caches by identity
    (evidence, _text), = duplicate_keys("hub", views["hub"], views)
    assert evidence["listed_by"] == ["owrt/wg0", "peer/wg0"]


def test_a_key_on_three_interfaces_nobody_lists(tg):
    views = {"a": tg.linux(tg.PEER, [tg.HUB]), "b": tg.linux(tg.PEER, [tg.HUB], listen_port=51821),
             "c": tg.linux(tg.PEER, [tg.HUB], listen_port=51822)}
    (evidence, text), = duplicate_keys("a", views["a"], views)
    assert evidence == {"interface": "wg0", "public_key": tg.PEER, "also_on": ["b/wg0", "c/wg0"], "listed_by": [], "identical": False}
    assert " ".join(text.split()).startswith(
        "a's wg0 has the public key %s, and so does b/wg0, c/wg0: the same private key is on more than one interface (a cloned image "
        "or a copied config). Every peer that lists this key (none in this run) sends to whichever" % tg.PEER)
    views = dict(views, hub=tg.linux(tg.HUB, [tg.PEER]), owrt=tg.owrt(tg.OWRT, [tg.PEER]))
    (evidence, text), = duplicate_keys("a", views["a"], views)
    assert evidence["listed_by"] == ["hub/wg0", "owrt/wg0"]
    assert "Every peer that lists this key (hub/wg0, owrt/wg0) sends" in " ".join(text.split())
