# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""one_sided_peer: an entry whose other end (a host of the run) has no entry back; both ends' facts (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided, one_sided_coverage

HUB = "HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH="
PEER = "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE="
OLD = "OLDPEEROLDPEEROLDPEEROLDPEEROLDPEEROLDPEERO="
OWRT = "OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR="


def linux(key, peer_keys, path="/etc/wireguard/wg0.conf"):
    peers = [{"public_key": k, "allowed_ips": ["10.77.0.0/24"]} for k in peer_keys]
    return {"tunnelfix": {"wireguard": {
        "interfaces": {"wg0": {"public_key": key, "listen_port": 51820, "peers": peers}} if key else {},
        "configs": [{"path": path, "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                     "peers": [{"public_key": k} for k in peer_keys]}]}}}


def owrt(key, peer_keys):
    return {"openwrt": {"wireguard": {"interfaces": {"wg0": {
        "in_uci": True, "live": bool(key), "live_state": {"public_key": key} if key else None,
        "peers": [{"public_key": k, "in_uci": True, "live": {"allowed_ips": []} if key else None} for k in peer_keys]}}}}}


def test_both_ends_listing_each_other_is_no_finding():
    views = {"hub": linux(HUB, [PEER, OWRT]), "peer": linux(PEER, [HUB]), "owrt": owrt(OWRT, [HUB])}
    assert [one_sided(host, views[host], views) for host in views] == [[], [], []]
    assert [one_sided_coverage(host, views[host], views) for host in views] == [None, None, None]


def test_a_key_rotated_on_one_side_is_found_on_the_side_whose_entry_has_no_way_back():
    # the peer got a new key; the hub still lists the old one
    views = {"hub": linux(HUB, [OLD]), "peer": linux(PEER, [HUB])}
    (evidence, text), = one_sided("peer", views["peer"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": HUB, "own_public_key": PEER, "other_host": "hub",
                        "other_interface": "wg0", "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf",
                        "other_unknown_keys": [OLD]}
    assert "hub's wg0 has no entry for peer's key %s" % PEER in " ".join(text.split())
    assert "if one is an older key of peer, replace it with %s" % PEER in " ".join(text.split())
    # the hub's entry for the old key: no host of the run has it, so it is not judged there
    assert one_sided("hub", views["hub"], views) == []
    assert one_sided_coverage("hub", views["hub"], views) == ("clear", "judged without 1 peer entry whose other end is not in this run")


def test_an_entry_missing_on_a_router_is_found_on_the_linux_end():
    views = {"hub": linux(HUB, [PEER, OWRT]), "peer": linux(PEER, [HUB]), "owrt": owrt(OWRT, [])}
    found = one_sided("hub", views["hub"], views)
    assert [(e["peer_public_key"], e["other_host"], e["other_unknown_keys"]) for e, _ in found] == [(OWRT, "owrt", [])]
    assert one_sided("owrt", views["owrt"], views) == []


@pytest.mark.parametrize("views, host", [
    ({"hub": linux(HUB, [HUB])}, "hub"),                                          # its own key: another fault
    ({"hub": linux(HUB, [PEER]), "a": linux(PEER, []), "b": linux(PEER, [])}, "hub"),   # a duplicate key: another fault
    ({"hub": linux(HUB, [OWRT]), "owrt": owrt(None, [HUB])}, "owrt"),            # not running: its own key unknown
])
def test_what_one_sided_does_not_judge(views, host):
    assert one_sided(host, views[host], views) == []


def test_an_interface_that_does_not_run_is_not_checked():
    views = {"hub": linux(HUB, [OWRT]), "owrt": owrt(None, [HUB])}
    assert one_sided_coverage("owrt", views["owrt"], views) == (
        "not_checked", "no interface of it runs (its own public key is read from the running interface)")
    assert one_sided_coverage("bare", {"tunnelfix": {"wireguard": {"interfaces": {}, "configs": []}}}, views) == (
        "clear", "does not apply: no WireGuard interface")
    assert one_sided_coverage("none", {}, views) == ("not_checked", "no WireGuard facts were read")


def test_the_finding_through_the_registry():
    views = {"hub": linux(HUB, [OLD]), "peer": linux(PEER, [HUB])}
    findings = [f for f in find_findings(views) if f["id"] == "one_sided_peer"]
    assert [(f["host"], f["severity"], f["fix_role"]) for f in findings] == [("peer", "critical", None)]
    checks = diagnosis(views)["checks"]
    assert checks["peer"]["one_sided_peer"]["status"] == "found"
    assert checks["hub"]["one_sided_peer"]["status"] == "clear"
