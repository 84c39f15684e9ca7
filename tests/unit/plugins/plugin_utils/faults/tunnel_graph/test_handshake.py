# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""handshake_never_completes: both ends run and list each other, no handshake; classified from both ends' counters.

Built from the dumps recorded with real wireguard-go (tests/unit/fixtures/wg_dump_redacted/, README there) through the
facts' own parsers (split_dated_output, parse_wg_dump), and from fake keys for the OpenWrt side.
"""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import (
    CANNOT_TELL, MISMATCH, PATH, classify, never_completes)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import split_dated_output

INITIATOR = "I" * 43 + "="
RESPONDER = "R" * 43 + "="
WRONG = "W" * 43 + "="


def _view(text, kept):
    """A Linux host's wireguard facts from the facts' command output ``text`` and its wg-quick file's peers ``kept``
    ([(public key, Endpoint or None)])."""
    now, dump = split_dated_output(text)
    interfaces = parse_wg_dump(dump, now)["interfaces"]
    name = next(iter(interfaces))
    assert list(interfaces) == [name]
    return {"tunnelfix": {"wireguard": {"available": True, "interfaces": interfaces, "config_dirs": {}, "configs": [
        {"path": "/etc/wireguard/%s.conf" % name, "kind": "wg-quick", "interface": name, "wireguard": True, "addresses": None,
         "peers": [{"public_key": key, "endpoint": endpoint} for key, endpoint in kept]}]}}}


def _lab(load_fixture, case, sample=2):
    """{"i": initiator, "r": responder} as recorded in ``case`` (the README's table)."""
    i_lists = WRONG if case.startswith("4_") else RESPONDER
    r_lists = WRONG if case.startswith("5_") else INITIATOR
    r_endpoint = "10.231.0.1:51821" if case.startswith("8") else None
    return {"i": _view(load_fixture("wg_dump_redacted", "%s_a_%d.txt" % (case, sample)), [(i_lists, "10.231.0.2:51820")]),
            "r": _view(load_fixture("wg_dump_redacted", "%s_b_%d.txt" % (case, sample)), [(r_lists, r_endpoint)])}


def _judged(views):
    return {host: [(evidence["classification"], evidence["confidence"]) for evidence, _text in never_completes(host, views[host], views)]
            for host in views}


def _words(text):
    return " ".join(text.split())


@pytest.mark.parametrize("sample", [1, 2])
def test_a_working_tunnel_gives_nothing(load_fixture, sample):
    views = _lab(load_fixture, "1_control", sample)
    assert _judged(views) == {"i": [], "r": []}
    assert not [f for f in find_findings(views) if f["id"] == "handshake_never_completes"]


@pytest.mark.parametrize("case", ["2_psk_initiator_only", "2b_psk_responder_only"])
def test_a_preshared_key_on_one_end_only_is_a_certain_mismatch(load_fixture, case):
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [(MISMATCH, "certain")], "r": [(MISMATCH, "certain")]}
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence == {
        "interface": "tfpska0", "peer_public_key": RESPONDER, "other_host": "r", "other_interface": "tfpskb0",
        "classification": MISMATCH, "confidence": "certain", "candidates": ["a preshared key on one end only"], "samples": 1,
        "handshake_age_s": None, "other_handshake_age_s": None, "tx_bytes": 444, "rx_bytes": 0, "other_tx_bytes": 276,
        "other_rx_bytes": 444, "sampled_after_s": None, "tx_bytes_2": None, "rx_bytes_2": None, "other_sampled_after_s": None,
        "other_tx_bytes_2": None, "other_rx_bytes_2": None, "has_preshared_key": case == "2_psk_initiator_only",
        "other_has_preshared_key": case != "2_psk_initiator_only", "preshared_keys": None, "owner": "wg-quick", "owner_path": "/etc/wireguard/tfpska0.conf"}
    holder, lacking = ("i's tfpska0", "r's tfpskb0") if case == "2_psk_initiator_only" else ("r's tfpskb0", "i's tfpska0")
    assert ("%s has a preshared key for %s, but %s has none" % (holder, lacking, lacking)) in _words(text)
    assert "looks like a key or PSK mismatch (certain)" in _words(text)


@pytest.mark.parametrize("case", ["6a_drop_a_to_b", "7_drop_both"])
def test_initiations_that_never_reach_the_other_end_look_like_a_path_problem(load_fixture, case):
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [(PATH, "medium")], "r": [(PATH, "medium")]}
    (evidence, text), = never_completes("r", views["r"], views)
    assert (evidence["candidates"], evidence["tx_bytes"], evidence["rx_bytes"], evidence["other_tx_bytes"]) == (
        ["the initiations lost before the other end's WireGuard"], 0, 0, 444)
    assert "i's tfpska0 sent 444 bytes of handshake initiations" in _words(text)
    assert "they never reach r's tfpskb0's WireGuard" in _words(text)
    assert "a second sample a few seconds later would show whether i's tfpska0 still sends" in _words(text)


def test_nothing_arriving_either_way_is_a_path_problem_both_ways(load_fixture):
    views = _lab(load_fixture, "8c_both_send_drop_both")
    assert _judged(views) == {"i": [(PATH, "medium")], "r": [(PATH, "medium")]}
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence["candidates"] == ["UDP lost both ways between the ends"]
    assert "UDP between them is lost both ways" in _words(text)


def test_answers_lost_on_the_way_back_without_preshared_keys_look_like_a_path_problem(load_fixture):
    views = _lab(load_fixture, "6c_drop_b_to_a_no_psk")
    assert _judged(views) == {"i": [(PATH, "medium")], "r": [(PATH, "medium")]}
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence["candidates"] == ["the answers lost on the way back"]
    assert "so the answers are lost on the way back to i's tfpska0" in _words(text)


@pytest.mark.parametrize("case", ["3_psk_differs", "6b_drop_b_to_a", "8_both_send_psk_differs", "8b_both_send_drop_b_to_a"])
def test_two_preshared_keys_and_lost_answers_give_the_same_counters_so_it_cannot_tell(load_fixture, case):
    # the signature measured on wireguard-go: a differing PSK and a drop of the answers are byte for byte the same
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [(CANNOT_TELL, None)], "r": [(CANNOT_TELL, None)]}
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence["candidates"] == ["the preshared keys differ", "the answers lost on the way back"]
    assert (evidence["tx_bytes"], evidence["rx_bytes"], evidence["other_tx_bytes"], evidence["other_rx_bytes"]) == (444, 0, 276, 444)
    assert "the counters cannot tell which" in _words(text)
    assert "wg show INTERFACE preshared-keys | awk -v k=PEER_KEY '$1 == k {print $2}' | sha256sum" in _words(text)


def _counters(load_fixture, case, side, sample):
    """[(latest-handshake, rx, tx)] of the peer lines of one recorded file (after the date and interface lines)."""
    lines = load_fixture("wg_dump_redacted", "%s_%s_%d.txt" % (case, side, sample)).splitlines()[2:]
    return [tuple(line.split("\t")[5:8]) for line in lines]


@pytest.mark.parametrize("side, sample", [("a", 1), ("a", 2), ("b", 1), ("b", 2)])
def test_the_recorded_signature_two_psks_and_lost_answers_are_the_same(load_fixture, side, sample):
    psk = _counters(load_fixture, "3_psk_differs", side, sample)
    assert psk == _counters(load_fixture, "6b_drop_b_to_a", side, sample)
    assert psk == [("0", "0", "%d" % (148 * (sample + 1)))] if side == "a" else [("0", "%d" % (148 * (sample + 1)), "%d" % (92 * (sample + 1)))]


@pytest.mark.parametrize("case, one_sided_on", [("4_initiator_wrong_key", "r"), ("5_responder_wrong_key", "i")])
def test_a_wrong_key_is_no_pair_here_one_sided_peer_finds_it(load_fixture, case, one_sided_on):
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [], "r": []}
    assert {(f["id"], f["host"]) for f in find_findings(views) if f["id"] in ("handshake_never_completes", "one_sided_peer")} == {
        ("one_sided_peer", one_sided_on)}


def test_the_registry_finds_it_on_both_ends(load_fixture):
    views = _lab(load_fixture, "3_psk_differs", sample=1)
    found = [f for f in find_findings(views) if f["id"] == "handshake_never_completes"]
    assert sorted((f["host"], f["evidence"]["other_host"], f["evidence"]["classification"]) for f in found) == [
        ("i", "r", CANNOT_TELL), ("r", "i", CANNOT_TELL)]


def _edge(tx, rx, age=None, psk=True):
    return {"tx_bytes": tx, "rx_bytes": rx, "handshake_age_s": age, "has_preshared_key": psk}


@pytest.mark.parametrize("mine, theirs, expected", [
    (_edge(444, 0), _edge(0, 0), (PATH, "medium", "path_out")),
    (_edge(0, 0), _edge(444, 0), (PATH, "medium", "path_in")),
    (_edge(276, 444, psk=False), _edge(444, 0, psk=False), (PATH, "medium", "path_back_in")),
    (_edge(276, 444), _edge(444, 0), (CANNOT_TELL, None, "psk_or_path_back_in")),
    (_edge(444, 0), _edge(0, 444), (CANNOT_TELL, None, "not_answered_out")),
    (_edge(720, 444), _edge(720, 444), (MISMATCH, "medium", "psk_both_ways")),
    (_edge(720, 444, psk=False), _edge(720, 444, psk=False), (CANNOT_TELL, None, "unexplained")),
    (_edge(444, 0, psk=None), _edge(276, 444), (CANNOT_TELL, None, "psk_or_path_back_out")),
    (_edge(0, 0), _edge(0, 0), None),                          # idle: nobody sent
    (_edge(9000, 0, age=900), _edge(0, 0), None),              # worked once: one sample cannot judge it
    (_edge(9000, 0, age=100), _edge(0, 0, psk=False), None),   # fresh: works
    (_edge(9000, 900, age=900), _edge(900, 9000, psk=False), (MISMATCH, "certain", "psk_one_side")),
    (_edge(None, None), _edge(444, 0), None),                  # counters not known
])
def test_classify(mine, theirs, expected):
    assert classify(mine, theirs) == expected


def test_an_openwrt_end_with_a_uci_preshared_key_and_a_linux_end_without(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], counters={tg.OWRT: (276, 444)}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, counters={tg.HUB: (444, 0)})}
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["has_preshared_key"] = False
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["live"]["has_preshared_key"] = True
    assert _judged(views) == {"hub": [(MISMATCH, "certain")], "owrt": [(MISMATCH, "certain")]}
    (evidence, text), = never_completes("owrt", views["owrt"], views)
    assert (evidence["has_preshared_key"], evidence["other_has_preshared_key"]) == (True, False)
    assert "Give hub's wg0 the same PresharedKey (uci preshared_key) as owrt's wg0" in _words(text)


def test_a_port_mismatch_is_left_to_endpoint_port_mismatch(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], listen_port=51820),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51821"}, counters={tg.HUB: (1480, 0)})}
    assert _judged(views) == {"hub": [], "peer": []}
    assert {f["id"] for f in find_findings(views) if f["id"] in ("handshake_never_completes", "endpoint_port_mismatch")} == {
        "endpoint_port_mismatch"}
