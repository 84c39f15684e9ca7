# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""describe_endpoint_route: the route ``ip route get`` chose, looked up in ``ip -j route show table all``."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.endpoint_route import describe_endpoint_route
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import parse_ip_route_get, parse_ip_route_show


def _described(load_fixture, show, get, address):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", show))
    return describe_endpoint_route(parse_ip_route_get(load_fixture("ip_j_route_get", get)), routes, address)


def test_endpoint_pinned_on_the_openwrt_image(load_fixture):
    described = _described(load_fixture, "openwrt_image_endpoint_pinned.txt", "openwrt_image_endpoint_pinned.txt",
                           "203.0.113.10")
    assert {key: described[key] for key in ("dev", "gateway", "table", "dst", "protocol", "metric")} == {
        "dev": "eth0", "gateway": "10.88.0.1", "table": "main", "dst": "203.0.113.10", "protocol": "static",
        "metric": None}
    assert described["host_route"]["dst"] == "203.0.113.10"
    assert described["host_route"]["protocol"] == "static"
    assert described["static_host_route"] is True


def test_endpoint_pinned_to_the_backup_uplink(load_fixture):
    # case 01 rebuilt: the /32 (metric 20 via wwan0) beats the wwan0 default route (also metric 20)
    described = _described(load_fixture, "endpoint_pinned_to_backup_table_all.txt", "endpoint_via_backup.txt",
                           "203.0.113.10")
    assert (described["dev"], described["dst"], described["protocol"], described["metric"]) == \
        ("wwan0", "203.0.113.10", "static", 20)
    assert described["static_host_route"] is True


def test_address_reached_through_the_default_route_only(load_fixture):
    # 203.0.113.99 has no route of its own: only the eth1 default covers it (not the wwan0 /32 of .10)
    described = _described(load_fixture, "endpoint_pinned_to_backup_table_all.txt", "via_primary_default.txt",
                           "203.0.113.99")
    assert (described["dev"], described["gateway"], described["dst"], described["protocol"], described["metric"]) == \
        ("eth1", "192.0.2.1", "default", "static", 10)
    assert described["host_route"] is None
    assert described["static_host_route"] is False


def test_tunnel_subnet_route_without_gateway(load_fixture):
    # 192.168.20.5: a LAN behind the tunnel, routed on-link through wg0
    described = _described(load_fixture, "endpoint_pinned_to_backup_table_all.txt", "tunnel_subnet.txt", "192.168.20.5")
    assert (described["dev"], described["gateway"], described["dst"], described["protocol"]) == \
        ("wg0", None, "192.168.20.0/24", "static")


def _routes(*entries):
    return parse_ip_route_show(json.dumps(list(entries)))


def _used(**route):
    return parse_ip_route_get(json.dumps([dict(route, flags=[], uid=0, cache=[])]))


def test_longest_prefix_wins_over_the_default_route_on_the_same_device():
    routes = _routes({"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 10},
                     {"dst": "0.0.0.0/1", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "boot"})
    described = describe_endpoint_route(_used(dst="10.1.2.3", gateway="192.0.2.1", dev="eth1"), routes, "10.1.2.3")
    assert (described["dst"], described["protocol"], described["metric"]) == ("0.0.0.0/1", "boot", None)


def test_same_prefix_the_first_printed_route_wins():
    # the kernel prints the lower metric first and uses it
    routes = _routes({"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 10},
                     {"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "dhcp", "metric": 20})
    described = describe_endpoint_route(_used(dst="203.0.113.10", gateway="192.0.2.1", dev="eth1"), routes, "203.0.113.10")
    assert (described["protocol"], described["metric"]) == ("static", 10)


def test_a_route_through_another_gateway_is_not_the_one_used():
    routes = _routes({"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 10},
                     {"dst": "default", "gateway": "192.0.2.254", "dev": "eth1", "protocol": "dhcp", "metric": 20})
    described = describe_endpoint_route(_used(dst="203.0.113.10", gateway="192.0.2.254", dev="eth1"), routes,
                                        "203.0.113.10")
    assert (described["gateway"], described["protocol"], described["metric"]) == ("192.0.2.254", "dhcp", 20)


def test_policy_table_named_by_route_get_is_searched_alone(load_fixture):
    # mwan3-like: ip route get names table 2; main's wwan0 /32 (a longer prefix) is another table's route
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"))
    used = _used(dst="203.0.113.10", gateway="198.51.100.1", dev="wwan0", table="2", prefsrc="198.51.100.20")
    described = describe_endpoint_route(used, routes, "203.0.113.10")
    assert (described["table"], described["dst"], described["protocol"], described["metric"]) == \
        ("2", "default", "static", 20)
    # the pinned /32 is still reported, from whichever table holds it
    assert described["host_route"]["table"] == "main"
    assert described["static_host_route"] is True


def test_no_matching_route_gives_none():
    routes = _routes({"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 10})
    described = describe_endpoint_route(_used(dst="10.9.9.9", dev="wg0"), routes, "10.9.9.9")
    assert described == {"dev": "wg0", "gateway": None, "table": "main", "dst": None, "protocol": None, "metric": None,
                         "host_route": None, "static_host_route": False}


def test_kernel_host_route_is_not_a_static_pin():
    # a point-to-point peer route the kernel adds with the address (ip addr add ... peer ...)
    routes = _routes({"dst": "10.64.64.64", "dev": "ppp0", "protocol": "kernel", "scope": "link", "prefsrc": "10.1.1.2"})
    described = describe_endpoint_route(_used(dst="10.64.64.64", dev="ppp0", prefsrc="10.1.1.2"), routes, "10.64.64.64")
    assert described["dst"] == "10.64.64.64"
    assert described["host_route"]["protocol"] == "kernel"
    assert described["static_host_route"] is False


def test_own_address_local_route_is_not_a_way_out(load_fixture):
    # recorded `ip -j -6 route get ::1` (iproute2-6.1.0): IPv6 names the local table
    used = parse_ip_route_get('[{"type":"local","dst":"::1","from":"::","dev":"lo","table":"local","protocol":"kernel",'
                              '"prefsrc":"::1","metric":0,"flags":[],"pref":"medium"}]')
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "openwrt_image_endpoint_pinned.txt"))
    described = describe_endpoint_route(used, routes, "::1")
    assert (described["table"], described["dst"], described["protocol"], described["metric"]) == ("local", None, None, None)
    assert described["host_route"] is None


def test_raw_iproute2_json_without_table_and_type_reads_as_main_unicast(load_fixture):
    # iproute2 leaves out "table" for main and "type" for unicast; the raw JSON describes like the parsed routes
    raw = json.loads(load_fixture("ip_j_route_show", "openwrt_image_endpoint_pinned.txt"))
    used = parse_ip_route_get(load_fixture("ip_j_route_get", "openwrt_image_endpoint_pinned.txt"))
    described = describe_endpoint_route(used, raw, "203.0.113.10")
    assert (described["table"], described["dst"], described["protocol"]) == ("main", "203.0.113.10", "static")
    assert described["static_host_route"] is True


@pytest.mark.parametrize("address", ["vpn.example.net", ""])
def test_not_an_address_is_refused(address):
    with pytest.raises(ValueError):
        describe_endpoint_route({"dev": "eth0"}, [], address)


V4_DEFAULT = {"dst": "default", "gateway": "192.0.2.1", "dev": "eth1", "protocol": "static", "metric": 10}
V6_DEFAULT = {"dst": "default", "gateway": "fe80::1", "dev": "eth1", "protocol": "ra", "metric": 1024, "pref": "medium"}
DEV_DEFAULT = {"dst": "default", "dev": "eth1", "protocol": "static", "metric": 5}  # no address: family unknown


@pytest.mark.parametrize("routes, address, dst, protocol", [
    ((V4_DEFAULT,), "203.0.113.10", "default", "static"),
    ((V4_DEFAULT,), "2001:db8::10", None, None),                # ip route show lists IPv4: its default is no IPv6 route
    ((V4_DEFAULT,), "::ffff:203.0.113.10", None, None),         # IPv4-mapped is IPv6 to the kernel
    ((V6_DEFAULT,), "2001:db8::10", "default", "ra"),
    ((V6_DEFAULT,), "203.0.113.10", None, None),
    ((V6_DEFAULT, V4_DEFAULT), "203.0.113.10", "default", "static"),
    ((V4_DEFAULT, V6_DEFAULT), "2001:db8::10", "default", "ra"),
    ((DEV_DEFAULT,), "203.0.113.10", "default", "static"),      # unknown family: either
    ((DEV_DEFAULT,), "2001:db8::10", "default", "static"),
])
def test_a_default_route_carries_only_its_own_family(routes, address, dst, protocol):
    described = describe_endpoint_route(_used(dst=address, dev="eth1"), _routes(*routes), address)
    assert (described["dst"], described["protocol"]) == (dst, protocol)


WIDE = {"dst": "10.0.0.0/8", "dev": "wg0", "protocol": "static", "metric": 8}
NARROW = {"dst": "10.1.0.0/16", "dev": "wg0", "protocol": "static", "metric": 16}


@pytest.mark.parametrize("routes, address, dst", [
    ((WIDE, NARROW), "10.1.2.3", "10.1.0.0/16"),
    ((NARROW, WIDE), "10.1.2.3", "10.1.0.0/16"),
    ((WIDE, NARROW), "10.1.255.255", "10.1.0.0/16"),
    ((WIDE, NARROW), "10.2.0.0", "10.0.0.0/8"),             # just past the /16
    ((WIDE, NARROW), "10.0.255.255", "10.0.0.0/8"),         # just before it
    ((WIDE, NARROW), "11.0.0.0", None),
    (({"dst": "2001:db8::/32", "dev": "wg0", "pref": "medium"}, {"dst": "2001:db8:1::/48", "dev": "wg0", "pref": "medium"}),
     "2001:db8:1::7", "2001:db8:1::/48"),
    (({"dst": "2001:db8::/32", "dev": "wg0", "pref": "medium"}, {"dst": "2001:db8:1::/48", "dev": "wg0", "pref": "medium"}),
     "2001:db8:2::7", "2001:db8::/32"),
])
def test_overlapping_prefixes_the_longest_holding_the_address_wins(routes, address, dst):
    described = describe_endpoint_route(_used(dst=address, dev="wg0"), _routes(*routes), address)
    assert described["dst"] == dst


@pytest.mark.parametrize("address", ["300.1.1.1", "10.0.0.0/8", "[::1]"])
def test_not_an_address_is_refused_naming_it(address):
    with pytest.raises(ParseError, match=r"describe_endpoint_route: '.*' is not an IP address"):
        describe_endpoint_route({"dev": "eth0"}, [], address)
