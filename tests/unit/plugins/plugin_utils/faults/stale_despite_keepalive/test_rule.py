# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""stale_despite_keepalive's rule and coverage (faults/stale_despite_keepalive/rule.py): the exact finding of a dead tunnel,
never or stale, with and without its hub's view, and whether the host could be judged at all.

The boundaries shared with fault 4 (180 s, keepalive 0 or None) are pinned in nat_peer_keepalive/test_rule.py."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.stale_despite_keepalive.rule import dead_coverage, dead_with_keepalive

HUB_KEY = "HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH="
PEER_KEY = "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE="
OTHER_KEY = "OTHROTHROTHROTHROTHROTHROTHROTHROTHROTHROTH="


def linux(peers, public_key=PEER_KEY, hub="hub"):
    return {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": hub,
            "tunnelfix": {"wireguard": {"interfaces": {"wg0": {"public_key": public_key, "peers": peers}}}}}


def hub_view(endpoint="198.51.100.9:51820"):
    return linux([{"public_key": PEER_KEY, "endpoint": endpoint, "handshake_age_s": 400}], public_key=HUB_KEY, hub=None)


def text_of(finding):
    return " ".join(finding[1].split())


def test_a_stale_tunnel_to_the_hub_with_the_hubs_view():
    peer = linux([{"public_key": HUB_KEY, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 25, "handshake_age_s": 181,
                   "rx_bytes": 92, "tx_bytes": 2960}])
    [finding] = dead_with_keepalive("peer", peer, {"peer": peer, "hub": hub_view()})
    assert finding[0] == {"interface": "wg0", "peer_public_key": HUB_KEY, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 25,
                          "handshake_age_s": 181, "handshake": "stale", "rx_bytes": 92, "tx_bytes": 2960, "hub": "hub",
                          "hub_sees_endpoint": ["198.51.100.9:51820"]}
    assert text_of(finding) == (
        "The tunnel on wg0 to peer %s (endpoint 203.0.113.1:51820) is dead: PersistentKeepalive is 25 s, yet the newest handshake "
        "is 181 s old (over 180 s: no usable session). Keepalives are sent and not answered: check that the endpoint's address and "
        "UDP port are right and reachable from here, that the other end has this host's public key and allows its address, that "
        "no firewall drops the UDP port, and that the NAT's UDP timeout is longer than the keepalive interval." % HUB_KEY)


def test_a_peer_entry_that_is_not_the_hubs_has_no_hub_view():
    """Another peer of this host (not its hub): the hub's facts in the run say nothing about it."""
    peer = linux([{"public_key": OTHER_KEY, "persistent_keepalive_s": 25, "handshake_age_s": None}])
    [finding] = dead_with_keepalive("peer", peer, {"peer": peer, "hub": hub_view()})
    assert (finding[0]["hub"], finding[0]["hub_sees_endpoint"], finding[0]["endpoint"], finding[0]["handshake"]) == (None, None, None, "never")
    assert "(endpoint none) is dead: PersistentKeepalive is 25 s, yet no handshake ever completed." in text_of(finding)


@pytest.mark.parametrize("views", [{}, {"hub": {}}])
def test_the_hub_named_but_not_read_gives_no_hub_view(views):
    peer = linux([{"public_key": HUB_KEY, "persistent_keepalive_s": 25, "handshake_age_s": 500}])
    [finding] = dead_with_keepalive("peer", peer, dict(views, peer=peer))
    assert (finding[0]["hub"], finding[0]["hub_sees_endpoint"]) == (None, None)


def test_the_hub_that_has_no_entry_for_this_host():
    peer = linux([{"public_key": HUB_KEY, "persistent_keepalive_s": 25, "handshake_age_s": 500}])
    hub = linux([{"public_key": OTHER_KEY, "endpoint": "192.0.2.1:1"}], public_key=HUB_KEY, hub=None)
    [finding] = dead_with_keepalive("peer", peer, {"peer": peer, "hub": hub})
    assert (finding[0]["hub"], finding[0]["hub_sees_endpoint"]) == ("hub", None)


def test_every_interface_in_name_order_and_each_dead_entry():
    view = {"tunnelfix": {"wireguard": {"interfaces": {
        "wg1": {"public_key": PEER_KEY, "peers": [
            {"public_key": "B", "persistent_keepalive_s": 5, "handshake_age_s": None},
            {"public_key": "C", "persistent_keepalive_s": 5, "handshake_age_s": 10}]},
        "wg0": {"public_key": PEER_KEY, "peers": [{"public_key": "A", "persistent_keepalive_s": 5, "handshake_age_s": 900}]}}}}}
    assert [(e["interface"], e["peer_public_key"]) for e, _text in dead_with_keepalive("h", view, {})] == [("wg0", "A"), ("wg1", "B")]


@pytest.mark.parametrize("view, expected", [
    ({}, ("not_checked", "no WireGuard facts were read")),
    ({"tunnelfix": {"wireguard": None}}, ("not_checked", "no WireGuard facts were read")),
    ({"tunnelfix": {"wireguard": {"interfaces": {}}}}, ("clear", "does not apply: no running WireGuard interface")),
    ({"tunnelfix": {"wireguard": {"interfaces": {"wg0": {"public_key": PEER_KEY, "peers": []}}}}}, None),
    # a router: openwrt_facts' wireguard, not tunnel_facts'
    ({"groups": ["tunnelfix_openwrt"], "tunnelfix": {"wireguard": {"interfaces": {"wg0": {"peers": []}}}}},
     ("not_checked", "no WireGuard facts were read")),
    ({"openwrt": {"wireguard": {"interfaces": {"wg0": {"live": False, "peers": []}}}}},
     ("clear", "does not apply: no running WireGuard interface")),
    ({"openwrt": {"wireguard": {"interfaces": {"wg0": {"live": True, "live_state": {"public_key": PEER_KEY}, "peers": []}}}}}, None),
])
def test_coverage(view, expected):
    assert dead_coverage("h", view, {"h": view}) == expected
