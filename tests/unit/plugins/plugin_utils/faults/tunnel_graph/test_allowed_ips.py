# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""allowed_ips_overlap: two entries of one interface claim the same addresses, and one of them loses them (fake keys)."""

import time

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
