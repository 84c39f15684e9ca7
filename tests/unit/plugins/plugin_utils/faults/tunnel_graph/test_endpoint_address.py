# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""endpoint_address_mismatch: an endpoint address the other end does not have, with a sign it is wrong (fake keys,
a fake resolver: no test resolves a name)."""

import socket
import time

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import graph as graph_module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import resolve as resolve_module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoint_address import (
    endpoint_address, endpoint_address_coverage, endpoint_line)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph

HUB_LAN = {"eth0": ["203.0.113.10/24", "fe80::1/64"], "wg0": ["10.77.0.1/24"], "lo": ["127.0.0.1/8"]}
NATTED_HUB_LAN = {"eth0": ["172.31.5.10/20"], "wg0": ["10.77.0.1/24"]}


def _hub(tg, lan=None, peer_keys=None, ages=None):
    view = tg.linux(tg.HUB, peer_keys or [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages=ages)
    return tg.with_lan(view, HUB_LAN if lan is None else lan) if lan is not False else view


def _peer(tg, endpoint, age=None, counters=(1480, 0), learned=None):
    return tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: endpoint}, ages={tg.HUB: age},
                    counters={tg.HUB: counters}, learned={tg.HUB: learned} if learned else None)


def _rule(views, host="peer"):
    graph_module._CACHE.clear()
    return endpoint_address(host, views[host], views)


def _resolver(answers, calls=None):
    def resolve(names):
        if calls is not None:
            calls.append(list(names))
        return {name: answers.get(name, {"addresses": [], "error": "cannot be resolved (fake)"}) for name in names}
    return resolve


@pytest.mark.parametrize("age, counters", [(None, (1480, 0)), (4000, (90000, 4400)), (None, (0, 0))])
def test_an_endpoint_on_a_device_of_the_other_end_is_fine_whatever_the_handshake(tg, age, counters):
    views = {"hub": _hub(tg), "peer": _peer(tg, "203.0.113.10:51820", age, counters)}
    assert _rule(views) == []
    assert endpoint_address_coverage("peer", views["peer"], views) is None


@pytest.mark.parametrize("age, found", [(None, True), (181, True), (180, False), (5, False)])
def test_a_fresh_handshake_proves_the_endpoint_works_whatever_the_address(tg, age, found):
    # 203.0.113.99 is on none of the hub's devices; the entry sent into nothing unless the handshake is fresh
    views = {"hub": _hub(tg), "peer": _peer(tg, "203.0.113.99:51820", age, (1480, 0) if age is None or age > 180 else (9000, 9000))}
    assert bool(_rule(views)) is found


def test_sent_into_nothing_while_the_other_end_has_a_public_address_of_its_own(tg):
    views = {"hub": _hub(tg), "peer": _peer(tg, "203.0.113.99:51820")}
    (evidence, text), = _rule(views)
    assert evidence == {
        "interface": "wg0", "peer_public_key": tg.HUB, "judged_address": "203.0.113.99", "endpoint_host": "203.0.113.99",
        "endpoint_port": 51820, "configured_endpoint_host": "203.0.113.99", "configured_endpoint_port": 51820,
        "resolved_now": None, "other_host": "hub", "other_interface": "wg0", "other_addresses": ["203.0.113.10"],
        "reached_at": [], "address_of_hosts": [], "signs": ["sent into nothing"], "confidence": "medium",
        "handshake_age_s": None, "tx_bytes": 1480, "rx_bytes": 0, "other_handshake_age_s": None, "owner": "wg-quick",
        "owner_path": "/etc/wireguard/wg0.conf",
        "change": "Endpoint = of the [Peer] with PublicKey = %s in /etc/wireguard/wg0.conf" % tg.HUB}
    text = " ".join(text.split())
    assert "peer's wg0 sends to hub's wg0 at 203.0.113.99 and never had a handshake" in text
    assert "its devices have 203.0.113.10" in text and "sent 1480 bytes and received none" in text
    assert text.endswith("Unless 203.0.113.99 is hub's too (a second uplink, a NAT address no other host of the run uses), set "
                         "the endpoint to an address of hub (203.0.113.10) in Endpoint = of the [Peer] with PublicKey = %s in "
                         "/etc/wireguard/wg0.conf." % tg.HUB)


def test_never_sent_is_no_sign(tg):
    views = {"hub": _hub(tg), "peer": _peer(tg, "203.0.113.99:51820", counters=(0, 0))}
    assert _rule(views) == []


def test_a_hub_behind_nat_whose_public_address_nobody_else_shows_is_not_judged_wrong(tg):
    # a cloud VM with a 1:1 NAT: 203.0.113.10 is on none of its devices; the peer never got an answer (a firewall?)
    views = {"hub": _hub(tg, NATTED_HUB_LAN), "peer": _peer(tg, "203.0.113.10:51820")}
    assert _rule(views) == []
    assert endpoint_address_coverage("peer", views["peer"], views) is None


def test_the_public_face_others_reach_the_hub_at_counts_as_its_address(tg):
    views = {"hub": _hub(tg, NATTED_HUB_LAN, peer_keys=[tg.PEER, tg.OWRT]),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}),
             "peer": _peer(tg, "203.0.113.10:51820")}
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["live"]["handshake_age_s"] = 20
    assert _rule(views) == []
    views["peer"] = _peer(tg, "203.0.113.99:51820", age=4000, counters=(90000, 4400))
    (evidence, text), = _rule(views)
    assert (evidence["signs"], evidence["confidence"], evidence["other_addresses"]) == (["others reach it elsewhere"], "medium",
                                                                                        ["172.31.5.10"])
    assert evidence["reached_at"] == [{"address": "203.0.113.10", "port": 51820, "entries": 1, "hosts": ["owrt"]}]
    assert evidence["other_handshake_age_s"] is None
    text = " ".join(text.split())
    assert "Other entries reach hub with a fresh handshake at 203.0.113.10 port 51820 (1 entry: owrt)" in text
    assert "its last handshake was 4000 s ago" in text and "(203.0.113.10, 172.31.5.10)" in text


def test_another_hosts_address_is_named_a_copy_paste(tg):
    views = {"hub": _hub(tg), "peer": _peer(tg, "198.51.100.7:51820", age=4000, counters=(90000, 4400)),
             "owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB]), {"wan": ["198.51.100.7/24"]})}
    (evidence, text), = _rule(views)
    assert (evidence["signs"], evidence["confidence"], evidence["address_of_hosts"]) == (["another host's address"], "high", ["owrt"])
    assert "It is owrt's address (on a device, or where others reach it): a peer section copied from there?" in " ".join(text.split())
    assert not " ".join(text.split()).count("Unless")


def test_a_private_address_two_other_sites_have_is_no_copy_paste_sign(tg):
    # sites numbered alike: 192.168.1.1 on two routers tells nothing; on one it does
    views = {"hub": _hub(tg), "peer": _peer(tg, "192.168.1.1:51820", age=4000, counters=(90000, 4400)),
             "owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB]), {"br-lan": ["192.168.1.1/24"]}),
             "old": tg.with_lan(tg.linux(tg.OLD, [tg.HUB]), {"eth0": ["192.168.1.1/24"]})}
    assert _rule(views) == []
    del views["old"]
    (evidence, _text), = _rule(views)
    assert evidence["address_of_hosts"] == ["owrt"]


def test_the_other_ends_address_inside_this_tunnel(tg):
    views = {"hub": _hub(tg), "peer": _peer(tg, "10.77.0.1:51820", age=4000, counters=(90000, 4400))}
    (evidence, text), = _rule(views)
    assert (evidence["signs"], evidence["confidence"], evidence["other_addresses"]) == (["inside the tunnel"], "high", ["203.0.113.10"])
    assert "inside this very tunnel" in " ".join(text.split())


def test_not_judged_when_the_other_ends_addresses_were_not_read(tg):
    views = {"hub": _hub(tg, lan=False), "peer": _peer(tg, "203.0.113.99:51820")}
    assert _rule(views) == []
    status, reason = endpoint_address_coverage("peer", views["peer"], views)
    assert status == "not_checked" and "link_addresses" in reason


def test_partly_when_one_other_end_is_read_and_one_is_not(tg):
    peer = tg.linux(tg.PEER, [tg.HUB, tg.OWRT], endpoints={tg.HUB: "203.0.113.10:51820", tg.OWRT: "198.51.100.7:51820"})
    views = {"hub": _hub(tg), "owrt": tg.owrt(tg.OWRT, [tg.PEER]), "peer": peer}
    graph_module._CACHE.clear()
    assert endpoint_address_coverage("peer", views["peer"], views) == ("clear", "judged without 1 entry whose other end's live addresses were "
                                                                       "not read, or whose endpoint name the kernel holds no address for")


def test_an_openwrt_entry_names_its_uci_option(tg):
    views = {"hub": _hub(tg, peer_keys=[tg.OWRT]),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.99:51820"}, counters={tg.HUB: (1480, 0)})}
    (evidence, text), = _rule(views, "owrt")
    assert evidence["change"] == "network.@wireguard_wg0[0].endpoint_host"
    assert "in network.@wireguard_wg0[0].endpoint_host." in " ".join(text.split())


@pytest.mark.parametrize("owner, line", [
    ("networkd", "Endpoint= of the [WireGuardPeer] with PublicKey=KEY in /etc/systemd/network/wg0.netdev"),
    ("live only", "wg set wg0 peer KEY endpoint ADDRESS:51820 (no file keeps it)"),
])
def test_the_line_to_change_per_owner(owner, line):
    edge = {"owner": owner, "public_key": "KEY", "owner_path": "/etc/systemd/network/wg0.netdev", "uci_section": None,
            "endpoint_port": 51820}
    assert endpoint_line(edge, "wg0") == line


def _named_peer(tg, live, age=4000, counters=(90000, 4400)):
    return _peer(tg, "hub.example.net:51820", age, counters, learned=live)


def test_a_dynamic_dns_hub_that_moved_the_kernel_still_sends_to_the_old_address(tg, monkeypatch):
    calls = []
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["203.0.113.10"], "error": None}}, calls))
    views = {"hub": _hub(tg), "peer": _named_peer(tg, "198.51.100.200:51820")}
    (evidence, text), = _rule(views)
    assert calls == [["hub.example.net"]]
    assert evidence["resolved_now"] == {"addresses": ["203.0.113.10"], "error": None, "resolved_from": "controller"}
    assert (evidence["judged_address"], evidence["configured_endpoint_host"], evidence["signs"], evidence["confidence"]) == (
        "198.51.100.200", "hub.example.net", ["the name resolves to the other end now"], "high")
    text = " ".join(text.split())
    assert "at 198.51.100.200 (what hub.example.net resolved to when the entry was set)" in text
    assert "resolved from the Ansible controller" in text
    assert "wg set wg0 peer %s endpoint hub.example.net:51820" % tg.HUB in text


def test_a_name_that_still_resolves_to_the_address_in_use_is_not_this_finding(tg, monkeypatch):
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["198.51.100.200"], "error": None}}))
    views = {"hub": _hub(tg), "peer": _named_peer(tg, "198.51.100.200:51820", age=None, counters=(1480, 0))}
    assert _rule(views) == []


def test_an_unresolvable_name_is_said_and_judged_on_the_other_signs(tg, monkeypatch):
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({}))
    views = {"hub": _hub(tg), "peer": _named_peer(tg, "198.51.100.200:51820", age=None, counters=(1480, 0))}
    (evidence, text), = _rule(views)
    assert evidence["resolved_now"] == {"addresses": [], "error": "cannot be resolved (fake)", "resolved_from": "controller"}
    assert evidence["signs"] == ["sent into nothing"]
    assert "hub.example.net does not resolve from the Ansible controller now (cannot be resolved (fake))" in " ".join(text.split())


def test_a_name_the_kernel_holds_no_address_for_is_counted_not_judged(tg, monkeypatch):
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["203.0.113.10"], "error": None}}))
    views = {"hub": _hub(tg), "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "hub.example.net:51820"}, paper=[tg.HUB])}
    assert _rule(views) == []
    assert endpoint_address_coverage("peer", views["peer"], views)[0] == "not_checked"


def test_names_are_resolved_once_and_only_for_entries_without_a_fresh_handshake(tg):
    calls = []
    views = {"hub": _hub(tg, peer_keys=[tg.PEER, tg.OWRT]),
             "peer": _named_peer(tg, "198.51.100.200:51820"),
             "fresh": tg.linux(tg.OLD, [tg.HUB], endpoints={tg.HUB: "fresh.example.net:51820"}, ages={tg.HUB: 10}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "hub.example.net:51820"})}
    graph = build_graph(views, resolve=_resolver({}, calls))
    assert calls == [["hub.example.net"]]
    assert graph["resolved"] == {"hub.example.net": {"addresses": [], "error": "cannot be resolved (fake)"}}
    assert build_graph(views)["resolved"] == {}
    assert build_graph(views, resolve=lambda names: None)["resolved"] == {"hub.example.net": {"addresses": [], "error": "not resolved"}}


def test_the_finding_through_the_registry_and_the_export(tg):
    views = {"hub": _hub(tg), "peer": _peer(tg, "203.0.113.99:51820")}
    graph_module._CACHE.clear()
    assert [(f["host"], f["severity"]) for f in find_findings(views) if f["id"] == "endpoint_address_mismatch"] == [("peer", "high")]
    document = diagnosis(views)
    assert document["checks"]["peer"]["endpoint_address_mismatch"]["status"] == "found"
    edge = next(e for e in document["tunnel_graph"]["edges"] if e["from"] == "peer/wg0")
    assert "endpoint_address_mismatch" in edge["findings"] and edge["state"] == "conflict"


def test_resolve_names_with_a_fake_getaddrinfo(monkeypatch):
    def getaddrinfo(name, port, family, kind):
        assert (port, family, kind) == (None, 0, socket.SOCK_DGRAM)
        if name == "slow.example":
            time.sleep(1)
        if name == "gone.example":
            raise socket.gaierror(-2, "Name or service not known")
        return [(socket.AF_INET6, kind, 17, "", ("2001:db8::7%eth0", 0, 0, 0)), (socket.AF_INET, kind, 17, "", ("203.0.113.7", 0)),
                (socket.AF_INET, kind, 17, "", ("203.0.113.7", 0))]

    monkeypatch.setattr(resolve_module.socket, "getaddrinfo", getaddrinfo)
    got = resolve_module.resolve_names(["hub.example", "gone.example", "slow.example", "hub.example"], timeout_s=0.2)
    assert got == {"hub.example": {"addresses": ["203.0.113.7", "2001:db8::7"], "error": None},
                   "gone.example": {"addresses": [], "error": "cannot be resolved ([Errno -2] Name or service not known)"},
                   "slow.example": {"addresses": [], "error": "no answer within 0.2 s"}}
    assert resolve_module.resolve_names([]) == {}


def test_the_unit_tests_never_resolve():
    assert graph_module.resolve_names(["hub.example.net"]) == {"hub.example.net": {"addresses": [], "error": "not resolved (unit test)"}}


def _idle(tg, endpoint):
    """A third host whose entry for the hub keeps ``endpoint``, quiet for an hour (it worked then)."""
    return tg.linux(tg.OLD, [tg.HUB], endpoints={tg.HUB: endpoint}, ages={tg.HUB: 4000}, counters={tg.HUB: (90000, 4400)})


def test_the_router_forwarding_a_port_to_the_hub_behind_it_is_not_a_copy_paste(tg):
    # owrt's WAN address 198.51.100.7 forwards 51820 to the hub on its LAN (192.168.1.10): the hub's address for those
    # outside, although it is on owrt's device
    lan = {"br-lan": ["192.168.1.1/24"], "wan": ["198.51.100.7/24"]}
    views = {"hub": _hub(tg, {"eth0": ["192.168.1.10/24"], "wg0": ["10.77.0.1/24"]}, peer_keys=[tg.PEER, tg.OLD]),
             "owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB]), lan), "peer": _peer(tg, "198.51.100.7:51820"),
             "old": _idle(tg, "198.51.100.7:51820")}
    assert _rule(views) == [] and _rule(views, "old") == []
    # the same address while the hub has a public address of its own (a second uplink): owrt may still forward the port
    # to it on its LAN, so the address is not "another host's" (breaker session 41: it was, with confidence high); a host
    # whose LAN does not hold the hub's private address is no NAT of it
    views["hub"] = _hub(tg, {"eth0": ["192.168.1.10/24", "203.0.113.10/24"], "wg0": ["10.77.0.1/24"]}, peer_keys=[tg.PEER, tg.OLD])
    assert _rule(views, "old") == []
    views["owrt"] = tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB]), {"br-lan": ["192.168.2.1/24"], "wan": ["198.51.100.7/24"]})
    (evidence, _text), = _rule(dict(views), "old")
    assert (evidence["address_of_hosts"], evidence["signs"]) == (["owrt"], ["another host's address"])


@pytest.mark.parametrize("port, found", [(41862, True), (51821, False)])
def test_a_host_others_reach_at_the_address_is_named_only_at_that_port(tg, port, found):
    # the hub reaches peer at 198.51.100.9:41862 (its NAT's mapping); old keeps 198.51.100.9 for the hub (behind NAT,
    # private addresses only): on another port that may be the same NAT forwarding a port to the hub
    views = {"hub": _hub(tg, NATTED_HUB_LAN, peer_keys=[tg.PEER, tg.OLD], ages={tg.PEER: 20}),
             "peer": _peer(tg, "203.0.113.10:51820", age=4000, counters=(9000, 9000)), "old": _idle(tg, "198.51.100.9:%d" % port)}
    got = _rule(views, "old")
    assert bool(got) is found
    if found:
        assert (got[0][0]["address_of_hosts"], got[0][0]["signs"]) == (["peer"], ["another host's address"])


def test_peers_reaching_the_hub_on_its_lan_say_nothing_about_its_public_address(tg):
    # peer reaches the hub on the LAN at 172.31.5.10; old, outside, keeps the public address a NAT forwards (on no
    # device of the hub, and no host reaches it there now)
    views = {"hub": _hub(tg, NATTED_HUB_LAN, peer_keys=[tg.PEER, tg.OLD]),
             "peer": _peer(tg, "172.31.5.10:51820", age=20, counters=(9000, 9000)), "old": _idle(tg, "203.0.113.10:51820")}
    assert _rule(views, "old") == []
    views["peer"] = _peer(tg, "203.0.113.20:51820", age=20, counters=(9000, 9000))   # a public face elsewhere: a sign
    (evidence, _text), = _rule(views, "old")
    assert evidence["signs"] == ["others reach it elsewhere"] and evidence["confidence"] == "medium"


def test_a_name_that_resolves_elsewhere_than_the_other_end_is_no_sign(tg, monkeypatch):
    # the controller's DNS (split horizon?) gives an address the hub does not have: shown only with another sign
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["198.51.100.50"], "error": None}}))
    views = {"hub": _hub(tg), "peer": _named_peer(tg, "198.51.100.200:51820")}
    assert _rule(views) == []
    views["peer"] = _named_peer(tg, "198.51.100.200:51820", age=None, counters=(1480, 0))
    (evidence, text), = _rule(views)
    assert evidence["signs"] == ["sent into nothing"]
    assert "hub.example.net resolves to 198.51.100.50 now (resolved from the Ansible controller, whose DNS may differ from peer's)." in " ".join(text.split())


@pytest.mark.parametrize("text, address", [("203.0.113.7", "203.0.113.7"), ("[2001:db8::1]", "2001:db8::1"),
                                           ("fe80::1%eth0", "fe80::1"), ("hub.example.net", None), ("", None)])
def test_what_counts_as_an_address(text, address):
    got = resolve_module.address_of(text)
    assert (str(got) if got is not None else None) == address


@pytest.mark.parametrize("age, found", [(180, False), (181, True)])
def test_a_fresh_handshake_wins_over_every_sign(tg, age, found):
    # 198.51.100.7 is owrt's (a copied [Peer]), yet a handshake 180 s ago proves the tunnel works: a forward on owrt,
    # or (here) the kernel learned the hub's own address from the hub's packets
    views = {"hub": _hub(tg), "peer": _peer(tg, "198.51.100.7:51820", age, (90000, 4400), learned="203.0.113.10:51820"),
             "owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB]), {"wan": ["198.51.100.7/24"]})}
    got = _rule(views)
    assert bool(got) is found
    if found:
        assert (got[0][0]["judged_address"], got[0][0]["endpoint_host"], got[0][0]["signs"]) == (
            "198.51.100.7", "203.0.113.10", ["another host's address"])
        assert "peer's wg0 keeps 198.51.100.7 as hub's wg0 endpoint (the kernel holds 203.0.113.10 now" in " ".join(got[0][1].split())


def _hub_hearing(tg, rx_bytes, age=None):
    """The hub's entry for the peer: ``rx_bytes`` received, its newest handshake ``age`` s ago (None: never)."""
    return tg.with_lan(
        tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: age},
                 counters={tg.PEER: (0, rx_bytes)}), HUB_LAN)


def _second(view, tg, rx_bytes, first=1767225600, after_s=8):
    view["tunnelfix"]["wireguard"]["sampled_at_epoch"] = first
    view["wireguard_second_sample"] = {"sampled_at_epoch": first + after_s, "interfaces": {
        "wg0": {tg.PEER: {"rx_bytes": rx_bytes, "tx_bytes": 0, "handshake_age_s": None}}}}
    return view


def test_the_other_end_hearing_this_one_since_its_start_proves_the_endpoint_reaches_it(tg):
    # a relay or a port forward in front of the hub: 203.0.113.99 is on none of its devices, yet the hub's entry for
    # the peer received the peer's initiations (296 bytes, never a handshake: a preshared key on one end only)
    views = {"hub": _hub_hearing(tg, 296), "peer": _peer(tg, "203.0.113.99:51820")}
    assert _rule(views) == []
    views = {"hub": _hub_hearing(tg, 0), "peer": _peer(tg, "203.0.113.99:51820")}
    assert len(_rule(views)) == 1


def test_bytes_received_before_an_old_handshake_prove_nothing_unless_they_grow_at_the_second_sample(tg):
    hub = _hub_hearing(tg, 90000, age=4000)
    views = {"hub": hub, "peer": _peer(tg, "203.0.113.99:51820")}
    assert len(_rule(views)) == 1   # received long ago: maybe through another endpoint
    views["hub"] = _second(hub, tg, 90000)
    assert len(_rule(views)) == 1   # nothing new at the second reading
    views["hub"] = _second(hub, tg, 90148)
    assert _rule(views) == []      # an initiation arrived between the readings
