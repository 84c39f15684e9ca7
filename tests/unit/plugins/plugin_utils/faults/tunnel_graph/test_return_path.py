# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""return_path_not_allowed: the other end's AllowedIPs for a host leave out that host's tunnel address (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.return_path import missing_sources, return_path


@pytest.mark.parametrize("addresses, allowed, missing", [
    (["10.77.0.2/24"], ["10.77.0.2/32"], []),
    (["10.77.0.2/24"], ["10.77.0.0/24", "192.168.20.0/24"], []),
    (["10.77.0.2/24"], ["10.77.0.3/32"], ["10.77.0.2/24"]),
    (["10.77.0.2/24", "fd77::2/64"], ["10.77.0.0/24"], ["fd77::2/64"]),
    (["10.77.0.2/24", "fd77::2/64"], ["0.0.0.0/0", "::/0"], []),
    (["10.77.0.2/24"], [], ["10.77.0.2/24"]),            # the entry lost its prefixes: (none)
    (["fe80::2/64", "169.254.7.1/16"], [], []),        # link-local: never a source to allow
    (["10.77.0.2/24"], ["::/0"], ["10.77.0.2/24"]),      # the other family holds no IPv4 address
    (["not-an-address"], [], []),
    (None, [], []),
])
def test_missing_sources(addresses, allowed, missing):
    assert missing_sources(addresses, allowed) == missing


def test_an_entry_that_does_not_allow_the_other_ends_address_is_found_on_its_host(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], addresses=["10.77.0.1/24"], allowed={tg.PEER: ["10.77.0.3/32"]}),
             "peer": tg.linux(tg.PEER, [tg.HUB], addresses=["10.77.0.2/24"])}
    (evidence, text), = return_path("hub", views["hub"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": tg.PEER, "allowed_ips": ["10.77.0.3/32"], "other_host": "peer",
                        "other_interface": "wg0", "other_addresses": ["10.77.0.2/24"], "missing": ["10.77.0.2/24"],
                        "owner": "wg-quick", "owner_path": "/etc/wireguard/wg0.conf"}
    assert "Add 10.77.0.2/32 to that entry's AllowedIPs (/etc/wireguard/wg0.conf)" in " ".join(text.split())
    assert return_path("peer", views["peer"], views) == []   # the peer's entry for the hub allows 10.77.0.0/24
    assert [(f["host"], f["id"]) for f in find_findings(views) if f["id"] == "return_path_not_allowed"] == [
        ("hub", "return_path_not_allowed")]


def test_a_router_whose_uci_addresses_the_hub_does_not_allow(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT], allowed={tg.OWRT: ["10.77.0.0/24"]}),
             "owrt": tg.owrt(tg.OWRT, [tg.HUB], addresses=["10.77.0.3/24", "fd77::3/64"])}
    (evidence, _text), = return_path("hub", views["hub"], views)
    assert evidence["missing"] == ["fd77::3/64"]


def test_addresses_not_read_or_entries_not_running_are_not_judged(tg):
    views = {"hub": tg.linux(tg.HUB, [tg.PEER], allowed={tg.PEER: []}), "peer": tg.linux(tg.PEER, [tg.HUB], addresses=None)}
    assert return_path("hub", views["hub"], views) == []    # the peer's addresses are not known (a .netdev, wg set)
    views = {"hub": tg.linux(tg.HUB, [tg.OWRT]), "owrt": tg.owrt(None, [tg.HUB], addresses=["10.9.9.9/32"])}
    assert return_path("owrt", views["owrt"], views) == []  # not running: its AllowedIPs are not the kernel's
