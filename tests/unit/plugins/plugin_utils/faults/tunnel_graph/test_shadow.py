# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""allowed_ips_shadow_lan: a peer's AllowedIPs route a prefix connected on another device of the host (fake keys)."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.reads import parse_device_addresses
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.shadow import allowed_ips_shadow_lan, shadow_coverage

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
