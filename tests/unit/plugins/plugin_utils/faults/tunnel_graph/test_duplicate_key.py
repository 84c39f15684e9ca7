# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""duplicate_public_key: one key on two running interfaces of the run, or an interface listing its own key (fake keys)."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.duplicate_key import duplicate_keys


def test_a_key_on_two_interfaces_is_found_on_both_with_who_lists_it(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "clone": tg.owrt(tg.PEER, [tg.HUB])}
    for host, other in (("peer", "clone/wg0"), ("clone", "peer/wg0")):
        (evidence, text), = duplicate_keys(host, views[host], views)
        assert evidence == {"interface": "wg0", "public_key": tg.PEER, "kind": "duplicate", "also_on": [other], "listed_by": ["hub/wg0"]}
        assert "and so does %s" % other in " ".join(text.split())
    assert duplicate_keys("hub", views["hub"], views) == []


def test_an_interface_listing_its_own_key_is_found(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.HUB, tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB])}
    (evidence, text), = duplicate_keys("hub", views["hub"], views)
    assert evidence == {"interface": "wg0", "public_key": tg.HUB, "kind": "self", "also_on": [], "listed_by": ["hub/wg0"]}
    assert "(/etc/wireguard/wg0.conf)" in text


def test_unique_keys_and_interfaces_that_do_not_run_give_no_duplicate(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "down": tg.owrt(None, [tg.HUB]), "down2": tg.owrt(None, [tg.HUB])}
    assert [duplicate_keys(host, views[host], views) for host in views] == [[], [], [], []]


def test_duplicate_keys_through_the_registry(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER]), "peer": tg.linux(tg.PEER, [tg.HUB]), "clone": tg.linux(tg.PEER, [tg.HUB], listen_port=51821)}
    found = sorted((f["host"], f["evidence"]["kind"]) for f in find_findings(views) if f["id"] == "duplicate_public_key")
    assert found == [("clone", "duplicate"), ("peer", "duplicate")]
