# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""one_sided_peer: an entry whose other end (a host of the run) has no entry back; both ends' facts (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
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
                        "other_unknown_keys": [tg.OLD]}
    assert "hub's wg0 has no entry for peer's key %s" % tg.PEER in " ".join(text.split())
    assert "if one is an older key of peer, replace it with %s" % tg.PEER in " ".join(text.split())
    # the hub's entry for the old key: no host of the run has it, so it is not judged there
    assert one_sided("hub", views["hub"], views) == []
    assert one_sided_coverage("hub", views["hub"], views) == ("clear", "judged without 1 peer entry whose other end is not in this run")


def test_an_entry_missing_on_a_router_is_found_on_the_linux_end(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER, tg.OWRT]), "peer": tg.linux(tg.PEER, [tg.HUB]), "owrt": tg.owrt(tg.OWRT, [])}
    found = one_sided("hub", views["hub"], views)
    assert [(e["peer_public_key"], e["other_host"], e["other_unknown_keys"]) for e, _ in found] == [(tg.OWRT, "owrt", [])]
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
