# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph: nodes and entries joined by public key across hosts, Linux and OpenWrt (fake keys)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph, graph_of

HUB = "HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH="
PEER = "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE="
OWRT = "OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR="
GONE = "GONEGONEGONEGONEGONEGONEGONEGONEGONEGONEGON="


def linux(key, peers, configs=(), listen_port=None, name="wg0"):
    return {"tunnelfix": {"wireguard": {"interfaces": {name: {"public_key": key, "listen_port": listen_port, "peers": list(peers)}},
                                        "configs": list(configs)}}}


def openwrt(key, peers, listen_port=51820):
    return {"openwrt": {"wireguard": {"interfaces": {"wg0": {
        "in_uci": True, "live": key is not None, "listen_port": listen_port,
        "live_state": {"public_key": key, "listen_port": listen_port} if key else None, "peers": list(peers)}}}}}


def fleet():
    return {
        "hub": linux(HUB, [{"public_key": PEER, "endpoint_host": "198.51.100.9", "endpoint_port": 41862,
                            "allowed_ips": ["10.77.0.2/32"], "handshake_age_s": 12, "rx_bytes": 10, "tx_bytes": 20},
                           {"public_key": OWRT, "allowed_ips": ["10.77.0.3/32"]}],
                     configs=[{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                               "peers": [{"public_key": PEER}]}], listen_port=51820),
        "peer": linux(PEER, [{"public_key": HUB, "endpoint_host": "203.0.113.10", "endpoint_port": 51820,
                              "allowed_ips": ["10.77.0.0/24"], "persistent_keepalive_s": 25}],
                      configs=[{"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0",
                                "wireguard": True, "peers": [{"public_key": HUB}, {"public_key": GONE, "endpoint": "[2001:db8::7]:51820",
                                                                                   "persistent_keepalive_s": 25}]}]),
        "owrt": openwrt(OWRT, [{"public_key": HUB, "in_uci": True, "endpoint_host": "203.0.113.10", "endpoint_port": 51820,
                                "allowed_ips": ["10.77.0.0/24"], "live": None}]),
        "bare": {"tunnelfix": None},
    }


def test_nodes_are_each_hosts_interfaces_with_their_own_key():
    graph = build_graph(fleet())
    assert {node: (info["public_key"], info["platform"], info["listen_port"]) for node, info in graph["nodes"].items()} == {
        "hub/wg0": (HUB, "linux", 51820), "peer/wg0": (PEER, "linux", None), "owrt/wg0": (OWRT, "openwrt", 51820)}
    assert graph["keys"] == {HUB: ["hub/wg0"], PEER: ["peer/wg0"], OWRT: ["owrt/wg0"]}


def test_entries_join_both_ends_by_public_key():
    graph = build_graph(fleet())
    edges = {edge["id"]: edge for edge in graph["edges"]}
    assert edges["peer/wg0>" + HUB]["to"] == ["hub/wg0"]
    assert graph["back"]["peer/wg0>" + HUB] == "hub/wg0>" + PEER
    assert graph["back"]["hub/wg0>" + PEER] == "peer/wg0>" + HUB
    assert graph["back"]["hub/wg0>" + OWRT] == "owrt/wg0>" + HUB
    assert edges["peer/wg0>" + GONE]["to"] == [] and graph["back"]["peer/wg0>" + GONE] is None   # no host has that key


def test_who_owns_each_entry():
    edges = {edge["id"]: edge for edge in build_graph(fleet())["edges"]}
    assert (edges["hub/wg0>" + PEER]["owner"], edges["hub/wg0>" + PEER]["owner_path"]) == ("wg-quick", "/etc/wireguard/wg0.conf")
    assert edges["hub/wg0>" + OWRT]["owner"] == "live only"   # in the kernel, in no file: wg set or a portal
    assert (edges["peer/wg0>" + HUB]["owner"], edges["peer/wg0>" + HUB]["running"]) == ("networkd", True)
    assert (edges["owrt/wg0>" + HUB]["owner"], edges["owrt/wg0>" + HUB]["running"]) == ("uci", False)


def test_a_configured_entry_the_kernel_lacks_is_an_edge_that_is_not_running():
    edge = {edge["id"]: edge for edge in build_graph(fleet())["edges"]}["peer/wg0>" + GONE]
    assert (edge["running"], edge["endpoint_host"], edge["endpoint_port"], edge["persistent_keepalive_s"]) == (
        False, "2001:db8::7", 51820, 25)


def test_a_key_two_interfaces_have_joins_both():
    views = fleet()
    views["clone"] = linux(PEER, [])
    graph = build_graph(views)
    assert graph["keys"][PEER] == ["clone/wg0", "peer/wg0"]
    assert {edge["id"]: edge for edge in graph["edges"]}["hub/wg0>" + PEER]["to"] == ["clone/wg0", "peer/wg0"]


def test_the_graph_is_built_once_per_views():
    views = fleet()
    assert graph_of(views) is graph_of(views)
    assert graph_of(dict(views)) is not graph_of(views)


def _netdev(peers, keepalive=25):
    return {"path": "/etc/systemd/network/90-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True,
            "addresses": None, "peers": [{"public_key": key, "endpoint": endpoint, "persistent_keepalive_s": keepalive}
                                         for key, endpoint in peers]}


def _wg_quick(peers, addresses=("10.77.0.2/24",)):
    return {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
            "addresses": list(addresses), "peers": [{"public_key": key, "endpoint": endpoint, "persistent_keepalive_s": None}
                                                    for key, endpoint in peers]}


def test_of_two_files_for_one_interface_the_one_that_runs_is_its_owner():
    # breaker s7: wg0 moved to networkd, the old wg0.conf (no Endpoint) left behind; the kernel runs the .netdev's
    running = [{"public_key": HUB, "endpoint_host": "203.0.113.1", "endpoint_port": 51820, "persistent_keepalive_s": 25}]
    for configs in ([_wg_quick([(HUB, None)]), _netdev([(HUB, "203.0.113.1:51820")])],
                    [_netdev([(HUB, "203.0.113.1:51820")]), _wg_quick([(HUB, None)])]):
        graph = build_graph({"peer": linux(PEER, running, configs=configs)})
        edge = graph["by_id"]["peer/wg0>" + HUB]
        assert (edge["owner"], edge["configured_endpoint_host"], edge["configured_endpoint_port"]) == ("networkd", "203.0.113.1", 51820)
        assert (graph["nodes"]["peer/wg0"]["config_ambiguous"], graph["nodes"]["peer/wg0"]["addresses"]) == (False, None)
    # the old file lists another key: the keys decide
    graph = build_graph({"peer": linux(PEER, running, configs=[_wg_quick([(GONE, None)]), _netdev([(HUB, "203.0.113.1:51820")], 0)])})
    assert graph["by_id"]["peer/wg0>" + HUB]["owner"] == "networkd" and not graph["nodes"]["peer/wg0"]["config_ambiguous"]


def test_two_files_nothing_tells_apart_make_the_interface_ambiguous():
    running = [{"public_key": HUB, "endpoint_host": "203.0.113.1", "endpoint_port": 51820}]
    graph = build_graph({"peer": linux(PEER, running, configs=[_wg_quick([(HUB, None)]), _netdev([(HUB, "203.0.113.1:51820")], None)])})
    assert (graph["nodes"]["peer/wg0"]["config_ambiguous"], graph["nodes"]["peer/wg0"]["addresses"]) == (True, None)


def test_a_uci_endpoint_without_a_port_is_netifds_51820():
    # netifd's wireguard.sh: endpoint_port defaults to 51820 (openwrt/openwrt @0a576dec74)
    views = {"owrt": openwrt(OWRT, [{"public_key": HUB, "in_uci": True, "endpoint_host": "203.0.113.10", "endpoint_port": None,
                                     "live": None},
                                    {"public_key": PEER, "in_uci": True, "endpoint_host": None, "endpoint_port": None, "live": None}])}
    edges = build_graph(views)["by_id"]
    assert (edges["owrt/wg0>" + HUB]["configured_endpoint_host"], edges["owrt/wg0>" + HUB]["configured_endpoint_port"]) == (
        "203.0.113.10", 51820)
    assert edges["owrt/wg0>" + PEER]["configured_endpoint_port"] is None   # no host: no endpoint at all


def test_a_disabled_uci_peer_is_an_edge_marked_disabled():
    views = {"owrt": openwrt(OWRT, [{"public_key": HUB, "in_uci": True, "disabled": True, "live": None}])}
    edge = build_graph(views)["by_id"]["owrt/wg0>" + HUB]
    assert (edge["disabled"], edge["running"]) == (True, False)


def test_a_host_whose_facts_have_the_wrong_shape_is_left_out_and_named():
    # breaker s10: zz's peer list holds None; the graph is built while judging aa
    views = fleet()
    broken = {"live_state": {"public_key": GONE}, "peers": [None]}
    views["zz"] = {"tunnelfix": None, "openwrt": {"wireguard": {"interfaces": {"wg0": broken}}}}
    graph = build_graph(views)
    assert list(graph["unreadable"]) == ["zz"] and "zz/wg0" not in graph["nodes"]
    assert graph["keys"][HUB] == ["hub/wg0"]


def test_one_machine_listed_twice_joins_once():
    views = fleet()
    views["hub.example.com"] = views["hub"]
    graph = build_graph(views)
    assert graph["keys"][HUB] == ["hub.example.com/wg0"]     # the first node in order stands for the machine
    assert (graph["nodes"]["hub/wg0"]["alias_of"], graph["nodes"]["hub.example.com/wg0"]["alias_of"]) == ("hub.example.com/wg0", None)
    assert graph["by_id"]["peer/wg0>" + HUB]["to"] == ["hub.example.com/wg0"]


def test_the_entry_back_is_a_running_one_when_there_is_one():
    # two interfaces with the peer's key: the clone lists the hub only in its file, the peer runs its entry
    views = fleet()
    views["clone"] = linux(PEER, [], configs=[_wg_quick([(HUB, None)])], listen_port=51821)
    graph = build_graph(views)
    assert graph["by_id"]["hub/wg0>" + PEER]["to"] == ["clone/wg0", "peer/wg0"]
    assert graph["back"]["hub/wg0>" + PEER] == "peer/wg0>" + HUB


def test_allowed_ips_as_kept_and_the_order_the_owner_sets_them():
    """configured_allowed_ips: the file's (None when the listing had none: older facts), uci's, a live-only entry's
    kernel ones; set_order: a wg-quick file's [Peer] order, a .netdev's reversed, uci's; uci_section names uci's peer."""
    views = fleet()
    views["hub"]["tunnelfix"]["wireguard"]["configs"][0]["peers"] = [{"public_key": PEER, "allowed_ips": ["10.77.0.2/32", "10.0.0.0/8"]}]
    views["peer"]["tunnelfix"]["wireguard"]["configs"][0]["peers"][0]["allowed_ips"] = ["10.77.0.0/24"]
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["section"] = "hub"
    edges = build_graph(views)["by_id"]
    assert [(edges[name]["configured_allowed_ips"], edges[name]["set_order"], edges[name]["uci_section"]) for name in (
        "hub/wg0>" + PEER, "hub/wg0>" + OWRT, "peer/wg0>" + HUB, "peer/wg0>" + GONE, "owrt/wg0>" + HUB)] == [
        (["10.77.0.2/32", "10.0.0.0/8"], 0, None),       # the file's, not the kernel's 10.77.0.2/32
        (["10.77.0.3/32"], None, None),                    # live only: the kernel's
        (["10.77.0.0/24"], 1, None),                       # the .netdev's first [WireGuardPeer]: networkd sets it last
        (None, 0, None),                                   # no AllowedIPs in the listing: not read
        (["10.77.0.0/24"], 0, "hub")]


def test_an_ambiguous_interface_keeps_no_allowed_ips():
    running = [{"public_key": HUB, "endpoint_host": "203.0.113.1", "endpoint_port": 51820, "allowed_ips": ["10.77.0.1/32"]}]
    configs = [_wg_quick([(HUB, None)]), _netdev([(HUB, "203.0.113.1:51820")], None)]
    for config in configs:
        config["peers"][0]["allowed_ips"] = ["10.77.0.0/24"]
    edge = build_graph({"peer": linux(PEER, running, configs=configs)})["by_id"]["peer/wg0>" + HUB]
    assert (edge["allowed_ips"], edge["configured_allowed_ips"]) == (["10.77.0.1/32"], None)


def test_who_adds_routes_for_an_entry_and_the_hosts_connected_devices():
    """routed: wg-quick yes; networkd unknown (RouteTable= not read); uci its route_allowed_ips; live only unknown."""
    views = fleet()
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["route_allowed_ips"] = False
    views["hub"]["tunnelfix"]["link_addresses"] = {"devices": {"eth0": ["192.168.1.2/24"]}, "note": None}
    graph = build_graph(views)
    edges = graph["by_id"]
    assert [edges[name]["routed"] for name in ("hub/wg0>" + PEER, "hub/wg0>" + OWRT, "peer/wg0>" + HUB, "owrt/wg0>" + HUB)] == [
        True, None, None, False]
    assert (graph["connected"]["hub"], graph["connected"]["peer"]) == ({"eth0": ["192.168.1.2/24"]}, None)


def test_a_node_and_an_entry_hold_the_documented_fields():
    graph = build_graph(fleet())
    assert graph["nodes"]["hub/wg0"] == {"host": "hub", "interface": "wg0", "public_key": HUB, "listen_port": 51820, "platform": "linux",
                                         "listen_port_kept": "unknown", "addresses": None, "config_ambiguous": False, "alias_of": None,
                                         "configured_public_key": None}
    assert graph["nodes"]["owrt/wg0"]["listen_port_kept"] == 51820   # uci listen_port
    assert graph["by_id"]["hub/wg0>" + PEER] == {
        "id": "hub/wg0>" + PEER, "from": "hub/wg0", "public_key": PEER, "to": ["peer/wg0"], "endpoint_host": "198.51.100.9",
        "endpoint_port": 41862, "configured_endpoint_host": None, "configured_endpoint_port": None, "allowed_ips": ["10.77.0.2/32"],
        "persistent_keepalive_s": None, "handshake_age_s": 12, "rx_bytes": 10, "tx_bytes": 20, "owner": "wg-quick",
        "owner_path": "/etc/wireguard/wg0.conf", "running": True, "disabled": False, "has_preshared_key": None, "preshared_key_fingerprint": None,
        "preshared_key_salt_id": None,
        "configured_allowed_ips": None, "set_order": 0, "uci_section": None, "routed": True}


def test_a_router_whose_interface_is_down_keeps_its_uci_port_and_entries():
    peers = [{"public_key": None, "in_uci": True, "live": None},       # a uci peer without a key: no entry
             {"public_key": HUB, "in_uci": True, "endpoint_host": "203.0.113.10", "endpoint_port": 51821, "allowed_ips": ["10.77.0.0/24"],
              "persistent_keepalive_s": 25, "live": None}]
    graph = build_graph({"owrt": openwrt(None, peers, listen_port=51822)})
    assert (graph["nodes"]["owrt/wg0"]["public_key"], graph["nodes"]["owrt/wg0"]["listen_port"]) == (None, 51822)
    edge = graph["by_id"]["owrt/wg0>" + HUB]
    assert (edge["endpoint_host"], edge["endpoint_port"], edge["allowed_ips"], edge["persistent_keepalive_s"], edge["running"]) == (
        "203.0.113.10", 51821, ["10.77.0.0/24"], 25, False)


def test_a_router_peer_and_interface_only_live_are_kept_by_nobody():
    # an interface and a peer the kernel has but uci does not (wg set): owner "live only", no kept listen port
    live = {"endpoint_host": "198.51.100.7", "endpoint_port": 41000, "allowed_ips": ["10.77.0.9/32"]}
    views = {"owrt": {"openwrt": {"wireguard": {"interfaces": {"wg0": {
        "in_uci": False, "live": True, "listen_port": None, "live_state": {"public_key": OWRT, "listen_port": 43512},
        "peers": [{"public_key": HUB, "in_uci": False, "live": live}]}}}}}}
    graph = build_graph(views)
    assert (graph["nodes"]["owrt/wg0"]["listen_port"], graph["nodes"]["owrt/wg0"]["listen_port_kept"]) == (43512, "unknown")
    edge = graph["by_id"]["owrt/wg0>" + HUB]
    assert (edge["owner"], edge["configured_endpoint_host"], edge["configured_endpoint_port"], edge["running"]) == (
        "live only", "198.51.100.7", 41000, True)
    # a live value of another shape is no live entry
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["live"] = False
    assert build_graph(views)["by_id"]["owrt/wg0>" + HUB]["running"] is False


@pytest.mark.parametrize("endpoint, kept", [
    ("203.0.113.1:51820", ("203.0.113.1", 51820)),
    ("[2001:db8::1]:51820", ("2001:db8::1", 51820)),
    ("vpn.example.com", ("vpn.example.com", None)),            # no port: the host part as given
    ("vpn.example.com:wg", ("vpn.example.com:wg", None)),      # not a port number
    ("[2001:db8::1:51820", ("[2001:db8::1", 51820)),           # an unclosed bracket is kept as written
    (None, (None, None)),
])
def test_a_files_endpoint_is_split_into_host_and_port(endpoint, kept):
    graph = build_graph({"peer": linux(PEER, [], configs=[_wg_quick([(HUB, endpoint)])])})
    edge = graph["by_id"]["peer/wg0>" + HUB]
    assert (edge["configured_endpoint_host"], edge["configured_endpoint_port"]) == kept


def test_a_keepalive_off_in_a_file_matches_a_running_keepalive_of_0():
    # two files with the same keys: the one whose keepalive is the running one's runs it (None, 0 and off are all "none")
    running = [{"public_key": HUB, "endpoint_host": "203.0.113.1", "endpoint_port": 51820, "persistent_keepalive_s": 0}]
    graph = build_graph({"peer": linux(PEER, running, configs=[_netdev([(HUB, "203.0.113.1:51820")], 25), _wg_quick([(HUB, None)])])})
    assert graph["by_id"]["peer/wg0>" + HUB]["owner"] == "wg-quick" and not graph["nodes"]["peer/wg0"]["config_ambiguous"]


def test_of_two_files_nothing_tells_apart_the_first_is_named():
    running = [{"public_key": HUB, "endpoint_host": "203.0.113.1", "endpoint_port": 51820}]
    for configs, owner in (([_netdev([(HUB, None)], None), _wg_quick([(HUB, None)])], "networkd"),
                           ([_wg_quick([(HUB, None)]), _netdev([(HUB, None)], None)], "wg-quick")):
        graph = build_graph({"peer": linux(PEER, running, configs=configs)})
        assert (graph["by_id"]["peer/wg0>" + HUB]["owner"], graph["nodes"]["peer/wg0"]["config_ambiguous"]) == (owner, True)


def test_wireguard_facts_that_are_no_mapping_make_the_host_unreadable():
    graph = build_graph({"zz": {"tunnelfix": {"wireguard": ["wg0"]}}, "hub": linux(HUB, [])})
    assert graph["unreadable"] == {"zz": "its WireGuard facts have an unexpected shape (TypeError: wireguard is list, not a mapping)"}


def test_only_wireguard_files_that_name_an_interface_are_read():
    not_wg = dict(_wg_quick([(GONE, None)]), wireguard=False)          # a .netdev of another kind
    unnamed = dict(_wg_quick([(OWRT, None)]), interface=None)
    unsaid = {key: value for key, value in _netdev([(HUB, None)]).items() if key != "wireguard"}   # no "wireguard": one
    graph = build_graph({"peer": linux(PEER, [], configs=[not_wg, unnamed, unsaid])})
    assert sorted(graph["nodes"]) == ["peer/wg0"]
    assert [(edge["id"], edge["owner"]) for edge in graph["edges"]] == [("peer/wg0>" + HUB, "networkd")]
