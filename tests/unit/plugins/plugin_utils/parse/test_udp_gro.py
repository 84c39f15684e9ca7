# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The udp_gro facts (issue 17.9): kernel release, the default-route NIC (several defaults, IPv6 only, full tunnel,
multipath), the NIC's GRO features, and the subset's shape when something is unknown."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import (
    parse_ip_route_get, parse_ip_route_show, parse_ip_route_show_text)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.udp_gro import (
    at_least, default_route_nics, gro_features, parse_kernel_release, udp_gro_subset)

WG0 = {"wg0": {"kind": "veth-standing-in", "mtu": 1420, "operstate": "UNKNOWN"}}


@pytest.mark.parametrize("case, release, version", [
    ("recording_host_6.18.txt", "6.18.44-fc-v857", [6, 18, 44]),
    ("debian12_6.1.txt", "6.1.0-26-amd64", [6, 1, 0]),
    ("ubuntu_24.04_6.8.txt", "6.8.0-45-generic", [6, 8, 0]),
    ("openwrt_24.10_6.6.txt", "6.6.73", [6, 6, 73]),
    ("openwrt_23.05_5.15.txt", "5.15.167", [5, 15, 167]),
    ("raspios_6.1_v8.txt", "6.1.21-v8+", [6, 1, 21]),
])
def test_kernel_releases(load_fixture, case, release, version):
    assert parse_kernel_release(load_fixture("uname_r", case)) == {"release": release, "version": version}


@pytest.mark.parametrize("text, version", [("6.2\n", [6, 2, 0]), ("6.12.0-rc3", [6, 12, 0]), ("3.10.0-1160.el7.x86_64", [3, 10, 0])])
def test_kernel_release_shapes(text, version):
    assert parse_kernel_release(text)["version"] == version


@pytest.mark.parametrize("text", ["", "\n", "Linux\n", "6\n", "v6.2\n", "6.2 6.3\n", "6.1.0\n6.2.0\n", "uname: not found\n", None])
def test_kernel_release_refuses_what_is_not_one(text):
    with pytest.raises(ParseError, match="uname -r"):
        parse_kernel_release(text)


@pytest.mark.parametrize("version, answer", [
    ([6, 1, 0], False), ([6, 1, 999], False), ([6, 2, 0], True), ([6, 6, 73], True), ([5, 15, 167], False),
    ([7, 0, 0], True), (None, None), ([], None), (["6", "2"], None),
])
def test_at_least_6_2(version, answer):
    assert at_least(version, (6, 2)) is answer


def routes(load_fixture, case, text=False):
    if text:
        return parse_ip_route_show_text(load_fixture("ip_route_show", case))
    return parse_ip_route_show(load_fixture("ip_j_route_show", case))


@pytest.mark.parametrize("text", [False, True], ids=["json", "text"])
def test_the_lowest_metric_wins_per_family_and_other_tables_do_not_count(load_fixture, text):
    """eth0 metric 200, eth1 metric 100, IPv6 via eth1, table 100 via eth2: eth1 carries both families."""
    got = default_route_nics(routes(load_fixture, "netns_two_defaults_v4_v6_table_all.txt", text), {}, {})
    assert got == {"nics": [{"device": "eth1", "families": ["inet", "inet6"],
                             "gateways": {"inet": "198.51.100.1", "inet6": "fe80::1"}, "through_tunnel": None}],
                   "note": None}


@pytest.mark.parametrize("text", [False, True], ids=["json", "text"])
def test_an_ipv6_only_host_is_judged_on_its_ipv6_default(load_fixture, text):
    got = default_route_nics(routes(load_fixture, "netns_ipv6_only_table_all.txt", text), {}, {})
    assert got["nics"] == [{"device": "eth0", "families": ["inet6"], "gateways": {"inet6": "fe80::1"}, "through_tunnel": None}]


def test_a_full_tunnel_default_is_carried_by_the_nic_of_the_endpoint_route(load_fixture):
    """netifd's full tunnel: default dev wg0 (metric 0) wins over eth0's (metric 20); wg0's own UDP leaves by eth0."""
    table = routes(load_fixture, "netns_full_tunnel_default_dev_wg0_table_all.txt")
    endpoint = parse_ip_route_get(load_fixture("ip_j_route_get", "netns_full_tunnel_default_dev_wg0.txt"))
    got = default_route_nics(table, WG0, {"wg0": [(endpoint["dev"], endpoint["gateway"])]})
    assert got == {"nics": [{"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"},
                             "through_tunnel": "wg0"}], "note": None}


def test_a_full_tunnel_without_its_endpoint_route_names_no_nic(load_fixture):
    """A Tailscale client using an exit node: default through the TUN, no WireGuard endpoint read. No guess."""
    table = routes(load_fixture, "netns_full_tunnel_default_dev_wg0_table_all.txt")
    for endpoints in ({}, {"wg0": []}, {"wg0": [("wg0", None)]}):   # a route back into the tunnel is not a NIC
        got = default_route_nics(table, WG0, endpoints)
        assert got["nics"] == [] and "goes through tunnel wg0" in got["note"]
    # the same table without knowing wg0 is a tunnel: wg0 would be taken for the NIC (the subset then names none)
    assert default_route_nics(table, {}, {})["nics"][0]["device"] == "wg0"


def test_a_multipath_default_gives_each_hop_and_a_gateway_less_ipv6_default_is_ipv6(load_fixture):
    table = routes(load_fixture, "netns_multipath_v4_v6_dev_only_table_all.txt")
    got = default_route_nics(table, {}, {})
    assert [(nic["device"], nic["families"], nic["gateways"]) for nic in got["nics"]] == [
        ("eth0", ["inet"], {"inet": "192.0.2.1"}), ("eth1", ["inet"], {"inet": "198.51.100.1"}),
        ("wg0", ["inet6"], {"inet6": None})]
    # wg0 a tunnel, its endpoint unknown: the IPv4 hops stay NICs, the IPv6 default is said
    got = default_route_nics(table, WG0, {})
    assert [nic["device"] for nic in got["nics"]] == ["eth0", "eth1"] and "inet6 default route goes through tunnel wg0" in got["note"]


@pytest.mark.parametrize("table, expected", [
    ('[{"dst":"default","gateway":"192.0.2.1","dev":"eth0","metric":10},{"dst":"default","gateway":"192.0.2.9","dev":"eth9","metric":10}]',
     "eth0"),                                                                # a tie: the first listed
    ('[{"dst":"default","gateway":"192.0.2.1","dev":"eth0","metric":1},{"dst":"default","gateway":"192.0.2.9","dev":"eth9"}]',
     "eth9"),                                                                # not printed is metric 0
    ('[{"dst":"default","gateway":"192.0.2.1","dev":"eth0","metric":0},{"dst":"default","gateway":"192.0.2.9","dev":"eth9","metric":1}]',
     "eth0"),
    ('[{"type":"unreachable","dst":"default","metric":1},{"dst":"default","gateway":"192.0.2.9","dev":"eth9","metric":5}]',
     "eth9"),                                                                # not unicast: not a route out
])
def test_metric_boundaries(table, expected):
    assert [nic["device"] for nic in default_route_nics(parse_ip_route_show(table), {}, {})["nics"]] == [expected]


def test_no_default_route_in_the_main_table(load_fixture):
    got = default_route_nics(parse_ip_route_show('[{"dst":"default","gateway":"192.0.2.1","dev":"eth0","table":"100"}]'), {}, {})
    assert got == {"nics": [], "note": "no default route in the main table"}


@pytest.mark.parametrize("case, expected", [
    ("netns_eth0_gro_on_udp_gro_fwd_off.txt", {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"}),
    ("netns_eth0_udp_gro_fwd_on_gro_list_on.txt", {"rx-udp-gro-forwarding": "on", "rx-gro-list": "on", "generic-receive-offload": "on"}),
    ("netns_eth0_udp_gro_fwd_on_gro_list_off.txt", {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off", "generic-receive-offload": "on"}),
    ("netns_eth0_gro_off_udp_gro_fwd_on.txt", {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off", "generic-receive-offload": "off"}),
    # an OpenWrt-like bridge: the same two features, off and changeable
    ("openwrt_image_br-lan.txt", {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"}),
])
def test_gro_features(load_fixture, case, expected):
    assert gro_features(parse_ethtool_features(load_fixture("ethtool_k", case))) == expected


def test_gro_features_keep_fixed_and_leave_out_what_ethtool_does_not_show():
    parsed = parse_ethtool_features("Features for eth0:\nrx-udp-gro-forwarding: off [fixed]\ngeneric-receive-offload: on\n")
    assert gro_features(parsed) == {"rx-udp-gro-forwarding": "off [fixed]", "generic-receive-offload": "on"}
    with pytest.raises(ParseError, match="parse_ethtool_features"):
        gro_features({"eth0": "off"})


def subset(load_fixture, read, tunnels=None, table="netns_two_defaults_v4_v6_table_all.txt", notes=()):
    return udp_gro_subset(parse_kernel_release("6.6.73\n"), 1, {} if tunnels is None else tunnels,
                          routes(load_fixture, table), {}, read, notes)


def test_the_subset_reads_each_nic_once(load_fixture):
    asked = []

    def read(device):
        asked.append(device)
        return parse_ethtool_features(load_fixture("ethtool_k", "netns_eth0_gro_on_udp_gro_fwd_off.txt"))
    got = subset(load_fixture, read)
    assert asked == ["eth1"]
    assert got == {"kernel_release": "6.6.73", "kernel_version": [6, 6, 73], "ip_forward": 1, "tunnels": {},
                   "nics": [{"device": "eth1", "families": ["inet", "inet6"],
                             "gateways": {"inet": "198.51.100.1", "inet6": "fe80::1"}, "through_tunnel": None,
                             "features": {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off",
                                          "generic-receive-offload": "on"}, "ethtool_error": None}],
                   "ethtool_installed": True, "note": None}


def test_the_subset_says_what_it_could_not_read(load_fixture):
    got = subset(load_fixture, lambda device: None, table="netns_multipath_v4_v6_dev_only_table_all.txt")
    assert got["ethtool_installed"] is False and [nic["features"] for nic in got["nics"]] == [None, None, None]
    assert "ethtool is not installed" in got["note"]
    got = subset(load_fixture, lambda device: "netlink error: No such device")
    assert got["nics"][0]["ethtool_error"] == "netlink error: No such device" and got["ethtool_installed"] is True
    # without the tunnels no NIC is named: a tunnel could be taken for one
    got = udp_gro_subset(None, None, None, routes(load_fixture, "netns_two_defaults_v4_v6_table_all.txt"), {},
                         lambda device: pytest.fail("no NIC to ask about"), ["the tunnels are unknown (x)"])
    assert (got["nics"], got["kernel_version"], got["tunnels"], got["ethtool_installed"]) == ([], None, None, None)
    assert got["note"] == "the tunnels are unknown (x)"
    got = udp_gro_subset(None, 1, {}, None, {}, lambda device: None, ["the routes could not be read"])
    assert got["nics"] == [] and got["note"] == "the routes could not be read"


def test_a_long_garbage_release_is_quoted_cut_to_100_characters():
    text = "x" * 99 + "yz" + "w" * 40
    with pytest.raises(ParseError) as error:
        parse_kernel_release(text)
    assert str(error.value) == "uname -r: expected a kernel release such as 6.1.0-26-amd64, got %r" % ("x" * 99 + "y")


def test_another_tables_default_listed_first_does_not_hide_mains():
    table = parse_ip_route_show('[{"dst":"default","table":"100","gateway":"192.0.2.9","dev":"eth2"},'
                                '{"dst":"default","gateway":"192.0.2.1","dev":"eth0"}]')
    assert [nic["device"] for nic in default_route_nics(table, {}, {})["nics"]] == ["eth0"]


def test_a_gateway_less_ipv4_default_is_ipv4():
    """``default dev ppp0 scope link``: no gateway and no family in ip -j's output; it is the IPv4 default."""
    table = parse_ip_route_show('[{"dst":"default","dev":"ppp0","scope":"link"}]')
    assert default_route_nics(table, {}, {}) == {
        "nics": [{"device": "ppp0", "families": ["inet"], "gateways": {"inet": None}, "through_tunnel": None}], "note": None}


MULTIPATH_THROUGH_WG0_FIRST = ('[{"dst":"default","nexthops":[{"gateway":"10.0.0.1","dev":"wg0","weight":1},'
                               '{"gateway":"198.51.100.1","dev":"eth1","weight":1}]},'
                               '{"dst":"default","dev":"wg0","metric":1024,"pref":"medium"}]')


def test_a_tunnel_hop_without_its_endpoint_route_does_not_hide_the_next_hop():
    """A multipath default whose first hop is the tunnel: that hop is said, eth1 after it is still the NIC; the IPv6
    default through the tunnel too, each note once, joined."""
    got = default_route_nics(parse_ip_route_show(MULTIPATH_THROUGH_WG0_FIRST), WG0, {"wg0": [("wg0", None), (None, None)]})
    assert got == {"nics": [{"device": "eth1", "families": ["inet"], "gateways": {"inet": "198.51.100.1"}, "through_tunnel": None}],
                   "note": "the inet default route goes through tunnel wg0, and no route to its endpoint that leaves through a "
                           "NIC was read; the inet6 default route goes through tunnel wg0, and no route to its endpoint that "
                           "leaves through a NIC was read"}


def test_a_full_tunnel_with_endpoints_behind_two_nics_names_both():
    """wg0's peers reached through eth0 and eth1 (a route back into a tunnel left out): both carry its UDP."""
    table = parse_ip_route_show('[{"dst":"default","dev":"wg0","scope":"link"}]')
    got = default_route_nics(table, WG0, {"wg0": [("eth0", "192.0.2.1"), ("wg0", None), ("eth1", "198.51.100.1")]})
    assert got == {"nics": [{"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"}, "through_tunnel": "wg0"},
                            {"device": "eth1", "families": ["inet"], "gateways": {"inet": "198.51.100.1"}, "through_tunnel": "wg0"}],
                   "note": None}


def test_ethtool_missing_is_asked_once_and_said_once(load_fixture):
    """Three default-route NICs: the first answer says ethtool is not there; the others are not asked, one note."""
    asked = []

    def read(device):
        asked.append(device)

    got = subset(load_fixture, read, table="netns_multipath_v4_v6_dev_only_table_all.txt", notes=("", None))
    assert asked == ["eth0"]
    assert got["ethtool_installed"] is False and [nic["features"] for nic in got["nics"]] == [None, None, None]
    assert got["note"] == "ethtool is not installed: the NIC's offload features are unknown"


def test_the_callers_notes_come_first_then_what_the_routes_and_ethtool_leave_unknown(load_fixture):
    table = parse_ip_route_show(MULTIPATH_THROUGH_WG0_FIRST)
    got = udp_gro_subset(None, 1, WG0, table, {}, lambda device: None, ["the kernel release is unknown (x)", ""])
    assert got["note"] == ("the kernel release is unknown (x); "
                           "the inet default route goes through tunnel wg0, and no route to its endpoint that leaves through a "
                           "NIC was read; the inet6 default route goes through tunnel wg0, and no route to its endpoint that "
                           "leaves through a NIC was read; ethtool is not installed: the NIC's offload features are unknown")
    assert (got["kernel_release"], got["kernel_version"], got["tunnels"]) == (None, None, WG0)


@pytest.mark.parametrize("call, message", [
    (lambda: parse_kernel_release(b"6.2\n"), "uname -r output must be text, got bytes"),
    (lambda: gro_features({"eth0": "off"}), "expected parse_ethtool_features output, got {'eth0': 'off'}"),
])
def test_what_is_not_the_parsers_input_is_said_whole(call, message):
    with pytest.raises(ParseError) as error:
        call()
    assert str(error.value) == message
