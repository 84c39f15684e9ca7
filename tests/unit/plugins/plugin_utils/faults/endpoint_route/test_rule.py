# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's rule on both sides of each decision: split/full, pinned or not, preferred device known or not,
a user's config route (kept: a conflict when it sends the endpoint elsewhere), metered uplinks."""

import copy

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import route_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.rule import pinned_coverage, pinned_endpoints

ETH1 = {"interface": "wan", "device": "eth1", "preferred": True, "metered": False, "rx_bytes": 1838, "tx_bytes": 1838}
WWAN0 = {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": True, "rx_bytes": 21468, "tx_bytes": 21468}
PREFIX_ON_BACKUP = {"section": "dc_net", "target": "203.0.113.0/24", "interface": "wanb", "gateway": None, "metric": 20,
                    "table": None, "installed": {"dst": "203.0.113.0/24", "gateway": "198.51.100.1", "dev": "wwan0",
                                                 "table": "main", "protocol": "static", "metric": 20}}
HOST_ON_FIBRE = {"section": "wg_endpoint", "target": "203.0.113.7/32", "interface": "wan", "gateway": "192.0.2.1",
                 "metric": 30, "table": None, "installed": {"dst": "203.0.113.7", "gateway": "192.0.2.1", "dev": "eth1",
                                                            "table": "main", "protocol": "static", "metric": 30}}


def view(dev="wwan0", tunnel="split", pinned=("203.0.113.7/32 dev wwan0",), preferred="eth1", user_routes=None,
         uplinks=None):
    routes = {"endpoints": [{"interface": "wg0", "address": "203.0.113.7", "dev": dev, "gateway": "10.64.0.1",
                             "pinned_routes": list(pinned), "user_routes": list(user_routes or [])}],
              "hotplug_hook_exists": False, "old_hotplug_hook_exists": False}
    if uplinks is not None:
        routes["uplinks"] = uplinks
    return {"preferred_uplink_device": preferred, "openwrt": {
        "wireguard": {"interfaces": {"wg0": {"tunnel": tunnel, "in_uci": True, "nohostroute": False}}},
        "endpoint_routes": routes}}


def test_a_split_tunnel_pinned_to_the_backup_is_found_with_its_evidence():
    [(evidence, explanation)] = pinned_endpoints("owrt", view(), {})
    assert evidence == {"interface": "wg0", "endpoint": "203.0.113.7", "dev": "wwan0", "gateway": "10.64.0.1",
                        "preferred_uplink_device": "eth1", "pinned_routes": ["203.0.113.7/32 dev wwan0"],
                        "user_route_conflict": None, "metered_uplink": None, "uplinks": None}
    assert "nohostroute=1" in explanation and "wwan0" in explanation


@pytest.mark.parametrize("changes, why", [
    ({"dev": "eth1"}, "already on the preferred uplink"),
    ({"tunnel": "full"}, "a full tunnel keeps its /32"),
    ({"tunnel": None}, "split or full unknown: no guess"),
    ({"pinned": ()}, "no pinned route"),
    ({"preferred": None}, "preferred uplink unknown: no guess"),
    ({"pinned": (), "user_routes": [HOST_ON_FIBRE]}, "the user's route uses the preferred uplink: no conflict"),
    ({"pinned": (), "user_routes": [dict(PREFIX_ON_BACKUP, installed=None)]}, "the user's route is not installed"),
    ({"pinned": (), "user_routes": [PREFIX_ON_BACKUP], "dev": "eth1"}, "on the preferred uplink for now"),
])
def test_no_finding(changes, why):
    assert pinned_endpoints("owrt", view(**changes), {}) == [], why


@pytest.mark.parametrize("error, words", [
    (None, "reached through an unknown uplink (ip route get named no device), not the preferred uplink eth1"),
    ("Network is unreachable", "reached through an unknown uplink (ip route get named no device: Network is unreachable)"),
])
def test_a_pinned_endpoint_ip_route_get_found_no_route_for_says_the_uplink_is_unknown(error, words):
    """Before: "is reached through None"."""
    v = view(dev=None)
    v["openwrt"]["endpoint_routes"]["endpoints"][0]["error"] = error
    [(evidence, explanation)] = pinned_endpoints("owrt", v, {})
    assert evidence["dev"] is None and "None" not in explanation
    assert words in explanation


def test_no_facts_no_finding():
    assert pinned_endpoints("owrt", {}, {}) == []


def test_an_endpoint_already_right_does_not_hide_the_next_one():
    v = view()
    right = dict(v["openwrt"]["endpoint_routes"]["endpoints"][0], dev="eth1", address="203.0.113.8")
    v["openwrt"]["endpoint_routes"]["endpoints"].insert(0, right)
    assert [evidence["endpoint"] for evidence, _text in pinned_endpoints("owrt", v, {})] == ["203.0.113.7"]


def test_the_explanation_names_the_endpoint_interface_device_and_preferred_uplink():
    [(_evidence, text)] = pinned_endpoints("owrt", view(), {})
    assert "endpoint 203.0.113.7 of wg0 is reached through wwan0, not the preferred uplink eth1" in " ".join(text.split())


@pytest.mark.parametrize("pinned", [(), ("203.0.113.7/32 dev wwan0",)])
def test_a_users_route_that_keeps_the_endpoint_on_the_backup_is_reported_as_a_conflict(pinned):
    [(evidence, text)] = pinned_endpoints("owrt", view(pinned=pinned, user_routes=[PREFIX_ON_BACKUP]), {})
    conflict = evidence["user_route_conflict"]
    assert (conflict["section"], conflict["target"], conflict["dev"]) == ("dc_net", "203.0.113.0/24", "wwan0")
    text = " ".join(text.split())
    assert "the config route section dc_net (target 203.0.113.0/24, interface wanb) sends 203.0.113.7 through wwan0" in text
    assert "a route you configured, kept as it is" in text
    assert ("That alone will not move it" in text) is bool(pinned)
    assert ("because of a route you configured" in text) is (not pinned)


def test_the_explanation_says_mwan3_rules_will_not_help():
    """mwan3 marks OUTPUT too; the host route makes the endpoint 'connected' to it (lib/mwan3/mwan3.sh@42525d32c4)."""
    [(_evidence, text)] = pinned_endpoints("owrt", view(), {})
    text = " ".join(text.split())
    assert "its hook is on mangle OUTPUT as well as PREROUTING" in text
    assert "every destination of the main table counts for it as connected and keeps the default mark" in text
    assert "adding mwan3 rules will not help, the route has to change" in text
    assert "do not steer the router's own WireGuard packets" not in text


def test_a_tunnel_on_a_metered_uplink_says_so_with_the_uplinks_counters():
    [(evidence, text)] = pinned_endpoints("owrt", view(uplinks=[ETH1, WWAN0]), {})
    assert evidence["metered_uplink"] is True
    assert evidence["uplinks"] == [ETH1, WWAN0]
    text = " ".join(text.split())
    assert "wwan0 is marked metered (openwrt_mwan3_wg_metered_uplinks)" in text
    assert "eth1 RX 1838 TX 1838 bytes, wwan0 RX 21468 TX 21468 bytes" in text
    assert "Every uplink is marked metered" not in text


@pytest.mark.parametrize("uplinks, metered, says", [
    ([dict(ETH1, metered=True), WWAN0], True, "Every uplink is marked metered, so the fix refuses to pick one"),
    ([ETH1, dict(WWAN0, metered=False)], False, None),
    ([ETH1, dict(WWAN0, rx_bytes=None, tx_bytes=None)], True, "wwan0 RX unknown TX unknown bytes"),
    ([], False, None),
])
def test_metered_uplinks_in_the_finding(uplinks, metered, says):
    [(evidence, text)] = pinned_endpoints("owrt", view(uplinks=uplinks), {})
    assert evidence["metered_uplink"] is metered
    text = " ".join(text.split())
    assert ("is marked metered" in text) is metered
    if says:
        assert says in text


def test_the_plan_refuses_when_every_uplink_is_metered():
    """The plan the role would follow: None (the role runs, changes nothing and fails saying why) when every uplink is
    metered and something would change; the changes when one uplink is not; [] stays [] (nothing to pick)."""
    pinned = [{"dst": "203.0.113.7", "gateway": "198.51.100.1", "dev": "wwan0"}]
    all_metered = [dict(ETH1, metered=True), WWAN0]
    assert route_plan(view(pinned=pinned, uplinks=all_metered), {}) is None
    assert route_plan(view(pinned=pinned, uplinks=[ETH1, WWAN0]), {}) == [
        "network.wg0.nohostroute: unset -> '1'", "delete the pinned route 203.0.113.7 via 198.51.100.1 dev wwan0 (endpoint of wg0)"]
    converged = copy.deepcopy(view(pinned=(), uplinks=all_metered))
    converged["openwrt"]["wireguard"]["interfaces"]["wg0"]["nohostroute"] = True
    assert route_plan(converged, {}) == []


def test_a_conflict_alone_lets_the_role_run_so_that_its_final_check_names_it():
    """nohostroute set and no pinned route: nothing to change, but the user's route still sends the endpoint over the
    backup. The plan is unknown (None), so remediate runs the role, whose final check fails naming the section."""
    converged = view(pinned=(), user_routes=[PREFIX_ON_BACKUP])
    converged["openwrt"]["wireguard"]["interfaces"]["wg0"]["nohostroute"] = True
    assert route_plan(converged, {}) is None
    converged["openwrt"]["endpoint_routes"]["endpoints"][0]["user_routes"] = [HOST_ON_FIBRE]
    assert route_plan(converged, {}) == []                       # the user's route on the fibre: truly converged


# every word of the finding, the coverage's answers and the plan's decisions (issue 31, item 5) ----------------

CONFLICT = ("the config route section dc_net (target 203.0.113.0/24, interface wanb) sends 203.0.113.7 through wwan0, not the "
            "preferred uplink eth1: a route you configured, kept as it is; point it at the preferred uplink or delete it "
            "(uci delete network.dc_net)")
MWAN3 = ("mwan3 marks the router's own packets too (its hook is on mangle OUTPUT as well as PREROUTING), but every destination "
         "of the main table counts for it as connected and keeps the default mark, so the endpoint's own host route puts it "
         "outside mwan3's policies: adding mwan3 rules will not help, the route has to change.")


def test_the_whole_explanation_of_a_pin_a_conflict_and_every_uplink_metered():
    [(evidence, text)] = pinned_endpoints("owrt", view(user_routes=[PREFIX_ON_BACKUP], uplinks=[dict(ETH1, metered=True), WWAN0]), {})
    assert " ".join(text.split()) == (
        "The WireGuard endpoint 203.0.113.7 of wg0 is reached through wwan0, not the preferred uplink eth1, because of a "
        "static host route. netifd adds that route when the interface starts, through whichever uplink is best at that "
        "moment, and never moves it when mwan3 switches back. For a split tunnel set nohostroute=1 and delete the pinned "
        "route. That alone will not move it: " + CONFLICT + ". wwan0 is marked metered (openwrt_mwan3_wg_metered_uplinks): "
        "the tunnel's traffic is paid for there (counters since each uplink came up: eth1 RX 1838 TX 1838 bytes, wwan0 RX "
        "21468 TX 21468 bytes). Every uplink is marked metered, so the fix refuses to pick one: leave the uplink the tunnel "
        "may use out of openwrt_mwan3_wg_metered_uplinks. " + MWAN3)
    assert evidence["user_route_conflict"] == {"section": "dc_net", "target": "203.0.113.0/24", "interface": "wanb", "dev": "wwan0",
                                               "gateway": "198.51.100.1", "message": CONFLICT}
    assert evidence["metered_uplink"] is True


def test_the_whole_explanation_of_a_conflict_alone():
    [(evidence, text)] = pinned_endpoints("owrt", view(pinned=(), user_routes=[PREFIX_ON_BACKUP], uplinks=[ETH1]), {})
    assert " ".join(text.split()) == (
        "The WireGuard endpoint 203.0.113.7 of wg0 is reached through wwan0, not the preferred uplink eth1, because of a "
        "route you configured: " + CONFLICT + ". " + MWAN3)
    assert (evidence["pinned_routes"], evidence["metered_uplink"], evidence["uplinks"]) == ([], False, [ETH1])


@pytest.mark.parametrize("uplinks, metered", [
    ([dict(WWAN0, device="wwan1"), ETH1], False),             # the endpoint's device is no known uplink
    ([dict(ETH1, metered=True), dict(WWAN0, metered=False)], False),
    ([dict(ETH1, device="wwan0", metered=False), WWAN0], False),     # the first uplink with that device decides
    ([WWAN0, dict(ETH1, metered=True)], True),
])
def test_the_endpoints_own_uplink_decides_metered(uplinks, metered):
    [(evidence, text)] = pinned_endpoints("owrt", view(uplinks=uplinks), {})
    assert evidence["metered_uplink"] is metered
    assert ("wwan0 is marked metered" in text) is metered


def test_a_view_without_facts_or_preferred_device_finds_nothing():
    assert pinned_endpoints("owrt", {"openwrt": None}, {}) == []
    assert pinned_endpoints("owrt", {"openwrt": {"endpoint_routes": None}}, {}) == []
    v = view()
    del v["preferred_uplink_device"]
    assert pinned_endpoints("owrt", v, {}) == []


@pytest.mark.parametrize("changes, answer", [
    ({"groups": []}, ("clear", "does not apply: not an OpenWrt router")),
    ({"openwrt": None}, ("not_checked", "openwrt_facts read no WireGuard interfaces or endpoint routes")),
    ({"openwrt": {"wireguard": {}}}, ("not_checked", "openwrt_facts read no WireGuard interfaces or endpoint routes")),
    ({"openwrt": {"endpoint_routes": {}}}, ("not_checked", "openwrt_facts read no WireGuard interfaces or endpoint routes")),
    ({"openwrt": {"wireguard": {}, "endpoint_routes": {"endpoints": []}}}, ("clear", "does not apply: no WireGuard peer endpoint")),
    ({"preferred_uplink_device": None}, ("not_checked", "the preferred uplink's device is unknown (openwrt_mwan3_wg_preferred_uplink "
                                                        "names no uci interface)")),
    ({}, None),
])
def test_pinned_coverage_both_sides(changes, answer):
    v = dict(view(), groups=["tunnelfix_openwrt"])
    v.update(changes)
    if changes.get("groups") == []:
        del v["openwrt"]
    assert pinned_coverage("owrt", v, {}) == answer


def plan_view(interfaces, endpoints=(), uplinks=None, preferred="eth1", hook=False):
    """openwrt_facts for route_plan: ``interfaces`` name -> (tunnel, nohostroute, written nohostroute); ``hook``: whether
    the full-tunnel hook exists (None unknown)."""
    routes = {"endpoints": list(endpoints), "hotplug_hook_exists": hook, "old_hotplug_hook_exists": False}
    if uplinks is not None:
        routes["uplinks"] = uplinks
    return {"preferred_uplink_device": preferred, "openwrt": {"endpoint_routes": routes, "wireguard": {"interfaces": {
        name: {"tunnel": tunnel, "nohostroute": honoured, "in_uci": True, "options": {} if written is None else {"nohostroute": written}}
        for name, (tunnel, honoured, written) in interfaces.items()}}}}


PIN = {"dst": "203.0.113.7", "gateway": "198.51.100.1", "dev": "wwan0"}
SPLIT_UNSET, SPLIT_SET, FULL_SET, FULL_UNSET = ("split", False, None), ("split", True, "1"), ("full", True, "1"), ("full", False, None)


def _endpoint(interface, pinned=(), user_routes=()):
    return {"interface": interface, "address": "203.0.113.7", "pinned_routes": list(pinned), "user_routes": list(user_routes)}


@pytest.mark.parametrize("interfaces, endpoints, role_vars, expected", [
    # every interface by default, in name order; only the ones asked for otherwise
    ({"wg1": SPLIT_UNSET, "wg0": SPLIT_UNSET}, [], {},
     ["network.wg0.nohostroute: unset -> '1'", "network.wg1.nohostroute: unset -> '1'"]),
    ({"wg1": SPLIT_UNSET, "wg0": SPLIT_SET}, [], {"openwrt_mwan3_wg_interfaces": ["wg0"]}, []),
    ({"wg1": SPLIT_UNSET, "wg0": SPLIT_SET}, [], None, ["network.wg1.nohostroute: unset -> '1'"]),
    # what was written, a list included, is named
    ({"wg0": ("split", False, ["1", "1"])}, [], {}, ["network.wg0.nohostroute: '1 1' (netifd honours only '1') -> '1'"]),
    ({"wg0": ("split", False, "yes")}, [], {}, ["network.wg0.nohostroute: 'yes' (netifd honours only '1') -> '1'"]),
    # the pins of the interface's own endpoints only
    ({"wg0": SPLIT_SET, "wg1": SPLIT_SET}, [_endpoint("wg1", [PIN]), _endpoint("wg0")], {"openwrt_mwan3_wg_interfaces": "wg1"},
     ["delete the pinned route 203.0.113.7 via 198.51.100.1 dev wwan0 (endpoint of wg1)"]),
    ({"wg0": SPLIT_SET, "wg1": SPLIT_SET}, [_endpoint("wg1", [PIN])], {"openwrt_mwan3_wg_interfaces": "wg0"}, []),
    # a full tunnel whose endpoint is unknown (none read): its hook, absent here, is neither installed nor removed
    ({"wg0": FULL_UNSET, "wg1": SPLIT_UNSET}, [], {}, ["network.wg1.nohostroute: unset -> '1'"]),
    ({"wg0": ("unknown", False, None)}, [], {}, None),
    # a user's route in conflict: the changes when there are some, else unknown (the role's final check names it)
    ({"wg0": SPLIT_UNSET}, [_endpoint("wg0", user_routes=[PREFIX_ON_BACKUP])], {}, ["network.wg0.nohostroute: unset -> '1'"]),
    ({"wg0": SPLIT_SET}, [_endpoint("wg0", user_routes=[PREFIX_ON_BACKUP])], {}, None),
    ({"wg0": SPLIT_SET, "wg1": SPLIT_SET}, [_endpoint("wg1", user_routes=[PREFIX_ON_BACKUP])], {"openwrt_mwan3_wg_interfaces": ["wg0"]},
     []),
    ({"wg0": SPLIT_SET}, [_endpoint("wg0", user_routes=[HOST_ON_FIBRE])], {}, []),
])
def test_route_plan_both_sides(interfaces, endpoints, role_vars, expected):
    assert route_plan(plan_view(interfaces, endpoints), role_vars) == expected


@pytest.mark.parametrize("hotplug, on", [(True, True), ("true", True), ("yes", True), (False, False), ("false", False),
                                         ("no", False), ("0", False)])
def test_route_plan_reads_the_hotplug_option_as_a_boolean(hotplug, on):
    """A full tunnel whose endpoint is unknown keeps the hook it has while the option is on; off, the hook is stale."""
    lines = route_plan(plan_view({"wg0": FULL_SET}, [], hook=True), {"openwrt_mwan3_wg_full_tunnel_hotplug": hotplug})
    assert lines == ["network.wg0.nohostroute: '1' -> unset (a full tunnel needs the endpoint's host route)"] + (
        [] if on else ["remove the stale hook /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint (openwrt_mwan3_wg_full_tunnel_hotplug is false)"])


def test_route_plan_with_a_conflict_and_no_known_preferred_uplink_is_converged():
    assert route_plan(plan_view({"wg0": SPLIT_SET}, [_endpoint("wg0", user_routes=[PREFIX_ON_BACKUP])], preferred=None), {}) == []


@pytest.mark.parametrize("uplinks, expected", [
    ([dict(ETH1, metered=True), WWAN0], None),
    ([dict(ETH1, metered=True), WWAN0, "not an uplink"], None),
    ([ETH1, WWAN0], ["network.wg0.nohostroute: unset -> '1'"]),
    ("not a list", ["network.wg0.nohostroute: unset -> '1'"]),
])
def test_route_plan_refuses_only_when_every_uplink_is_metered(uplinks, expected):
    assert route_plan(plan_view({"wg0": SPLIT_UNSET}, uplinks=uplinks), {}) == expected


@pytest.mark.parametrize("openwrt", [None, {"wireguard": {"interfaces": {}}}, {"endpoint_routes": {"endpoints": []}},
                                     {"wireguard": "unread", "endpoint_routes": {"endpoints": []}}])
def test_route_plan_needs_both_facts(openwrt):
    assert route_plan({"openwrt": openwrt}, {}) is None
