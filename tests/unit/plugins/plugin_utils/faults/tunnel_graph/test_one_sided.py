# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""one_sided_peer: an entry whose other end (a host of the run) has no entry back; both ends' facts (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings, finding_outcomes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided, one_sided_coverage


def test_both_ends_listing_each_other_is_no_finding(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT]), "peer": tg.linux(tg.PEER, [tg.HUB]), "owrt": tg.owrt(tg.OWRT, [tg.HUB])}
    assert [one_sided(host, views[host], views) for host in views] == [[], [], []]
    assert [one_sided_coverage(host, views[host], views) for host in views] == [None, None, None]


def test_a_key_rotated_on_one_side_is_found_on_the_side_whose_entry_has_no_way_back(tg):
    # the peer got a new key; the hub still lists the old one
    views = {"hub": tg.linux(tg.HUB, [tg.OLD]), "peer": tg.linux(tg.PEER, [tg.HUB])}
    (evidence, text), = one_sided("peer", views["peer"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": tg.HUB, "own_public_key": tg.PEER, "other_host": "hub",
                        "other_interface": "wg0", "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf",
                        "other_unknown_keys": [tg.OLD], "other_entry": None}
    assert "hub's wg0 runs no entry for peer's key %s" % tg.PEER in " ".join(text.split())
    assert "if one is an older key of peer, replace it with %s" % tg.PEER in " ".join(text.split())
    # the hub's entry for the old key: no host of the run has it, so it is not judged there
    assert one_sided("hub", views["hub"], views) == []
    assert one_sided_coverage("hub", views["hub"], views) == ("clear", "judged without 1 peer entry whose other end is not in this run")


def test_an_entry_missing_on_a_router_is_found_on_the_linux_end(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT]), "peer": tg.linux(tg.PEER, [tg.HUB]), "owrt": tg.owrt(tg.OWRT, [])}
    found = one_sided("hub", views["hub"], views)
    assert [(e["peer_public_key"], e["other_host"], e["other_unknown_keys"]) for e, _text in found] == [(tg.OWRT, "owrt", [])]
    assert one_sided("owrt", views["owrt"], views) == []


@pytest.mark.parametrize("case", ["lists itself", "duplicate key", "not running"])
def test_what_one_sided_does_not_judge(tg, case):
    views, host = {
        "lists itself": ({"hub": tg.linux(tg.HUB, [tg.HUB])}, "hub"),                      # duplicate_public_key's
        "duplicate key": ({"hub": tg.linux(tg.HUB, [tg.PEER]), "a": tg.linux(tg.PEER, []), "b": tg.linux(tg.PEER, [], listen_port=51821)}, "hub"),
        "not running": ({"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(None, [tg.HUB])}, "owrt"),   # own key unknown
    }[case]
    assert one_sided(host, views[host], views) == []


def test_an_interface_that_does_not_run_is_not_checked(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(None, [tg.HUB])}
    assert one_sided_coverage("owrt", views["owrt"], views) == (
        "not_checked", "no interface of it runs (its own public key is read from the running interface)")
    assert one_sided_coverage("bare", {"tunnelfix": {"wireguard": {"interfaces": {}, "configs": []}}}, views) == (
        "clear", "does not apply: no WireGuard interface")
    assert one_sided_coverage("none", {}, views) == ("not_checked", "no WireGuard facts were read")


def test_the_finding_through_the_registry(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OLD]), "peer": tg.linux(tg.PEER, [tg.HUB])}
    findings = [f for f in find_findings(views) if f["id"] == "one_sided_peer"]
    assert [(f["host"], f["severity"], f["fix_role"]) for f in findings] == [("peer", "critical", None)]
    checks = diagnosis(views)["checks"]
    assert checks["peer"]["one_sided_peer"]["status"] == "found"
    assert checks["hub"]["one_sided_peer"]["status"] == "clear"


def test_an_entry_back_only_in_the_file_is_no_way_back(tg):
    # breaker s8: the hub's wg0.conf lists the peer, but no wg syncconf since: the kernel drops the peer's handshakes
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], paper=[tg.PEER]),
             "peer": tg.linux(tg.PEER, [tg.HUB], endpoints={tg.HUB: "203.0.113.1:51820"}, counters={tg.HUB: (14800, 0)})}
    (evidence, text), = one_sided("peer", views["peer"], views)
    assert evidence["other_entry"] == "not running"
    assert "listed in /etc/wireguard/wg0.conf but not running" in " ".join(text.split())
    assert "wg syncconf" in text


def test_a_disabled_uci_entry_back_is_no_way_back(tg):
    # breaker s8b: the router's uci peer for the peer has disabled '1': netifd never gives it to the kernel
    views = {"owrt": tg.owrt(tg.OWRT, [tg.PEER], disabled=[tg.PEER]), "peer": tg.linux(tg.PEER, [tg.OWRT])}
    (evidence, text), = one_sided("peer", views["peer"], views)
    assert evidence["other_entry"] == "disabled"
    assert "disabled '1'" in text


def test_a_disabled_entry_here_is_not_judged(tg):
    # breaker s4: a router keeps a disabled uci peer for a retired hub that no longer lists it
    views = {"owrt": tg.owrt(tg.OWRT, [tg.HUB, tg.OLD], disabled=[tg.OLD]), "hub": tg.linux(tg.HUB, [tg.OWRT]),
             "oldhub": tg.linux(tg.OLD, [])}
    assert one_sided("owrt", views["owrt"], views) == []


def test_a_run_limited_to_one_end_does_not_call_the_finding_fixed(tg):
    # breaker s3: verify --limit peer re-reads the peer only; the hub (whose entry is missing) is not read again
    views = {"hub": tg.linux(tg.HUB, []), "peer": tg.linux(tg.PEER, [tg.HUB])}
    before = [f for f in find_findings(views) if f["id"] == "one_sided_peer"]
    after_views = {"peer": views["peer"]}
    outcomes = finding_outcomes(before, find_findings(after_views), after_views, hosts=["peer"])
    assert [(o["id"], o["outcome"], o["rechecked"]) for o in outcomes if o["id"] == "one_sided_peer"] == [
        ("one_sided_peer", "still_present", False)]
    outcomes = finding_outcomes(before, [], views, hosts=["peer", "hub"])
    assert [(o["outcome"], o["rechecked"]) for o in outcomes if o["id"] == "one_sided_peer"] == [("fixed", True)]


def test_what_one_sided_coverage_says_of_each_host(tg):
    broken = {"openwrt": {"wireguard": {"interfaces": {"wg0": {"live_state": {"public_key": tg.OLD}, "peers": [None]}}}}}
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OLD, "X" * 43 + "="]), "peer": tg.linux(tg.PEER, [tg.HUB]), "lone": tg.linux(tg.OWRT, []),
             "zz": broken, "bare": {"openwrt": {"wireguard": {"interfaces": {}}}}}
    assert one_sided_coverage("hub", views["hub"], views) == ("clear", "judged without 2 peer entries whose other end is not in this run")
    assert one_sided_coverage("lone", views["lone"], views) is None      # runs, lists nobody: judged
    assert one_sided_coverage("zz", views["zz"], views) == (
        "not_checked", "its WireGuard facts have an unexpected shape (AttributeError: 'NoneType' object has no attribute 'get')")
    assert one_sided_coverage("bare", views["bare"], views) == ("clear", "does not apply: no WireGuard interface")


def test_entries_not_judged_or_with_a_way_back_hide_no_finding_after_them(tg):
    # p's entries in key order: HUB (no host of the run has it), OLD (a runs an entry back), OWRT (the router lists nobody)
    views = {"p": tg.linux(tg.PEER, [tg.HUB, tg.OLD, tg.OWRT]), "a": tg.linux(tg.OLD, [tg.PEER]), "owrt": tg.owrt(tg.OWRT, [])}
    assert [evidence["peer_public_key"] for evidence, _text in one_sided("p", views["p"], views)] == [tg.OWRT]
