# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""keepalive_on_wrong_side: the end that cannot start the tunnel sends the keepalive, the end that starts it none."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keepalive import wrong_side


def _pair(tg, peer_keepalive=None, hub_keepalive=25, hub_endpoint=False, peer_endpoint=True, owrt=False):
    """A hub that keeps no endpoint for its peer (``hub_endpoint``: it does) and a peer (Linux, or OpenWrt with ``owrt``)
    that keeps the hub's (``peer_endpoint``)."""
    key = tg.OWRT if owrt else tg.PEER
    hub = tg.linux(tg.HUB, [key], endpoints={key: "198.51.100.9:51820"} if hub_endpoint else None,
                   learned=None if hub_endpoint else {key: "198.51.100.9:41862"}, ages={key: 20},
                   keepalive={key: hub_keepalive} if hub_keepalive is not None else None)
    endpoints = {tg.HUB: "203.0.113.10:51820"} if peer_endpoint else None
    keepalive = {tg.HUB: peer_keepalive} if peer_keepalive is not None else None
    peer = (tg.owrt(tg.OWRT, [tg.HUB], endpoints=endpoints, keepalive=keepalive) if owrt else
            tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints=endpoints, ages={tg.HUB: 20}, keepalive=keepalive))
    return {"hub": hub, "owrt" if owrt else "peer": peer}


def test_the_keepalive_on_the_hub_alone_is_found_on_the_peer(tg):
    views = _pair(tg)
    (evidence, text), = wrong_side("peer", views["peer"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": tg.HUB, "endpoint_host": "203.0.113.10",
                        "persistent_keepalive_s": None, "other_host": "hub", "other_interface": "wg0",
                        "other_persistent_keepalive_s": 25, "handshake_age_s": 20, "owner": "wg-quick",
                        "owner_path": "/etc/wireguard/wg0.conf"}
    text = " ".join(text.split())
    assert "Only peer can start this tunnel" in text
    assert "PersistentKeepalive = 25 in the [Peer] for %s in /etc/wireguard/wg0.conf" % tg.HUB in text
    assert wrong_side("hub", views["hub"], views) == []
    assert [(f["host"], f["id"]) for f in find_findings(views) if f["id"] == "keepalive_on_wrong_side"] == [
        ("peer", "keepalive_on_wrong_side")]


def test_an_openwrt_peer_gets_the_uci_line(tg):
    views = _pair(tg, owrt=True)
    (evidence, text), = wrong_side("owrt", views["owrt"], views)
    assert (evidence["owner"], evidence["other_persistent_keepalive_s"]) == ("uci", 25)
    assert "uci set network.<the wireguard_wg0 peer with public_key %s>.persistent_keepalive='25'" % tg.HUB in " ".join(text.split())


@pytest.mark.parametrize("case, changes", [
    ("the peer sends one too", {"peer_keepalive": 25}),
    ("nobody sends one (fault 4's case, judged by its idle ping)", {"hub_keepalive": None}),
    ("the hub's keepalive is off (0)", {"hub_keepalive": 0}),
    ("both keep an endpoint: either can start it", {"hub_endpoint": True}),
    ("neither keeps one: no_endpoint_either_side's case", {"peer_endpoint": False}),
])
def test_no_finding(tg, case, changes):
    views = _pair(tg, **changes)
    assert [wrong_side(host, views[host], views) for host in views] == [[], []], case


def test_an_entry_only_in_the_file_is_not_judged(tg):
    # the peer's file lists the hub, the kernel does not have the entry: what runs sends nothing
    views = _pair(tg)
    views["peer"] = tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, paper=(tg.HUB,))
    assert wrong_side("peer", views["peer"], views) == []


def test_a_live_only_entry_gets_wg_set(tg):
    # added with wg set (no file lists it): the kernel's endpoint is the only one there is
    views = _pair(tg)
    views["peer"]["tunnelfix"]["wireguard"]["configs"] = []
    (evidence, text), = wrong_side("peer", views["peer"], views)
    assert (evidence["owner"], evidence["owner_path"]) == ("live only", None)
    assert ("wg set wg0 peer %s persistent-keepalive 25, and the same in whatever adds this entry (live only)" % tg.HUB
            in " ".join(text.split()))


def test_a_networkd_entry_gets_the_wireguardpeer_line(tg):
    views = _pair(tg)
    config = views["peer"]["tunnelfix"]["wireguard"]["configs"][0]
    config.update(kind="netdev", path="/etc/systemd/network/wg0.netdev")
    (evidence, text), = wrong_side("peer", views["peer"], views)
    assert evidence["owner"] == "networkd"
    assert "PersistentKeepalive=25 in the [WireGuardPeer] for %s in /etc/systemd/network/wg0.netdev" % tg.HUB in " ".join(text.split())


def _fleet(tg, hub_keepalive=21):
    return {"hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:1024"}, ages={tg.PEER: 20}, keepalive={tg.PEER: hub_keepalive}),
            "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, ages={tg.HUB: 20})}


_START = ("peer's wg0 keeps an endpoint for hub's wg0 (203.0.113.10) and sends no PersistentKeepalive, while hub's wg0 keeps no "
          "endpoint for it and sends one every 21 s. Only peer can start this tunnel: hub knows its address only from its last "
          "packet, and a NAT in front of peer keeps the mapping open for outbound packets, not for hub's keepalives, which the NAT "
          "drops once the mapping has expired. Put the keepalive on this side: ")
_END = " hub's keepalive is harmless and may stay."


@pytest.mark.parametrize("owner, line", [
    ("networkd", "PersistentKeepalive=25 in the [WireGuardPeer] for %s in /etc/systemd/network/wg0.netdev (remediate applies it "
                 "with wireguard_keepalive on this entry only: wireguard_keepalive_interfaces=[wg0], "
                 "wireguard_keepalive_public_keys=[%s])."),
    ("live only", "wg set wg0 peer %s persistent-keepalive 25, and the same in whatever adds this entry (live only) (no role: "
                  "no configuration keeps this entry, so wireguard_keepalive has nothing to write)."),
])
def test_the_whole_text_for_a_networkd_and_a_live_only_entry(tg, owner, line):
    views = _fleet(tg)
    if owner == "networkd":
        views["peer"]["tunnelfix"]["wireguard"]["configs"][0].update(kind="netdev", path="/etc/systemd/network/wg0.netdev")
    else:
        views["peer"]["tunnelfix"]["wireguard"]["configs"] = []
    (evidence, text), = wrong_side("peer", views["peer"], views)
    assert (evidence["owner"], evidence["other_persistent_keepalive_s"], evidence["persistent_keepalive_s"]) == (owner, 21, None)
    assert " ".join(text.split()) == _START + line.replace("%s", tg.HUB) + _END


@pytest.mark.parametrize("value, seconds", [(25, 25), (1, 1), (0, 0), (-5, 0), (None, 0), (True, 0), ("25", 0), (25.0, 0)])
def test_only_a_positive_whole_number_of_seconds_is_a_keepalive(tg, value, seconds):
    # the hub's keepalive as the facts carry it: 1 s is one, a flag or text is none (the rule then does not judge)
    views = _fleet(tg, hub_keepalive=value)
    found = wrong_side("peer", views["peer"], views)
    assert [evidence["other_persistent_keepalive_s"] for evidence, _text in found] == ([seconds] if seconds else [])


def test_a_keepalive_on_the_starting_end_of_1_s_is_one(tg):
    views = _pair(tg, peer_keepalive=1)
    assert wrong_side("peer", views["peer"], views) == []
    views = _pair(tg, peer_keepalive=True)       # not a number of seconds: none sent here, so the finding stands
    assert len(wrong_side("peer", views["peer"], views)) == 1


def test_a_keepalive_only_kept_in_uci_is_not_sent(tg):
    # owrt's uci peer for the hub is not in the kernel (added without a reload): its keepalive is not sent
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], endpoints={tg.OWRT: "198.51.100.7:51820"}, ages={tg.OWRT: 20}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    peer = views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]
    peer.update(live=None, persistent_keepalive_s=25)
    assert [wrong_side(host, views[host], views) for host in views] == [[], []]
    peer.update(live={"endpoint_host": None, "endpoint_port": None, "allowed_ips": [], "persistent_keepalive_s": 25})
    views = dict(views)      # the graph is cached per views object
    assert [len(wrong_side(host, views[host], views)) for host in views] == [1, 0]


def test_every_entry_is_judged_after_ones_that_are_not(tg):
    # the peer's entries, in its file's order: one only in the file, one both ends keep an endpoint for, one whose
    # other end sends no keepalive, and the hub's (found)
    k1, k2, k3 = "1" * 43 + "=", "2" * 43 + "=", "3" * 43 + "="
    ep = {k1: "198.51.100.1:51820", k2: "198.51.100.2:51820", k3: "198.51.100.3:51820", tg.HUB: "203.0.113.10:51820"}
    views = {"peer": tg.linux(tg.PEER, [k1, k2, k3, tg.HUB], listen_port=41000, endpoints=ep, paper=(k1,)),
             "one": tg.linux(k1, [tg.PEER], keepalive={tg.PEER: 25}),
             "two": tg.linux(k2, [tg.PEER], endpoints={tg.PEER: "192.0.2.9:41000"}, keepalive={tg.PEER: 25}),
             "three": tg.linux(k3, [tg.PEER]),
             "hub": tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "192.0.2.9:41000"}, keepalive={tg.PEER: 25})}
    assert [evidence["peer_public_key"] for evidence, _text in wrong_side("peer", views["peer"], views)] == [tg.HUB]
