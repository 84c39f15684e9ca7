# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_ip_route_show/_get (JSON and text), find_host_route, default_routes."""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import (
    default_routes,
    find_host_route,
    parse_ip_route_get,
    parse_ip_route_get_text,
    parse_ip_route_show,
    parse_ip_route_show_text,
    route_network,
)

# The lab namespace rebuilds case 01: primary eth1 (metric 10), backup wwan0 (metric 20), and the
# WireGuard endpoint's /32 pinned to the backup by netifd; tables 1 and 2 stand in for mwan3.
PINNED = {"dst": "203.0.113.10", "type": "unicast", "dev": "wwan0", "gateway": "198.51.100.1", "prefsrc": None,
          "protocol": "static", "scope": None, "table": "main", "metric": 20, "flags": [], "nexthops": [],
          "family": "inet"}

SHOW_CASES = [
    # (fixture, route count, index, expected route)
    ("endpoint_pinned_to_backup.txt", 8, 7, PINNED),
    ("endpoint_pinned_to_backup.txt", 8, 0,
     {"dst": "default", "type": "unicast", "dev": "eth1", "gateway": "192.0.2.1", "prefsrc": "192.0.2.20",
      "protocol": "static", "scope": None, "table": "main", "metric": 10, "flags": [], "nexthops": [],
      "family": "inet"}),
    ("endpoint_pinned_to_backup.txt", 8, 2,
     {"dst": "10.77.0.0/24", "type": "unicast", "dev": "wg0", "gateway": None, "prefsrc": "10.77.0.2",
      "protocol": "kernel", "scope": "link", "table": "main", "metric": None, "flags": [], "nexthops": [],
      "family": "inet"}),
    ("endpoint_pinned_to_backup_table_all.txt", 53, 0,
     {"dst": "default", "type": "unicast", "dev": "eth1", "gateway": "192.0.2.1", "prefsrc": None,
      "protocol": "static", "scope": None, "table": "1", "metric": 10, "flags": [], "nexthops": [],
      "family": "inet"}),
    ("endpoint_pinned_to_backup_table_all.txt", 53, 10,
     {"dst": "10.77.0.2", "type": "local", "dev": "wg0", "gateway": None, "prefsrc": "10.77.0.2",
      "protocol": "kernel", "scope": "host", "table": "local", "metric": None, "flags": [], "nexthops": [],
      "family": "inet"}),
    ("endpoint_pinned_to_backup_table_all.txt", 53, 23,
     {"dst": "2001:db8:10::10", "type": "unicast", "dev": "wwan0", "gateway": "2001:db8:2::1", "prefsrc": None,
      "protocol": "static", "scope": None, "table": "main", "metric": 20, "flags": [], "nexthops": [],
      "family": "inet6"}),
    ("multipath_unreachable_blackhole.txt", 3, 2,
     {"dst": "203.0.113.0/24", "type": "unicast", "dev": None, "gateway": None, "prefsrc": None,
      "protocol": "static", "scope": None, "table": "main", "metric": None, "flags": [],
      "nexthops": [{"gateway": "192.0.2.1", "dev": "eth1", "weight": 1},
                   {"gateway": "198.51.100.1", "dev": "wwan0", "weight": 2}],
      "family": "inet"}),
    ("multipath_unreachable_blackhole.txt", 3, 0,
     {"dst": "default", "type": "unreachable", "dev": None, "gateway": None, "prefsrc": None, "protocol": None,
      "scope": None, "table": "main", "metric": 100, "flags": [], "nexthops": [], "family": None}),
    ("full_tunnel_split_default.txt", 4, 0,
     {"dst": "0.0.0.0/1", "type": "unicast", "dev": "wg0", "gateway": None, "prefsrc": None, "protocol": "static",
      "scope": "link", "table": "main", "metric": None, "flags": [], "nexthops": [], "family": "inet"}),
    ("host.txt", 2, 0,
     {"dst": "default", "type": "unicast", "dev": "eth0", "gateway": "192.0.2.1", "prefsrc": None, "protocol": None,
      "scope": None, "table": "main", "metric": None, "flags": [], "nexthops": [], "family": "inet"}),
    ("host_table_all.txt", 14, 9,
     {"dst": "default", "type": "unicast", "dev": "eth0", "gateway": "fd00::1", "prefsrc": None, "protocol": None,
      "scope": None, "table": "main", "metric": 1024, "flags": [], "nexthops": [], "family": "inet6"}),
]


@pytest.mark.parametrize("case, count, index, expected", SHOW_CASES)
def test_parse_ip_route_show(load_fixture, case, count, index, expected):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", case))
    assert len(routes) == count
    assert routes[index] == expected


def test_parse_ip_route_show_default_table(load_fixture):
    # recorded with `ip -j route show table 3`: iproute2 leaves out the table it was asked for
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "multipath_unreachable_blackhole.txt"), "3")
    assert {route["table"] for route in routes} == {"3"}


@pytest.mark.parametrize("case", [
    "endpoint_pinned_to_backup.txt",
    "endpoint_pinned_to_backup_table_all.txt",
    "multipath_unreachable_blackhole.txt",
    "full_tunnel_split_default.txt",
])
def test_text_and_json_agree(load_fixture, case):
    # both recorded from the same namespace state, one right after the other
    assert parse_ip_route_show_text(load_fixture("ip_route_show", case)) == \
        parse_ip_route_show(load_fixture("ip_j_route_show", case))


def test_case01_lan_gateway_edge(load_fixture):
    """Case 01 on an older router: the endpoint's /32 via the router's own LAN address (the plan deletes it as given)."""
    text = "".join(line for line in load_fixture("ip_route_show", "case01_lan_gateway.txt").splitlines(True)
                   if not line.startswith("#"))
    routes = parse_ip_route_show_text(text)
    assert [(route["dst"], route["dev"], route["gateway"]) for route in routes] == [
        ("default", "eth0.2", "192.0.2.1"), ("10.77.0.0/24", "wg0", None), ("203.0.113.10", "br-lan", "192.168.10.1"),
        ("192.168.10.0/24", "br-lan", None), ("192.0.2.0/24", "eth0.2", None)]
    assert find_host_route(routes, "203.0.113.10")["gateway"] == "192.168.10.1"
    assert find_host_route(routes, "203.0.113.11") is None


def test_case01_field_text_matches_the_rebuilt_lab(load_fixture):
    field = parse_ip_route_show_text(load_fixture("ip_route_show", "case01_field.txt"))
    assert field == parse_ip_route_show(load_fixture("ip_j_route_show", "endpoint_pinned_to_backup.txt"))
    assert find_host_route(field, "203.0.113.10") == PINNED


GET_CASES = [
    # (command, fixture, expected subset)
    ("ip_j_route_get", "endpoint_via_backup.txt",
     {"dst": "203.0.113.10", "dev": "wwan0", "gateway": "198.51.100.1", "prefsrc": "198.51.100.20", "table": None,
      "uid": 0, "type": "unicast", "protocol": None, "metric": None}),
    ("ip_j_route_get", "endpoint_v6_via_backup.txt",
     {"dst": "2001:db8:10::10", "dev": "wwan0", "gateway": "2001:db8:2::1", "prefsrc": "2001:db8:2::20",
      "protocol": "static", "metric": 20, "from": "::", "family": "inet6"}),
    ("ip_j_route_get", "endpoint_into_tunnel.txt",
     {"dst": "203.0.113.55", "dev": "wg0", "gateway": None, "prefsrc": "10.64.0.2"}),
    ("ip_j_route_get", "tunnel_subnet.txt", {"dev": "wg0", "gateway": None, "prefsrc": "10.77.0.2"}),
    ("ip_j_route_get", "via_primary_default.txt", {"dev": "eth1", "gateway": "192.0.2.1"}),
    ("ip_j_route_get", "host_loopback_local.txt", {"type": "local", "dev": "lo", "prefsrc": "127.0.0.1"}),
    ("ip_j_route_get", "host_on_link.txt", {"dst": "192.0.2.1", "dev": "eth0", "gateway": None}),
    ("ip_j_route_get", "host_default.txt", {"dev": "eth0", "gateway": "192.0.2.1", "prefsrc": "192.0.2.2"}),
    ("ip_j_route_get", "host_default_v6.txt", {"dev": "eth0", "gateway": "fd00::1", "metric": 1024}),
    ("ip_route_get", "endpoint_via_backup.txt",
     {"dst": "203.0.113.10", "dev": "wwan0", "gateway": "198.51.100.1", "prefsrc": "198.51.100.20", "uid": 0,
      "table": None, "flags": []}),
    ("ip_route_get", "case01_field.txt", {"dst": "203.0.113.10", "dev": "wwan0", "gateway": "198.51.100.1"}),
    ("ip_route_get", "case04_field.txt",
     {"dst": "203.0.113.55", "dev": "wg0", "gateway": None, "prefsrc": "10.64.0.2"}),
    ("ip_route_get", "endpoint_v6_via_backup.txt", {"from": "::", "metric": 20, "protocol": "static"}),
    ("ip_route_get", "host_default.txt", {"dev": "eth0", "gateway": "192.0.2.1"}),
]


@pytest.mark.parametrize("command, case, expected", GET_CASES)
def test_parse_ip_route_get(load_fixture, command, case, expected):
    parser = parse_ip_route_get if command == "ip_j_route_get" else parse_ip_route_get_text
    route = parser(load_fixture(command, case))
    assert {name: route.get(name, "missing") for name in expected} == expected


@pytest.mark.parametrize("case", ["endpoint_via_backup.txt", "endpoint_v6_via_backup.txt", "endpoint_into_tunnel.txt"])
def test_route_get_text_and_json_agree(load_fixture, case):
    assert parse_ip_route_get_text(load_fixture("ip_route_get", case)) == \
        parse_ip_route_get(load_fixture("ip_j_route_get", case))


HOST_ROUTE_CASES = [
    # (fixture, address, table, expected (dst, dev, protocol, table) or None)
    ("endpoint_pinned_to_backup.txt", "203.0.113.10", None, ("203.0.113.10", "wwan0", "static", "main")),
    ("endpoint_pinned_to_backup.txt", "203.0.113.11", None, None),
    ("endpoint_pinned_to_backup.txt", "192.0.2.1", None, None),  # inside 192.0.2.0/24 is not a host route
    ("endpoint_pinned_to_backup.txt", "192.0.2.0", None, None),  # nor is the network address of it
    ("endpoint_pinned_to_backup_table_all.txt", "2001:db8:10::10", None,
     ("2001:db8:10::10", "wwan0", "static", "main")),
    ("endpoint_pinned_to_backup_table_all.txt", "[2001:db8:10::10]", None,
     ("2001:db8:10::10", "wwan0", "static", "main")),
    ("endpoint_pinned_to_backup_table_all.txt", "203.0.113.10", "main", ("203.0.113.10", "wwan0", "static", "main")),
    ("endpoint_pinned_to_backup_table_all.txt", "203.0.113.10", "1", None),
    ("endpoint_pinned_to_backup_table_all.txt", "10.77.0.2", None, None),  # type local, not a route out
    ("full_tunnel_split_default.txt", "203.0.113.55", None, None),  # case 04 after nohostroute: nothing
    ("host.txt", "192.0.2.1", None, None),
]


@pytest.mark.parametrize("case, address, table, expected", HOST_ROUTE_CASES)
def test_find_host_route(load_fixture, case, address, table, expected):
    route = find_host_route(parse_ip_route_show(load_fixture("ip_j_route_show", case)), address, table)
    assert (route and (route["dst"], route["dev"], route["protocol"], route["table"])) == expected


def test_find_host_route_accepts_the_slash_32_spelling():
    routes = parse_ip_route_show('[{"dst":"203.0.113.10/32","dev":"wwan0","protocol":"static"}]')
    assert find_host_route(routes, "203.0.113.10")["dev"] == "wwan0"


@pytest.mark.parametrize("dst, address, found", [
    ("2001:db8:10::10/128", "2001:db8:10:0::10", True),     # any spelling of the same address
    ("2001:db8:10:0::10", "[2001:db8:10::10]", True),
    ("2001:db8:10::10", "2001:db8:10::11", False),
    ("203.0.113.10/32", "203.0.113.10", True),
    ("203.0.113.10/31", "203.0.113.10", False),               # two addresses: no host route
    ("::ffff:203.0.113.10", "203.0.113.10", False),           # IPv4-mapped IPv6 is another family
    ("203.0.113.10", "::ffff:203.0.113.10", False),
])
def test_find_host_route_compares_addresses_not_spellings(dst, address, found):
    routes = parse_ip_route_show('[{"dst":"%s","dev":"wwan0","protocol":"static"}]' % dst)
    assert (find_host_route(routes, address) is not None) is found


@pytest.mark.parametrize("address", ["vpn.example.net", "203.0.113.10:51820", "", None, "300.1.1.1", "10.0.0.0/33",
                                     "203.0.113.10/32", "010.0.0.1"])
def test_find_host_route_rejects_non_addresses(address):
    with pytest.raises(ParseError, match="is not an IP address"):
        find_host_route([], address)


@pytest.mark.parametrize("case, expected", [
    ("endpoint_pinned_to_backup.txt", [("eth1", 10, "main"), ("wwan0", 20, "main")]),
    ("endpoint_pinned_to_backup_table_all.txt", [
        ("eth1", 10, "1"), ("wwan0", 20, "2"), ("eth1", 10, "main"), ("wwan0", 20, "main"),
        ("eth1", 10, "main"), ("wwan0", 20, "main")]),
    ("multipath_unreachable_blackhole.txt", []),
    ("full_tunnel_split_default.txt", [("eth1", 10, "main")]),  # 0.0.0.0/1 + 128.0.0.0/1 are not "default"
    ("host.txt", [("eth0", None, "main")]),
])
def test_default_routes(load_fixture, case, expected):
    routes = default_routes(parse_ip_route_show(load_fixture("ip_j_route_show", case)))
    assert [(r["dev"], r["metric"], r["table"]) for r in routes] == expected


def test_default_routes_accepts_prefix_spelling():
    routes = parse_ip_route_show('[{"dst":"0.0.0.0/0","dev":"eth0"},{"dst":"::/0","dev":"eth0"},'
                                 '{"dst":"0.0.0.0/1","dev":"wg0"}]')
    assert [r["dst"] for r in default_routes(routes)] == ["0.0.0.0/0", "::/0"]


@pytest.mark.parametrize("dst, default", [
    ("default", True), ("0.0.0.0/0", True), ("::/0", True), ("0::0/0", True),
    ("0.0.0.0/1", False), ("128.0.0.0/1", False), ("::/1", False), ("8000::/1", False), ("0.0.0.0", False),
    ("not-a-prefix", False),
])
def test_a_default_route_holds_every_address_of_its_family(dst, default):
    routes = parse_ip_route_show('[{"dst":"%s","dev":"eth0"}]' % dst)
    assert bool(default_routes(routes)) is default


@pytest.mark.parametrize("route, network", [
    ({"dst": "default", "family": "inet"}, "0.0.0.0/0"),
    ({"dst": "default", "family": None}, "0.0.0.0/0"),
    ({"dst": "default", "family": "inet6"}, "::/0"),
    ({"dst": "203.0.113.10"}, "203.0.113.10/32"),
    ({"dst": "2001:db8::10"}, "2001:db8::10/128"),
    ({"dst": "10.0.0.1/24"}, "10.0.0.0/24"),
    ({"dst": "10.0.0.0/33"}, None),
    ({"dst": "300.1.1.1"}, None),
    ({}, None),
])
def test_route_network(route, network):
    got = route_network(route)
    assert (None if got is None else str(got)) == network


@pytest.mark.parametrize("text, family", [
    ('[{"dst":"default","nexthops":[{"gateway":"fd00::1","dev":"eth0"},{"gateway":"fd00::2","dev":"eth1"}]}]', "inet6"),
    ('[{"dst":"default","gateway":"192.0.2.1","dev":"eth0"}]', "inet"),
    ('[{"dst":"default","dev":"wg0"}]', None),
    ('[{"dst":"default","dev":"wg0","metric":1024,"pref":"medium"}]', "inet6"),   # only IPv6 routes carry a preference
])
def test_family_of_default_routes(text, family):
    assert parse_ip_route_show(text)[0]["family"] == family


@pytest.mark.parametrize("text, expected", [("", []), ("[]\n", [])])
def test_parse_ip_route_show_empty(text, expected):
    assert parse_ip_route_show(text) == expected


ERROR_CASES = [
    (parse_ip_route_show, "{}", "ip -j route show output must be a JSON list, got dict"),
    (parse_ip_route_show, '[{"dev":"eth0"}]', "route 1: expected a route object with a 'dst'"),
    (parse_ip_route_show, '[{"dst":"default","metric":"low"}]', "route 1: metric must be an integer, got 'low'"),
    (parse_ip_route_show, "default via 192.0.2.1 dev eth0", "is `-j` supported by this ip?"),
    (parse_ip_route_get, "", "ip -j route get printed no route"),
    (parse_ip_route_get, "[]\n", "ip -j route get printed no route"),
    (parse_ip_route_get_text, "\n", "ip route get printed no route"),
    (parse_ip_route_show_text, "    nexthop via 192.0.2.1 dev eth1\n", "line 1: continuation line before any route"),
    (parse_ip_route_show_text, "default via 192.0.2.1 metric x\n", "metric must be an integer, got 'x'"),
    (parse_ip_route_show_text, "unreachable\n", "line 1: no destination"),
]


@pytest.mark.parametrize("parser, text, message", ERROR_CASES)
def test_errors(parser, text, message):
    with pytest.raises(ParseError) as err:
        parser(text)
    assert message in str(err.value)


@pytest.mark.parametrize("case", ["network_unreachable.txt", "invalid_address.txt"])
def test_route_get_stderr_is_not_a_route(load_fixture, case):
    text = load_fixture("ip_route_get_stderr", case)
    with pytest.raises(ParseError) as err:
        parse_ip_route_get(text)
    assert repr(text[:200]) in str(err.value)


def named(name):
    """A regex finding ``name`` not glued to other letters (``route 2`` but not ``XXroute 2``)."""
    return r"(?<![\w-])%s(?![\w-])" % re.escape(name)


@pytest.mark.parametrize("parser, command", [
    (parse_ip_route_show, "ip -j route show"), (parse_ip_route_get, "ip -j route get"),
    (parse_ip_route_show_text, "ip route show"), (parse_ip_route_get_text, "ip route get"),
])
@pytest.mark.parametrize("value", [b"[]", None])
def test_non_text_is_refused_naming_the_command_and_type(parser, command, value):
    with pytest.raises(ParseError) as err:
        parser(value)
    assert re.search(named(command), str(err.value))
    assert re.search(named(type(value).__name__), str(err.value))


def test_route_get_entry_errors_name_the_command():
    with pytest.raises(ParseError) as err:
        parse_ip_route_get('[{"dev":"eth0"}]')
    assert re.search(named("ip -j route get"), str(err.value))


@pytest.mark.parametrize("parser, text, where", [
    (parse_ip_route_show_text, "default via 192.0.2.1 dev eth0\n10.0.0.0/8 dev eth1 metric x\n", "route 2"),
    (parse_ip_route_show, '[{"dst":"default","dev":"eth0"},{"dst":"10.0.0.0/8","dev":"eth1","metric":"x"}]', "route 2"),
    (parse_ip_route_show, '[{"dst":"default","nexthops":[{"gateway":"192.0.2.1","dev":"eth1","weight":"x"}]}]', "route 1"),
    (parse_ip_route_get, '[{"dst":"203.0.113.10","dev":"eth0","uid":"x"}]', "ip -j route get"),
    (parse_ip_route_get_text, "203.0.113.10 via 192.0.2.1 dev eth0 uid x \n    cache \n", "line 1"),
    (parse_ip_route_show_text, "default via 192.0.2.1 dev eth0\n\n10.0.0.0/8 dev eth1 uid x\n", "line 3"),
])
def test_bad_numbers_name_the_route_or_line(parser, text, where):
    with pytest.raises(ParseError) as err:
        parser(text)
    assert re.search(named(where), str(err.value))
    assert "'x'" in str(err.value)


def test_non_json_is_quoted_up_to_200_characters():
    text = "default via 192.0.2.1 dev eth0 proto static metric 10 \n" * 10
    with pytest.raises(ParseError) as err:
        parse_ip_route_show(text)
    assert str(err.value).endswith(repr(text[:200]))


TEXT_FLAGS = (
    "default via 192.0.2.1 dev eth1 proto static onlink metric 10 \n"
    "192.0.2.0/24 dev eth1 proto kernel scope link src 192.0.2.20 linkdown \n"
    "203.0.113.0/24 proto static \n"
    "\tnexthop via 192.0.2.1 dev eth1 weight 1 dead linkdown \n"
    "\tnexthop via 198.51.100.1 dev wwan0 weight 2 \n"
)


def test_text_words_that_are_not_keywords_are_flags():
    routes = parse_ip_route_show_text(TEXT_FLAGS)
    assert [(r["dst"], r["flags"], r["metric"]) for r in routes] == [
        ("default", ["onlink"], 10), ("192.0.2.0/24", ["linkdown"], None), ("203.0.113.0/24", [], None)]
    assert routes[1]["prefsrc"] == "192.0.2.20"
    assert routes[2]["nexthops"] == [{"gateway": "192.0.2.1", "dev": "eth1", "weight": 1},
                                     {"gateway": "198.51.100.1", "dev": "wwan0", "weight": 2}]


def test_json_flags_are_kept():
    routes = parse_ip_route_show('[{"dst":"default","gateway":"192.0.2.1","dev":"eth1","flags":["onlink"]},'
                                 '{"dst":"192.0.2.0/24","dev":"eth1","flags":["linkdown"]}]')
    assert [r["flags"] for r in routes] == [["onlink"], ["linkdown"]]


def test_text_blank_lines_between_routes_are_skipped():
    # e.g. `ip route show; echo; ip -6 route show`
    text = "default via 192.0.2.1 dev eth1 \n\n2001:db8:1::/64 dev eth1 proto kernel metric 256 pref medium\n"
    assert [(r["dst"], r["family"]) for r in parse_ip_route_show_text(text)] == [("default", "inet"), ("2001:db8:1::/64", "inet6")]


@pytest.mark.parametrize("text, family", [
    ('[{"dst":"default","nexthops":[{"gateway":"192.0.2.1","dev":"eth1"},{"gateway":"198.51.100.1","dev":"wwan0"}]}]',
     "inet"),
    ('[{"dst":"default","dev":"wg0","prefsrc":"10.0.0.2"}]', "inet"),
    ('[{"dst":"default","dev":"wg0","prefsrc":"fd00::2"}]', "inet6"),
])
def test_family_from_ipv4_nexthops_or_the_source(text, family):
    assert parse_ip_route_show(text)[0]["family"] == family


def test_raw_iproute2_json_without_type_is_unicast(load_fixture):
    # iproute2 leaves "type" out for unicast routes: the helpers work on its JSON as printed too
    raw = json.loads(load_fixture("ip_j_route_show", "endpoint_pinned_to_backup.txt"))
    assert [r["dev"] for r in default_routes(raw)] == ["eth1", "wwan0"]
    assert find_host_route(raw, "203.0.113.10")["dev"] == "wwan0"


@pytest.mark.parametrize("text, message", [("10.0.0.0/8 dev eth1 uid x\n", "line 1: uid must be an integer"),
                                           ("10.0.0.0/8 dev eth1 metric x\n", "route 1: metric must be an integer")])
def test_a_bad_number_names_its_field(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ip_route_show_text(text)


# Hostile JSON from a target (issue 30.10): 100000 '[' (RecursionError in json.loads), a 5000-digit number (ValueError on
# Python >= 3.11), 600 levels (decodes, deeper than any real output): each a ParseError naming the command.
HOSTILE_ROUTES = ["[" * 100000, '[{"dst": "default", "metric": %s}]' % ("9" * 5000),
                  '[{"dst": "default", "flags": %s}]' % ("[" * 600 + "]" * 600)]


@pytest.mark.parametrize("parser, command", [(parse_ip_route_show, "ip -j route show"), (parse_ip_route_get, "ip -j route get")])
@pytest.mark.parametrize("text", HOSTILE_ROUTES, ids=["deep", "5000_digits", "600_levels"])
def test_hostile_json_is_a_parse_error_naming_the_command(parser, command, text):
    with pytest.raises(ParseError, match="^%s output (is JSON nested|holds a value that cannot be read)" % command):
        parser(text)
