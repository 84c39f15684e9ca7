# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""allowed_ips_overlap: two entries of one interface claim the same addresses, and one of them loses them (fake keys)."""

import time

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID, diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.allowed_ips import allowed_ips_coverage, allowed_ips_overlap
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph

SITE = "SITESITESITESITESITESITESITESITESITESITESIT="


def _found(views, host="hub"):
    return [(evidence["peer_public_key"], evidence["holder_public_key"], evidence["identical"], evidence["contained"])
            for evidence, _text in allowed_ips_overlap(host, views[host], views)]


def _one(views, host="hub"):
    """The evidence of the one finding on ``host``."""
    found = allowed_ips_overlap(host, views[host], views)
    assert len(found) == 1
    return found[0][0]


def test_a_prefix_two_running_entries_list_is_lost_by_the_one_the_kernel_does_not_hold_it_for(tg):
    """wg show lists 192.168.20.0/24 under OWRT only: PEER's file entry lists it too, and has none of it."""
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT, tg.PEER], kept={tg.PEER: ["10.77.0.2/32", "192.168.20.0/24"],
                                                               tg.OWRT: ["10.77.0.3/32", "192.168.20.0/24"]},
                             allowed={tg.PEER: ["10.77.0.2/32"], tg.OWRT: ["10.77.0.3/32", "192.168.20.0/24"]})}
    assert _found(views) == [(tg.PEER, tg.OWRT, [{"prefix": "192.168.20.0/24", "decided_by": "live"}], [])]


def test_without_the_live_state_the_entry_set_last_gets_it(tg):
    """The interface is down: wg setconf will give the prefix to the later [Peer] of the file; swap them, the other."""
    kept = {tg.PEER: ["0.0.0.0/0"], tg.OWRT: ["0.0.0.0/0"]}
    first = {"hub": tg.linux(None, [tg.PEER, tg.OWRT], kept=kept)}
    second = {"hub": tg.linux(None, [tg.OWRT, tg.PEER], kept=kept)}
    assert _found(first) == [(tg.PEER, tg.OWRT, [{"prefix": "0.0.0.0/0", "decided_by": "order"}], [])]
    assert _found(second) == [(tg.OWRT, tg.PEER, [{"prefix": "0.0.0.0/0", "decided_by": "order"}], [])]


def test_a_netdev_gives_the_prefix_to_its_first_peer_section():
    """networkd prepends each [WireGuardPeer] it reads: it sets the first one last (systemd wireguard.c)."""
    netdev = {"path": "/etc/systemd/network/30-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True,
              "addresses": None, "peers": [{"public_key": SITE, "endpoint": None, "allowed_ips": ["10.9.0.0/16"]},
                                           {"public_key": "B" * 43 + "=", "endpoint": None, "allowed_ips": ["10.9.0.0/16"]}]}
    views = {"hub": {"tunnelfix": {"wireguard": {"interfaces": {}, "configs": [netdev]}}}}
    evidence = _one(views, "hub")
    assert (evidence["peer_public_key"], evidence["holder_public_key"]) == ("B" * 43 + "=", SITE)
    assert [edge["set_order"] for edge in build_graph(views)["edges"]] == [0, 1]   # B (second section) first, SITE last


def test_a_prefix_inside_a_wider_one_of_another_entry_is_lost_by_the_wider(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.0.0.0/16"], tg.OWRT: ["10.0.5.0/24"]})}
    assert _found(views) == [(tg.PEER, tg.OWRT, [], [{"prefix": "10.0.5.0/24", "within": "10.0.0.0/16"}])]


def test_nested_prefixes_lose_to_the_nearest_only(tg):
    """PEER 10.0.0.0/16, OWRT 10.0.0.0/20 and 10.0.5.0/24: PEER loses the /20 to OWRT; the /24 OWRT keeps either way."""
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.0.0.0/16"], tg.OWRT: ["10.0.0.0/20", "10.0.5.0/24"]})}
    assert _found(views) == [(tg.PEER, tg.OWRT, [], [{"prefix": "10.0.0.0/20", "within": "10.0.0.0/16"}])]


def test_a_default_route_or_a_single_address_carved_out_is_the_design(tg):
    """An exit peer with 0.0.0.0/0 (or the two /1 halves) and the others' prefixes inside; a /32 or /128 for one peer
    inside the tunnel subnet another peer carries: no finding."""
    for kept in ({tg.PEER: ["0.0.0.0/0", "::/0"], tg.OWRT: ["10.0.5.0/24", "fd00:5::/64"]},
                 {tg.PEER: ["0.0.0.0/1", "128.0.0.0/1"], tg.OWRT: ["10.0.5.0/24", "192.168.1.0/24"]},
                 {tg.PEER: ["10.77.0.0/24", "fd77::/64"], tg.OWRT: ["10.77.0.3/32", "fd77::3/128"]}):
        assert _found({"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept=kept)}) == []
    # the same prefixes in another family, or apart, are no overlap either
    assert _found({"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.0.0.0/16"], tg.OWRT: ["10.1.0.0/16", "::/0"]})}) == []


def test_a_single_address_that_is_the_wider_entrys_own_other_end_is_a_finding(tg):
    """hub's entry for peer carries the tunnel subnet; OWRT's entry takes 10.77.0.2/32, peer's own tunnel address."""
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.77.0.0/24"], tg.OWRT: ["10.77.0.2/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"])}
    evidence = _one(views, "hub")
    assert (evidence["other_host"], evidence["lost_addresses"], evidence["contained"]) == (
        "peer", ["10.77.0.2/24"], [{"prefix": "10.77.0.2/32", "within": "10.77.0.0/24"}])
    # peer's address elsewhere: the /32 is someone else's, carved out on purpose
    views["peer"] = tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.9/24"])
    assert allowed_ips_overlap("hub", views["hub"], build_views(views)) == []


def build_views(views):
    """A new dict: the graph is cached per ``views`` object."""
    return dict(views)


def test_openwrt_names_the_uci_options_and_skips_a_disabled_peer(tg):
    kept = {tg.HUB: ["10.77.0.0/24"], tg.PEER: ["10.77.0.0/24"], SITE: ["10.77.0.0/24"]}
    views = {"owrt": tg.owrt(tg.OWRT, [tg.HUB, tg.PEER, SITE], kept=kept,
                             allowed={tg.HUB: ["10.77.0.0/24"]}, sections={tg.HUB: "hub", tg.PEER: "peer"}, disabled=(SITE,))}
    evidence = _one(views, "owrt")
    assert (evidence["peer_public_key"], evidence["holder_public_key"], evidence["identical"]) == (
        tg.PEER, tg.HUB, [{"prefix": "10.77.0.0/24", "decided_by": "live"}])
    assert (evidence["change"], evidence["holder_change"]) == ("network.peer.allowed_ips", "network.hub.allowed_ips")


def test_a_live_only_entry_counts_with_what_the_kernel_holds(tg):
    """A peer added with wg set (no file keeps it) holding 10.0.5.0/24 inside the file entry's 10.0.0.0/16."""
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], kept={tg.PEER: ["10.0.0.0/16"]})}
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append(
        {"public_key": SITE, "allowed_ips": ["10.0.5.0/24"], "endpoint_host": None, "endpoint_port": None})
    evidence = _one(views, "hub")
    assert (evidence["holder_public_key"], evidence["holder_owner"], evidence["holder_change"]) == (
        SITE, "live only", "its live entry (wg set ... allowed-ips; no file keeps it)")


def test_the_entry_for_the_interfaces_own_key_is_skipped(tg):
    """The kernel skips a peer whose key is the device's own: it takes nothing."""
    assert _found({"hub": tg.linux(tg.HUB, [tg.HUB, tg.PEER], kept={tg.HUB: ["10.0.0.0/8"], tg.PEER: ["10.0.0.0/8"]})}) == []


def test_coverage(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], kept={tg.PEER: ["10.0.0.0/8"]}), "none": {"tunnelfix": {"wireguard": {}}},
             "old": tg.linux(tg.HUB, [tg.PEER])}
    for peer in views["old"]["tunnelfix"]["wireguard"]["configs"][0]["peers"]:
        del peer["allowed_ips"]      # facts gathered before the listing printed AllowedIPs
    assert allowed_ips_coverage("hub", views["hub"], views) is None
    assert allowed_ips_coverage("none", views["none"], views) == ("clear", "does not apply: no WireGuard interface")
    assert allowed_ips_coverage("old", views["old"], views)[0] == "not_checked"
    views = dict(views, old=tg.linux(tg.HUB, [tg.PEER, SITE]))
    del views["old"]["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["allowed_ips"]
    assert allowed_ips_coverage("old", views["old"], views) == ("clear", "judged without 1 entry whose AllowedIPs as kept are not known")


def test_the_registry_finds_it_on_the_interfaces_host(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.0.0.0/16"], tg.OWRT: ["10.0.5.0/24"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], kept={tg.HUB: ["10.77.0.0/24"]})}
    found = [f for f in find_findings(views) if f["id"] == "allowed_ips_overlap"]
    assert [(f["host"], f["severity"]) for f in found] == [("hub", "medium")]
    assert BY_ID["allowed_ips_overlap"].subject(found[0]["evidence"]) == "wg0 %s>%s" % (tg.PEER, tg.OWRT)
    checks = diagnosis(views)["checks"]
    assert (checks["hub"]["allowed_ips_overlap"]["status"], checks["peer"]["allowed_ips_overlap"]["status"]) == ("found", "clear")


def test_a_hub_with_many_peers_is_judged_in_linear_time(tg):
    """2,000 /32 peers under one entry's /16 (carved out on purpose: no finding) and two sharing a /24: a sort, not pairs."""
    keys = ["%043d=" % number for number in range(2000)]
    kept = {key: ["10.1.%d.%d/32" % divmod(number + 1, 256)] for number, key in enumerate(keys)}
    kept.update({tg.PEER: ["10.1.0.0/16"], tg.OWRT: ["192.168.7.0/24"], SITE: ["192.168.7.0/24"]})
    views = {"hub": tg.linux(None, keys + [tg.PEER, tg.OWRT, SITE], kept=kept)}
    started = time.monotonic()
    found = _found(views)
    assert found == [(tg.OWRT, SITE, [{"prefix": "192.168.7.0/24", "decided_by": "order"}], [])]
    assert time.monotonic() - started < 5


X = "X" * 43 + "="


def _contained(views, host="hub"):
    return [(evidence["peer_public_key"], evidence["holder_public_key"], [(item["prefix"], item["within"]) for item in evidence["contained"]])
            for evidence, _text in allowed_ips_overlap(host, views[host], views)]


def _kept(tg, kept, **more):
    return {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept=kept), **more}


@pytest.mark.parametrize("peer, owrt, expected", [
    # a /2 is no default route: the /24 inside it is lost
    (["0.0.0.0/2"], ["10.0.5.0/24"], [("10.0.5.0/24", "0.0.0.0/2")]),
    (["::/2"], ["fd00:5::/64"], []),                                  # fd00:: is not inside ::/2
    (["::/1"], ["::a00:0/120"], []),                                  # a /1 is a default route's half
    (["::/2"], ["::a00:0/120"], [("::10.0.0.0/120", "::/2")]),
    # a single address is an IPv4 /32 or an IPv6 /128: an IPv6 /32 or an IPv4 /31 is a subnet carved out
    (["fd00::/16"], ["fd00:1::/32"], [("fd00:1::/32", "fd00::/16")]),
    (["10.0.0.0/24"], ["10.0.0.2/31"], [("10.0.0.2/31", "10.0.0.0/24")]),
    (["fd00::/16"], ["fd00::2/127"], [("fd00::2/127", "fd00::/16")]),
    (["10.0.0.0/24"], ["10.0.0.2/32"], []),
    # prefixes of another family are apart, even where their numbers fall inside the wider one's
    (["10.0.0.0/8"], ["::a00:0/120"], []),
    (["::/96"], ["10.0.0.0/8"], []),
    # one start, two lengths: the longer is inside the shorter
    (["10.0.0.0/8"], ["10.0.0.0/16"], [("10.0.0.0/16", "10.0.0.0/8")]),
    # apart, right after the wider one's last address
    (["10.0.0.0/24"], ["10.0.1.0/24"], []),
    # the wider one's last address, carved out: still inside it
    (["10.0.0.0/24"], ["10.0.0.128/25"], [("10.0.0.128/25", "10.0.0.0/24")]),
])
def test_which_prefix_inside_another_entrys_is_a_finding(tg, peer, owrt, expected):
    found = _contained(_kept(tg, {tg.PEER: peer, tg.OWRT: owrt}))
    assert found == ([(tg.PEER, tg.OWRT, expected)] if expected else [])


def test_a_wider_prefix_after_an_inner_one_of_another_entry_is_still_seen(tg):
    # PEER's /16 holds OWRT's /24; after the /24 (popped off), OWRT's second /24 is inside PEER's /16 again
    found = _contained(_kept(tg, {tg.PEER: ["10.0.0.0/16"], tg.OWRT: ["10.0.5.0/24", "10.0.9.0/24", "10.1.0.0/24"]}))
    assert found == [(tg.PEER, tg.OWRT, [("10.0.5.0/24", "10.0.0.0/16"), ("10.0.9.0/24", "10.0.0.0/16")])]


def test_an_entrys_own_nested_prefixes_lose_nothing(tg):
    assert _contained(_kept(tg, {tg.PEER: ["10.0.0.0/16", "10.0.5.0/24", "10.0.5.0/24"], tg.OWRT: ["192.168.0.0/24"]})) == []


def test_the_other_ends_own_address_inside_a_default_route_is_a_finding_with_its_whole_text(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["0.0.0.0/0"], tg.OWRT: ["10.77.0.2/32", "10.77.0.3/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["fe80::2/64", "garbage", "10.77.0.2/24", "10.77.0.3"])}
    (evidence, text), = allowed_ips_overlap("hub", views["hub"], views)
    assert evidence == {
        "interface": "wg0", "peer_public_key": tg.PEER, "holder_public_key": tg.OWRT, "identical": [],
        "contained": [{"prefix": "10.77.0.2/32", "within": "0.0.0.0/0"}, {"prefix": "10.77.0.3/32", "within": "0.0.0.0/0"}],
        "other_host": "peer", "lost_addresses": ["10.77.0.2/24", "10.77.0.3"], "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf",
        "change": "AllowedIPs of the [Peer] with PublicKey = %s in /etc/wireguard/wg0.conf" % tg.PEER, "holder_owner": "wg-quick",
        "holder_owner_path": "/etc/wireguard/wg0.conf",
        "holder_change": "AllowedIPs of the [Peer] with PublicKey = %s in /etc/wireguard/wg0.conf" % tg.OWRT}
    assert " ".join(text.split()) == (
        "hub's wg0 sends 10.77.0.2/32 (inside 0.0.0.0/0), 10.77.0.3/32 (inside 0.0.0.0/0) to {o}, although {p} (peer's wg0) lists the "
        "wider prefix: WireGuard sends a packet to the peer with the longest matching prefix, so peer's wg0 loses them to {o}. "
        "10.77.0.2, 10.77.0.3 is the tunnel address of peer's wg0 itself: what hub sends to it goes to {o} instead. Remove it from the "
        "entry for {o} (AllowedIPs of the [Peer] with PublicKey = {o} in /etc/wireguard/wg0.conf). No role changes AllowedIPs: a wrong "
        "guess moves traffic to another peer.".format(o=tg.OWRT, p=tg.PEER))


def test_the_other_ends_address_at_the_last_of_the_wider_prefix(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.77.0.0/24"], tg.OWRT: ["10.77.0.255/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.255/24"])}
    assert _contained(views) == [(tg.PEER, tg.OWRT, [("10.77.0.255/32", "10.77.0.0/24")])]


def test_a_link_local_address_of_the_other_end_is_no_tunnel_address(tg):
    for prefix, address, single in (("fe80::/64", "fe80::2/64", "fe80::2/128"), ("169.254.0.0/16", "169.254.0.2/16", "169.254.0.2/32")):
        views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: [prefix], tg.OWRT: [single]}),
                 "peer": tg.linux(tg.PEER, [tg.HUB], addresses=[address])}
        assert _contained(views) == []


def test_an_address_of_another_family_at_the_same_number_is_not_inside(tg):
    # ::a4d:2 is 10.77.0.2 as a number: not the IPv4 address, not inside 10.77.0.0/24
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.77.0.0/24"], tg.OWRT: ["10.77.0.2/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["::a4d:2/64"])}
    assert _contained(views) == []


def test_a_key_on_two_machines_has_no_known_tunnel_address(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.77.0.0/24"], tg.OWRT: ["10.77.0.2/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"]),
             "clone": tg.linux(tg.PEER, [tg.HUB], listen_port=51821, addresses=["10.77.0.2/24"])}
    assert _contained(views) == []


def test_who_holds_a_prefix_two_entries_list(tg):
    # both live with it (the facts say so): then the order decides, and an entry added live comes after the file's
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], kept={tg.PEER: ["10.9.0.0/16", "10.8.0.0/16"]}, allowed={tg.PEER: ["10.9.0.0/16"]})}
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append(
        {"public_key": X, "allowed_ips": ["10.9.0.0/16", "10.8.0.0/16"], "endpoint_host": None, "endpoint_port": None})
    (evidence, text), = allowed_ips_overlap("hub", views["hub"], views)
    assert (evidence["peer_public_key"], evidence["holder_public_key"], evidence["identical"]) == (
        tg.PEER, X, [{"prefix": "10.8.0.0/16", "decided_by": "live"}, {"prefix": "10.9.0.0/16", "decided_by": "order"}])
    assert " ".join(text.split()) == (
        "hub's wg0 lists 10.8.0.0/16, 10.9.0.0/16 for two peers, {p} and {x}. WireGuard gives a prefix to one peer of an interface only, "
        "the one set last: {x} (it was added live (wg set) after the interface's own entries), so {p} gets none of them (wg show lists "
        "them under {x} only). Keep them in the one entry meant to carry them: remove them from the entry for {p} (AllowedIPs of the "
        "[Peer] with PublicKey = {p} in /etc/wireguard/wg0.conf) or from the one for {x} (its live entry (wg set ... allowed-ips; no "
        "file keeps it)). No role changes AllowedIPs: a wrong guess moves traffic to another peer.".format(p=tg.PEER, x=X))


def test_two_live_only_entries_the_first_by_key_holds_it(tg):
    views = {"hub": tg.linux(tg.HUB, [])}
    for key in (X, "A" * 43 + "="):
        views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append(
            {"public_key": key, "allowed_ips": ["10.9.0.0/16"], "endpoint_host": None, "endpoint_port": None})
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append(
        {"public_key": "B" * 43 + "=", "allowed_ips": ["10.8.0.0/16"], "endpoint_host": None, "endpoint_port": None})
    assert _found(views) == [(X, "A" * 43 + "=", [{"prefix": "10.9.0.0/16", "decided_by": "order"}], [])]


def test_the_whole_text_for_a_netdev_the_first_section_holds(tg):
    netdev = {"path": "/etc/systemd/network/30-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True, "addresses": None,
              "peers": [{"public_key": X, "endpoint": None, "allowed_ips": ["10.9.0.0/16", "10.8.0.0/16"]},
                        {"public_key": tg.PEER, "endpoint": None, "allowed_ips": ["10.9.0.0/16", "10.8.0.0/16"]}]}
    views = {"hub": {"tunnelfix": {"wireguard": {"interfaces": {}, "configs": [netdev]}}}}
    (evidence, text), = allowed_ips_overlap("hub", views["hub"], views)
    where = "AllowedIPs of the [WireGuardPeer] with PublicKey = %s in /etc/systemd/network/30-wg0.netdev"
    assert (evidence["owner"], evidence["change"], evidence["holder_change"], evidence["other_host"], evidence["lost_addresses"]) == (
        "networkd", where % tg.PEER, where % X, None, [])
    assert " ".join(text.split()) == (
        "hub's wg0 lists 10.8.0.0/16, 10.9.0.0/16 for two peers, {p} and {x}. WireGuard gives a prefix to one peer of an interface only, "
        "the one set last: {x} (networkd sets a .netdev's first [WireGuardPeer] last (/etc/systemd/network/30-wg0.netdev)), so {p} gets "
        "none of them (wg show lists them under {x} only). Keep them in the one entry meant to carry them: remove them from the entry "
        "for {p} ({wp}) or from the one for {x} ({wx}). No role changes AllowedIPs: a wrong guess moves traffic to another "
        "peer.".format(p=tg.PEER, x=X, wp=where % tg.PEER, wx=where % X))


def test_pairs_in_the_order_of_their_entries(tg):
    # X holds the /16 it shares with PEER (later in the file), so OWRT's /24 inside it is lost by X, not by PEER
    kept = {tg.PEER: ["10.0.0.0/16"], tg.OWRT: ["10.0.5.0/24", "192.168.0.0/24"], X: ["192.168.0.0/24", "10.0.0.0/16"]}
    views = {"hub": tg.linux(None, [tg.PEER, tg.OWRT, X], kept=kept)}
    assert [(loser, holder) for loser, holder, _same, _inside in _found(views)] == [
        (tg.OWRT, X), (tg.PEER, X), (X, tg.OWRT)]


def test_link_local_and_span():
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.allowed_ips import link_local, span
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
    assert [link_local(ipnet.address(text)) for text in ("fe80::1", "febf::1", "fec0::1", "169.254.9.9", "169.255.0.1", "10.0.0.1")] == [
        True, True, False, True, False, False]
    assert span("10.0.0.7/8") == (4, 167772160, 184549375, 8, "10.0.0.0/8") and span("garbage") is None
    assert span("::/0") == (6, 0, (1 << 128) - 1, 0, "::/0")


def test_coverage_texts(tg):
    views = {"zz": {"tunnelfix": {"wireguard": "garbage"}}, "nofacts": {"tunnelfix": {}}, "hub": tg.linux(tg.HUB, [tg.PEER, SITE, X])}
    assert allowed_ips_coverage("zz", views["zz"], views)[0] == "not_checked"
    assert allowed_ips_coverage("nofacts", views["nofacts"], views) == ("not_checked", "no WireGuard facts were read")
    for peer in views["hub"]["tunnelfix"]["wireguard"]["configs"][0]["peers"][:2]:
        del peer["allowed_ips"]
    views = dict(views)
    assert allowed_ips_coverage("hub", views["hub"], views) == ("clear", "judged without 2 entries whose AllowedIPs as kept are not known")
    del views["hub"]["tunnelfix"]["wireguard"]["configs"][0]["peers"][2]["allowed_ips"]
    views = dict(views)
    assert allowed_ips_coverage("hub", views["hub"], views) == (
        "not_checked", "the entries' AllowedIPs as kept are not known (several files name the interface, or facts gathered before "
                       "AllowedIPs were read)")
    # a disabled uci peer is not judged, so its AllowedIPs do not count
    views = {"owrt": tg.owrt(tg.OWRT, [tg.HUB, tg.PEER], kept={tg.HUB: ["10.0.0.0/8"]}, disabled=(tg.PEER,))}
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][1]["allowed_ips"] = None
    assert allowed_ips_coverage("owrt", views["owrt"], views) is None


def test_coverage_of_an_unreadable_host_an_openwrt_without_interfaces_and_one_without_peers(tg):
    views = {"zz": {"tunnelfix": {"wireguard": "garbage"}}, "o": {"openwrt": {"wireguard": {"interfaces": {}}}},
             "lonely": tg.linux(tg.HUB, [])}
    assert allowed_ips_coverage("zz", views["zz"], views) == (
        "not_checked", "its WireGuard facts have an unexpected shape (TypeError: wireguard is str, not a mapping)")
    assert allowed_ips_coverage("o", views["o"], views) == ("clear", "does not apply: no WireGuard interface")
    assert allowed_ips_coverage("lonely", views["lonely"], views) is None       # an interface without entries: nothing unknown


def test_a_prefix_written_twice_in_one_entry_is_lost_once(tg):
    views = {"hub": tg.linux(None, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.0.5.0/24", "10.0.5.7/24"], tg.OWRT: ["10.0.5.0/24"]})}
    assert _found(views) == [(tg.PEER, tg.OWRT, [{"prefix": "10.0.5.0/24", "decided_by": "order"}], [])]


def test_the_other_ends_address_inside_a_subnet_carved_out_and_a_holder_in_the_run(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["10.77.0.0/16"], tg.OWRT: ["10.77.0.0/24"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24", "10.77.9.2/24", "10.78.0.2/24"]), "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    (evidence, text), = allowed_ips_overlap("hub", views["hub"], views)
    assert (evidence["contained"], evidence["other_host"], evidence["lost_addresses"]) == (
        [{"prefix": "10.77.0.0/24", "within": "10.77.0.0/16"}], "peer", ["10.77.0.2/24"])
    assert " ".join(text.split()).startswith(
        "hub's wg0 sends 10.77.0.0/24 (inside 10.77.0.0/16) to {o} (owrt's wg0), although {p} (peer's wg0) lists the wider prefix: "
        "WireGuard sends a packet to the peer with the longest matching prefix, so peer's wg0 loses it to owrt's wg0. 10.77.0.2 is the "
        "tunnel address of peer's wg0 itself: what hub sends to it goes to owrt's wg0 instead.".format(o=tg.OWRT, p=tg.PEER))
