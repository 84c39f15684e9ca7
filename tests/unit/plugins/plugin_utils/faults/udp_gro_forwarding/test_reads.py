# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the udp_gro gathers hand the reader as each tunnel's underlay (the routes to its peers' endpoints), from the
Linux ``wireguard``/``routes`` facts and OpenWrt's ``endpoint_routes``, and where a view keeps the udp_gro facts."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.reads import (
    linux_endpoint_routes, openwrt_endpoint_routes, udp_gro_facts)

ETH0 = {"dev": "eth0", "gateway": "192.0.2.1", "kind": "via_gateway"}
ETH1 = {"dev": "eth1", "gateway": None, "kind": "on_link"}


def peers(*hosts):
    return {"peers": [{"public_key": "k%d" % index, "endpoint_host": host} for index, host in enumerate(hosts)]}


@pytest.mark.parametrize("wireguard, endpoints, expected", [
    # two peers of wg0 behind one route: the hop once; wg1's peer leaves through eth1 (on-link: no gateway)
    ({"interfaces": {"wg0": peers("203.0.113.5", "203.0.113.6"), "wg1": peers("198.51.100.9")}},
     {"203.0.113.5": ETH0, "203.0.113.6": ETH0, "198.51.100.9": ETH1},
     {"wg0": [("eth0", "192.0.2.1")], "wg1": [("eth1", None)]}),
    # one interface, two routes: both, in the peers' order
    ({"interfaces": {"wg0": peers("198.51.100.9", "203.0.113.5")}}, {"203.0.113.5": ETH0, "198.51.100.9": ETH1},
     {"wg0": [("eth1", None), ("eth0", "192.0.2.1")]}),
    # a peer without an endpoint, or whose route was not read, gives nothing; the next peer still counts
    ({"interfaces": {"wg0": peers(None, "203.0.113.7", "203.0.113.5")}}, {"203.0.113.5": ETH0},
     {"wg0": [("eth0", "192.0.2.1")]}),
    ({"interfaces": {"wg0": {"peers": None}, "wg1": {}}}, {"203.0.113.5": ETH0}, {}),
    ({"interfaces": None}, {"203.0.113.5": ETH0}, {}),
    ({}, {}, {}),
    ({"interfaces": {"wg0": peers("203.0.113.5")}}, None, {}),
])
def test_linux_endpoint_routes(wireguard, endpoints, expected):
    assert linux_endpoint_routes(wireguard, {"default": [], "endpoints": endpoints}) == expected


def test_linux_endpoint_routes_without_the_endpoints_read():
    assert linux_endpoint_routes({"interfaces": {"wg0": peers("203.0.113.5")}}, {"default": []}) == {}


@pytest.mark.parametrize("endpoints, expected", [
    ([{"interface": "wg0", "host": "203.0.113.5", "dev": "wan", "gateway": "192.0.2.1"},
      {"interface": "wg0", "host": "203.0.113.6", "dev": "wan", "gateway": "192.0.2.1"},     # the same hop: once
      {"interface": "wg0", "host": "198.51.100.9", "dev": "wwan0", "gateway": None},
      {"interface": "wg1", "host": "203.0.113.5", "dev": "wan", "gateway": "192.0.2.1"}],     # another tunnel: its own
     {"wg0": [("wan", "192.0.2.1"), ("wwan0", None)], "wg1": [("wan", "192.0.2.1")]}),
    # an endpoint whose route has no device (not resolved) gives no hop; the next one still counts
    ([{"interface": "wg0", "host": "203.0.113.5", "dev": None, "gateway": None},
      {"interface": "wg0", "host": "203.0.113.6", "dev": "wan", "gateway": "192.0.2.1"}],
     {"wg0": [("wan", "192.0.2.1")]}),
    ([], {}),
    (None, {}),
])
def test_openwrt_endpoint_routes(endpoints, expected):
    assert openwrt_endpoint_routes({"routes_source": "ip -j route show table all", "endpoints": endpoints}) == expected


@pytest.mark.parametrize("view, expected", [
    ({"tunnelfix": {"udp_gro": {"ip_forward": 1}}}, {"ip_forward": 1}),
    ({"openwrt": {"udp_gro": {"ip_forward": 0}}}, {"ip_forward": 0}),
    ({"tunnelfix": {"udp_gro": {"ip_forward": 1}}, "openwrt": {"udp_gro": {"ip_forward": 0}}}, {"ip_forward": 1}),
    ({"tunnelfix": {"udp_gro": None}, "openwrt": {"udp_gro": {"ip_forward": 0}}}, {"ip_forward": 0}),
    ({"tunnelfix": None, "openwrt": {"udp_gro": {"ip_forward": 0}}}, {"ip_forward": 0}),
    ({"tunnelfix": {"udp_gro": "not read"}}, {}),
    ({"tunnelfix": {}, "openwrt": {}}, {}),
    ({}, {}),
])
def test_udp_gro_facts(view, expected):
    assert udp_gro_facts(view) == expected
