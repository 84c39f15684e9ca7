# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""handshake_never_completes with the preshared key fingerprints: two PSKs that differ are a certain mismatch, equal
ones leave the path (the "cannot tell" of the recorded cases 3, 6b, 8 and 8b is settled); fingerprints of two salts
(two runs) are never compared.

The counters are the recorded wireguard-go dumps (tests/unit/fixtures/wg_dump_redacted/) through the facts' parsers, as
in test_handshake.py; the fingerprints are what the facts hold (remote/psk_fingerprint.py) for fake keys.
"""

import base64

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import graph_export
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import (
    CANNOT_TELL, MISMATCH, PATH, never_completes, preshared_keys, second_sample_hosts)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import split_dated_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import fingerprint, salt_id

INITIATOR = "I" * 43 + "="
RESPONDER = "R" * 43 + "="
SALT_ONE = "00112233445566778899aabbccddeeff"
SALT_TWO = "ffeeddccbbaa99887766554433221100"
FAKE_A = base64.b64encode(bytes([1]) * 32).decode()   # fake preshared keys (the base64 of 32 bytes)
FAKE_B = base64.b64encode(bytes([2]) * 32).decode()


def _view(text, lists, endpoint, made):
    """A Linux host's wireguard facts from the recorded dump ``text``, its wg-quick file listing ``lists`` at
    ``endpoint``, and its peer's fingerprint ``made`` = (salt, fake key text) or None (not read)."""
    now, dump = split_dated_output(text)
    interfaces = parse_wg_dump(dump, now)["interfaces"]
    (name,) = list(interfaces)
    for peer in interfaces[name]["peers"]:
        peer["preshared_key_fingerprint"] = None if made is None or not peer["has_preshared_key"] else fingerprint(*made)
    return {"tunnelfix": {"wireguard": {
        "available": True, "interfaces": interfaces, "config_dirs": {}, "sampled_at_epoch": now,
        "preshared_key_salt_id": None if made is None else salt_id(made[0]),
        "configs": [{"path": "/etc/wireguard/%s.conf" % name, "kind": "wg-quick", "interface": name, "wireguard": True,
                     "addresses": None, "peers": [{"public_key": lists, "endpoint": endpoint}]}]}}}


def _lab(load_fixture, case, made_i, made_r):
    r_endpoint = "10.231.0.1:51821" if case.startswith("8") else None
    return {"i": _view(load_fixture("wg_dump_redacted", "%s_a_2.txt" % case), RESPONDER, "10.231.0.2:51820", made_i),
            "r": _view(load_fixture("wg_dump_redacted", "%s_b_2.txt" % case), INITIATOR, r_endpoint, made_r)}


def _judged(views):
    return {host: [(evidence["classification"], evidence["confidence"], evidence["preshared_keys"])
                   for evidence, _text in never_completes(host, views[host], views)] for host in views}


def _words(text):
    return " ".join(text.split())


@pytest.mark.parametrize("case", ["3_psk_differs", "8_both_send_psk_differs"])
def test_two_different_preshared_keys_are_a_certain_mismatch(load_fixture, case):
    views = _lab(load_fixture, case, (SALT_ONE, FAKE_A), (SALT_ONE, FAKE_B))
    assert _judged(views) == {"i": [(MISMATCH, "certain", "differ")], "r": [(MISMATCH, "certain", "differ")]}
    assert second_sample_hosts(views) == []   # certain: no second reading needed
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence["candidates"] == ["the preshared keys differ"]
    words = _words(text)
    assert "i's tfpska0 and r's tfpskb0 both have a preshared key for each other, and the keys differ" in words
    assert ("compare the PresharedKey line of the [Peer] with PublicKey %s in /etc/wireguard/tfpska0.conf of i's tfpska0 with "
            "the PresharedKey line of the [Peer] with PublicKey %s in /etc/wireguard/tfpskb0.conf of r's tfpskb0" % (RESPONDER, INITIATOR)) in words
    # neither the keys nor the fingerprints are in the finding
    found = [f for f in find_findings(views) if f["id"] == "handshake_never_completes"]
    assert len(found) == 2
    for secret in (FAKE_A, FAKE_B, fingerprint(SALT_ONE, FAKE_A), fingerprint(SALT_ONE, FAKE_B), SALT_ONE):
        assert secret not in repr(found)


@pytest.mark.parametrize("case", ["6b_drop_b_to_a", "8b_both_send_drop_b_to_a"])
def test_equal_preshared_keys_leave_the_answers_lost_on_the_way_back(load_fixture, case):
    views = _lab(load_fixture, case, (SALT_ONE, FAKE_A), (SALT_ONE, FAKE_A))
    assert _judged(views) == {"i": [(PATH, "medium", "equal")], "r": [(PATH, "medium", "equal")]}
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence["candidates"] == ["the answers lost on the way back"]
    assert ("Both ends have the same preshared key (their fingerprints, made on each host with this run's salt, are equal) "
            "and the keys are right") in _words(text)
    assert "so the answers are lost on the way back to i's tfpska0" in _words(text)
    assert second_sample_hosts(views) == ["i", "r"]   # one sample: medium, a second reading may make it high


@pytest.mark.parametrize("made_i, made_r", [
    ((SALT_ONE, FAKE_A), (SALT_TWO, FAKE_B)),   # two runs' salts: never compared, even though the keys differ
    ((SALT_ONE, FAKE_A), (SALT_TWO, FAKE_A)),   # the same key under two salts: other fingerprints, not compared
    ((SALT_ONE, FAKE_A), None),                 # one end's fingerprint not read
])
def test_fingerprints_not_of_one_run_leave_it_cannot_tell(load_fixture, made_i, made_r):
    views = _lab(load_fixture, "3_psk_differs", made_i, made_r)
    assert _judged(views) == {"i": [(CANNOT_TELL, None, None)], "r": [(CANNOT_TELL, None, None)]}


def test_preshared_keys_needs_both_ends_with_a_key_and_one_salt():
    def edge(has, made):
        return {"has_preshared_key": has, "preshared_key_fingerprint": made and fingerprint(*made),
                "preshared_key_salt_id": made and salt_id(made[0])}
    assert preshared_keys(edge(True, (SALT_ONE, FAKE_A)), edge(True, (SALT_ONE, FAKE_A))) == "equal"
    assert preshared_keys(edge(True, (SALT_ONE, FAKE_A)), edge(True, (SALT_ONE, FAKE_B))) == "differ"
    assert preshared_keys(edge(True, (SALT_ONE, FAKE_A)), edge(True, (SALT_TWO, FAKE_B))) is None
    assert preshared_keys(edge(False, None), edge(False, None)) is None
    assert preshared_keys(edge(True, (SALT_ONE, FAKE_A)), edge(None, None)) is None


def test_the_graph_carries_the_fingerprint_with_its_salt_id_and_the_export_does_not(load_fixture):
    views = _lab(load_fixture, "3_psk_differs", (SALT_ONE, FAKE_A), (SALT_ONE, FAKE_B))
    graph = graph_of(views)
    (edge,) = graph["by_host"]["i"]
    assert (edge["preshared_key_fingerprint"], edge["preshared_key_salt_id"]) == (fingerprint(SALT_ONE, FAKE_A), salt_id(SALT_ONE))
    exported = repr(graph_export(graph))
    assert fingerprint(SALT_ONE, FAKE_A) not in exported and salt_id(SALT_ONE) not in exported


def test_a_fingerprint_without_its_hosts_salt_id_is_dropped(load_fixture):
    views = _lab(load_fixture, "3_psk_differs", (SALT_ONE, FAKE_A), (SALT_ONE, FAKE_B))
    views["r"]["tunnelfix"]["wireguard"]["preshared_key_salt_id"] = None
    (edge,) = graph_of(views)["by_host"]["r"]
    assert (edge["preshared_key_fingerprint"], edge["preshared_key_salt_id"]) == (None, None)
    assert _judged(views)["i"] == [(CANNOT_TELL, None, None)]


def test_a_second_reading_with_equal_preshared_keys_makes_the_lost_answers_high():
    """The second sample's row for 6c (no PSK) holds for equal PSKs: whole initiations out, whole answers back, none
    counted: the path back, high; fingerprints of two salts leave it cannot tell."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import classify_growth

    def edge(salt):
        return {"has_preshared_key": True, "preshared_key_fingerprint": fingerprint(salt, FAKE_A), "preshared_key_salt_id": salt_id(salt)}
    knocks, answers = {"tx": 296, "rx": 0, "s": 6}, {"tx": 184, "rx": 296, "s": 6}
    assert classify_growth(edge(SALT_ONE), edge(SALT_ONE), knocks, answers) == (PATH, "high", "path_back_out")
    assert classify_growth(edge(SALT_ONE), edge(SALT_TWO), knocks, answers) == (CANNOT_TELL, None, "psk_or_path_back_out")
