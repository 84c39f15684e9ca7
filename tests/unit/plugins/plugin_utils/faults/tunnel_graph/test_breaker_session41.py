# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inputs a network operator meets that made endpoint_address_mismatch, public_key_mismatch, the graph's reading of odd
facts or the endpoint resolver wrong (breaker session 41; fake keys, a fake resolver)."""

import base64
import json
import os
import socket
import threading
import time

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import graph as graph_module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import resolve as resolve_module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoint_address import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.key_mismatch import key_mismatch
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import public_key_of

SPOKE = "SPOKESPOKESPOKESPOKESPOKESPOKESPOKESPOKESP="
GONE_HUB = "GONEHUBGONEHUBGONEHUBGONEHUBGONEHUBGONEHUB0="


def _resolver(answers):
    return lambda names: {name: answers.get(name, {"addresses": [], "error": "cannot be resolved (fake)"}) for name in names}


def test_a_split_horizon_name_resolving_to_the_hubs_lan_address_is_no_move(tg, monkeypatch):
    # the hub sits behind a port forward (its router is not in the run): a road warrior keeps hub.example.net, which
    # resolved to the public address 198.51.100.1 where it was set; the controller, on the hub's LAN, gets the hub's LAN
    # address from its split-horizon DNS. The entry is idle (stale handshake, both ways bytes): nothing is wrong.
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["192.168.1.10"], "error": None}}))
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 4000}),
                      {"eth0": ["192.168.1.10/24"], "wg0": ["10.77.0.1/24"]})
    peer = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "hub.example.net:51820"}, ages={tg.HUB: 4000},
                    counters={tg.HUB: (90000, 4400)}, learned={tg.HUB: "198.51.100.1:51820"})
    views = {"hub": hub, "peer": peer}
    graph_module._CACHE.clear()
    assert endpoint_address("peer", peer, views) == []


def test_a_name_that_moved_within_its_kind_is_still_a_move(tg, monkeypatch):
    # the same shape with the name now resolving to a public address of the hub: it moved (dynamic DNS)
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["203.0.113.10"], "error": None}}))
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 4000}),
                      {"eth0": ["203.0.113.10/24"], "wg0": ["10.77.0.1/24"]})
    peer = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "hub.example.net:51820"}, ages={tg.HUB: 4000},
                    counters={tg.HUB: (90000, 4400)}, learned={tg.HUB: "198.51.100.1:51820"})
    views = {"hub": hub, "peer": peer}
    graph_module._CACHE.clear()
    (evidence, _text), = endpoint_address("peer", peer, views)
    assert evidence["signs"] == ["the name resolves to the other end now"]


def _spoke(tg, key, address):
    """A spoke of a hub whose facts were not read (GONE_HUB: unreachable, or left out with --limit): it lists the hub's
    right key with the tunnel's /24, as every hub-and-spoke setup does."""
    return tg.linux(key, [GONE_HUB], listen_port=41000, endpoints={GONE_HUB: "hub.example.net:51820"}, addresses=[address],
                    allowed={GONE_HUB: ["10.77.0.0/24"]}, ages={GONE_HUB: 30}, counters={GONE_HUB: (5000, 6000)})


def test_two_spokes_of_an_unread_hub_are_not_each_others_wrong_key(tg):
    views = {"spoke1": _spoke(tg, tg.PEER, "10.77.0.2/24"), "spoke2": _spoke(tg, SPOKE, "10.77.0.3/24")}
    graph_module._CACHE.clear()
    assert key_mismatch("spoke1", views["spoke1"], views) == []
    assert [finding for finding in find_findings(views) if finding["id"] == "public_key_mismatch"] == []


def test_an_entry_for_one_tunnel_address_still_names_its_interface(tg):
    # the narrow case the AllowedIPs match is for: the hub lists an old key of the spoke with the spoke's /32
    spoke = tg.linux(SPOKE, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "203.0.113.10:51820"}, addresses=["10.77.0.3/24"],
                     ages={tg.HUB: 4000})
    hub = tg.linux(tg.HUB, [tg.OLD], allowed={tg.OLD: ["10.77.0.3/32"]}, addresses=["10.77.0.1/24"])
    views = {"hub": hub, "spoke": spoke}
    graph_module._CACHE.clear()
    (evidence, _text), = key_mismatch("hub", hub, views)
    assert (evidence["other_host"], evidence["matched_by"], evidence["other_public_key"]) == ("spoke", "allowed_ips", SPOKE)


def test_an_entry_with_a_fresh_handshake_has_the_right_key_whatever_it_looks_meant_for(tg):
    # the spoke's hub is a standby not in the run (its own key, the run's hub's tunnel address, answering at its own
    # address): the entry has a handshake 30 s ago and lists the hub's /32; the handshake proves its key
    spoke = tg.linux(SPOKE, [tg.OLD], listen_port=41000, addresses=["10.77.0.3/24"], endpoints={tg.OLD: "203.0.113.50:51820"},
                     ages={tg.OLD: 30}, allowed={tg.OLD: ["10.77.0.1/32"]})
    hub = tg.linux(tg.HUB, [SPOKE], allowed={SPOKE: ["10.77.0.3/32"]}, addresses=["10.77.0.1/24"])
    views = {"hub": hub, "spoke": spoke}
    graph_module._CACHE.clear()
    assert key_mismatch("spoke", spoke, views) == []
    # the same entry with no handshake for 181 s: judged, the hub's address names it
    spoke["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["handshake_age_s"] = 181
    assert [evidence["other_host"] for evidence, _text in key_mismatch("spoke", spoke, dict(views))] == ["hub"]


def _broken(tg, where, value):
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"]), {"eth0": ["203.0.113.10/24"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, addresses=["10.77.0.2/24"]),
             "zz": tg.linux(SPOKE, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"})}
    target = views["zz"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]
    if where == "peer":
        target = target["peers"][0]
    elif where == "config":
        target = views["zz"]["tunnelfix"]["wireguard"]["configs"][0]
    return views, target


@pytest.mark.parametrize("where, field, value", [
    ("interface", "public_key", ["x"]), ("interface", "listen_port", "51820"), ("config", "configured_public_key", ["x"]),
    ("config", "addresses", "10.77.0.3/24"), ("peer", "public_key", {"k": 1}),
    ("peer", "endpoint_port", "51820"), ("peer", "allowed_ips", [None]), ("peer", "handshake_age_s", "20"),
    ("peer", "rx_bytes", [1])])
def test_one_hosts_odd_fact_makes_that_host_unreadable_not_the_whole_run_fail(tg, where, field, value):
    # a field of another type than the rules take (old or partial facts, a hand-edited file) once raised in a rule after
    # the graph was built, and the registry's error named another host and ended diagnose for the whole run
    views, target = _broken(tg, where, field)
    target[field] = value
    graph_module._CACHE.clear()
    found = find_findings(views)
    assert list(graph_module.graph_of(views)["unreadable"]) == ["zz"]
    assert {finding["host"] for finding in found} <= {"hub", "peer"}
    checks = diagnosis(views)["checks"]
    assert checks["zz"]["one_sided_peer"]["status"] == "not_checked"
    assert checks["peer"]["one_sided_peer"]["status"] == "clear"


def test_link_addresses_of_another_shape_are_not_read(tg):
    views, _target = _broken(tg, "interface", None)
    views["hub"]["tunnelfix"]["link_addresses"]["devices"] = {"eth0": {"a": 1}}
    views["peer"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0].update(endpoint_host="203.0.113.99", tx_bytes=1480)
    views["peer"]["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["endpoint"] = "203.0.113.99:51820"
    graph_module._CACHE.clear()
    assert graph_module.graph_of(views)["connected"]["hub"] is None
    assert [finding for finding in find_findings(views) if finding["id"] == "endpoint_address_mismatch"] == []
    assert diagnosis(views)["checks"]["peer"]["endpoint_address_mismatch"]["status"] == "not_checked"


def test_many_names_use_a_bounded_number_of_threads_and_a_thread_limit_is_no_crash(monkeypatch):
    # one thread per name was started: a fleet of dynamic-DNS sites (a thousand stale names) in a container with a pids
    # limit ended diagnose with "can't start new thread"; a blocking resolver left one thread per name behind
    running, most = [0], [0]
    lock = threading.Lock()

    def getaddrinfo(name, port, family, kind):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        if name == "nul.example":
            raise ValueError("embedded null byte")
        return [(socket.AF_INET, kind, 17, "", ("203.0.113.7", 0))]

    monkeypatch.setattr(resolve_module.socket, "getaddrinfo", getaddrinfo)
    names = ["h%04d.example" % number for number in range(400)] + ["nul.example"]
    got = resolve_module.resolve_names(names, timeout_s=5)
    assert most[0] <= resolve_module.MAX_THREADS
    assert got["h0399.example"] == {"addresses": ["203.0.113.7"], "error": None}
    assert got["nul.example"] == {"addresses": [], "error": "cannot be resolved (embedded null byte)"}

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(resolve_module.threading.Thread, "start", refuse)
    assert resolve_module.resolve_names(["a.example", "b.example"], timeout_s=0.1) == {
        name: {"addresses": [], "error": "not resolved (no thread could be started)"} for name in ("a.example", "b.example")}


def test_a_private_endpoint_that_another_sites_router_also_has_does_not_name_it(tg):
    # sites numbered alike: the spoke's entry for its own site's router (192.168.1.1, facts not read: unreachable) and
    # another site's router in the run with the same LAN address and the default port; nothing names that router but
    # the shared private address
    spoke = tg.linux(SPOKE, [GONE_HUB], listen_port=41000, addresses=["10.77.1.2/24"], endpoints={GONE_HUB: "192.168.1.1:51820"},
                     ages={GONE_HUB: 4000}, allowed={GONE_HUB: ["10.77.1.1/32", "192.168.1.0/24"]})
    spoke = tg.with_lan(spoke, {"eth0": ["192.168.1.20/24"]})
    other = tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.2.1/24"]), {"br-lan": ["192.168.1.1/24"], "wan": ["198.51.100.2/24"]})
    views = {"spoke": spoke, "site2-router": other}
    graph_module._CACHE.clear()
    assert key_mismatch("spoke", spoke, views) == []
    # its AllowedIPs naming that router's tunnel address too: then it is meant for it
    spoke["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["allowed_ips"] = ["10.77.2.1/32"]
    assert [evidence["other_host"] for evidence, _text in key_mismatch("spoke", spoke, dict(views))] == ["site2-router"]
    # and a public address of the router alone names it
    spoke["tunnelfix"]["wireguard"]["configs"][0]["peers"][0].update(endpoint="198.51.100.2:51820", allowed_ips=["10.99.0.0/24"])
    assert [evidence["matched_by"] for evidence, _text in key_mismatch("spoke", spoke, dict(views))] == ["endpoint"]


def _fake_private_key():
    raw = bytearray(os.urandom(32))
    raw[0] &= 248
    raw[31] = (raw[31] & 127) | 64   # clamped, as wg genkey prints keys (keys.py); random, never stored
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize("platform", ["linux", "openwrt"])
def test_a_private_key_pasted_for_an_interface_that_is_not_up_is_never_shown(tg, platform):
    # the hub's wg0 is down (no running key): only the key its private key gives is known. A spoke pasted the hub's
    # private key as its peer key: the graph hid it only when it matched a running key, so public_key_mismatch printed
    # the private key in its evidence and text (peer_public_key, change)
    pasted = _fake_private_key()
    hub_key = public_key_of(pasted)
    if platform == "linux":
        hub = tg.linux(None, [tg.PEER], addresses=["10.77.0.1/24"])
        hub["tunnelfix"]["wireguard"]["configs"][0]["configured_public_key"] = hub_key
    else:
        hub = tg.owrt(None, [tg.PEER], addresses=["10.77.0.1/24"])
        hub["openwrt"]["wireguard"]["interfaces"]["wg0"]["configured_public_key"] = hub_key
    peer = tg.linux(tg.PEER, [pasted], addresses=["10.77.0.2/24"], allowed={pasted: ["10.77.0.1/32"]})
    views = {"hub": hub, "peer": peer}
    graph_module._CACHE.clear()
    document = diagnosis(views)
    assert pasted not in json.dumps(document) + json.dumps(find_findings(views))
    graph = graph_module.graph_of(views)
    assert list(graph["hidden_keys"].values()) == ["(the private key of hub's wg0, not shown)"]
    (finding,) = [finding for finding in find_findings(views) if finding["id"] == "public_key_mismatch"]
    assert finding["evidence"]["peer_public_key"] == "(the private key of hub's wg0, not shown)"


def test_a_hub_behind_a_one_to_one_nat_is_named_by_where_the_others_reach_it(tg):
    # the hub got a new key pair; spoke2 was updated and reaches it (30 s ago) at the cloud's public address, which is on
    # no device of the hub; spoke1 still lists the old key there, with the tunnel's /24 (which names no interface)
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"], learned={tg.PEER: "198.51.100.9:41000"},
                               ages={tg.PEER: 30}), {"eth0": ["172.31.5.10/20"]})
    spoke2 = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, addresses=["10.77.0.2/24"], endpoints={tg.HUB: "203.0.113.80:51820"},
                      ages={tg.HUB: 30}, allowed={tg.HUB: ["10.77.0.0/24"]})
    spoke1 = tg.linux(SPOKE, [tg.OLD], listen_port=41000, addresses=["10.77.0.3/24"], endpoints={tg.OLD: "203.0.113.80:51820"},
                      ages={tg.OLD: None}, allowed={tg.OLD: ["10.77.0.0/24"]}, counters={tg.OLD: (1480, 0)})
    views = {"hub": hub, "spoke1": spoke1, "spoke2": spoke2}
    graph_module._CACHE.clear()
    (evidence, _text), = key_mismatch("spoke1", spoke1, views)
    assert (evidence["other_host"], evidence["matched_by"], evidence["other_public_key"]) == ("hub", "endpoint", tg.HUB)
    # the face at another port (a NAT shared with another machine) does not name it
    spoke1["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["endpoint"] = "203.0.113.80:51821"
    spoke1["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["endpoint_port"] = 51821
    assert key_mismatch("spoke1", spoke1, dict(views)) == []


def test_a_link_local_endpoint_is_not_judged(tg):
    # two hosts on one LAN tunnel over IPv6 link-local (Endpoint = [fe80::2%eth0]:51820); the hub is down (sent into
    # nothing); link_addresses leave link-local addresses out, so the address looked like none of the hub's
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER]), {"eth0": ["203.0.113.10/24", "2001:db8::10/64", "fe80::2/64"]})
    peer = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "fe80::2%eth0:51820"}, counters={tg.HUB: (1480, 0)})
    views = {"hub": hub, "peer": peer}
    graph_module._CACHE.clear()
    assert endpoint_address("peer", peer, views) == []


def _router(devices, listen_port=None):
    """A router of the run: link_addresses only, or a WireGuard interface listening on ``listen_port`` too."""
    wireguard = {"interfaces": {}, "configs": []}
    if listen_port:
        wireguard["interfaces"]["wg0"] = {"public_key": "ROUTERROUTERROUTERROUTERROUTERROUTERROUTER0=", "listen_port": listen_port,
                                          "peers": []}
    return {"tunnelfix": {"wireguard": wireguard, "link_addresses": {"devices": devices, "note": None}}}


@pytest.mark.parametrize("router_port", [None, 51820])
def test_a_port_forward_to_a_hub_with_a_public_uplink_of_its_own_is_not_another_hosts_address(tg, router_port):
    # the hub has two uplinks: a public address on eth1 and a port forward on the run's router (its WAN 198.51.100.1,
    # the hub on its LAN). A road warrior uses the forward (idle an hour, bytes both ways). The router's address was
    # "another host's" (high) because the hub has a public IPv4 of its own. A WireGuard interface of the router on that
    # port says nothing: the forward (DNAT, before local delivery) takes the packets first
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41000"}, ages={tg.PEER: 3600}),
                      {"eth0": ["192.168.1.10/24"], "eth1": ["203.0.113.10/24"], "wg0": ["10.77.0.1/24"]})
    peer = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "198.51.100.1:51820"}, ages={tg.HUB: 3600},
                    counters={tg.HUB: (90000, 4400)})
    views = {"hub": hub, "peer": peer, "router": _router({"br-lan": ["192.168.1.1/24"], "wan": ["198.51.100.1/24"]}, router_port)}
    graph_module._CACHE.clear()
    signs = [sign for evidence, _text in endpoint_address("peer", peer, views) for sign in evidence["signs"]]
    assert "another host's address" not in signs
