# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's rule on both sides of each decision: split/full, pinned or not, preferred device known or not."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route_pinned import pinned_endpoints


def view(dev="wwan0", tunnel="split", pinned=("203.0.113.7/32 dev wwan0",), preferred="eth1"):
    return {"preferred_uplink_device": preferred, "openwrt": {
        "wireguard": {"interfaces": {"wg0": {"tunnel": tunnel}}},
        "endpoint_routes": {"endpoints": [{"interface": "wg0", "address": "203.0.113.7", "dev": dev,
                                           "gateway": "10.64.0.1", "pinned_routes": list(pinned)}]}}}


def test_a_split_tunnel_pinned_to_the_backup_is_found_with_its_evidence():
    [(evidence, explanation)] = pinned_endpoints("owrt", view(), {})
    assert evidence == {"interface": "wg0", "endpoint": "203.0.113.7", "dev": "wwan0", "gateway": "10.64.0.1",
                        "preferred_uplink_device": "eth1", "pinned_routes": ["203.0.113.7/32 dev wwan0"]}
    assert "nohostroute=1" in explanation and "wwan0" in explanation


@pytest.mark.parametrize("changes, why", [
    ({"dev": "eth1"}, "already on the preferred uplink"),
    ({"tunnel": "full"}, "a full tunnel keeps its /32"),
    ({"tunnel": None}, "split or full unknown: no guess"),
    ({"pinned": ()}, "no pinned route"),
    ({"preferred": None}, "preferred uplink unknown: no guess"),
])
def test_no_finding(changes, why):
    assert pinned_endpoints("owrt", view(**changes), {}) == [], why


def test_no_facts_no_finding():
    assert pinned_endpoints("owrt", {}, {}) == []


def test_an_endpoint_already_right_does_not_hide_the_next_one():
    v = view()
    right = dict(v["openwrt"]["endpoint_routes"]["endpoints"][0], dev="eth1", address="203.0.113.8")
    v["openwrt"]["endpoint_routes"]["endpoints"].insert(0, right)
    assert [evidence["endpoint"] for evidence, _text in pinned_endpoints("owrt", v, {})] == ["203.0.113.7"]


def test_the_explanation_names_the_endpoint_interface_device_and_preferred_uplink():
    [(_evidence, text)] = pinned_endpoints("owrt", view(), {})
    assert "endpoint 203.0.113.7 of wg0 is reached through wwan0, not the preferred uplink eth1" in " ".join(text.split())
