# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""return_path_not_allowed: the other end's AllowedIPs for a host leave out that host's tunnel address (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.return_path import missing_sources, return_path, return_path_coverage


BOTH = ["10.77.0.0/24", "fd77::/64"]


@pytest.mark.parametrize("addresses, allowed, back, judged, missing", [
    (["10.77.0.2/24"], ["10.77.0.2/32"], BOTH, ["10.77.0.2/24"], []),
    (["10.77.0.2/24"], ["10.77.0.0/24", "192.168.20.0/24"], BOTH, ["10.77.0.2/24"], []),
    (["10.77.0.2/24"], ["10.77.0.3/32"], BOTH, ["10.77.0.2/24"], ["10.77.0.2/24"]),
    (["10.77.0.2/24", "fd77::2/64"], ["10.77.0.0/24"], BOTH, ["10.77.0.2/24", "fd77::2/64"], ["fd77::2/64"]),
    (["10.77.0.2/24", "fd77::2/64"], ["0.0.0.0/0", "::/0"], BOTH, ["10.77.0.2/24", "fd77::2/64"], []),
    (["10.77.0.2/24"], [], BOTH, ["10.77.0.2/24"], ["10.77.0.2/24"]),            # the entry lost its prefixes: (none)
    (["fe80::2/64", "169.254.7.1/16"], [], BOTH, [], []),        # link-local: never a source to allow
    (["10.77.0.2/24"], ["::/0"], BOTH, ["10.77.0.2/24"], ["10.77.0.2/24"]),      # the other family holds no IPv4 address
    (["not-an-address"], [], BOTH, [], []),
    (None, [], BOTH, [], []),
    # the entry back routes only IPv4 to this host: the other end sends it no IPv6 (a dual-stack hub, a v4-only spoke)
    (["10.77.0.1/24", "fd77::1/64"], ["10.77.0.0/24"], ["10.77.0.2/32"], ["10.77.0.1/24"], []),
    (["10.77.0.1/24", "fd77::1/64"], ["10.77.0.0/24"], [], [], []),     # the entry back routes nothing
    # two point-to-point /30s on one interface: toward 10.0.0.2 it sends from 10.0.0.1 (the connected route's)
    (["10.0.0.1/30", "10.0.0.5/30"], ["10.0.0.0/30"], ["10.0.0.2/32", "192.168.2.0/24"], ["10.0.0.1/30"], []),
    (["10.0.0.1/30", "10.0.0.5/30"], ["10.0.0.4/30"], ["10.0.0.2/32"], ["10.0.0.1/30"], ["10.0.0.1/30"]),
    # no address shares a subnet with the entry back: it sends from one of them, dropped only when none is allowed
    (["10.1.0.1/24", "10.2.0.1/24"], ["10.1.0.0/24"], ["192.168.9.0/24"], ["10.1.0.1/24", "10.2.0.1/24"], []),
    (["10.1.0.1/24", "10.2.0.1/24"], ["10.3.0.0/24"], ["192.168.9.0/24"], ["10.1.0.1/24", "10.2.0.1/24"],
     ["10.1.0.1/24", "10.2.0.1/24"]),    # a prefix length no kernel takes: judged as the address alone
    (["10.77.0.2/33"], ["10.77.0.0/24"], BOTH, ["10.77.0.2/33"], []),
    (["10.77.0.2/33"], ["10.78.0.0/24"], BOTH, ["10.77.0.2/33"], ["10.77.0.2/33"]),
    (["10.77.0.2/24/8"], ["10.78.0.0/24"], BOTH, ["10.77.0.2/24/8"], ["10.77.0.2/24/8"]),   # the address is what precedes the first "/"
])
def test_missing_sources(addresses, allowed, back, judged, missing):
    assert missing_sources(addresses, allowed, back) == (judged, missing)


def test_an_entry_that_does_not_allow_the_other_ends_address_is_found_on_its_host(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"], allowed={tg.PEER: ["10.77.0.3/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"])}
    (evidence, text), = return_path("hub", views["hub"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": tg.PEER, "allowed_ips": ["10.77.0.3/32"], "other_host": "peer",
                        "other_interface": "wg0", "other_addresses": ["10.77.0.2/24"], "judged": ["10.77.0.2/24"],
                        "missing": ["10.77.0.2/24"],
                        "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf"}
    assert "Add 10.77.0.2/32 to that entry's AllowedIPs (/etc/wireguard/wg0.conf)" in " ".join(text.split())
    assert return_path("peer", views["peer"], views) == []   # the peer's entry for the hub allows 10.77.0.0/24
    assert [(f["host"], f["id"]) for f in find_findings(views) if f["id"] == "return_path_not_allowed"] == [
        ("hub", "return_path_not_allowed")]


def test_a_router_whose_uci_addresses_the_hub_does_not_allow(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], allowed={tg.OWRT: ["10.77.0.0/24"]}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24", "fd77::3/64"],
                             allowed={tg.HUB: ["10.77.0.0/24", "fd77::/64"]})}
    (evidence, text), = return_path("hub", views["hub"], views)
    assert evidence["missing"] == ["fd77::3/64"]
    # only what it sends from fd77::3 is dropped: no "nothing else passes"
    assert "hub drops what owrt sends from fd77::3/64; what it sends from 10.77.0.3/24 still passes" in " ".join(text.split())


def test_a_family_the_other_end_does_not_route_here_is_not_judged(tg):
    # breaker s1: a dual-stack hub whose entry for a v4-only spoke has no IPv6 prefix sends it no IPv6
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24", "fd77::1/64"], allowed={tg.PEER: ["10.77.0.2/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"], allowed={tg.HUB: ["10.77.0.0/24"]})}
    assert return_path("peer", views["peer"], views) == []
    assert return_path("hub", views["hub"], views) == []


def test_two_point_to_point_links_on_one_interface(tg):
    # breaker s1c: a router with 10.0.0.1/30 toward x and 10.0.0.5/30 toward y on one wg0
    views = {"r": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], addresses=["10.0.0.1/30", "10.0.0.5/30"],
                           allowed={tg.PEER: ["10.0.0.2/32", "192.168.2.0/24"], tg.OWRT: ["10.0.0.6/32", "192.168.3.0/24"]}),
             "x": tg.linux(tg.PEER, [tg.HUB], addresses=["10.0.0.2/30"], allowed={tg.HUB: ["10.0.0.0/30", "192.168.1.0/24"]}),
             "y": tg.linux(tg.OWRT, [tg.HUB], addresses=["10.0.0.6/30"], allowed={tg.HUB: ["10.0.0.4/30", "192.168.1.0/24"]})}
    assert [return_path(host, views[host], views) for host in views] == [[], [], []]


def test_addresses_not_read_or_entries_not_running_are_not_judged(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], allowed={tg.PEER: []}), "peer": tg.linux(tg.PEER, [tg.HUB], addresses=None)}
    assert return_path("hub", views["hub"], views) == []    # the peer's addresses are not known (a .netdev, wg set)
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(None, [tg.HUB], addresses=["10.9.9.9/32"])}
    assert return_path("owrt", views["owrt"], views) == []  # not running: its AllowedIPs are not the kernel's


def test_what_return_path_could_not_judge_is_not_called_clear(tg):
    # breaker s9: an all-networkd fleet: no tunnel address is read, so nothing was judged
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], allowed={tg.PEER: ["10.77.0.99/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=None),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24"], allowed={tg.HUB: ["10.77.0.0/24"]})}
    assert return_path_coverage("peer", views["peer"], views)[0] == "not_checked"      # the hub's addresses are not read
    assert return_path_coverage("hub", views["hub"], views) == ("clear", "judged without 1 entry whose other end's tunnel "
                                                                "addresses or entry back are not known")
    views = dict(views, peer=tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"]))   # a new dict: graph_of caches by identity
    assert return_path_coverage("hub", views["hub"], views) is None
    status = diagnosis({"peer": views["peer"], "hub": tg.linux(tg.HUB, [tg.PEER])})["checks"]["peer"]["return_path_not_allowed"]
    assert status["status"] == "not_checked"


def test_an_entry_not_judged_or_without_a_way_back_hides_no_finding_after_it(tg):
    # the hub's entries in key order: OLD (the other end lists no entry back), OWRT (only in the hub's file, not running),
    # PEER (found)
    router = tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24"], allowed={tg.HUB: ["10.77.0.0/24"]})
    views = {"hub": tg.linux(tg.HUB, [tg.OLD, tg.OWRT, tg.PEER], addresses=["10.77.0.1/24"], allowed={tg.PEER: ["10.77.0.9/32"]},
                             paper=[tg.OWRT]),
             "a": tg.linux(tg.OLD, [], addresses=["10.77.0.5/24"]), "owrt": router,
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"])}
    assert [evidence["peer_public_key"] for evidence, _text in return_path("hub", views["hub"], views)] == [tg.PEER]


def test_a_router_entry_only_in_uci_is_not_judged(tg):
    # its AllowedIPs are uci's, not the kernel's: the kernel drops nothing for an entry it does not have
    router = tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24"])
    router["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["live"] = None
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], addresses=["10.77.0.1/24"]), "owrt": router}
    assert return_path("owrt", views["owrt"], views) == []


def test_return_path_coverage_after_one_sided_coverage(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT, tg.OLD, "X" * 43 + "="]), "peer": tg.linux(tg.PEER, [tg.HUB], addresses=None),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24"]), "a": tg.linux(tg.OLD, [tg.HUB]),
             "down": tg.owrt(None, [tg.HUB])}
    # one entry's other end is outside the run (one_sided_coverage's "judged without"), two other ends' addresses are not
    # known: return_path's own count
    assert return_path_coverage("hub", views["hub"], views) == (
        "clear", "judged without 2 entries whose other end's tunnel addresses or entry back are not known")
    assert return_path_coverage("peer", views["peer"], views) == (
        "not_checked", "the other ends' tunnel addresses or entries back are not known (a .netdev's .network file is not read; "
        "several files for one interface; no entry back)")
    assert return_path_coverage("down", views["down"], views) == (
        "not_checked", "no interface of it runs (its own public key is read from the running interface)")
    assert return_path_coverage("none", {}, views) == ("not_checked", "no WireGuard facts were read")
