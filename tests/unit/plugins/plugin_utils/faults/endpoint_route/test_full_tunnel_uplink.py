# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""full_tunnel_uplink (faults/endpoint_route/uplinks.py): which default route a full tunnel's endpoint host route takes.

The role's hotplug hook is pinned to this function event by event in tests/unit/roles/test_openwrt_mwan3_wg_hook.py;
here the rule itself, on the routes a router prints (``ip -4 route show default table main``), each boundary both ways."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import full_tunnel_uplink

FIBRE = "default via 192.0.2.1 dev eth1 proto static metric 10\n"
FIVE_G = "default via 198.51.100.1 dev wwan0 proto static metric 5\n"
LTE = "default via 203.0.113.1 dev wwan1 proto static metric 30\n"
ETH1, WWAN0, WWAN1 = ({"device": "eth1", "gateway": "192.0.2.1"}, {"device": "wwan0", "gateway": "198.51.100.1"},
                      {"device": "wwan1", "gateway": "203.0.113.1"})


@pytest.mark.parametrize("routes, kwargs, expected", [
    (FIVE_G + FIBRE, {}, WWAN0),                                            # no preference: the lowest metric
    (FIVE_G + FIBRE, {"preferred": "eth1"}, ETH1),                          # the preferred one, whatever its metric
    (FIVE_G + FIBRE, {"preferred": ""}, WWAN0),
    (FIVE_G + FIBRE, {"preferred": "eth9"}, WWAN0),                         # preferred without a route: by metric
    (FIVE_G + FIBRE, {"preferred": "eth1", "down": ["eth1"]}, WWAN0),       # preferred but down
    (FIVE_G + FIBRE, {"down": ("wwan0",)}, ETH1),
    (FIVE_G + FIBRE, {"down": ("wwan0", "eth1")}, None),                    # nothing usable
    (FIVE_G + FIBRE, {"metered": ("wwan0",)}, ETH1),                        # metered: ridden only when nothing else is
    (FIVE_G + FIBRE, {"metered": ["wwan0"], "down": ["eth1"]}, WWAN0),
    (FIVE_G + FIBRE, {"metered": ("eth1",), "preferred": "eth1"}, WWAN0),   # a metered preferred uplink is left too
    (FIVE_G + FIBRE, {"metered": ("wwan0",), "preferred": "wwan0"}, ETH1),  # ... even with the lower metric
    (FIVE_G + FIBRE, {"metered": ("eth1", "wwan0"), "preferred": "eth1"}, ETH1),  # all metered: the preferred first
    (FIVE_G + FIBRE, {"metered": ("eth1", "wwan0")}, WWAN0),                 # all metered, no preference: by metric
    (FIVE_G + FIBRE + LTE, {"metered": ("wwan0",), "down": ("eth1",)}, WWAN1),  # an unmetered higher metric first
    (FIVE_G + FIBRE + LTE, {"metered": ("wwan0",), "preferred": "eth1", "down": ("eth1",)}, WWAN1),
    # a WireGuard interface is never an uplink, handled or not
    ("default via 10.7.0.1 dev wg1 metric 1\n" + FIBRE, {"wireguard": ("wg0", "wg1")}, ETH1),
    ("default via 10.7.0.1 dev wg1 metric 1\n" + FIBRE, {"wireguard": None, "down": None, "metered": None},
     {"device": "wg1", "gateway": "10.7.0.1"}),
    ("default via 10.7.0.1 dev wg0 metric 1\n", {"wireguard": ["wg0"]}, None),
    ("", {}, None),
])
def test_the_uplink_taken(routes, kwargs, expected):
    assert full_tunnel_uplink(routes, **kwargs) == expected


@pytest.mark.parametrize("routes, expected", [
    # a usable route has a gateway and a device; unicast default routes only (no unreachable, no nexthop line)
    ("default dev wwan0 scope link metric 1\ndefault via 192.0.2.9 metric 0\n" + FIBRE, ETH1),
    ("unreachable default metric 1\n\n   \ndefault proto static metric 2\n\tnexthop via 198.51.100.1 dev wwan0 weight 1\n" + FIBRE, ETH1),
    ("192.0.2.0/24 via 192.0.2.9 dev eth9 metric 0\n" + FIBRE, ETH1),          # not a default route
    # the metric: not printed is 0, no digits is 0, leading digits count, the last "metric" wins, one lower wins
    ("default via 198.51.100.1 dev wwan0 metric 1\ndefault via 192.0.2.1 dev eth1\n", ETH1),
    ("default via 192.0.2.1 dev eth1 metric 1\ndefault via 198.51.100.1 dev wwan0 metric x\n", WWAN0),
    ("default via 192.0.2.1 dev eth1 metric 12\ndefault via 198.51.100.1 dev wwan0 metric 11x\n", WWAN0),
    ("default via 192.0.2.1 dev eth1 metric 2\ndefault via 198.51.100.1 dev wwan0 metric 50 metric 1\n", WWAN0),
    ("default via 198.51.100.1 dev wwan0 metric 10\ndefault via 192.0.2.1 dev eth1 metric 9\n", ETH1),
    ("default via 198.51.100.1 dev wwan0 metric 10\ndefault via 192.0.2.1 dev eth1 metric 10\n", WWAN0),   # equal: listed first
    ("default via 198.51.100.1 dev wwan0 metric 1 via 203.0.113.1 dev wwan1\n", WWAN1),   # repeated words: the last one
])
def test_what_a_usable_route_and_its_metric_are(routes, expected):
    assert full_tunnel_uplink(routes) == expected
