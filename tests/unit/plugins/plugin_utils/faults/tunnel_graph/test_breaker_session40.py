# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inputs a network operator meets that made the tunnel graph's findings wrong (breaker session 40; fake keys)."""

import base64
import copy
import json

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.tunnel_graph import graph_svg

SPOKE = "SPOKESPOKESPOKESPOKESPOKESPOKESPOKESPOKESP="


def _graph_ids(findings):
    graph_ids = {"one_sided_peer", "duplicate_public_key", "no_endpoint_either_side", "endpoint_port_mismatch",
                 "return_path_not_allowed", "keepalive_on_wrong_side", "handshake_never_completes", "allowed_ips_overlap",
                 "allowed_ips_shadow_lan"}
    return [(finding["host"], finding["id"]) for finding in findings if finding["id"] in graph_ids]


def _healthy_pair(tg):
    """An OpenWrt hub (uci) and a Linux spoke (wg-quick) with a handshake 20 s ago both ways."""
    hub = tg.owrt(tg.OWRT, [SPOKE], learned={SPOKE: "198.51.100.7:40000"}, counters={SPOKE: (5000, 6000)},
                  addresses=["10.77.0.1/24"], allowed={SPOKE: ["10.77.0.2/32"]})
    for peer in hub["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"]:
        peer["live"]["handshake_age_s"] = 20
    spoke = tg.linux(SPOKE, [tg.OWRT], endpoints={tg.OWRT: "203.0.113.1:51820"}, ages={tg.OWRT: 20},
                     counters={tg.OWRT: (6000, 5000)}, keepalive={tg.OWRT: 25}, addresses=["10.77.0.2/24"],
                     allowed={tg.OWRT: ["10.77.0.0/24"]})
    return {"hub": hub, "spoke": spoke}


def test_the_pair_is_healthy(tg):
    assert _graph_ids(find_findings(_healthy_pair(tg))) == []


def test_a_disabled_copy_of_a_running_uci_peer_does_not_hide_it(tg):
    # LuCI "duplicate this peer, disable the old one": two uci sections with one public key, the enabled one first.
    # openwrt_facts (parse/openwrt_wireguard.merge_wireguard) gives both sections the kernel's live entry (matched by
    # key); netifd gives the kernel the enabled one only. The tunnel runs (handshake 20 s ago on both ends).
    views = _healthy_pair(tg)
    peers = views["hub"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"]
    old = copy.deepcopy(peers[0])
    old.update(section="@wireguard_wg0[1]", disabled=True, allowed_ips=["10.77.0.99/32"])
    peers.append(old)
    assert _graph_ids(find_findings(views)) == []   # was: [("spoke", "one_sided_peer")], "its uci peer ... disabled '1'"
    entry = build_graph(views)["by_id"]["hub/wg0>" + SPOKE]
    assert (entry["disabled"], entry["uci_section"], entry["configured_allowed_ips"]) == (False, "@wireguard_wg0[0]", ["10.77.0.2/32"])


def test_a_disabled_copy_before_the_running_uci_peer_is_not_taken_either(tg):
    views = _healthy_pair(tg)
    peers = views["hub"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"]
    old = copy.deepcopy(peers[0])
    old.update(section="@wireguard_wg0[0]", disabled=True, allowed_ips=["10.77.0.99/32"])
    peers[0]["section"] = "@wireguard_wg0[1]"
    peers.insert(0, old)
    assert _graph_ids(find_findings(views)) == []
    assert build_graph(views)["by_id"]["hub/wg0>" + SPOKE]["uci_section"] == "@wireguard_wg0[1]"


def test_a_repeated_wg_quick_peer_section_keeps_the_last_allowed_ips(tg):
    # A [Peer] block pasted twice with one PublicKey, the copy edited: wg setconf sets every [Peer] with
    # WGPEER_REPLACE_ALLOWEDIPS, in file order (wireguard-tools src/config.c process_line), so the kernel holds the last
    # section's AllowedIPs, and wg-quick routes what the kernel holds. Here the first copy still lists the LAN prefix
    # 192.168.1.0/24 (connected on eth0); the running entry and the route hold only 10.77.0.1/32.
    spoke = tg.linux(SPOKE, [tg.OWRT], endpoints={tg.OWRT: "203.0.113.1:51820"}, ages={tg.OWRT: 20},
                     counters={tg.OWRT: (6000, 5000)}, addresses=["10.77.0.2/24"], allowed={tg.OWRT: ["10.77.0.1/32"]})
    config = spoke["tunnelfix"]["wireguard"]["configs"][0]
    config["peers"] = [{"public_key": tg.OWRT, "endpoint": "203.0.113.1:51820", "allowed_ips": ["10.77.0.1/32", "192.168.1.0/24"]},
                       {"public_key": tg.OWRT, "endpoint": None, "allowed_ips": ["10.77.0.1/32"]}]
    views = {"spoke": tg.with_lan(spoke, {"eth0": ["192.168.1.20/24"]})}
    entry = build_graph(views)["by_id"]["spoke/wg0>" + tg.OWRT]
    assert entry["configured_allowed_ips"] == ["10.77.0.1/32"]
    # the later copy sets no Endpoint: the kernel keeps the one the first copy set
    assert (entry["configured_endpoint_host"], entry["configured_endpoint_port"]) == ("203.0.113.1", 51820)
    assert _graph_ids(find_findings(views)) == []   # was: [("spoke", "allowed_ips_shadow_lan")]


# RFC 7748 section 6.1's published X25519 test vector (Alice's private and public key), in WireGuard's base64: a key
# anyone can look up, standing for a private key an operator pasted where a public key belongs. Clamped as wg genkey
# prints keys (first byte 0x77 -> 0x70, last 0x2a -> 0x6a): X25519 clamps anyway, so the public key is the same.
_RFC7748_PRIVATE = base64.b64encode(bytes.fromhex("70076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c6a")).decode()
_RFC7748_PUBLIC = base64.b64encode(bytes.fromhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")).decode()


def test_a_private_key_pasted_as_a_peer_public_key_is_never_reported(tg):
    # The spoke's file has the hub's PrivateKey in its [Peer] PublicKey line (copied from the wrong line of the hub's
    # file). wg setconf accepts any 32 bytes as a peer key, so the running entry (wg show all dump) carries it too, and
    # the target prints PublicKey lines unredacted (WG_CONFIG_PEERS). The hub is in the run, so the graph can tell:
    # X25519(that key) is the hub's own public key. It must not reach a finding, the export or the report.
    hub = tg.linux(_RFC7748_PUBLIC, [SPOKE], ages={SPOKE: None}, counters={SPOKE: (0, 0)}, addresses=["10.77.0.1/24"],
                   allowed={SPOKE: ["10.77.0.2/32"]})
    spoke = tg.linux(SPOKE, [_RFC7748_PRIVATE], endpoints={_RFC7748_PRIVATE: "203.0.113.1:51820"},
                     counters={_RFC7748_PRIVATE: (4440, 0)}, addresses=["10.77.0.2/24"],
                     allowed={_RFC7748_PRIVATE: ["10.77.0.0/24"]})
    views = {"hub": hub, "spoke": spoke}
    document = json.dumps(diagnosis(views))
    assert _RFC7748_PRIVATE not in document
    # the tunnel is still reported broken, with the placeholder where the key was
    assert ("hub", "one_sided_peer") in _graph_ids(find_findings(views))
    graph = build_graph(views)
    shown = "(the private key of hub's wg0, not shown)"
    assert graph["by_id"]["spoke/wg0>" + shown]["public_key"] == shown
    assert _RFC7748_PRIVATE not in graph_svg(diagnosis(views)["tunnel_graph"])


def test_the_x25519_public_key_is_rfc_7748s():
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import leaked, public_key_of

    bob_private = base64.b64encode(bytes.fromhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")).decode()
    bob_public = base64.b64encode(bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")).decode()
    assert public_key_of(_RFC7748_PRIVATE) == _RFC7748_PUBLIC
    assert public_key_of(bob_private) == bob_public
    assert public_key_of("not a key") is None
    # an unclamped key is derived only when asked: leaked() looks at generated (clamped) keys alone
    assert leaked([bob_private], {bob_public: ["bob/wg0"]}) == {}
    assert leaked([_RFC7748_PRIVATE, SPOKE], {_RFC7748_PUBLIC: ["hub/wg0"]}) == {_RFC7748_PRIVATE: "hub/wg0"}


# The AllowedIPs the WireGuard apps (Android, Windows) write for a full tunnel with "Exclude private IPs": every IPv4
# address but 10/8, 172.16/12 and 192.168/16, in 30 prefixes from /2 to /16, and ::/0.
_EXCLUDE_PRIVATE_IPS = ["0.0.0.0/5", "8.0.0.0/7", "11.0.0.0/8", "12.0.0.0/6", "16.0.0.0/4", "32.0.0.0/3", "64.0.0.0/2",
                        "128.0.0.0/3", "160.0.0.0/5", "168.0.0.0/6", "172.0.0.0/12", "172.32.0.0/11", "172.64.0.0/10",
                        "172.128.0.0/9", "173.0.0.0/8", "174.0.0.0/7", "176.0.0.0/4", "192.0.0.0/9", "192.128.0.0/11",
                        "192.160.0.0/13", "192.169.0.0/16", "192.170.0.0/15", "192.172.0.0/14", "192.176.0.0/12",
                        "192.192.0.0/10", "193.0.0.0/8", "194.0.0.0/7", "196.0.0.0/6", "200.0.0.0/5", "208.0.0.0/4", "::/0"]


def test_an_exit_written_as_the_apps_exclude_private_ips_list_is_an_exit(tg):
    # An exit peer with that list and a site peer with a CGNAT prefix and a public /24: the site's prefixes lie inside
    # the exit's /2 and /5, carved out on purpose exactly as inside 0.0.0.0/0 (which is no finding).
    site = ["100.64.0.0/10", "203.0.113.0/24"]
    for exit_prefixes in (["0.0.0.0/0", "::/0"], _EXCLUDE_PRIVATE_IPS):
        views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: exit_prefixes, tg.OWRT: site})}
        assert _graph_ids(find_findings(views)) == [], exit_prefixes[0]
    # a wide prefix that is no exit still loses what a narrower one takes
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], kept={tg.PEER: ["64.0.0.0/2"], tg.OWRT: site})}
    assert _graph_ids(find_findings(views)) == [("hub", "allowed_ips_overlap")]
