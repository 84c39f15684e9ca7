# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the PMTU fault reads: every device's MTU, each tunnel's peers and ladder targets, the far tunnel address, the record."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import (
    ADDR_ARGV, LINK_IPV6, LINK_MTU, carries_ipv6, far_address, gather_link_ipv6, gather_link_mtu, ladder_targets, parse_ipv6_addresses,
    parse_link_mtus, record_entry, tunnels)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import measure_script
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import FORWARD_AND_LINKS_ARGV
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import step_name


def test_link_mtus_of_a_recorded_listing(load_fixture):
    text = load_fixture("ip_d_j_link_show", "netns_eth0_tun_wg0_no_carrier.txt")
    assert parse_link_mtus(text) == {"lo": 65536, "eth0p": 1500, "eth0": 1500, "wg0": 1420}


@pytest.mark.parametrize("text, devices", [
    ('[{"ifname": "wg0"}]', {"wg0": None}),                       # no mtu printed: unknown, not 0
    ('[{"ifname": "wg0", "mtu": 0}]', {"wg0": None}),
    ('[{"ifname": "wg0", "mtu": true}]', {"wg0": None}),
    ('[{"ifname": "wg0", "mtu": "1420"}]', {"wg0": None}),
    ('[{"ifname": "wg0", "mtu": 1}]', {"wg0": 1}),
    ("[]", {}),
])
def test_link_mtus_keep_only_whole_positive_numbers(text, devices):
    assert parse_link_mtus(text) == devices


@pytest.mark.parametrize("text", ["1: lo: <LOOPBACK> mtu 65536", '{"ifname": "wg0"}', '[{"mtu": 1420}]'])
def test_link_mtus_refuse_what_is_no_json_link_list(text):
    with pytest.raises(ParseError):
        parse_link_mtus(text)


class FakeAction:
    """The facts action as the gather sees it: one result for the forwarding-and-links step."""

    def __init__(self, rc, stdout, stderr=""):
        self.res = {"rc": rc, "stdout": stdout, "stderr": stderr, "cmd": step_name(FORWARD_AND_LINKS_ARGV)}

    def step(self, argv, ok_rcs=(0,), name=None):
        assert argv == FORWARD_AND_LINKS_ARGV and 255 in ok_rcs
        return self.res

    @staticmethod
    def parse_output(res, parser):
        return parser(res["stdout"])


@pytest.mark.parametrize("rc, stdout, stderr, got", [
    (0, '1\n[{"ifname": "eth0", "mtu": 1492}]', "", {"devices": {"eth0": 1492}, "note": None}),
    (255, "1\n", "Option \"-j\" is unknown\n",
     {"devices": None, "note": "ip -d -j link show failed (rc=255: Option \"-j\" is unknown): link MTUs unknown"}),
    (127, "\n", "", {"devices": None, "note": "ip -d -j link show failed (rc=127: no output): link MTUs unknown"}),
])
def test_the_reading_gathers_the_listing_bridges_reads(rc, stdout, stderr, got):
    assert gather_link_mtu(FakeAction(rc, stdout, stderr), {}, {}) == got


def test_text_where_json_belongs_leaves_the_mtus_unknown_with_the_reason():
    got = gather_link_mtu(FakeAction(0, "1\n1: lo: <LOOPBACK> mtu 65536\n"), {}, {})
    assert got["devices"] is None and got["note"].endswith(": link MTUs unknown") and "ip -d -j link show" in got["note"]


def test_the_reading_adds_no_command_to_the_batch():
    """link_mtu runs the one step the bridges reading runs (a step two readings list runs once), on both platforms."""
    for platform in ("linux", "openwrt"):
        assert [step.name for step in LINK_MTU.on(platform).steps] == [step_name(FORWARD_AND_LINKS_ARGV)]


# ---- link_ipv6: every device's live IPv6 addresses ------------------------------------------------------------------

def test_ipv6_addresses_of_a_recorded_listing(load_fixture):
    """Recorded in a network namespace: veth0 with a ULA, veth1 with only its link-local, two wireguard-go devices (wg0
    IPv4 and the kernel's link-local, wg1 a ULA too), wg2 with IPv4 only and no link-local (as a kernel WireGuard device
    comes up), and a down veth pair without any address: every device that is up, IPv4 addresses left out."""
    assert parse_ipv6_addresses(load_fixture("ip_j_addr_show", "netns_veth_ula_wireguard_go.txt")) == {
        "lo": ["::1/128"], "veth1": ["fe80::c49f:a8ff:fe1c:1520/64"], "veth0": ["fd99:6::1/64", "fe80::482c:18ff:fe44:fa9e/64"],
        "wg1": ["fd77::2/64", "fe80::4f2c:8c14:1aa8:424c/64"], "wg0": ["fe80::4de0:d847:b76f:62b0/64"], "wg2": []}


@pytest.mark.parametrize("text, devices", [
    ('[{"ifname": "wg0", "flags": ["UP"], "addr_info": []}]', {"wg0": []}),
    ('[{"ifname": "wg0", "flags": ["UP"], "addr_info": [{"family": "inet6", "local": "fd77::2", "prefixlen": 64}]}]',
     {"wg0": ["fd77::2/64"]}),
    ('[{"ifname": "wg0", "flags": ["UP"], "addr_info": [{"family": "inet", "local": "10.77.0.2", "prefixlen": 24}]}]', {"wg0": []}),
    # a point-to-point address: the device's own is "local"
    ('[{"ifname": "wg0", "flags": ["UP"], "addr_info": [{"family": "inet6", "local": "fd77::2", "address": "fd77::1", "prefixlen": 128}]}]',
     {"wg0": ["fd77::2/128"]}),
    # an entry without an address or a prefix length of its own is no address
    ('[{"ifname": "wg0", "flags": ["UP"], "addr_info": [{"family": "inet6", "prefixlen": 64}, {"family": "inet6", "local": "fd77::3"},'
     ' {"family": "inet6", "local": "fd77::4", "prefixlen": true}, {"family": "inet6", "local": "fd77::5", "prefixlen": "64"}]}]',
     {"wg0": []}),
    # down (its IPv6 addresses dropped), or no flags to say it is up: left out, the addresses it runs once up are unknown
    ('[{"ifname": "wg0", "flags": ["POINTOPOINT", "NOARP"], "addr_info": []}]', {}),
    ('[{"ifname": "wg0", "flags": ["POINTOPOINT", "LOWER_UP"], "addr_info": [{"family": "inet6", "local": "fd77::2", "prefixlen": 64}]}]', {}),
    ('[{"ifname": "wg0", "addr_info": []}]', {}),
    ('[{"ifname": "wg0", "flags": "UP", "addr_info": []}]', {}),
    ("[]", {}),
])
def test_ipv6_addresses_are_the_inet6_entries_of_each_device_that_is_up(text, devices):
    assert parse_ipv6_addresses(text) == devices


@pytest.mark.parametrize("text, message", [
    ("1: lo    inet6 ::1/128 scope host", "is `-j` supported"),           # ip -o text
    ('{"ifname": "wg0", "addr_info": []}', "a JSON list of links"),
    ('[{"addr_info": []}]', "a JSON list of links"),
    ('[{"ifname": "wg0", "flags": ["UP"], "mtu": 1420}]', "wg0 has none"),  # ip -j link show: says nothing of addresses
    ('[{"ifname": "wg0", "addr_info": {}}]', "wg0 has none"),
    ('[{"ifname": "wg0", "addr_info": ["fd77::2/64"]}]', "wg0 has none"),
])
def test_ipv6_addresses_refuse_what_is_no_address_listing(text, message):
    with pytest.raises(ParseError, match=message):
        parse_ipv6_addresses(text)


class FakeAddrAction:
    """The facts action as link_ipv6's gather sees it: one result for ``ip -j addr show``."""

    def __init__(self, rc, stdout, stderr=""):
        self.res = {"rc": rc, "stdout": stdout, "stderr": stderr, "cmd": step_name(ADDR_ARGV)}

    def step(self, argv, ok_rcs=(0,), name=None):
        assert argv == ADDR_ARGV and 1 in ok_rcs and 255 in ok_rcs
        return self.res


def test_the_ipv6_reading_of_a_recorded_listing(load_fixture):
    got = gather_link_ipv6(FakeAddrAction(0, load_fixture("ip_j_addr_show", "netns_veth_ula_wireguard_go.txt")), {}, {})
    assert got["note"] is None and got["devices"]["wg2"] == [] and got["devices"]["wg1"][0] == "fd77::2/64"


@pytest.mark.parametrize("rc, stdout, stderr, note", [
    # BusyBox's ip: no -j (recorded stderr)
    (1, "", None, "ip -j addr show failed (rc=1: BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.): live IPv6 addresses unknown"),
    (127, "", "", "ip -j addr show failed (rc=127: no output): live IPv6 addresses unknown"),
    (0, "", "", "ip -j addr show printed nothing: live IPv6 addresses unknown"),
    (0, " \n", "", "ip -j addr show printed nothing: live IPv6 addresses unknown"),
    (0, "1: lo    inet6 ::1/128 scope host\n", "",
     "ip -j addr show output is not JSON (is `-j` supported by this ip?): '1: lo    inet6 ::1/128 scope host\\n': live IPv6 addresses unknown"),
])
def test_an_ipv6_listing_that_failed_leaves_the_addresses_unknown_never_empty(load_fixture, rc, stdout, stderr, note):
    if stderr is None:
        stderr = load_fixture("ip_j_addr_show_stderr", "busybox_1.35_no_json.txt")
    assert gather_link_ipv6(FakeAddrAction(rc, stdout, stderr), {}, {}) == {"devices": None, "note": note}


def test_the_ipv6_reading_is_one_command_on_both_platforms():
    for platform in ("linux", "openwrt"):
        assert [step.argv for step in LINK_IPV6.on(platform).steps] == [["ip", "-j", "addr", "show"]]
        assert LINK_IPV6.on(platform).needs == () and LINK_IPV6.public


@pytest.mark.parametrize("allowed, hub, got", [
    (["10.77.0.2/32", "192.168.50.0/24"], None, "10.77.0.2"),        # how a hub lists a peer
    (["192.168.50.0/24", "10.77.0.2/32", "10.77.0.9/32"], None, "10.77.0.2"),   # the first host address
    (["fd77::2/128", "10.77.0.0/24"], None, "fd77::2"),              # no IPv4 host: the IPv6 one
    (["fd77::2/128", "10.77.0.2/32"], None, "10.77.0.2"),            # IPv4 first
    (["10.77.0.2/32"], "10.77.0.1", "10.77.0.2"),                    # the peer's own host address wins over the hub's
    (["10.77.0.0/24"], "10.77.0.1", "10.77.0.1"),                    # a peer's AllowedIPs are the tunnel's subnet
    (["0.0.0.0/0"], "10.77.0.1", "10.77.0.1"),                       # a full tunnel
    (["10.77.0.0/31"], None, None),                                  # two addresses: no host prefix
    (["10.77.0.0/24"], "10.78.0.1", None),                           # the hub's address is not behind this peer
    (["10.77.0.0/24"], "fd77::1", None),                             # nor in another family
    (["10.77.0.0/24"], "hub.example", None),                         # no address
    ([], "10.77.0.1", None),
    (["300.1.1.1/32", "10.77.0.0/24"], None, None),                  # no prefix: ignored
])
def test_the_far_tunnel_address(allowed, hub, got):
    address, why = far_address(allowed, hub)
    assert address == got
    assert (why is None) == (got is not None)


def test_without_a_far_address_the_reason_names_the_allowed_ips_and_the_hub():
    assert far_address(["0.0.0.0/0"]) == (None, "its AllowedIPs (0.0.0.0/0) hold no host address (/32, /128) and no "
                                          "tunnelfix_tunnel_hub with a tunnelfix_tunnel_address names the far end: the far "
                                          "tunnel address is unknown, so the tunnel itself is not probed")
    assert "the hub's tunnelfix_tunnel_address 10.78.0.1 is not among them" in far_address(["10.77.0.0/24"], "10.78.0.1")[1]


@pytest.mark.parametrize("allowed, live, configured, inside", [
    (["10.77.0.0/24"], [], None, False),
    (["10.77.0.0/24", "::/0"], [], None, True),
    (["fd77::2/128"], None, None, True),                  # AllowedIPs decide even when the addresses are unknown
    (["fd77::2/128"], [], [], True),
    ([], ["fd77::2/64"], None, True),                     # an IPv6 address on the device
    ([], ["10.77.0.2/24", "fe80::1/64"], None, False),    # link-local only: the kernel's own, not IPv6 traffic
    ([], ["fe80::1/64", "febf::1/64"], None, False),      # fe80::/10 all of it
    ([], ["fec0::1/64"], None, True),                     # just past it
    ([], ["10.77.0.2/24"], None, False),
    ([], [], None, False),
    (["10.77.0.0/24"], None, None, None),                 # neither read: unknown, the rule keeps the 1280 floor
    # the live device or its configuration (the next start adds it: an MTU under 1280 would cut it then)
    (["10.77.0.0/24"], [], ["fd77::2/64"], True),
    (["10.77.0.0/24"], ["fd77::2/64"], [], True),
    (["10.77.0.0/24"], ["fe80::1/64"], ["fd77::2/64"], True),
    (["10.77.0.0/24"], ["fe80::1/64"], ["10.77.0.2/24"], False),
    (["10.77.0.0/24"], None, ["fd77::2/64"], True),
    (["10.77.0.0/24"], None, ["10.77.0.2/24"], False),
    (["10.77.0.0/24"], None, [], False),
])
def test_carries_ipv6(allowed, live, configured, inside):
    assert carries_ipv6(allowed, live, configured) is inside


@pytest.mark.parametrize("configs, inside", [
    ([{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
       "addresses": ["10.77.0.2/24", "fd77::2/64"], "peers": []}], True),
    ([{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
       "addresses": ["10.77.0.2/24"], "peers": []}], False),
    ([{"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True,
       "addresses": None, "peers": []}], None),          # networkd: the .network's Address= is not read
    ([], None),
])
def test_a_linux_tunnels_addresses_come_from_its_wg_quick_file(pmtu, configs, inside):
    """Without the live listing (link_ipv6 not read, or wg0 not in it) the configured addresses decide."""
    assert tunnels(pmtu.linux_view(configs=configs))["wg0"]["ipv6_inside"] is inside
    assert tunnels(pmtu.linux_view(configs=configs, live_ipv6={"eth0": ["fd00::2/64"]}))["wg0"]["ipv6_inside"] is inside


NETDEV_CONFIG = {"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True,
                 "addresses": None, "peers": []}
WG_QUICK_V6 = {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
               "addresses": ["10.77.0.2/24", "fd77::2/64"], "peers": []}


@pytest.mark.parametrize("configs, live, inside", [
    ([NETDEV_CONFIG], [], False),                          # networkd, IPv4 only inside: known, no longer unknown
    ([NETDEV_CONFIG], ["fe80::4de0:d847:b76f:62b0/64"], False),
    ([NETDEV_CONFIG], ["fd77::2/64", "fe80::1/64"], True),
    ([], [], False),                                       # wg set alone: no file, the device says
    ([], ["fd77::2/64"], True),
    ([WG_QUICK_V6], [], True),                             # the file's Address = comes back at the next start
])
def test_a_listed_device_decides_with_its_live_addresses_and_its_file(pmtu, configs, live, inside):
    view = pmtu.linux_view(configs=configs, live_ipv6={"lo": ["::1/128"], "eth0": ["fd00::2/64"], "wg0": live})
    assert tunnels(view)["wg0"]["ipv6_inside"] is inside


@pytest.mark.parametrize("addresses, live_ipv6, inside", [
    (("10.77.0.2/24", "fd77::2/64"), {"wg0": []}, True),             # not live yet: uci adds it at the next ifup
    (("10.77.0.2/24",), {"wg0": ["fd77::2/64"]}, True),
    (("10.77.0.2/24", "fd77::2/64"), {"eth1": []}, True),            # wg0 not listed (down): uci's addresses
    (("10.77.0.2/24",), {"eth1": []}, False),
    (("10.77.0.2/24", "fd77::2/64"), None, True),                    # no listing at all: uci's
])
def test_an_openwrt_tunnel_counts_uci_and_the_device(pmtu, addresses, live_ipv6, inside):
    assert tunnels(pmtu.openwrt_view(addresses=addresses, live_ipv6=live_ipv6))["wg0"]["ipv6_inside"] is inside


def test_a_linux_tunnel_from_the_shared_facts(pmtu):
    assert tunnels(pmtu.linux_view()) == {"wg0": {
        "tunnel_mtu_bytes": 1420, "ipv6_inside": False,
        "peers": [{"public_key": pmtu.HUB_KEY, "endpoint": pmtu.ENDPOINT, "endpoint_family": 4, "uplink_device": "eth0",
                   "uplink_mtu_bytes": 1500, "allowed_ips": ["10.77.0.0/24"]}]}}


def test_an_openwrt_tunnel_from_its_endpoint_routes(pmtu):
    got = tunnels(pmtu.openwrt_view(addresses=("10.77.0.2/24", "fd77::2/64")))["wg0"]
    assert (got["tunnel_mtu_bytes"], got["ipv6_inside"]) == (1420, True)
    assert [(peer["endpoint"], peer["uplink_device"], peer["uplink_mtu_bytes"]) for peer in got["peers"]] == [
        (pmtu.ENDPOINT, "eth1", 1500)]


def test_a_peer_without_an_endpoint_is_left_out_and_unknown_mtus_are_none(pmtu):
    view = pmtu.linux_view()
    view["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append({"public_key": pmtu.OTHER_KEY, "endpoint_host": None})
    del view["tunnelfix"]["link_mtu"]
    got = tunnels(view)["wg0"]
    assert got["tunnel_mtu_bytes"] is None and [peer["public_key"] for peer in got["peers"]] == [pmtu.HUB_KEY]
    assert got["peers"][0]["uplink_mtu_bytes"] is None
    # an OpenWrt peer endpoint_routes does not list has no endpoint either
    view = pmtu.openwrt_view()
    view["openwrt"]["endpoint_routes"]["endpoints"][0]["public_key"] = pmtu.OTHER_KEY
    assert tunnels(view)["wg0"]["peers"] == []


def test_the_ladders_go_up_to_each_links_mtu(pmtu):
    assert ladder_targets(pmtu.linux_view(uplink_mtu=1492), pmtu.HUB_ADDRESS) == [{
        "interface": "wg0", "public_key": pmtu.HUB_KEY, "endpoint": pmtu.ENDPOINT, "uplink_device": "eth0",
        "uplink_mtu_bytes": 1492, "tunnel_mtu_bytes": 1420,
        "outer": {"target": pmtu.ENDPOINT, "family": 4, "low": 548, "high": 1464}, "outer_note": None,
        "inner": {"target": pmtu.HUB_ADDRESS, "family": 4, "low": 548, "high": 1392}, "inner_note": None}]


def test_an_ipv6_endpoint_and_far_address_take_ipv6_bounds(pmtu):
    view = pmtu.linux_view(allowed_ips=("fd77::1/128",), endpoint="2001:db8::10")
    target = ladder_targets(view)[0]
    assert target["outer"] == {"target": "2001:db8::10", "family": 6, "low": 1232, "high": 1452}
    assert target["inner"] == {"target": "fd77::1", "family": 6, "low": 1232, "high": 1372}


@pytest.mark.parametrize("change, side, note", [
    (lambda v: v["tunnelfix"]["link_mtu"]["devices"].pop("eth0"), "outer",
     "the MTU of the link toward the endpoint 10.198.2.2 is unknown"),
    (lambda v: v["tunnelfix"]["link_mtu"]["devices"].pop("wg0"), "inner",
     "the MTU of the link toward the far tunnel address 10.77.0.1 is unknown"),
    (lambda v: v["tunnelfix"]["link_mtu"]["devices"].update(eth0=1000), "inner", None),     # a small uplink is still probed
    (lambda v: v["tunnelfix"]["link_mtu"]["devices"].update(eth0=575), "outer",
     "the endpoint 10.198.2.2: link_mtu_bytes must be a whole number 576-65535, got 575"),
])
def test_a_ladder_that_cannot_run_says_why(pmtu, change, side, note):
    view = pmtu.linux_view()
    change(view)
    target = ladder_targets(view, pmtu.HUB_ADDRESS)[0]
    if note is None:
        assert target["outer"] and target["inner"] and target["outer_note"] is None
    else:
        assert target[side] is None and target[side + "_note"] == note


def test_no_far_address_no_inner_ladder(pmtu):
    target = ladder_targets(pmtu.linux_view(allowed_ips=("0.0.0.0/0",)))[0]
    assert target["outer"] is not None and target["inner"] is None
    assert target["inner_note"].startswith("its AllowedIPs (0.0.0.0/0) hold no host address")


def test_a_hostname_endpoint_is_no_outer_target(pmtu):
    view = pmtu.linux_view(endpoint="hub.example")
    assert ladder_targets(view)[0]["outer_note"] == "the endpoint hub.example is no IP address"


def test_a_link_local_endpoint_is_no_outer_target_and_leaves_the_other_ladders_to_run(pmtu):
    """Fails without the note: ladder_targets took ``fe80::1%eth0`` (wg show's ``[fe80::1%eth0]:51820``) as an outer target,
    and ladder_script refused it, which failed the whole host's measurement as a 'bad option'."""
    view = pmtu.linux_view(endpoint="fe80::1%eth0")
    targets = ladder_targets(view, pmtu.HUB_ADDRESS)
    assert targets[0]["outer"] is None and targets[0]["outer_note"].startswith("the endpoint fe80::1%eth0 is link-local")
    assert targets[0]["inner"] == {"target": pmtu.HUB_ADDRESS, "family": 4, "low": 548, "high": 1392}
    assert "ping_" in measure_script(targets, "n0nce")


def test_the_record_entry_holds_both_parsed_ladders(pmtu, load_fixture):
    target = ladder_targets(pmtu.linux_view(), pmtu.HUB_ADDRESS)[0]
    entry = record_entry(target, load_fixture("pmtu_ladder", "iputils_v4_black_hole_1400.txt"))
    assert entry["outer"]["path_mtu_bytes"] == 1400 and entry["inner"] is None
    assert (entry["outer_family"], entry["inner_target"], entry["interface"]) == (4, pmtu.HUB_ADDRESS, "wg0")
    with pytest.raises(ParseError):
        record_entry(target, "not a ladder")


def test_a_failed_listing_names_200_characters_of_its_first_error_line():
    first = "Error: " + "x" * 250
    got = gather_link_mtu(FakeAction(1, "1\n", first + "\nsecond line\n"), {}, {})
    assert got == {"devices": None, "note": "ip -d -j link show failed (rc=1: %s): link MTUs unknown" % first[:200]}


def test_a_text_listing_is_named_with_200_characters_of_the_parsers_reason(load_fixture):
    """Recorded: ip link show without -j (text): the parser's reason quotes the text and is cut at 200 characters."""
    text = load_fixture("ip_link_show", "netns_all.txt")
    with pytest.raises(ParseError) as err:
        parse_link_mtus(text)
    assert len(str(err.value)) > 200
    assert gather_link_mtu(FakeAction(0, "1\n" + text), {}, {}) == {"devices": None, "note": str(err.value)[:200] + ": link MTUs unknown"}


def test_a_link_local_endpoint_says_why_it_is_not_probed(pmtu):
    target = ladder_targets(pmtu.linux_view(endpoint="fe80::1%eth0"), pmtu.HUB_ADDRESS)[0]
    assert target["outer_note"] == ("the endpoint fe80::1%eth0 is link-local: it is on the link itself, whose MTU is the path's "
                                    "(the ladder probes no scoped address)")


def test_without_a_far_address_the_reason_names_the_hubs_address_that_is_not_among_them():
    assert far_address(["10.77.0.0/24", "fd77::/64"], "10.78.0.1") == (
        None, "its AllowedIPs (10.77.0.0/24, fd77::/64) hold no host address (/32, /128) and the hub's tunnelfix_tunnel_address "
              "10.78.0.1 is not among them: the far tunnel address is unknown, so the tunnel itself is not probed")
    assert far_address([], None)[1].startswith("its AllowedIPs (none) hold no host address (/32, /128) and no tunnelfix_tunnel_hub")


def test_a_full_tunnels_endpoint_route_into_the_tunnel_says_why_the_outer_ladder_does_not_run(pmtu):
    view = pmtu.linux_view(allowed_ips=("0.0.0.0/0",))
    view["tunnelfix"]["routes"]["endpoints"][pmtu.ENDPOINT] = {"dev": "wg0", "table": 51820, "gateway": None}
    target = ladder_targets(view, pmtu.HUB_ADDRESS)[0]
    assert (target["outer"], target["outer_note"]) == (None, (
        "the route toward the endpoint 10.198.2.2 leads into wg0 itself (a full tunnel's policy routing, which WireGuard's own "
        "packets bypass by their fwmark and a ping does not): a ladder would measure the tunnel, not the path outside it"))
    assert target["inner"] == {"target": pmtu.HUB_ADDRESS, "family": 4, "low": 548, "high": 1392}


def test_a_peer_without_an_endpoint_before_one_with_it_does_not_hide_it(pmtu):
    view = pmtu.linux_view()
    peers = view["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"]
    peers.insert(0, {"public_key": pmtu.OTHER_KEY, "endpoint_host": None, "allowed_ips": ["10.77.0.9/32"]})
    assert [peer["public_key"] for peer in tunnels(view)["wg0"]["peers"]] == [pmtu.HUB_KEY]
