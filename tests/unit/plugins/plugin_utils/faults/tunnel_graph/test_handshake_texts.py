# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""handshake_never_completes: each cause's whole text, the classification's boundaries and which pairs are judged (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import (
    CANNOT_TELL, MISMATCH, PATH, _candidates, _text, classify, never_completes)

# (mine, theirs) of the texts below: every counter differs, so a swapped one shows
_EDGES = {"A": ({"tx_bytes": 444, "rx_bytes": 92, "has_preshared_key": True}, {"tx_bytes": 276, "rx_bytes": 148, "has_preshared_key": None}),
          "B": ({"tx_bytes": 444, "rx_bytes": 92, "has_preshared_key": False}, {"tx_bytes": 276, "rx_bytes": 148, "has_preshared_key": True})}

TEXTS = {
    ('psk_one_side', 'A'): (
        "a's wg0 has a preshared key for b's wg1, but b's wg1 has none for a's wg0: WireGuard mixes the preshared key "
        '(or zeros without one) into every handshake on both ends, so the two can never agree and the handshake never '
        "completes, however the path behaves. Give b's wg1 the same PresharedKey (uci preshared_key) as a's wg0, or "
        "remove it from a's wg0. The facts carry only whether a key is set, never the key."
    ),
    ('path_both_ways', 'A'): (
        "Both ends send handshake initiations (a's wg0: 444 bytes, b's wg1: 276 bytes) and neither counts a byte from "
        "the other: UDP between them is lost both ways. The keys are right (each lists the other's running key), and a "
        'preshared key that differs shows as received bytes on the answering end (measured), so check the path: each '
        "endpoint's address and port against the other's address and listen port, the firewalls on both (UDP to the "
        "listen ports), and any NAT between them. One sample of the counters cannot rule out that one end's entry was "
        "recreated after the other's last attempt; a second sample a few seconds later would show whether a's wg0 still"
        " sends (its sent bytes grow by 148 every 5 s) and whether b's wg1's received bytes grow with it."
    ),
    ('path_out', 'A'): (
        "a's wg0 sent 444 bytes of handshake initiations (148 bytes each, one every 5 s while it has traffic) and b's "
        "wg1 counts none from it: they never reach b's wg1's WireGuard. The keys are right (each lists the other's "
        'running key), and a preshared key that differs shows as received bytes there (measured), so check the path: '
        "a's wg0's endpoint for b's wg1 (address and port) against b's wg1's address and listen port, a firewall in "
        "front of b's wg1 (UDP to that port), and a NAT forward if b's wg1 is behind one. One sample of the counters "
        "cannot rule out that one end's entry was recreated after the other's last attempt; a second sample a few "
        "seconds later would show whether a's wg0 still sends (its sent bytes grow by 148 every 5 s) and whether b's "
        "wg1's received bytes grow with it."
    ),
    ('path_in', 'A'): (
        "b's wg1 sent 276 bytes of handshake initiations (148 bytes each, one every 5 s while it has traffic) and a's "
        "wg0 counts none from it: they never reach a's wg0's WireGuard. The keys are right (each lists the other's "
        'running key), and a preshared key that differs shows as received bytes there (measured), so check the path: '
        "b's wg1's endpoint for a's wg0 (address and port) against a's wg0's address and listen port, a firewall in "
        "front of a's wg0 (UDP to that port), and a NAT forward if a's wg0 is behind one. One sample of the counters "
        "cannot rule out that one end's entry was recreated after the other's last attempt; a second sample a few "
        "seconds later would show whether b's wg1 still sends (its sent bytes grow by 148 every 5 s) and whether a's "
        "wg0's received bytes grow with it."
    ),
    ('path_back_out', 'A'): (
        "a's wg0 sent 444 bytes of handshake initiations; b's wg1 received 148 bytes from it and answered with 276, and"
        " a's wg0 counts none of the answers. Neither end has a preshared key and the keys are right (each lists the "
        "other's running key), so the answers are lost on the way back to a's wg0: check its firewall for UDP from b's "
        "wg1's listen port, a NAT mapping that changed, and a reverse path filter (rp_filter) or an asymmetric route on"
        " the way. One sample of the counters cannot rule out that one end's entry was recreated after the other's last"
        " attempt; a second sample a few seconds later would show whether a's wg0 still sends (its sent bytes grow by "
        "148 every 5 s) and whether b's wg1's received bytes grow with it."
    ),
    ('path_back_in', 'A'): (
        "b's wg1 sent 276 bytes of handshake initiations; a's wg0 received 92 bytes from it and answered with 444, and "
        "b's wg1 counts none of the answers. Neither end has a preshared key and the keys are right (each lists the "
        "other's running key), so the answers are lost on the way back to b's wg1: check its firewall for UDP from a's "
        "wg0's listen port, a NAT mapping that changed, and a reverse path filter (rp_filter) or an asymmetric route on"
        " the way. One sample of the counters cannot rule out that one end's entry was recreated after the other's last"
        " attempt; a second sample a few seconds later would show whether b's wg1 still sends (its sent bytes grow by "
        "148 every 5 s) and whether a's wg0's received bytes grow with it."
    ),
    ('psk_or_path_back_out', 'A'): (
        "a's wg0 sent 444 bytes of handshake initiations; b's wg1 accepted them (148 bytes received: the keys and the "
        "path there are right) and answered with 276 bytes, and a's wg0 counts none of the answers (a's wg0 has a "
        "preshared key, b's wg1 has an unknown preshared key state). Two different preshared keys give exactly these "
        'counters, and so does a path that drops only the answers (measured on wireguard-go: byte for byte the same), '
        'so the counters cannot tell which, and their fingerprints were not both read in one run (facts gathered without '
        'this run\'s salt, or no sha256sum on an end). Compare the keys without printing them: on each end, wg show INTERFACE '
        "preshared-keys | awk -v k=PEER_KEY '$1 == k {print $2}' | sha256sum (PEER_KEY: the other end's public key "
        "there); equal digests mean equal keys, and then the answers are lost on the way back to a's wg0 (its firewall "
        "for UDP from b's wg1's listen port, a NAT mapping, rp_filter). One sample of the counters cannot rule out that"
        " one end's entry was recreated after the other's last attempt; a second sample a few seconds later would show "
        "whether a's wg0 still sends (its sent bytes grow by 148 every 5 s) and whether b's wg1's received bytes grow "
        'with it.'
    ),
    ('psk_or_path_back_in', 'A'): (
        "b's wg1 sent 276 bytes of handshake initiations; a's wg0 accepted them (92 bytes received: the keys and the "
        "path there are right) and answered with 444 bytes, and b's wg1 counts none of the answers (a's wg0 has a "
        "preshared key, b's wg1 has an unknown preshared key state). Two different preshared keys give exactly these "
        'counters, and so does a path that drops only the answers (measured on wireguard-go: byte for byte the same), '
        'so the counters cannot tell which, and their fingerprints were not both read in one run (facts gathered without '
        'this run\'s salt, or no sha256sum on an end). Compare the keys without printing them: on each end, wg show INTERFACE '
        "preshared-keys | awk -v k=PEER_KEY '$1 == k {print $2}' | sha256sum (PEER_KEY: the other end's public key "
        "there); equal digests mean equal keys, and then the answers are lost on the way back to b's wg1 (its firewall "
        "for UDP from a's wg0's listen port, a NAT mapping, rp_filter). One sample of the counters cannot rule out that"
        " one end's entry was recreated after the other's last attempt; a second sample a few seconds later would show "
        "whether b's wg1 still sends (its sent bytes grow by 148 every 5 s) and whether a's wg0's received bytes grow "
        'with it.'
    ),
    ('not_answered_out', 'A'): (
        "a's wg0 sent 444 bytes and b's wg1 received 148 bytes from it but never answered, and no handshake ever "
        'completed: not a pattern measured on the lab (an answering end sends a 92-byte response to every initiation it'
        " accepts), so the counters cannot tell the cause. Look at both ends' logs (wireguard-go with LOG_LEVEL=debug, "
        "or dmesg with WireGuard dynamic debug) while a's wg0 sends. One sample of the counters cannot rule out that "
        "one end's entry was recreated after the other's last attempt; a second sample a few seconds later would show "
        "whether a's wg0 still sends (its sent bytes grow by 148 every 5 s) and whether b's wg1's received bytes grow "
        'with it.'
    ),
    ('not_answered_in', 'A'): (
        "b's wg1 sent 276 bytes and a's wg0 received 92 bytes from it but never answered, and no handshake ever "
        'completed: not a pattern measured on the lab (an answering end sends a 92-byte response to every initiation it'
        " accepts), so the counters cannot tell the cause. Look at both ends' logs (wireguard-go with LOG_LEVEL=debug, "
        "or dmesg with WireGuard dynamic debug) while b's wg1 sends. One sample of the counters cannot rule out that "
        "one end's entry was recreated after the other's last attempt; a second sample a few seconds later would show "
        "whether b's wg1 still sends (its sent bytes grow by 148 every 5 s) and whether a's wg0's received bytes grow "
        'with it.'
    ),
    ('psk_both_ways', 'A'): (
        "Both ends received bytes from each other (a's wg0: 92, b's wg1: 148), so the path works both ways and each "
        "accepted the other's handshake initiations, yet no handshake ever completed: each rejects the other's answer, "
        "which is what two different preshared keys do (a's wg0 has a preshared key, b's wg1 has an unknown preshared "
        'key state). Not reproduced on the lab (wireguard-go answering an initiation sends none of its own), hence '
        'medium. Compare the keys without printing them: on each end, wg show INTERFACE preshared-keys | awk -v '
        "k=PEER_KEY '$1 == k {print $2}' | sha256sum."
    ),
    ('unexplained', 'A'): (
        "No handshake ever completed, and the counters (a's wg0: sent 444, received 92; b's wg1: sent 276, received "
        '148) fit none of the patterns measured on the lab, or a preshared key state is not known, so the rule cannot '
        'tell a key or preshared key mismatch from a path problem. One sample of the counters cannot rule out that one '
        "end's entry was recreated after the other's last attempt; a second sample a few seconds later would show "
        "whether a's wg0 still sends (its sent bytes grow by 148 every 5 s) and whether b's wg1's received bytes grow "
        'with it.'
    ),
    ('psk_one_side', 'B'): (
        "b's wg1 has a preshared key for a's wg0, but a's wg0 has none for b's wg1: WireGuard mixes the preshared key "
        '(or zeros without one) into every handshake on both ends, so the two can never agree and the handshake never '
        "completes, however the path behaves. Give a's wg0 the same PresharedKey (uci preshared_key) as b's wg1, or "
        "remove it from b's wg1. The facts carry only whether a key is set, never the key."
    ),
    ('psk_both_ways', 'B'): (
        "Both ends received bytes from each other (a's wg0: 92, b's wg1: 148), so the path works both ways and each "
        "accepted the other's handshake initiations, yet no handshake ever completed: each rejects the other's answer, "
        "which is what two different preshared keys do (a's wg0 has no preshared key, b's wg1 has a preshared key). Not"
        ' reproduced on the lab (wireguard-go answering an initiation sends none of its own), hence medium. Compare the'
        " keys without printing them: on each end, wg show INTERFACE preshared-keys | awk -v k=PEER_KEY '$1 == k {print"
        " $2}' | sha256sum."
    ),
    ('psk_or_path_back_in', 'B'): (
        "b's wg1 sent 276 bytes of handshake initiations; a's wg0 accepted them (92 bytes received: the keys and the "
        "path there are right) and answered with 444 bytes, and b's wg1 counts none of the answers (a's wg0 has no "
        "preshared key, b's wg1 has a preshared key). Two different preshared keys give exactly these counters, and so "
        'does a path that drops only the answers (measured on wireguard-go: byte for byte the same), so the counters '
        'cannot tell which, and their fingerprints were not both read in one run (facts gathered without this run\'s '
        'salt, or no sha256sum on an end). Compare the keys without printing them: on each end, wg show INTERFACE preshared-keys | awk'
        " -v k=PEER_KEY '$1 == k {print $2}' | sha256sum (PEER_KEY: the other end's public key there); equal digests "
        "mean equal keys, and then the answers are lost on the way back to b's wg1 (its firewall for UDP from a's wg0's"
        " listen port, a NAT mapping, rp_filter). One sample of the counters cannot rule out that one end's entry was "
        "recreated after the other's last attempt; a second sample a few seconds later would show whether b's wg1 still"
        " sends (its sent bytes grow by 148 every 5 s) and whether a's wg0's received bytes grow with it."
    ),
}


@pytest.mark.parametrize("cause, edges", sorted(TEXTS))
def test_the_whole_text_of_each_cause(cause, edges):
    mine, theirs = _EDGES[edges]
    assert " ".join(_text(cause, "a's wg0", "b's wg1", mine, theirs).split()) == "".join(TEXTS[(cause, edges)])


@pytest.mark.parametrize("cause, candidates", [
    ("psk_one_side", ["a preshared key on one end only"]),
    ("path_both_ways", ["UDP lost both ways between the ends"]),
    ("path_out", ["the initiations lost before the other end's WireGuard"]),
    ("path_in", ["the initiations lost before the other end's WireGuard"]),
    ("path_back_out", ["the answers lost on the way back"]),
    ("path_back_in", ["the answers lost on the way back"]),
    ("psk_or_path_back_out", ["the preshared keys differ", "the answers lost on the way back"]),
    ("psk_or_path_back_in", ["the preshared keys differ", "the answers lost on the way back"]),
    ("psk_both_ways", ["the preshared keys differ"]),
    ("not_answered_out", []), ("not_answered_in", []), ("unexplained", []),
])
def test_candidates(cause, candidates):
    assert _candidates(cause) == candidates


def _edge(tx, rx, age=None, psk=True):
    return {"tx_bytes": tx, "rx_bytes": rx, "handshake_age_s": age, "has_preshared_key": psk}


@pytest.mark.parametrize("mine, theirs, expected", [
    # a handshake 180 s old is fresh (STALE_HANDSHAKE_S), 181 s is not: then a PSK on one end only is certain
    (_edge(9000, 900, age=180), _edge(900, 9000, psk=False), None),
    (_edge(9000, 900, age=181), _edge(900, 9000, psk=False), (MISMATCH, "certain", "psk_one_side")),
    (_edge(900, 9000, psk=False), _edge(9000, 900, age=180), None),
    (_edge(900, 9000, psk=False), _edge(9000, 900, age=181), (MISMATCH, "certain", "psk_one_side")),
    (_edge(444, 0, age=0), _edge(0, 0, psk=False), None),
    # a stale handshake and the PSKs alike: one sample cannot judge it, on either end
    (_edge(444, 0, age=181), _edge(0, 0), None),
    (_edge(444, 0), _edge(0, 0, age=181), None),
    # a PSK state not known is no mismatch
    (_edge(444, 0, psk=None), _edge(0, 0, psk=False), (PATH, "medium", "path_out")),
    (_edge(444, 0, psk=False), _edge(0, 0, psk=None), (PATH, "medium", "path_out")),
    (_edge(444, 0, psk=False), _edge(0, 0, psk=True), (MISMATCH, "certain", "psk_one_side")),
    # a counter not known, or not a number; only the other end sent
    (_edge(444, 0), _edge(0, None), None),
    (_edge(444, "0"), _edge(0, 0), None),
    (_edge(0, 0), _edge(148, 0), (PATH, "medium", "path_in")),
    (_edge(444, 0), _edge(276, 0), (PATH, "medium", "path_both_ways")),
    # one end sent and received nothing; the other received it and never answered
    (_edge(0, 444), _edge(444, 0), (CANNOT_TELL, None, "not_answered_in")),
    (_edge(276, 444, psk=False), _edge(444, 0, psk=True), (MISMATCH, "certain", "psk_one_side")),
    (_edge(444, 0, psk=False), _edge(276, 444, psk=False), (PATH, "medium", "path_back_out")),
    (_edge(444, 0), _edge(276, 444), (CANNOT_TELL, None, "psk_or_path_back_out")),
    # one end received answers it never sent for, the other nothing: fits no pattern
    (_edge(444, 92), _edge(0, 0), (CANNOT_TELL, None, "unexplained")),
    (_edge(0, 0), _edge(444, 92), (CANNOT_TELL, None, "unexplained")),
    (_edge(720, 444, psk=None), _edge(720, 444, psk=None), (MISMATCH, "medium", "psk_both_ways")),
    (_edge(720, 444, psk=False), _edge(720, 444, psk=None), (MISMATCH, "medium", "psk_both_ways")),
    # one byte is a byte: the smallest counters that decide
    (_edge(1, 0), _edge(0, 0), (PATH, "medium", "path_out")),
    (_edge(0, 0), _edge(1, 0), (PATH, "medium", "path_in")),
    (_edge(1, 0), _edge(1, 0), (PATH, "medium", "path_both_ways")),
    (_edge(444, 0), _edge(0, 1), (CANNOT_TELL, None, "not_answered_out")),
    (_edge(0, 1), _edge(444, 0), (CANNOT_TELL, None, "not_answered_in")),
    (_edge(444, 0, psk=False), _edge(1, 444, psk=False), (PATH, "medium", "path_back_out")),
    (_edge(1, 444, psk=False), _edge(444, 0, psk=False), (PATH, "medium", "path_back_in")),
    (_edge(444, 1), _edge(0, 0), (CANNOT_TELL, None, "unexplained")),
    (_edge(0, 0), _edge(444, 1), (CANNOT_TELL, None, "unexplained")),
    (_edge(720, 1), _edge(720, 444), (MISMATCH, "medium", "psk_both_ways")),
    (_edge(720, 444), _edge(720, 1), (MISMATCH, "medium", "psk_both_ways")),
    (_edge(720, 1), _edge(720, 0), (CANNOT_TELL, None, "psk_or_path_back_in")),
])
def test_classify_boundaries(mine, theirs, expected):
    assert classify(mine, theirs) == expected


def _pair(tg, hub_counters=(0, 0), peer_counters=(444, 0), hub_age=None, peer_age=None, psk=(None, None), endpoint="203.0.113.10:51820",
          hub_port=51820):
    """hub lists the peer (no endpoint); the peer lists the hub at ``endpoint``; ``psk``: (hub's, peer's) has_preshared_key."""
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], listen_port=hub_port, counters={tg.PEER: hub_counters},
                             ages={tg.PEER: hub_age} if hub_age is not None else None),
             "peer": tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: endpoint}, counters={tg.HUB: peer_counters},
                              ages={tg.HUB: peer_age} if peer_age is not None else None)}
    for host, flag in zip(("hub", "peer"), psk):
        views[host]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["has_preshared_key"] = flag
    return views


def _summary(views, host):
    return [" ".join(text.split()).partition(". ")[0] for _evidence, text in never_completes(host, views[host], views)]


def test_the_first_sentence_names_the_tunnel_the_classification_and_its_confidence(tg):
    assert _summary(_pair(tg), "peer") == [
        "The tunnel between peer's wg0 and hub's wg0 never completed a handshake: looks like a path problem (confidence medium)"]
    assert _summary(_pair(tg, psk=(True, False)), "hub") == [
        "The tunnel between hub's wg0 and peer's wg0 never completed a handshake: looks like a key or PSK mismatch (certain)"]
    assert _summary(_pair(tg, hub_counters=(0, 444)), "hub") == [
        "The tunnel between hub's wg0 and peer's wg0 never completed a handshake: cannot tell (no classification)"]
    # a handshake once, on either end, and a PSK on one end only
    for ages in ({"hub_age": 900}, {"peer_age": 900}):
        assert _summary(_pair(tg, psk=(True, False), **ages), "peer") == [
            "The tunnel between peer's wg0 and hub's wg0 has no fresh handshake: looks like a key or PSK mismatch (certain)"]


def test_the_evidence_of_a_path_problem(tg):
    views = _pair(tg, hub_counters=(0, 0), peer_counters=(592, 0), psk=(False, False))
    (evidence, _text_), = never_completes("peer", views["peer"], views)
    assert evidence == {
        "interface": "wg0", "peer_public_key": tg.HUB, "other_host": "hub", "other_interface": "wg0",
        "classification": PATH, "confidence": "medium", "candidates": ["the initiations lost before the other end's WireGuard"],
        "samples": 1, "handshake_age_s": None, "other_handshake_age_s": None, "tx_bytes": 592, "rx_bytes": 0,
        "other_tx_bytes": 0, "other_rx_bytes": 0, "sampled_after_s": None, "tx_bytes_2": None, "rx_bytes_2": None,
        "other_sampled_after_s": None, "other_tx_bytes_2": None, "other_rx_bytes_2": None,
        "has_preshared_key": False, "other_has_preshared_key": False, "preshared_keys": None, "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf"}
    (evidence, _text_), = never_completes("hub", views["hub"], views)
    assert (evidence["peer_public_key"], evidence["other_host"], evidence["tx_bytes"], evidence["other_tx_bytes"]) == (
        tg.PEER, "peer", 0, 592)


@pytest.mark.parametrize("changes", [
    {"endpoint": "203.0.113.10:51821"},                      # the peer's endpoint port is not the hub's listen port
])
def test_a_port_mismatch_either_way_is_left_to_the_other_rule(tg, changes):
    views = _pair(tg, **changes)
    assert [never_completes(host, views[host], views) for host in views] == [[], []]


def test_a_port_that_cannot_be_compared_is_judged_here(tg):
    # the peer's endpoint has no port kept, or the hub listens on no known port: endpoint_port_mismatch cannot judge it
    for views in (_pair(tg, endpoint="203.0.113.10"), _pair(tg, endpoint="203.0.113.10:51821", hub_port=None)):
        assert [len(never_completes(host, views[host], views)) for host in views] == [1, 1]


def test_a_psk_on_one_end_only_is_judged_even_with_a_port_mismatch(tg):
    views = _pair(tg, endpoint="203.0.113.10:51821", psk=(False, True))
    assert [[evidence["candidates"] for evidence, _text_ in never_completes(host, views[host], views)] for host in views] == [
        [["a preshared key on one end only"]], [["a preshared key on one end only"]]]


def test_an_end_that_does_not_run_the_entry_is_not_judged(tg):
    views = _pair(tg, psk=(False, True))
    views["hub"] = tg.linux(tg.HUB, [tg.PEER], paper=(tg.PEER,))           # hub's file lists the peer, the kernel does not
    assert [never_completes(host, views[host], views) for host in views] == [[], []]


def test_a_key_on_two_machines_is_not_judged(tg):
    # the peer's key is cloned: the hub's entry reaches two interfaces, so whose counters answer is not known
    views = _pair(tg, psk=(False, True))
    views["clone"] = tg.linux(tg.PEER, [tg.HUB], listen_port=41001, endpoints={tg.HUB: "203.0.113.10:51820"}, counters={tg.HUB: (444, 0)})
    assert [never_completes(host, views[host], views) for host in views] == [[], [], []]


def test_an_entry_only_kept_in_uci_is_not_judged(tg):
    # owrt's uci peer for the hub has a preshared key but is not in the kernel (added without a reload): nothing runs
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], counters={tg.OWRT: (0, 444)}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"})}
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["has_preshared_key"] = False
    peer = views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]
    peer.update(live=None, preshared_key_set=True)
    assert [never_completes(host, views[host], views) for host in views] == [[], []]
    peer.update(live={"endpoint_host": "203.0.113.10", "endpoint_port": 51820, "allowed_ips": [], "tx_bytes": 444, "rx_bytes": 0,
                      "has_preshared_key": True})
    views = dict(views)      # the graph is cached per views object
    assert [len(never_completes(host, views[host], views)) for host in views] == [1, 1]


def test_every_pair_is_judged_after_ones_that_are_not(tg):
    # the peer's entries in order: one only in its file, one idle (nobody sent), one whose port is endpoint_port_mismatch's,
    # and the hub's (initiations lost): only the hub's
    k1, k2, k3 = "1" * 43 + "=", "2" * 43 + "=", "3" * 43 + "="
    ep = {k1: "198.51.100.1:51820", k2: "198.51.100.2:51820", k3: "198.51.100.3:51821", tg.HUB: "203.0.113.10:51820"}
    views = {"peer": tg.linux(tg.PEER, [k1, k2, k3, tg.HUB], listen_port=41000, endpoints=ep, paper=(k1,),
                              counters={k3: (444, 0), tg.HUB: (444, 0)}),
             "one": tg.linux(k1, [tg.PEER]), "two": tg.linux(k2, [tg.PEER]), "three": tg.linux(k3, [tg.PEER]),
             "hub": tg.linux(tg.HUB, [tg.PEER])}
    assert [evidence["peer_public_key"] for evidence, _text in never_completes("peer", views["peer"], views)] == [tg.HUB]
