# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""no_endpoint_either_side and endpoint_port_mismatch: who can start a tunnel and where it knocks (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoints import no_endpoint, port_mismatch, sent_into_nothing


def test_a_hub_and_a_peer_that_knows_where_the_hub_is_are_fine(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 20}),
             "peer": tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "203.0.113.10:51820"}, ages={tg.HUB: 20})}
    assert [no_endpoint(h, views[h], views) + port_mismatch(h, views[h], views) for h in views] == [[], []]


def test_neither_end_keeping_an_endpoint_is_found_on_both_ends(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    for host, other in (("hub", "owrt"), ("owrt", "hub")):
        (evidence, text), = no_endpoint(host, views[host], views)
        assert (evidence["other_host"], evidence["handshake_age_s"]) == (other, None)
        assert "neither side ever starts this tunnel" in " ".join(text.split())
    assert {(f["host"], f["id"]) for f in find_findings(views) if f["id"] == "no_endpoint_either_side"} == {
        ("hub", "no_endpoint_either_side"), ("owrt", "no_endpoint_either_side")}


def test_an_endpoint_only_learned_does_not_count_it_is_lost_on_a_restart(tg):
    # the hub learned the router's address from a handshake long ago; nobody keeps one
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], learned={tg.OWRT: "198.51.100.7:51820"}, ages={tg.OWRT: 40}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], learned={tg.HUB: "203.0.113.10:51820"})}
    assert [len(no_endpoint(h, views[h], views)) for h in views] == [1, 1]


def test_one_end_keeping_an_endpoint_is_enough(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"})}
    assert [no_endpoint(h, views[h], views) for h in views] == [[], []]


@pytest.mark.parametrize("age, counters, found", [
    (None, (1480, 0), True),     # sent handshake initiations, nothing ever came back
    (181, (1480, 0), True),
    (180, (1480, 0), False),     # a fresh handshake: the port works (a NAT forwards it)
    (None, (0, 0), False),       # never sent: proves nothing
    (900, (90000, 4400), False),  # idle now, answered before: a NAT forwards the port
])
def test_a_port_the_other_end_does_not_listen_on_is_found_when_the_entry_sent_into_nothing(tg, age, counters, found):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], listen_port=51820),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51821"}, ages={tg.HUB: age},
                              counters={tg.HUB: counters})}
    got = port_mismatch("peer", views["peer"], views)
    assert bool(got) is found
    if found:
        (evidence, text), = got
        assert evidence == {"interface": "wg0", "peer_public_key": tg.HUB, "endpoint_host": "203.0.113.10", "endpoint_port": 51821,
                            "other_host": "hub", "other_interface": "wg0", "other_listen_port": 51820, "handshake_age_s": age,
                            "tx_bytes": 1480, "rx_bytes": 0, "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf"}
        assert "the entry sent 1480 bytes, received none" in " ".join(text.split())
        assert "set the endpoint's port to 51820 (/etc/wireguard/wg0.conf)" in " ".join(text.split())


def test_a_learned_nat_port_on_the_hub_is_no_mismatch_when_the_tunnel_goes_stale(tg):
    # the hub's live endpoint for a NATed peer is the NAT's port; only what an owner keeps is judged
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 900},
                             counters={tg.PEER: (300, 0)}),
             "peer": tg.linux(tg.PEER, [tg.HUB], listen_port=51820, endpoints={tg.HUB: "203.0.113.10:51820"}, ages={tg.PEER: 900})}
    assert port_mismatch("hub", views["hub"], views) == []


def test_a_uci_endpoint_port_is_judged_against_the_hubs_listen_port(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], listen_port=51820),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51000"}, counters={tg.HUB: (592, 0)})}
    (evidence, _text), = port_mismatch("owrt", views["owrt"], views)
    assert (evidence["endpoint_port"], evidence["other_listen_port"], evidence["owner"]) == (51000, 51820, "uci")


def test_entries_without_a_way_back_are_left_to_one_sided(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OLD]), "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:1"})}
    assert [no_endpoint(h, views[h], views) + port_mismatch(h, views[h], views) for h in views] == [[], []]


def test_a_port_mismatch_toward_an_end_without_a_fixed_listen_port_advises_one(tg):
    # breaker s9b: the router keeps no listen_port (a random one live, 43512); the hub knocks at 51820
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], endpoints={tg.OWRT: "198.51.100.7:51820"}, counters={tg.OWRT: (8880, 0)}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], listen_port=43512, uci_port=False)}
    (_evidence, text), = port_mismatch("hub", views["hub"], views)
    text = " ".join(text.split())
    assert "but owrt's wg0 listens on port 43512" in text
    assert "give owrt's wg0 a fixed listen port (uci listen_port '51820')" in text
    assert "set the endpoint's port" not in text
    # a Linux end: its ListenPort is not read, so both ways are given
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], endpoints={tg.PEER: "198.51.100.7:51820"}, counters={tg.PEER: (8880, 0)}),
             "peer": tg.linux(tg.PEER, [tg.HUB], listen_port=43512)}
    (_evidence, text), = port_mismatch("hub", views["hub"], views)
    text = " ".join(text.split())
    assert "set the endpoint's port to 43512 (/etc/wireguard/wg0.conf) if peer's wg0 keeps ListenPort = 43512" in text
    assert "give peer's wg0 a fixed listen port (ListenPort = 51820) instead" in text


def test_a_uci_endpoint_without_a_port_is_judged_as_51820(tg):
    # breaker: netifd uses 51820 for a uci peer with endpoint_host and no endpoint_port; the hub listens on 51821
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], listen_port=51821),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10"}, counters={tg.HUB: (592, 0)})}
    (evidence, _text), = port_mismatch("owrt", views["owrt"], views)
    assert (evidence["endpoint_port"], evidence["other_listen_port"]) == (51820, 51821)


def test_no_endpoint_while_the_tunnel_is_up_says_it_works_only_until_a_restart(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 5}),
             "peer": tg.linux(tg.PEER, [tg.HUB], learned={tg.HUB: "203.0.113.10:51820"}, ages={tg.HUB: 5})}
    (_evidence, text), = no_endpoint("peer", views["peer"], views)
    text = " ".join(text.split())
    assert "works now (a handshake 5 s ago) only because one end learned the other's endpoint" in text
    assert "after a restart of both, neither side starts it" in text
    assert "PostUp = wg set" in text
    assert "neither side ever starts this tunnel" not in text


def test_an_interface_with_two_files_nothing_tells_apart_is_not_judged(tg):
    # two files for the peer's wg0, one with the hub's Endpoint, one without, the same keys and keepalives
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], counters={tg.PEER: (0, 0)}),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:1"}, counters={tg.HUB: (500, 0)})}
    stale = dict(views["peer"]["tunnelfix"]["wireguard"]["configs"][0], path="/etc/systemd/network/90-wg0.netdev", kind="netdev",
                 peers=[{"public_key": tg.HUB, "endpoint": None}])
    views["peer"]["tunnelfix"]["wireguard"]["configs"].append(stale)
    assert [no_endpoint(h, views[h], views) + port_mismatch(h, views[h], views) for h in views] == [[], []]


def test_the_stale_wg_quick_file_does_not_hide_the_running_netdev():
    # breaker s7 through the registry: no finding on a healthy tunnel
    hub_key, spoke_key = "H" * 43 + "=", "S" * 43 + "="
    netdev = {"path": "/etc/systemd/network/90-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True, "addresses": None,
              "peers": [{"public_key": hub_key, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 25}]}
    stale = {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True, "addresses": ["10.77.0.2/24"],
             "peers": [{"public_key": hub_key, "endpoint": None, "persistent_keepalive_s": None}]}

    def peer(key, allowed, endpoint, keepalive=None):
        host, port = endpoint.rsplit(":", 1)
        return {"public_key": key, "allowed_ips": allowed, "endpoint_host": host, "endpoint_port": int(port), "handshake_age_s": 5,
                "rx_bytes": 1000, "tx_bytes": 1000, "persistent_keepalive_s": keepalive}

    hub_config = {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                  "addresses": ["10.78.0.1/24"], "peers": [{"public_key": spoke_key, "endpoint": None}]}
    hub_wg0 = {"public_key": hub_key, "listen_port": 51820, "peers": [peer(spoke_key, ["10.78.0.2/32"], "198.51.100.7:40000")]}
    spoke_wg0 = {"public_key": spoke_key, "listen_port": None, "peers": [peer(hub_key, ["10.78.0.0/24"], "203.0.113.1:51820", 25)]}
    views = {"hub": {"tunnelfix": {"wireguard": {"interfaces": {"wg0": hub_wg0}, "configs": [hub_config]}}},
             "spoke": {"tunnelfix": {"wireguard": {"interfaces": {"wg0": spoke_wg0}, "configs": [stale, netdev]}}}}
    graph_ids = {"one_sided_peer", "duplicate_public_key", "no_endpoint_either_side", "endpoint_port_mismatch", "return_path_not_allowed"}
    assert [(f["host"], f["id"]) for f in find_findings(views) if f["id"] in graph_ids] == []


def test_the_evidence_of_no_endpoint_and_an_entry_with_one_before_it(tg):
    # the hub's entry for a (OLD's key, sorted first) has a kept endpoint on a's side; its entry for the router has none
    views = {"hub": tg.linux(tg.HUB, [tg.OLD, tg.OWRT]), "a": tg.linux(tg.OLD, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    (evidence, _text), = no_endpoint("hub", views["hub"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": tg.OWRT, "other_host": "owrt", "other_interface": "wg0",
                        "handshake_age_s": None, "owner": "wg-quick", "other_owner": "uci"}


def test_a_fresh_handshake_seen_on_the_other_end_only_counts(tg):
    # the ends' facts are read at different times: here the handshake is stale, there fresh
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 400}),
             "peer": tg.linux(tg.PEER, [tg.HUB], learned={tg.HUB: "203.0.113.10:51820"}, ages={tg.HUB: 7})}
    (_evidence, text), = no_endpoint("hub", views["hub"], views)
    assert "works now (a handshake 7 s ago)" in " ".join(text.split())


@pytest.mark.parametrize("tx_bytes, rx_bytes, sent", [(1, 0, True), (0, 0, False), (148, 92, False), (None, 0, False), (148, None, False)])
def test_sent_into_nothing_is_one_byte_sent_and_none_received(tx_bytes, rx_bytes, sent):
    edge = {"running": True, "handshake_age_s": None, "tx_bytes": tx_bytes, "rx_bytes": rx_bytes}
    assert sent_into_nothing(edge) is sent
    assert sent_into_nothing(dict(edge, running=False)) is False


def test_a_disabled_entry_on_either_end_is_not_judged_and_hides_nothing_after_it(tg):
    views = {"owrt": tg.owrt(tg.OWRT, [tg.HUB], disabled=[tg.HUB]), "hub": tg.linux(tg.HUB, [tg.OWRT])}
    assert [no_endpoint(h, views[h], views) for h in views] == [[], []]
    # the hub's entries in key order: OLD (no host has it: no way back), OWRT (neither end keeps an endpoint)
    views = {"hub": tg.linux(tg.HUB, [tg.OLD, tg.OWRT]), "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    assert [evidence["peer_public_key"] for evidence, _text in no_endpoint("hub", views["hub"], views)] == [tg.OWRT]


def test_the_right_port_is_no_mismatch_and_hides_none_after_it(tg):
    # the peer's entry for the hub knocks at the hub's listen port (sent into nothing: another cause); the one for the
    # router at a port it does not listen on, with a handshake long ago
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], listen_port=51820), "owrt": tg.owrt(tg.OWRT, [tg.PEER], listen_port=51820),
             "peer": tg.linux(tg.PEER, [tg.HUB, tg.OWRT], endpoints={tg.HUB: "203.0.113.10:51820", tg.OWRT: "198.51.100.7:51821"},
                              ages={tg.OWRT: 400}, counters={tg.HUB: (1480, 0), tg.OWRT: (1480, 0)})}
    (evidence, text), = port_mismatch("peer", views["peer"], views)
    assert evidence["peer_public_key"] == tg.OWRT
    assert "the entry sent 1480 bytes, received none, and has had no handshake for 400 s. Unless" in " ".join(text.split())
