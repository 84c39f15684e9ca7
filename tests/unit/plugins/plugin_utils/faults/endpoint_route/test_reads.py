# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's reading (faults/endpoint_route/reads.py): endpoint targets (live endpoint, else uci IP literal) and their route facts."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import (
    UCI_AND_LIVE_ENDPOINT_LINES, endpoint_route_facts, endpoint_routes_reading, endpoint_targets, gather_endpoint_routes, link_counters,
    split_endpoint_host)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import ENDPOINT_ROUTES, NETWORK, WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ForEachLine
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import merge_wireguard
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import (
    parse_ip_route_get, parse_ip_route_get_text, parse_ip_route_show, parse_ip_route_show_text)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump

B = "B" * 43 + "="


@pytest.mark.parametrize("value, expected", [
    ("203.0.113.10", ("203.0.113.10", None)),
    ("192.0.2.1:51820", ("192.0.2.1", 51820)),
    ("[fd99:1::1]:51820", ("fd99:1::1", 51820)),
    ("[fd99:1::1]", ("fd99:1::1", None)),
    ("fd99:1:0::1", ("fd99:1::1", None)),
    (" 2001:db8:10::10 ", ("2001:db8:10::10", None)),
    ("[fd99:1::1]:99999", ("fd99:1::1", None)),
    ("dc.example.net", (None, None)),
    ("dc.example.net:51820", (None, None)),
    ("fd99:1::1]:51820", (None, None)),                 # a closing bracket without its opening one: not an address
    ("[fd99:1::1]:51820]:1", ("fd99:1::1", None)),      # what follows the first "]:" is no port: the address alone
    ("", (None, None)),
    (None, (None, None)),
])
def test_split_endpoint_host(value, expected):
    assert split_endpoint_host(value) == expected


def interfaces_of(load_fixture, uci_text, dump_case=None, now=1796029496):
    live = None if dump_case is None else parse_wg_dump(load_fixture("wg_show_all_dump", dump_case), now)["interfaces"]
    return merge_wireguard(parse_uci_show(uci_text).get("network", {}), live)


def test_live_endpoint_wins_over_uci(load_fixture):
    uci = load_fixture("uci_show", "case01_network.txt").replace("'203.0.113.10'", "'198.51.100.99'")
    targets = endpoint_targets(interfaces_of(load_fixture, uci, "case01_endpoint_hostroute.txt", 1767225600))
    assert targets == {"targets": [{"interface": "wg0", "public_key": B, "section": "@wireguard_wg0[0]",
                                    "address": "203.0.113.10", "port": 51820, "address_source": "live"}],
                       "unresolved": []}


def test_uci_ip_literal_hostname_and_ipv6(load_fixture):
    uci = load_fixture("uci_show", "openwrt_image_network.txt") + (
        "network.v6=wireguard_wg0\nnetwork.v6.public_key='%s'\nnetwork.v6.endpoint_host='[2001:db8:10::10]:51821'\n"
        "network.nope=wireguard_wg0\nnetwork.nope.public_key='%s'\n" % ("C" * 43 + "=", "D" * 43 + "="))
    targets = endpoint_targets(interfaces_of(load_fixture, uci))
    assert [(t["section"], t["address"], t["port"], t["address_source"]) for t in targets["targets"]] == [
        ("@wireguard_wg0[0]", "203.0.113.10", 51820, "uci"), ("v6", "2001:db8:10::10", 51821, "uci")]
    assert targets["unresolved"] == [{"interface": "wg0", "public_key": "E" * 43 + "=", "section": "dc",
                                      "endpoint_host": "dc.example.net"}]


def test_live_ipv6_endpoint_of_a_live_only_peer(load_fixture):
    targets = endpoint_targets(interfaces_of(load_fixture, "", "ipv6_endpoint_psk_keepalive.txt"))
    assert targets["targets"] == [{"interface": "wg0", "public_key": "A" * 43 + "=", "section": None,
                                   "address": "fd99:1::1", "port": 51820, "address_source": "live"}]


TARGET = {"interface": "wg0", "public_key": B, "section": "@wireguard_wg0[0]", "address": "203.0.113.10",
          "port": 51820, "address_source": "uci"}
PINNED = {"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "table": "main", "protocol": "static",
          "metric": 20}


@pytest.mark.parametrize("show, get, parse_show, parse_get", [
    (("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), ("ip_j_route_get", "endpoint_via_backup.txt"),
     parse_ip_route_show, parse_ip_route_get),
    (("ip_route_show", "endpoint_pinned_to_backup_table_all.txt"), ("ip_route_get", "endpoint_via_backup.txt"),
     parse_ip_route_show_text, parse_ip_route_get_text),
])
def test_case01_endpoint_pinned_to_backup(load_fixture, show, get, parse_show, parse_get):
    routes = parse_show(load_fixture(*show))
    facts = endpoint_route_facts(TARGET, parse_get(load_fixture(*get)), routes)
    assert facts == dict(TARGET, dev="wwan0", gateway="198.51.100.1", src="198.51.100.20", table="main",
                         route_dst="203.0.113.10", route_protocol="static", route_metric=20, static_host_route=True,
                         pinned_routes=[PINNED], user_routes=[], error=None)


def test_recorded_image_pinned_route(load_fixture):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "openwrt_image_endpoint_pinned.txt"))
    facts = endpoint_route_facts(TARGET, parse_ip_route_get(load_fixture("ip_j_route_get",
                                                                         "openwrt_image_endpoint_pinned.txt")), routes)
    assert (facts["dev"], facts["gateway"], facts["src"], facts["static_host_route"]) == (
        "eth0", "10.88.0.1", "10.88.0.80", True)
    assert facts["pinned_routes"] == [{"dst": "203.0.113.10", "gateway": "10.88.0.1", "dev": "eth0", "table": "main",
                                       "protocol": "static", "metric": None}]


def test_no_host_route_and_no_route(load_fixture):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "full_tunnel_split_default.txt"))
    used = parse_ip_route_get(load_fixture("ip_j_route_get", "endpoint_into_tunnel.txt"))
    target = dict(TARGET, address="203.0.113.55")
    facts = endpoint_route_facts(target, used, routes)
    assert (facts["static_host_route"], facts["pinned_routes"], facts["dev"]) == (False, [], "wg0")
    error = load_fixture("ip_route_get_stderr", "network_unreachable.txt").strip()
    unreachable = endpoint_route_facts(target, None, routes, error)
    assert (unreachable["dev"], unreachable["gateway"], unreachable["error"]) == (
        None, None, "RTNETLINK answers: Network is unreachable")


def test_facts_without_a_route_keep_the_pinned_routes_and_the_error(load_fixture):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"))
    facts = endpoint_route_facts(TARGET, None, routes, error="RTNETLINK answers: Network is unreachable")
    assert facts == dict(TARGET, dev=None, gateway=None, src=None, table=None, route_dst=None, route_protocol=None,
                         route_metric=None, static_host_route=True, pinned_routes=[PINNED], user_routes=[],
                         error="RTNETLINK answers: Network is unreachable")


def test_facts_without_a_route_or_a_pin(load_fixture):
    routes = parse_ip_route_show(load_fixture("ip_j_route_show", "full_tunnel_split_default.txt"))
    facts = endpoint_route_facts(dict(TARGET, address="203.0.113.55"), None, routes, error="x")
    assert (facts["static_host_route"], facts["pinned_routes"], facts["error"]) == (False, [], "x")


@pytest.mark.parametrize("value, expected", [
    ("192.0.2.1:1", ("192.0.2.1", 1)),
    ("192.0.2.1:65535", ("192.0.2.1", 65535)),
    ("192.0.2.1:0", ("192.0.2.1", None)),
    ("192.0.2.1:65536", ("192.0.2.1", None)),
    ("192.0.2.1:port", ("192.0.2.1", None)),
    ("[fd99:1::1]:1", ("fd99:1::1", 1)),
    ("[fd99:1::1]:65535", ("fd99:1::1", 65535)),
    ("[fd99:1::1]:0", ("fd99:1::1", None)),
    ("[fd99:1::1]:65536", ("fd99:1::1", None)),
    ("[fd99:1::1]:port", ("fd99:1::1", None)),
])
def test_split_endpoint_host_port_bounds(value, expected):
    assert split_endpoint_host(value) == expected


def test_targets_go_on_after_peers_without_an_endpoint():
    interfaces = {
        "wg0": {"peers": [
            {"public_key": "P1", "section": "a", "endpoint_host": None, "live": None},
            {"public_key": "P2", "section": "b", "endpoint_host": None,
             "live": {"endpoint_host": "2001:db8:0:0::10", "endpoint_port": 51820}},
            {"public_key": "P3", "section": "c", "endpoint_host": "198.51.100.7:51821", "live": None},
        ]},
        "wg1": {},   # an interface without peers
    }
    assert endpoint_targets(interfaces)["targets"] == [
        {"interface": "wg0", "public_key": "P2", "section": "b", "address": "2001:db8::10", "port": 51820,
         "address_source": "live"},
        {"interface": "wg0", "public_key": "P3", "section": "c", "address": "198.51.100.7", "port": 51821,
         "address_source": "uci"}]


def test_targets_refuse_a_list_naming_it():
    with pytest.raises(ParseError) as err:
        endpoint_targets([])
    assert re.search(r"(?<!\w)list(?!\w)", str(err.value))


@pytest.mark.parametrize("show, parse_show", [("ip_j_route_show", parse_ip_route_show), ("ip_route_show", parse_ip_route_show_text)])
def test_the_users_config_route_is_not_a_pinned_route(load_fixture, show, parse_show):
    """netifd's /32 on the backup and the user's /32 on the fibre are both proto static; uci tells them apart."""
    network = parse_uci_show(load_fixture("uci_show", "user_route_fibre_endpoint.txt"))["network"]
    routes = parse_show(load_fixture(show, "user_route_fibre_pinned_backup_table_all.txt"))
    used = parse_ip_route_get(load_fixture("ip_j_route_get", "user_route_fibre_pinned_backup.txt"))
    facts = endpoint_route_facts(TARGET, used, routes, None, network)
    assert (facts["dev"], facts["static_host_route"]) == ("wwan0", True)
    assert facts["pinned_routes"] == [PINNED]
    assert facts["user_routes"] == [{
        "section": "wg_endpoint", "target": "203.0.113.10/32", "interface": "wan", "gateway": "192.0.2.1", "metric": 30,
        "table": None, "installed": {"dst": "203.0.113.10", "gateway": "192.0.2.1", "dev": "eth1", "table": "main",
                                     "protocol": "static", "metric": 30}}]
    # without the uci config both are pinned routes (what the facts reported before)
    assert len(endpoint_route_facts(TARGET, used, routes)["pinned_routes"]) == 2


def test_the_reading_on_openwrt_its_steps_and_the_readings_it_uses():
    """endpoint_routes_reading is called once, when faults/readings.py is imported: its answer is pinned here."""
    reading = endpoint_routes_reading(NETWORK, WIREGUARD)
    assert (reading.name, reading.public, list(reading.reads)) == ("endpoint_routes", True, ["openwrt"])
    read = reading.reads["openwrt"]
    assert (read.gather, read.uses, read.needs) == (gather_endpoint_routes, (NETWORK, WIREGUARD), ())
    assert [getattr(step, "name", None) for step in read.steps] == [
        "ip -j route show table all", "ip route show table all", None, "ip -s -j link show",
        "sha256sum /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint /etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"]
    assert read.steps[3].argv == ["ip", "-s", "-j", "link", "show"]
    assert read.steps[2] == ForEachLine(UCI_AND_LIVE_ENDPOINT_LINES, ("uci -q show network", "wg show all dump"),
                                        (["ip", "-j", "route", "get"], ["ip", "route", "get"]))
    assert ENDPOINT_ROUTES.reads["openwrt"].steps == read.steps


class _CountersAction:
    """What link_counters asks of the action: ``step`` of ``ip -s -j link show``, answered with ``res``."""

    def __init__(self, rc, stdout="", stderr=""):
        self.res = {"cmd": "ip -s -j link show", "rc": rc, "stdout": stdout, "stderr": stderr}
        self.asked = []

    def step(self, argv, ok_rcs=(0,)):
        self.asked.append(argv)
        assert self.res["rc"] in ok_rcs  # a failed listing is the note's, never the action's failure
        return self.res


LINKS = '[{"ifname": "eth1", "stats64": {"rx": {"bytes": 1838}, "tx": {"bytes": 920}}}, {"ifname": "wwan0"}]'


@pytest.mark.parametrize("res, expected", [
    ((0, LINKS, ""), ({"eth1": {"rx_bytes": 1838, "tx_bytes": 920}, "wwan0": {"rx_bytes": None, "tx_bytes": None}}, None)),
    ((1, "", ""), ({}, "ip -s -j link show failed (rc=1: no output): byte counters unknown")),
    ((255, "", "  \n"), ({}, "ip -s -j link show failed (rc=255: no output): byte counters unknown")),
    ((1, "", "ip: invalid argument '-j'\nUsage: ip ...\n"), ({}, "ip -s -j link show failed (rc=1: ip: invalid argument '-j'): byte counters unknown")),
    ((2, "", "E" * 300 + "\nmore\n"), ({}, "ip -s -j link show failed (rc=2: %s): byte counters unknown" % ("E" * 200))),
])
def test_link_counters_or_why_they_are_unknown(res, expected):
    action = _CountersAction(*res)
    assert link_counters(action) == expected
    assert action.asked == [["ip", "-s", "-j", "link", "show"]]


def test_counters_that_are_not_json_say_why_in_at_most_200_characters():
    """An ip that ignores -s -j prints text: the parser's error, cut at 200 characters, is the note."""
    counters, note = link_counters(_CountersAction(0, "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 " + "x" * 300 + "\n"))
    assert counters == {}
    assert note.endswith(": byte counters unknown") and note.startswith("ip -s -j link show output is not JSON")
    assert len(note) == 200 + len(": byte counters unknown")


@pytest.mark.parametrize("live_host, address", [
    ("2001:DB8:0::1", "2001:db8::1"),    # compressed, as ip route get prints it
    ("[2001:db8::1]", "2001:db8::1"),
    ("not-an-address", "not-an-address"),  # what the dump says, looked up as given (ip route get then names the error)
])
def test_a_live_endpoint_is_the_target_in_its_compressed_form_or_as_given(live_host, address):
    interfaces = {"wg0": {"peers": [{"public_key": B, "section": None, "endpoint_host": "198.51.100.7",
                                     "live": {"endpoint_host": live_host, "endpoint_port": 51820}}]}}
    assert endpoint_targets(interfaces) == {"targets": [{"interface": "wg0", "public_key": B, "section": None, "address": address,
                                                         "port": 51820, "address_source": "live"}], "unresolved": []}


def test_the_exact_error_of_interfaces_that_are_not_merged():
    with pytest.raises(ParseError) as error:
        endpoint_targets([])
    assert str(error.value) == "expected merged WireGuard interfaces (a dict), got list"
