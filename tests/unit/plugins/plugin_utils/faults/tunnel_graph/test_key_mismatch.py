# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""public_key_mismatch: an entry listing another key for an interface of the run, and an interface running another key
than its private key gives (the facts' configured_public_key, derived on the host); both ends' facts (fake keys)."""

import base64
import json
import os

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.key_mismatch import (
    key_mismatch, key_mismatch_coverage, meant_for)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import public_key_of

NEXT = "NEXTNEXTNEXTNEXTNEXTNEXTNEXTNEXTNEXTNEXTNEX="


def _own(view, key):
    """``view`` whose wg0's private key (its file's, or uci's) gives ``key``."""
    if "openwrt" in view:
        view["openwrt"]["wireguard"]["interfaces"]["wg0"]["configured_public_key"] = key
    else:
        view["tunnelfix"]["wireguard"]["configs"][0]["configured_public_key"] = key
    return view


def _texts(found):
    return [" ".join(text.split()) for _evidence, text in found]


def _pair(tg, listed):
    """hub (10.77.0.1) lists peer; peer (10.77.0.2) lists ``listed`` for the hub, with the hub's /32."""
    hub = tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"], allowed={tg.PEER: ["10.77.0.2/32"]})
    peer = tg.linux(tg.PEER, [listed], addresses=["10.77.0.2/24"], allowed={listed: ["10.77.0.1/32", "192.168.1.0/24"]})
    return {"hub": _own(hub, tg.HUB), "peer": _own(peer, tg.PEER)}


def test_keys_that_match_give_no_finding(tg):
    views = _pair(tg, tg.HUB)
    assert [key_mismatch(host, views[host], views) for host in views] == [[], []]
    assert [key_mismatch_coverage(host, views[host], views) for host in views] == [None, None]


def test_an_old_key_for_the_hub_is_found_on_the_host_with_the_line_to_change(tg):
    views = _pair(tg, tg.OLD)
    (evidence, _text), = key_mismatch("peer", views["peer"], views)
    assert evidence == {"case": "peer_lists_another_key", "interface": "wg0", "peer_public_key": tg.OLD, "other_host": "hub",
                        "other_interface": "wg0", "other_public_key": tg.HUB, "other_key_source": "running",
                        "matched_by": "allowed_ips", "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf",
                        "change": "the line PublicKey = %s of its [Peer] in /etc/wireguard/wg0.conf: PublicKey = %s" % (tg.OLD, tg.HUB)}
    text, = _texts(key_mismatch("peer", views["peer"], views))
    assert "peer's wg0 lists %s for hub's wg0 (hub's tunnel address is in its AllowedIPs), but hub's wg0 runs with %s" % (
        tg.OLD, tg.HUB) in text
    assert "Replace %s by %s at the line PublicKey = %s" % (tg.OLD, tg.HUB, tg.OLD) in text
    assert "one_sided_peer reports the same tunnel on hub" in text
    assert key_mismatch("hub", views["hub"], views) == []
    # the other end's view of the same tunnel: one_sided_peer on the hub, this finding on the peer, nothing else
    assert sorted((f["id"], f["host"]) for f in find_findings(views)) == [("one_sided_peer", "hub"), ("public_key_mismatch", "peer")]


def test_a_router_s_endpoint_names_the_host_and_the_line_is_uci_s(tg):
    hub = tg.with_lan(_own(tg.linux(tg.HUB, [tg.OWRT], addresses=["10.77.0.1/24"]), tg.HUB), {"eth0": ["203.0.113.1/24"]})
    owrt = _own(tg.owrt(tg.OWRT, [tg.OLD], endpoints={tg.OLD: "203.0.113.1:51820"}, allowed={tg.OLD: ["0.0.0.0/0"]},
                        addresses=["10.77.0.3/24"]), tg.OWRT)
    views = {"hub": hub, "owrt": owrt}
    (evidence, text), = key_mismatch("owrt", owrt, views)
    assert (evidence["matched_by"], evidence["other_host"], evidence["owner"], evidence["change"]) == (
        "endpoint", "hub", "uci", "uci set network.@wireguard_wg0[0].public_key='%s' (then uci commit network and ifup the "
        "interface)" % tg.HUB)
    assert "its endpoint 203.0.113.1 is hub's address" in " ".join(text.split())
    # the same address at another port (a port forwarded to a machine behind the hub): not the hub's by its endpoint,
    # and 0.0.0.0/0 names nobody
    entry = owrt["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]
    entry["endpoint_port"] = entry["live"]["endpoint_port"] = 51999
    views = {"hub": hub, "owrt": owrt}
    assert key_mismatch("owrt", owrt, views) == []


def test_a_wide_allowed_ips_or_two_interfaces_that_fit_name_nobody(tg):
    # 0.0.0.0/0 and no endpoint: any host could be meant; a /24 holding two hosts' addresses: either could be
    hub = _own(tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"]), tg.HUB)
    owrt = _own(tg.owrt(tg.OWRT, [], addresses=["10.77.0.3/24"]), tg.OWRT)
    for allowed in (["0.0.0.0/0"], ["10.77.0.0/24"], ["10.0.0.0/8"]):
        peer = _own(tg.linux(tg.PEER, [tg.OLD], addresses=["10.77.0.2/24"], allowed={tg.OLD: allowed}), tg.PEER)
        views = {"hub": hub, "owrt": owrt, "peer": peer}
        assert key_mismatch("peer", peer, views) == [], allowed
    # the /24 with the router gone still names nobody: it is the hub's whole tunnel subnet, which a spoke lists for its hub
    # (a hub whose facts were not read would make the one other spoke in the run look meant: breaker session 41);
    # the hub's own address, or a prefix narrower than its subnet, names it
    views = {"hub": hub, "peer": peer}
    for allowed, named in ((["10.77.0.0/24"], []), (["10.77.0.1/32"], ["hub"]), (["10.77.0.0/25"], ["hub"])):
        peer["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["allowed_ips"] = allowed
        assert [e["other_host"] for e, _text in key_mismatch("peer", peer, build_views(views))] == named, allowed


def build_views(views):
    """A new dict (the graph is cached per views object)."""
    return dict(views)


def test_an_interface_the_entry_s_host_already_lists_is_not_meant(tg):
    # the peer lists the hub right and an old key with the hub's address too (a stale second entry): not the hub's
    hub = _own(tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"]), tg.HUB)
    peer = _own(tg.linux(tg.PEER, [tg.HUB, tg.OLD], addresses=["10.77.0.2/24"],
                         allowed={tg.HUB: ["10.77.0.1/32"], tg.OLD: ["10.77.0.1/32"]}), tg.PEER)
    views = {"hub": hub, "peer": peer}
    assert key_mismatch("peer", peer, views) == []
    graph = build_graph(views)
    assert meant_for(graph, graph["by_id"]["peer/wg0>" + tg.OLD]) == (None, None)


def test_a_hub_that_is_not_up_is_judged_by_the_key_its_private_key_gives(tg):
    hub = _own(tg.linux(None, [tg.PEER], addresses=["10.77.0.1/24"]), tg.HUB)
    peer = _own(tg.linux(tg.PEER, [tg.OLD], addresses=["10.77.0.2/24"], allowed={tg.OLD: ["10.77.0.1/32"]}), tg.PEER)
    views = {"hub": hub, "peer": peer}
    (evidence, text), = key_mismatch("peer", peer, views)
    assert (evidence["other_public_key"], evidence["other_key_source"]) == (tg.HUB, "private key")
    assert "hub's private key for wg0 gives %s (the interface is not up)" % tg.HUB in " ".join(text.split())
    # listing the key the hub's private key gives is right, up or not
    views = {"hub": hub, "peer": _own(tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"],
                                               allowed={tg.HUB: ["10.77.0.1/32"]}), tg.PEER)}
    assert key_mismatch("peer", views["peer"], views) == []


def test_a_running_key_its_private_key_does_not_give_is_found_on_the_host(tg):
    views = _pair(tg, tg.HUB)
    _own(views["hub"], NEXT)
    (evidence, text), = key_mismatch("hub", views["hub"], views)
    assert evidence == {"case": "running_key_not_configured", "interface": "wg0", "public_key": tg.HUB,
                        "configured_public_key": NEXT, "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf",
                        "listed_by": ["peer/wg0"], "configured_listed_by": []}
    text = " ".join(text.split())
    assert "hub's wg0 runs with public key %s, but the private key /etc/wireguard/wg0.conf keeps gives %s" % (tg.HUB, NEXT) in text
    assert "every entry listing %s (peer/wg0) loses the tunnel then" % tg.HUB in text
    assert key_mismatch("peer", views["peer"], views) == []


def test_a_peer_that_already_lists_the_next_key_is_not_told_to_change_it(tg):
    # the hub's file got a new key pair (NEXT), the peer was updated, the hub not restarted: restart the hub
    views = _pair(tg, NEXT)
    _own(views["hub"], NEXT)
    assert key_mismatch("peer", views["peer"], views) == []
    (evidence, text), = key_mismatch("hub", views["hub"], views)
    assert (evidence["case"], evidence["listed_by"], evidence["configured_listed_by"]) == ("running_key_not_configured", [], ["peer/wg0"])
    assert "the entries that already list %s (peer/wg0) reach it only after the restart" % NEXT in " ".join(text.split())


def test_a_router_s_uci_private_key_names_its_option(tg):
    owrt = _own(tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24"]), NEXT)
    views = {"owrt": owrt}
    (evidence, _text), = key_mismatch("owrt", owrt, views)
    assert (evidence["owner"], evidence["owner_path"]) == ("uci", "network.wg0.private_key")


def test_a_clone_with_another_s_key_is_left_to_duplicate_public_key(tg):
    # the peer's key is the hub's (a clone): the owrt's entry for the peer's old key is not this finding's
    hub = _own(tg.linux(tg.HUB, [tg.OWRT], addresses=["10.77.0.1/24"]), tg.HUB)
    peer = _own(tg.linux(tg.HUB, [tg.OWRT], addresses=["10.77.0.2/24"]), tg.HUB)
    owrt = _own(tg.owrt(tg.OWRT, [tg.HUB, tg.PEER], addresses=["10.77.0.3/24"],
                        allowed={tg.HUB: ["10.77.0.1/32"], tg.PEER: ["10.77.0.2/32"]}), tg.OWRT)
    views = {"hub": hub, "peer": peer, "owrt": owrt}
    assert key_mismatch("owrt", owrt, views) == []


def test_a_private_key_pasted_for_the_hub_is_named_by_its_placeholder_only(tg):
    raw = bytearray(os.urandom(32))
    raw[0] &= 248
    raw[31] = (raw[31] & 127) | 64   # clamped, as wg genkey prints keys (keys.py)
    pasted = base64.b64encode(bytes(raw)).decode()
    hub_key = public_key_of(pasted)
    hub = _own(tg.linux(hub_key, [tg.PEER], addresses=["10.77.0.1/24"]), hub_key)
    peer = _own(tg.linux(tg.PEER, [pasted], addresses=["10.77.0.2/24"], allowed={pasted: ["10.77.0.1/32"]}), tg.PEER)
    views = {"hub": hub, "peer": peer}
    (evidence, text), = key_mismatch("peer", peer, views)
    shown = "(the private key of hub's wg0, not shown)"
    assert (evidence["peer_public_key"], evidence["other_public_key"]) == (shown, hub_key)
    assert pasted not in json.dumps(evidence) + text
    assert pasted not in json.dumps(diagnosis(views))
    assert ("peer", "public_key_mismatch") in {(f["host"], f["id"]) for f in find_findings(views)}


@pytest.mark.parametrize("known, coverage", [
    (True, None),
    (False, ("clear", "judged without 1 interface whose private key's public key is not known (no wg, no key in its file, or "
                      "facts from before this reading)")),
])
def test_coverage_says_when_the_private_key_s_public_key_is_not_known(tg, known, coverage):
    views = _pair(tg, tg.HUB)
    if not known:
        views["hub"]["tunnelfix"]["wireguard"]["configs"][0]["configured_public_key"] = None
    assert key_mismatch_coverage("hub", views["hub"], views) == coverage


def test_coverage_of_a_host_without_wireguard_or_with_nothing_known(tg):
    views = {"hub": tg.linux(None, [tg.PEER]), "empty": {"tunnelfix": {"wireguard": {"interfaces": {}, "configs": []}}}}
    assert key_mismatch_coverage("hub", views["hub"], views)[0] == "not_checked"
    assert key_mismatch_coverage("empty", views["empty"], views) == ("clear", "does not apply: no WireGuard interface")
