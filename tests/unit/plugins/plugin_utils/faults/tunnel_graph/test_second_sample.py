# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""handshake_never_completes from two samples of both ends' counters: the facts' (``_1``) and a second reading 6 s
later (``_2``), both recorded with real wireguard-go (tests/unit/fixtures/wg_dump_redacted/, README there), read
through the facts' parsers and the second reading's action (``wireguard_counters.counters_of``); and which hosts
diagnose reads again (``second_sample_hosts``)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.wireguard_counters import counters_of
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import (
    CANNOT_TELL, MISMATCH, PATH, classify_growth, growth, never_completes, second_sample_hosts)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.samples import SECOND_SAMPLE, second_sample
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import split_dated_output

INITIATOR = "I" * 43 + "="
RESPONDER = "R" * 43 + "="
WRONG = "W" * 43 + "="


def _dump(text):
    now, dump = split_dated_output(text)
    return now, parse_wg_dump(dump, now)["interfaces"]


def _view(first, kept, later=None):
    """A Linux host's view: its wireguard facts from the facts' command output ``first`` (its wg-quick file's peers
    ``kept``: [(public key, Endpoint or None)]) and, given ``later``, the second reading as diagnose registers it."""
    now, interfaces = _dump(first)
    name = next(iter(interfaces))
    view = {"tunnelfix": {"wireguard": {"available": True, "interfaces": interfaces, "config_dirs": {}, "sampled_at_epoch": now,
                                        "configs": [{"path": "/etc/wireguard/%s.conf" % name, "kind": "wg-quick", "interface": name,
                                                     "wireguard": True, "addresses": None,
                                                     "peers": [{"public_key": key, "endpoint": endpoint} for key, endpoint in kept]}]}}}
    if later is not None:
        again, later_interfaces = _dump(later)
        view[SECOND_SAMPLE.key] = {"phase": "before", "changed": False, "wg_installed": True, "sampled_at_epoch": again,
                                   "note": None, "interfaces": counters_of(later_interfaces)}
    return view


def _lab(load_fixture, case, second=True):
    """{"i": initiator, "r": responder} as recorded in ``case``: the 8 s sample as the facts, the 14 s one as the
    second reading (``second``)."""
    i_lists = WRONG if case.startswith("4_") else RESPONDER
    r_lists = WRONG if case.startswith("5_") else INITIATOR
    r_endpoint = "10.231.0.1:51821" if case.startswith("8") else None

    def read(side, sample):
        return load_fixture("wg_dump_redacted", "%s_%s_%d.txt" % (case, side, sample))

    return {"i": _view(read("a", 1), [(i_lists, "10.231.0.2:51820")], read("a", 2) if second else None),
            "r": _view(read("b", 1), [(r_lists, r_endpoint)], read("b", 2) if second else None)}


def _judged(views):
    return {host: [(evidence["classification"], evidence["confidence"], evidence["samples"])
                   for evidence, _text in never_completes(host, views[host], views)] for host in views}


def _words(text):
    return " ".join(text.split())


@pytest.mark.parametrize("case, expected", [
    ("6a_drop_a_to_b", (PATH, "high", 2)),          # I sends an initiation every 5 s now, R counts none: lost on the way
    ("7_drop_both", (PATH, "high", 2)),
    ("8c_both_send_drop_both", (PATH, "high", 2)),  # both send now, neither counts a byte: both ways
    ("6c_drop_b_to_a_no_psk", (PATH, "high", 2)),   # R answers now, I counts none, no PSK: the way back
])
def test_two_samples_make_a_path_problem_high(load_fixture, case, expected):
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [expected], "r": [expected]}
    one = _lab(load_fixture, case, second=False)
    assert _judged(one) == {"i": [(PATH, "medium", 1)], "r": [(PATH, "medium", 1)]}   # what one sample says


@pytest.mark.parametrize("case", ["3_psk_differs", "6b_drop_b_to_a", "8_both_send_psk_differs", "8b_both_send_drop_b_to_a"])
def test_two_preshared_keys_and_lost_answers_still_cannot_be_told_apart_with_two_samples(load_fixture, case):
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [(CANNOT_TELL, None, 2)], "r": [(CANNOT_TELL, None, 2)]}
    (evidence, text), = never_completes("i", views["i"], views)
    assert evidence["candidates"] == ["the preshared keys differ", "the answers lost on the way back"]
    assert (evidence["tx_bytes"], evidence["tx_bytes_2"], evidence["rx_bytes_2"], evidence["sampled_after_s"]) == (296, 444, 0, 6)
    assert (evidence["other_tx_bytes"], evidence["other_tx_bytes_2"], evidence["other_rx_bytes_2"]) == (184, 276, 444)
    assert "A second reading of both ends' counters: i's tfpska0 sent 148 bytes more (1 initiation) and received 0 more in 6 s; " \
           "r's tfpskb0 sent 92 bytes more and received 148 more in 6 s" in _words(text)
    assert "the attempt happens now" in _words(text) and "the counters cannot tell which" in _words(text)


@pytest.mark.parametrize("case", ["2_psk_initiator_only", "2b_psk_responder_only"])
def test_a_preshared_key_on_one_end_stays_certain(load_fixture, case):
    views = _lab(load_fixture, case)
    assert _judged(views) == {"i": [(MISMATCH, "certain", 2)], "r": [(MISMATCH, "certain", 2)]}


@pytest.mark.parametrize("case", ["1_control", "4_initiator_wrong_key", "5_responder_wrong_key"])
def test_a_working_tunnel_or_a_wrong_key_gives_nothing_with_two_samples_either(load_fixture, case):
    assert _judged(_lab(load_fixture, case)) == {"i": [], "r": []}


def test_the_path_text_says_what_the_two_readings_showed(load_fixture):
    views = _lab(load_fixture, "6a_drop_a_to_b")
    (evidence, text), = never_completes("r", views["r"], views)
    assert evidence["candidates"] == ["the initiations lost before the other end's WireGuard"]
    said = _words(text)
    assert "looks like a path problem (confidence high)" in said
    assert "r's tfpskb0 sent 0 bytes more and received 0 more in 6 s; i's tfpska0 sent 148 bytes more (1 initiation)" in said
    assert "a second sample a few seconds later would show" not in said


def test_the_registry_holds_the_second_reading_in_the_evidence(load_fixture):
    views = _lab(load_fixture, "7_drop_both")
    found = {f["host"]: f["evidence"] for f in find_findings(views) if f["id"] == "handshake_never_completes"}
    assert {host: (e["samples"], e["confidence"], e["sampled_after_s"], e["tx_bytes_2"], e["rx_bytes_2"])
            for host, e in found.items()} == {"i": (2, "high", 6, 444, 0), "r": (2, "high", 6, 0, 0)}


def _with_later(views, host, after=None, **changes):
    """``views`` with ``host``'s second reading of its one entry changed: taken ``after`` s after the facts', or its
    counters (``changes``)."""
    reading = views[host][SECOND_SAMPLE.key]
    if after is not None:
        reading["sampled_at_epoch"] = views[host]["tunnelfix"]["wireguard"]["sampled_at_epoch"] + after
    (entries,) = reading["interfaces"].values()
    (entry,) = entries.values()
    entry.update(changes)
    return views


@pytest.mark.parametrize("case, one_sample", [("6b_drop_b_to_a", (CANNOT_TELL, None)), ("6a_drop_a_to_b", (PATH, "medium"))])
@pytest.mark.parametrize("after, why", [
    (5, "under 6 s: no retry need fall between the readings"),
    (30, "one initiation in 30 s: I did not try throughout, so R's interval may hold none"),
])
def test_a_second_reading_that_cannot_be_read_as_now_leaves_the_one_sample_classification(load_fixture, case, one_sample, after, why):
    views = _with_later(_lab(load_fixture, case), "i", after=after)
    assert [row[:2] for row in _judged(views)["i"]] == [one_sample], why
    assert _judged(views)["i"][0][2] == 1 if after < 6 else 2


def test_counters_that_went_back_mean_a_recreated_entry_and_leave_one_sample(load_fixture):
    views = _with_later(_lab(load_fixture, "6c_drop_b_to_a_no_psk"), "r", rx_bytes=148, tx_bytes=92)   # R restarted
    assert _judged(views) == {"i": [(PATH, "medium", 1)], "r": [(PATH, "medium", 1)]}


def test_no_end_trying_now_keeps_the_one_sample_classification_and_says_so(load_fixture):
    views = _with_later(_lab(load_fixture, "6a_drop_a_to_b"), "i", tx_bytes=296)   # I sent nothing more
    (evidence, text), = never_completes("i", views["i"], views)
    assert (evidence["classification"], evidence["confidence"], evidence["samples"]) == (PATH, "medium", 2)
    assert "which shows no end trying now" in _words(text) and "keep traffic on the tunnel (a ping)" in _words(text)


def test_a_handshake_completed_between_the_readings_gives_no_finding(load_fixture):
    views = _with_later(_lab(load_fixture, "3_psk_differs"), "r", handshake_age_s=3, rx_bytes=2000, tx_bytes=2000)
    assert _judged(views) == {"i": [], "r": []}


def test_the_second_reading_of_an_entry():
    view = {"tunnelfix": {"wireguard": {"sampled_at_epoch": 100}},
            SECOND_SAMPLE.key: {"phase": "before", "sampled_at_epoch": 108,
                                "interfaces": {"wg0": {RESPONDER: {"rx_bytes": 0, "tx_bytes": 444, "handshake_age_s": None}}}}}
    assert second_sample({"i": view}, "i", "wg0", RESPONDER) == {"rx_bytes": 0, "tx_bytes": 444, "handshake_age_s": None,
                                                                 "sampled_after_s": 8}
    assert second_sample({"i": view}, "i", "wg0", WRONG) is None
    assert second_sample({"i": view}, "i", "wg1", RESPONDER) is None
    assert second_sample({"i": dict(view, tunnelfix={"wireguard": {}})}, "i", "wg0", RESPONDER) is None   # facts before this
    assert second_sample({"i": {"openwrt": {"wireguard": {"sampled_at_epoch": 104}}, SECOND_SAMPLE.key: view[SECOND_SAMPLE.key]}},
                         "i", "wg0", RESPONDER)["sampled_after_s"] == 4
    assert second_sample({"i": dict(view, **{SECOND_SAMPLE.key: None})}, "i", "wg0", RESPONDER) is None


def _edge(tx, rx, psk=True):
    return {"tx_bytes": tx, "rx_bytes": rx, "has_preshared_key": psk}


def _later(tx, rx, after=6):
    return {"tx_bytes": tx, "rx_bytes": rx, "handshake_age_s": None, "sampled_after_s": after}


@pytest.mark.parametrize("mine, theirs, expected", [
    ((296, 0, 444, 0), (184, 296, 276, 444), (CANNOT_TELL, None, "psk_or_path_back_out")),
    ((296, 0, 444, 0), (0, 0, 0, 0), (PATH, "high", "path_out")),
    ((0, 0, 0, 0), (296, 0, 444, 0), (PATH, "high", "path_in")),
    ((296, 0, 444, 0), (296, 0, 444, 0), (PATH, "high", "path_both_ways")),
    ((296, 0, 296, 0), (0, 0, 0, 0), None),                       # nobody tries now
    ((296, 0, 400, 0), (0, 0, 0, 0), None),                       # not whole initiations
    ((296, 0, 444, 0), (0, 0, 0, 148), None),                     # the other received and never answered
    ((296, 0, 444, 92), (184, 296, 276, 444), None),              # an answer counted: not the measured pattern
])
def test_classify_growth(mine, theirs, expected):
    first = (_edge(mine[0], mine[1]), _edge(theirs[0], theirs[1]))
    grown = (growth(first[0], _later(mine[2], mine[3])), growth(first[1], _later(theirs[2], theirs[3])))
    assert classify_growth(first[0], first[1], grown[0], grown[1]) == expected


def test_answers_lost_without_preshared_keys_are_high_on_the_way_back():
    mine, theirs = _edge(296, 0, psk=False), _edge(184, 296, psk=False)
    assert classify_growth(mine, theirs, growth(mine, _later(444, 0)), growth(theirs, _later(276, 444))) == (
        PATH, "high", "path_back_out")


@pytest.mark.parametrize("later, expected", [
    (_later(444, 0), {"tx": 148, "rx": 0, "s": 6}),
    (_later(444, 0, after=5), None),
    (_later(200, 0), None),                 # went back: recreated
    (_later(None, 0), None),
    (None, None),
])
def test_growth(later, expected):
    assert growth(_edge(296, 0), later) == expected


@pytest.mark.parametrize("case, hosts", [
    ("1_control", []),                                 # works: nothing to read again
    ("2_psk_initiator_only", []),                      # certain from one sample
    ("3_psk_differs", ["i", "r"]),
    ("6a_drop_a_to_b", ["i", "r"]),
    ("6c_drop_b_to_a_no_psk", ["i", "r"]),
    ("8c_both_send_drop_both", ["i", "r"]),
    ("4_initiator_wrong_key", []),                     # not a pair: one_sided_peer's
])
def test_which_hosts_diagnose_reads_again(load_fixture, case, hosts):
    assert second_sample_hosts(_lab(load_fixture, case, second=False)) == hosts


def test_only_the_ends_of_the_tunnel_that_needs_it_are_read_again(tg):
    """A fleet: hub with a working peer and a peer that knocks into nothing; only that peer and the hub are read."""
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT], counters={tg.PEER: (0, 0), tg.OWRT: (9000, 9000)}, ages={tg.OWRT: 20}),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, counters={tg.HUB: (1480, 0)}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints={tg.HUB: "203.0.113.10:51820"}, counters={tg.HUB: (9000, 9000)})}
    assert second_sample_hosts(views) == ["hub", "peer"]
    assert second_sample_hosts({"owrt": views["owrt"], "hub": views["hub"]}) == []
