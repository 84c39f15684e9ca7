# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""allowed_ips_shadow_lan: a peer's AllowedIPs route a prefix connected on another device of the host (fake keys)."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.reads import parse_device_addresses
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.shadow import (
    allowed_ips_shadow_lan, connected_prefixes, shadow_coverage, shadowed)

LAN = {"lo": ["127.0.0.1/8", "::1/128"], "eth0": ["192.168.1.2/24", "fd00:1::2/64", "fe80::1/64"], "wg0": ["10.77.0.1/24"]}


def _shadowed(views, host="hub"):
    return [[(item["prefix"], item["device"], item["same"]) for item in evidence["shadowed"]]
            for evidence, _text in allowed_ips_shadow_lan(host, views[host], views)]


def test_a_peer_listing_the_lans_own_prefix_is_found(tg):
    """Two sites numbered alike: the peer's 192.168.1.0/24 is the LAN on eth0 (as the file writes it, host bits too)."""
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [tg.PEER], kept={tg.PEER: ["10.77.0.2/32", "192.168.1.7/24"]}), LAN)}
    assert _shadowed(views) == [[("192.168.1.0/24", "eth0", True)]]


def test_a_narrower_subnet_inside_the_lan_is_found(tg):
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [tg.PEER], kept={tg.PEER: ["192.168.1.128/25", "fd00:1::/80"]}), LAN)}
    assert _shadowed(views) == [[("192.168.1.128/25", "eth0", False), ("fd00:1::/80", "eth0", False)]]


def test_what_an_operator_means_is_no_finding(tg):
    """A full tunnel (wider than the LAN), a road warrior's single LAN address (proxy ARP), the tunnel's own subnet on
    the interface itself, loopback and link-local: none shadows a LAN."""
    kept = {tg.PEER: ["0.0.0.0/0", "::/0", "192.168.1.200/32", "fd00:1::200/128", "10.77.0.0/24", "127.0.0.0/8",
                      "fe80::/64", "10.9.0.0/16"]}
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [tg.PEER], kept=kept), LAN)}
    assert _shadowed(views) == []


def test_only_entries_whose_owner_adds_routes(tg):
    """uci route_allowed_ips 0 adds no route: no finding; 1: found, naming the uci option to change."""
    kept = {tg.HUB: ["192.168.1.0/24"]}
    unrouted = {"owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB], kept=kept, unrouted=(tg.HUB,)), {"br-lan": ["192.168.1.1/24"]})}
    routed = {"owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB], kept=kept, sections={tg.HUB: "hub"}), {"br-lan": ["192.168.1.1/24"]})}
    assert _shadowed(unrouted, "owrt") == []
    ((evidence, _text),) = allowed_ips_shadow_lan("owrt", routed["owrt"], routed)
    assert (evidence["change"], evidence["shadowed"]) == ("network.hub.allowed_ips", [
        {"prefix": "192.168.1.0/24", "device": "br-lan", "connected": "192.168.1.0/24", "address": "192.168.1.1/24", "same": True}])


def test_coverage(tg):
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [tg.PEER]), LAN), "nolan": tg.linux(tg.HUB, [tg.PEER]),
             "none": {"tunnelfix": {"wireguard": {}}}}
    assert shadow_coverage("hub", views["hub"], views) is None
    assert shadow_coverage("nolan", views["nolan"], views)[0] == "not_checked"     # link_addresses not read
    assert shadow_coverage("none", views["none"], views) == ("clear", "does not apply: no WireGuard interface")
    live_only = tg.with_lan(tg.linux(tg.HUB, []), LAN)
    live_only["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append({"public_key": tg.PEER, "allowed_ips": ["192.168.1.0/24"]})
    views = {"hub": live_only}
    assert shadow_coverage("hub", views["hub"], views)[0] == "not_checked"        # wg set: who routes it is unknown
    assert _shadowed(views) == []


def test_the_registry_finds_it_and_reads_the_listing(tg):
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [tg.PEER], kept={tg.PEER: ["192.168.1.0/24"]}), LAN)}
    assert [(f["host"], f["severity"]) for f in find_findings(views) if f["id"] == "allowed_ips_shadow_lan"] == [("hub", "high")]
    assert diagnosis(views)["checks"]["hub"]["allowed_ips_shadow_lan"]["status"] == "found"


def test_parse_device_addresses_keeps_every_family_of_devices_up(load_fixture):
    text = load_fixture("ip_j_addr_show", "netns_veth_ula_wireguard_go.txt")
    devices = parse_device_addresses(text)
    assert devices["veth0"] == ["192.0.2.20/24", "fd99:6::1/64", "fe80::482c:18ff:fe44:fa9e/64"]
    assert devices["wg2"] == ["10.79.0.2/24"] and "veth2" not in devices      # IPv4 only; a down device left out


X = "X" * 43 + "="


def _plain(items):
    return [(device, str(net), address) for device, net, address in items]


def test_connected_prefixes_of_other_devices_only_lans():
    devices = {"wg0": ["10.77.0.1/24"], "lo": ["127.0.0.1/8", "10.10.0.1/24"], "eth9": None, "dummy0": ["127.0.0.5/8", "::1/128"],
               "wlan0": ["192.168.3.1/24"], "wg1": ["10.78.0.1/24"],
               "eth1": ["192.168.2.1/24", "192.168.2.5/32", "fd00:2::1/128", "fe80::1/64", "169.254.1.1/16", "garbage", "10.0.0.1/8",
                        "fd00:2::1/64", "fe80::2/10", "169.254.0.0/15"],
               "br-lan": ["192.168.1.1/24"]}
    assert _plain(connected_prefixes(devices, "wg0")) == [
        ("br-lan", "192.168.1.0/24", "192.168.1.1/24"), ("eth1", "192.168.2.0/24", "192.168.2.1/24"), ("eth1", "10.0.0.0/8", "10.0.0.1/8"),
        ("eth1", "fd00:2::/64", "fd00:2::1/64"), ("eth1", "169.254.0.0/15", "169.254.0.0/15"), ("wg1", "10.78.0.0/24", "10.78.0.1/24"),
        ("wlan0", "192.168.3.0/24", "192.168.3.1/24")]
    # the interface's own tunnel subnet counts for another interface of the host
    assert _plain(connected_prefixes({"wg0": ["10.77.0.1/24"]}, "wg1")) == [("wg0", "10.77.0.0/24", "10.77.0.1/24")]
    assert connected_prefixes(None, "wg0") == [] and connected_prefixes({}, "wg0") == []


def test_shadowed_same_inside_and_not():
    connected = connected_prefixes({"br-lan": ["192.168.1.1/24", "fd00:1::1/48"], "eth1": ["192.168.1.9/24"]}, "wg0")
    assert shadowed(["192.168.1.0/24"], []) == [] and shadowed(None, connected) == []
    got = shadowed(["garbage", "192.168.1.0/24", "192.168.1.0/23", "192.168.1.64/26", "192.168.1.1/32", "fd00:1::/48", "fd00:1::/64",
                    "fd00:1::5/128", "fd00:1::/127", "fd00::/16", "10.0.0.0/8"], connected)
    assert [(item["prefix"], item["device"], item["connected"], item["address"], item["same"]) for item in got] == [
        ("192.168.1.0/24", "br-lan", "192.168.1.0/24", "192.168.1.1/24", True),
        ("192.168.1.0/24", "eth1", "192.168.1.0/24", "192.168.1.9/24", True),
        ("192.168.1.64/26", "br-lan", "192.168.1.0/24", "192.168.1.1/24", False),
        ("192.168.1.64/26", "eth1", "192.168.1.0/24", "192.168.1.9/24", False),
        ("fd00:1::/48", "br-lan", "fd00:1::/48", "fd00:1::1/48", True),
        ("fd00:1::/64", "br-lan", "fd00:1::/48", "fd00:1::1/48", False),
        ("fd00:1::/127", "br-lan", "fd00:1::/48", "fd00:1::1/48", False)]


def test_an_ipv4_slash_32_lan_of_a_wide_ipv6_prefix_is_no_single_address():
    # /32 is a single address in IPv4 only: an IPv6 /32 inside a /16 connected route is a subnet
    connected = connected_prefixes({"eth0": ["fd00::1/16", "10.0.0.1/8"]}, "wg0")
    assert [(item["prefix"], item["same"]) for item in shadowed(["fd00:1::/32", "10.1.2.3/32", "10.1.2.2/31"], connected)] == [
        ("fd00:1::/32", False), ("10.1.2.2/31", False)]


def test_the_whole_text_with_same_and_inside_prefixes_for_a_uci_peer_outside_the_run(tg):
    views = {"owrt": tg.with_lan(tg.owrt(tg.OWRT, [X], kept={X: ["192.168.1.0/24", "fd00:1::/64", "192.168.2.0/25", "fd00:1::/80"]},
                                         sections={X: "x"}),
                                 {"br-lan": ["192.168.1.1/24", "fd00:1::1/64"], "eth1": ["192.168.2.1/24"]})}
    (evidence, text), = allowed_ips_shadow_lan("owrt", views["owrt"], views)
    assert evidence == {"interface": "wg0", "peer_public_key": X, "owner": "uci", "owner_path": None, "change": "network.x.allowed_ips",
                        "shadowed": [
                            {"prefix": "192.168.1.0/24", "device": "br-lan", "connected": "192.168.1.0/24", "address": "192.168.1.1/24",
                             "same": True},
                            {"prefix": "fd00:1::/64", "device": "br-lan", "connected": "fd00:1::/64", "address": "fd00:1::1/64", "same": True},
                            {"prefix": "192.168.2.0/25", "device": "eth1", "connected": "192.168.2.0/24", "address": "192.168.2.1/24",
                             "same": False},
                            {"prefix": "fd00:1::/80", "device": "br-lan", "connected": "fd00:1::/64", "address": "fd00:1::1/64", "same": False}]}
    assert " ".join(text.split()) == (
        "owrt's wg0 routes 192.168.1.0/24, fd00:1::/64 to the peer %s, and the same prefix is connected here (192.168.1.1/24 on br-lan, "
        "fd00:1::1/64 on br-lan): two routes for one prefix, and the connected one wins (an IPv4 route of the tunnel cannot even be "
        "added, File exists; an IPv6 one loses on metric), so what lies behind the peer in that prefix is unreachable from owrt. "
        "owrt's wg0 routes 192.168.2.0/25, fd00:1::/80 to the peer %s, inside the LAN connected here (192.168.2.0/24 on eth1, "
        "fd00:1::/64 on br-lan): the longer prefix "
        "wins, so owrt reaches those LAN hosts through the tunnel instead. If the site behind the peer really uses this LAN's "
        "addresses, renumber one of them or NAT it; else correct the prefix in network.x.allowed_ips. No role changes AllowedIPs: a "
        "wrong guess moves traffic to another peer." % (X, X))


def test_entries_not_judged(tg):
    kept = {tg.HUB: ["192.168.1.0/24"], X: ["192.168.1.0/24"], tg.OWRT: ["192.168.1.0/24"]}
    lan = {"br-lan": ["192.168.1.1/24"]}
    # a disabled peer and the entry for the interface's own key: never given to the kernel
    views = {"owrt": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB, tg.OWRT], kept=kept, disabled=(tg.HUB,)), lan)}
    assert _shadowed(views, "owrt") == []
    # no link_addresses read: nothing to compare with
    views = {"owrt": tg.owrt(tg.OWRT, [X], kept=kept)}
    assert allowed_ips_shadow_lan("owrt", views["owrt"], views) == []
    # a networkd entry: whether it adds routes is not read
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, [X], kept=kept), lan)}
    views["hub"]["tunnelfix"]["wireguard"]["configs"][0].update(kind="netdev", path="/etc/systemd/network/wg0.netdev")
    assert _shadowed(views) == []


def test_coverage_texts(tg):
    lan = {"eth0": ["192.168.1.2/24"]}
    views = {"zz": {"tunnelfix": {"wireguard": "garbage"}}, "nofacts": {"tunnelfix": {}}, "nolan": tg.linux(tg.HUB, [tg.PEER]),
             "uci0": tg.with_lan(tg.owrt(tg.OWRT, [tg.HUB], unrouted=(tg.HUB,)), lan)}
    assert shadow_coverage("zz", views["zz"], views)[0] == "not_checked"
    assert shadow_coverage("nofacts", views["nofacts"], views) == ("not_checked", "no WireGuard facts were read")
    assert shadow_coverage("nolan", views["nolan"], views) == (
        "not_checked", "the host's live addresses were not read (link_addresses: ip -j addr show)")
    assert shadow_coverage("uci0", views["uci0"], views) is None          # an entry without routes: nothing unknown
    mixed = tg.with_lan(tg.linux(tg.HUB, [tg.PEER]), lan)
    live = mixed["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"]
    live.append({"public_key": X, "allowed_ips": ["10.9.0.0/16"]})
    views = {"hub": mixed}
    assert shadow_coverage("hub", views["hub"], views) == ("clear", "judged without 1 entry whose routes are not known")
    live.append({"public_key": "Y" * 43 + "=", "allowed_ips": ["10.8.0.0/16"]})
    views = {"hub": mixed}
    assert shadow_coverage("hub", views["hub"], views) == ("clear", "judged without 2 entries whose routes are not known")
    views = {"hub": tg.with_lan(tg.linux(tg.HUB, []), lan)}
    views["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append({"public_key": X, "allowed_ips": ["10.9.0.0/16"]})
    assert shadow_coverage("hub", views["hub"], views) == (
        "not_checked", "whether the owners add routes for the entries' AllowedIPs is not known (networkd's RouteTable= is not read; "
        "entries added with wg set)")


def test_coverage_of_an_unreadable_host_an_openwrt_without_interfaces_and_ambiguous_files(tg):
    views = {"zz": {"tunnelfix": {"wireguard": "garbage"}}, "o": {"openwrt": {"wireguard": {"interfaces": {}}}}}
    assert shadow_coverage("zz", views["zz"], views) == (
        "not_checked", "its WireGuard facts have an unexpected shape (TypeError: wireguard is str, not a mapping)")
    assert shadow_coverage("o", views["o"], views) == ("clear", "does not apply: no WireGuard interface")
    # two files name wg0: the AllowedIPs as kept are not known, though wg-quick routes them
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER, tg.OWRT]), {"eth0": ["192.168.1.2/24"]})
    configs = hub["tunnelfix"]["wireguard"]["configs"]
    configs.append(dict(configs[0], path="/etc/wireguard/other.conf"))
    views = {"hub": hub}
    assert shadow_coverage("hub", views["hub"], views)[0] == "not_checked"


def test_a_host_without_entries_or_interfaces_has_nothing_to_judge(tg):
    lan = {"eth0": ["192.168.1.2/24"]}
    views = {"bare": tg.with_lan({"tunnelfix": {"wireguard": {"interfaces": {}, "configs": []}}}, lan),
             "lonely": tg.with_lan(tg.linux(tg.HUB, []), lan)}
    assert [allowed_ips_shadow_lan(host, views[host], views) for host in views] == [[], []]
    assert shadow_coverage("lonely", views["lonely"], views) is None


def test_every_entry_is_judged_after_one_that_is_not(tg):
    # A adds no route, B routes no LAN prefix, C shadows the LAN: only C, though A and B come first
    a, b = "A" * 43 + "=", "B" * 43 + "="
    kept = {a: ["192.168.1.0/24"], b: ["10.9.0.0/16"], X: ["192.168.1.0/24"]}
    views = {"owrt": tg.with_lan(tg.owrt(tg.OWRT, [a, b, X], kept=kept, unrouted=(a,)), {"br-lan": ["192.168.1.1/24"]})}
    assert [evidence["peer_public_key"] for evidence, _text in allowed_ips_shadow_lan("owrt", views["owrt"], views)] == [X]
