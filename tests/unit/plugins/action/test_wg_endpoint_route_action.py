# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The wg_endpoint_route action against a fake router that runs its scripts: commands run, check mode, fallbacks, failures.

The fake (``batch_action`` in this folder's conftest.py) executes what the action sends with dash,
bash and BusyBox sh, PATH holding stub ``uci``, ``ip`` and ``route`` printing recorded answers, one
per command, so the on-router redaction and the endpoint listing (``sed`` of the uci output) run
for real. ``router.calls()`` lists the stub commands in the order they ran.
"""

import hashlib
import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.wg_endpoint_route import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE

SHOW = "uci -q show network"
CHANGES = "uci changes network"
ROUTES = "ip -j route show table all"
ROUTES_TEXT = "ip route show table all"
GET = "ip -j route get 203.0.113.10"
GET_TEXT = "ip route get 203.0.113.10"
SET = "uci set network.wg0.nohostroute=1"
COMMIT = "uci commit network"
DEL = "ip route del 203.0.113.10/32 via 198.51.100.1 dev wwan0"
GET_VIA_WAN = '[{"dst":"203.0.113.10","gateway":"192.0.2.1","dev":"eth1","prefsrc":"192.0.2.20","flags":[],"uid":0,"cache":[]}]'
UNREACHABLE = (2, "", "RTNETLINK answers: Network is unreachable\n")


@pytest.fixture
def fake(batch_action):
    def make(args, answers, **kwargs):
        return batch_action(ActionModule, args, answers, **kwargs)
    return make


@pytest.fixture
def case01(load_fixture):
    return {SHOW: (0, load_fixture("uci_show", "case01_network.txt"), ""),
            ROUTES: (0, load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
            ROUTES_TEXT: (0, load_fixture("ip_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
            GET: (0, GET_VIA_WAN, ""),
            GET_TEXT: (0, load_fixture("ip_route_get", "endpoint_via_backup.txt"), ""),
            CHANGES: (0, "", ""), SET: (0, "", ""), COMMIT: (0, "", ""), DEL: (0, "", "")}


def test_split_tunnel_sets_commits_and_deletes_exactly(fake, case01):
    action = fake({"preferred_uplink": "wan"}, case01, diff=True)
    result = action.run(task_vars={})
    # the reads (both lookups of the address uci names), then the changes and the lookup after them
    assert action.router.calls() == [SHOW, CHANGES, ROUTES, ROUTES_TEXT, GET, GET_TEXT, SET, COMMIT, DEL, GET]
    assert len(action.ran) == 2 and action.router.leftovers() == []
    assert result["changed"] is True and result["committed"] is True
    assert result["preferred_device"] == "eth1"
    assert result["wireguard_interfaces"] == ["wg0"]
    assert result["endpoint_routes"] == {"203.0.113.10": {"dev": "eth1", "gateway": "192.0.2.1"}}
    assert "route 203.0.113.10/32 via 198.51.100.1 dev wwan0" in result["diff"]["before"]
    assert "K" * 43 not in repr(result)
    assert "K" * 43 not in repr(action.outputs)  # redacted on the router: not even -vvv shows the key


def test_check_mode_changes_nothing(fake, case01):
    action = fake({}, case01, check_mode=True)
    result = action.run(task_vars={})
    assert action.router.calls() == [SHOW, CHANGES, ROUTES, ROUTES_TEXT, GET, GET_TEXT]
    assert len(action.ran) == 1
    assert result["changed"] is True and result["committed"] is False
    assert result["commands"] == [SET, DEL]


def test_fixed_router_is_read_in_one_execution(fake, case01, load_fixture):
    routes = [route for route in json.loads(case01[ROUTES][1]) if route.get("dst") != "203.0.113.10"]
    case01.update({SHOW: (0, load_fixture("uci_show", "case01_fixed_network.txt"), ""),
                   ROUTES: (0, json.dumps(routes), "")})
    action = fake({}, case01)
    result = action.run(task_vars={})
    assert result["changed"] is False and result["commands"] == [] and result["committed"] is False
    assert result["endpoint_routes"] == {"203.0.113.10": {"dev": "eth1", "gateway": "192.0.2.1"}}
    assert action.router.calls() == [SHOW, CHANGES, ROUTES, ROUTES_TEXT, GET, GET_TEXT]
    assert len(action.ran) == 1


def test_address_written_otherwise_in_uci_is_matched(fake, case01, load_fixture):
    """The shell names the lookup by uci's text (2001:db8:10:0::10), the plan by the address (2001:db8:10::10)."""
    case01[SHOW] = (0, case01[SHOW][1].replace("'203.0.113.10'", "'2001:db8:10:0::10'"), "")
    case01["ip -j route get 2001:db8:10:0::10"] = (0, load_fixture("ip_j_route_get", "endpoint_v6_via_backup.txt"), "")
    case01["ip route get 2001:db8:10:0::10"] = (0, "", "")
    action = fake({}, case01, check_mode=True)
    result = action.run(task_vars={})
    assert result["endpoint_routes"] == {"2001:db8:10::10": {"dev": "wwan0", "gateway": "2001:db8:2::1"}}
    assert len(action.ran) == 1


def test_text_form_when_ip_has_no_j(fake, case01, load_fixture):
    """An ip without -j: the routes and the lookups are read in their text form, as openwrt_facts reads them."""
    case01[ROUTES] = (255, "", 'Option "-j" is unknown')
    case01[ROUTES_TEXT] = (0, load_fixture("ip_route_show", "endpoint_pinned_to_backup_table_all.txt"), "")
    action = fake({}, case01, check_mode=True)
    result = action.run(task_vars={})
    assert result["routes_source"] == ROUTES_TEXT
    assert result["commands"] == [SET, DEL]
    assert result["endpoint_routes"] == {"203.0.113.10": {"dev": "wwan0", "gateway": "198.51.100.1"}}
    assert "route -n" not in action.router.calls() and len(action.ran) == 1


def test_text_from_ip_j_is_read_as_text(fake, case01, load_fixture):
    """An ip that ignores -j exits 0 with text: the text form from the same batch is parsed instead."""
    case01[ROUTES] = (0, "default via 192.168.10.1 dev br-lan\n", "")
    case01[ROUTES_TEXT] = (0, load_fixture("ip_route_show", "endpoint_pinned_to_backup_table_all.txt"), "")
    action = fake({}, case01, check_mode=True)
    result = action.run(task_vars={})
    assert result["routes_source"] == ROUTES_TEXT
    assert result["commands"] == [SET, DEL]
    assert len(action.ran) == 1


def test_the_same_routes_as_openwrt_facts(fake, case01):
    """One reader: the fix runs the route commands the facts run (no BusyBox route -n, main table only)."""
    from ansible_collections.tunnelfix.fleet.plugins.action import openwrt_facts
    from ansible_collections.tunnelfix.fleet.plugins.action import wg_endpoint_route

    def route_reads(steps):
        return [step.name for step in steps if " route show " in getattr(step, "name", "")]
    assert route_reads(wg_endpoint_route.read_steps()) == route_reads(openwrt_facts.batch_steps({"endpoint_routes"}))
    action = fake({}, case01, check_mode=True)
    action.run(task_vars={})
    assert "route -n" not in action.router.calls()


@pytest.fixture
def by_hostname(case01):
    case01[SHOW] = (0, case01[SHOW][1].replace("endpoint_host='203.0.113.10'", "endpoint_host='vpn.example.net'"), "")
    return case01


def test_a_peer_set_up_by_hostname_without_a_live_endpoint_stays_unresolved(fake, by_hostname):
    result = fake({}, by_hostname, check_mode=True).run(task_vars={})
    assert result["commands"] == [SET] and result["interfaces"]["wg0"]["unresolved"] == ["vpn.example.net"]


def test_no_endpoint_to_look_up_is_planned_as_the_finding_side_plans_it(fake, by_hostname):
    """No endpoint address (uci names a host, no live endpoint): the fix builds the facts the endpoint_routes reading
    builds (read_endpoint_routes), so no route is read and there are no uplinks to refuse: the plan route_plan shows
    on those facts is the one applied. The fix used to read the uplinks on its own and refuse (every uplink metered)
    while remediate's plan said it would set nohostroute."""
    action = fake({"preferred_uplink": "wan", "metered_uplinks": ["wan", "wanb"]}, by_hostname, check_mode=True)
    result = action.run(task_vars={})
    assert (result["refused"], result["uplinks"], result["routes_source"]) == (None, None, None)
    assert result["commands"] == [SET] and "warnings" not in result


def test_a_peer_set_up_by_hostname_is_fixed_at_its_live_endpoint(fake, by_hostname, load_fixture):
    """The endpoints are openwrt_facts' (a peer's live endpoint, else its uci IP): netifd resolved vpn.example.net to
    203.0.113.10 and pinned it; the fix deletes that route too, where uci alone would leave the peer unresolved."""
    case01 = by_hostname
    case01.update({"date +%s": (0, "1767225600\n", ""),
                   "wg show all dump": (0, load_fixture("wg_show_all_dump", "case01_endpoint_hostroute.txt"), "")})
    action = fake({}, case01, check_mode=True)
    result = action.run(task_vars={})
    assert result["commands"] == [SET, DEL]
    assert result["interfaces"]["wg0"]["endpoints"] == ["203.0.113.10"] and result["interfaces"]["wg0"]["unresolved"] == []
    assert GET in action.router.calls() and len(action.ran) == 1          # looked up in the same execution
    assert "K" * 43 not in repr(result) and "K" * 43 not in repr(action.outputs)


def test_full_tunnel_is_refused_with_a_warning(fake, load_fixture):
    answers = {SHOW: (0, load_fixture("uci_show", "case04_network.txt"), ""), CHANGES: (0, "", ""), ROUTES: (0, "[]", ""),
               "ip -j route get 203.0.113.55": UNREACHABLE, "ip route get 203.0.113.55": UNREACHABLE}
    action = fake({}, answers, check_mode=True)
    result = action.run(task_vars={})
    assert result["interfaces"]["wg0"]["tunnel"] == "full"
    assert "routing loop" in result["warnings"][0]
    assert result["commands"] == ["uci delete network.wg0.nohostroute"]
    assert result["full_tunnel_endpoints"] == [{"interface": "wg0", "endpoint": "203.0.113.55"}]
    assert result["endpoint_routes"] == {"203.0.113.55": None}
    assert len(action.ran) == 1


@pytest.mark.parametrize("args, answers_update, message", [
    ({"interfaces": ["wg9"]}, {}, "interfaces: 'wg9' is not a proto wireguard interface"),
    ({"interfaces": ["wg 0"]}, {}, "interfaces: 'wg 0' is not a uci interface name ([A-Za-z0-9_]+)"),
    ({}, {SHOW: (1, "", "")}, "uci: no network config on the target"),
    ({}, {DEL: (2, "", "RTNETLINK answers: No such process")}, "RTNETLINK answers: No such process"),
    ({}, {SET: (1, "", "uci: Invalid argument")}, "uci set network.wg0.nohostroute=1 failed with rc=1"),
])
def test_failures_name_the_cause(fake, case01, args, answers_update, message):
    case01.update(answers_update)
    result = fake(args, case01).run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]


def test_a_failed_uci_set_stops_the_commit_and_the_route_deletion(fake, case01):
    case01[SET] = (1, "", "uci: Invalid argument")
    action = fake({}, case01)
    result = action.run(task_vars={})
    assert result["failed"] is True and SET in result["msg"]
    assert SET in action.router.calls()
    assert COMMIT not in action.router.calls() and DEL not in action.router.calls()


ADMIN = "network.lan.ipaddr='192.168.9.1'\nnetwork.wg0.listen_port='51999'\n"


@pytest.mark.parametrize("check_mode", [False, True])
def test_staged_admin_changes_fail_naming_them_and_nothing_changes(fake, case01, check_mode):
    case01[CHANGES] = (0, ADMIN, "")
    action = fake({"preferred_uplink": "wan"}, case01, check_mode=check_mode)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].startswith("uci: network has 2 staged change(s) this task did not make: network.lan.ipaddr "
                                    "(set), network.wg0.listen_port (set) (values not shown)")
    assert "192.168.9.1" not in result["msg"] and "51999" not in result["msg"]
    assert SET not in action.router.calls() and COMMIT not in action.router.calls() and DEL not in action.router.calls()


def test_staged_admin_changes_are_committed_when_asked(fake, case01):
    case01[CHANGES] = (0, ADMIN, "")
    action = fake({"preferred_uplink": "wan", "commit_staged": True}, case01)
    warnings = []
    action._display = type("D", (), {"warning": staticmethod(warnings.append)})()
    result = action.run(task_vars={})
    assert result["committed"] is True and COMMIT in action.router.calls()
    assert warnings and "commit_staged is set" in warnings[0]


def test_staged_admin_changes_do_not_matter_when_uci_is_not_changed(fake, case01, load_fixture):
    case01.update({SHOW: (0, load_fixture("uci_show", "case01_fixed_network.txt"), ""), CHANGES: (0, ADMIN, "")})
    result = fake({"preferred_uplink": "wan"}, case01).run(task_vars={})
    assert "failed" not in result and COMMIT not in repr(result.get("commands"))


def test_bad_interface_name_fails_before_any_command(fake, case01):
    action = fake({"interfaces": ["wg0", "wg0;reboot"]}, case01)
    result = action.run(task_vars={})
    assert result["failed"] is True and "'wg0;reboot'" in result["msg"]
    assert action.ran == []


# a user's config route (issue 17, point 4) and metered uplinks (point 5) ------------------------

@pytest.fixture
def user_route(load_fixture):
    """The recorded field shape: a config route to the endpoint over the fibre (metric 30), netifd's /32 over the 5G
    backup (metric 20), which wins."""
    return {SHOW: (0, load_fixture("uci_show", "user_route_fibre_endpoint.txt"), ""), CHANGES: (0, "", ""),
            ROUTES: (0, load_fixture("ip_j_route_show", "user_route_fibre_pinned_backup_table_all.txt"), ""),
            ROUTES_TEXT: (0, load_fixture("ip_route_show", "user_route_fibre_pinned_backup_table_all.txt"), ""),
            GET: (0, load_fixture("ip_j_route_get", "user_route_fibre_pinned_backup.txt"), ""),
            GET_TEXT: (0, load_fixture("ip_route_get", "user_route_fibre_pinned_backup.txt"), ""),
            SET: (0, "", ""), COMMIT: (0, "", ""), DEL: (0, "", "")}


def test_the_users_route_is_kept_and_netifds_pin_deleted(fake, user_route, load_fixture):
    later = {GET: (0, load_fixture("ip_j_route_get", "user_route_fibre_after_fix.txt"), "")}
    action = fake({"preferred_uplink": "wan"}, user_route, later=later)
    result = action.run(task_vars={})
    assert result["commands"] == [SET, DEL]
    assert "ip route del 203.0.113.10/32 via 192.0.2.1 dev eth1" not in action.router.calls()
    entry = result["interfaces"]["wg0"]
    assert entry["kept_routes"] == [{"dst": "203.0.113.10", "gateway": "192.0.2.1", "dev": "eth1", "table": "main",
                                     "protocol": "static", "metric": 30}]
    assert entry["conflicts"] == [] and entry["user_routes"][0]["section"] == "wg_endpoint"
    assert result["endpoint_routes"] == {"203.0.113.10": {"dev": "eth1", "gateway": "192.0.2.1"}}   # via the fibre
    assert result["refused"] is None


def test_a_users_route_on_the_backup_is_kept_and_reported(fake, user_route, load_fixture):
    user_route.update({SHOW: (0, load_fixture("uci_show", "user_prefix_backup_endpoint.txt"), ""),
                       ROUTES: (0, load_fixture("ip_j_route_show", "user_prefix_backup_pinned_backup_table_all.txt"), ""),
                       GET: (0, load_fixture("ip_j_route_get", "user_prefix_backup.txt"), "")})
    result = fake({"preferred_uplink": "wan"}, user_route, check_mode=True).run(task_vars={})
    assert result["commands"] == [SET, DEL]
    [conflict] = result["interfaces"]["wg0"]["conflicts"]
    assert (conflict["section"], conflict["dev"], conflict["endpoint"]) == ("dc_net", "wwan0", "203.0.113.10")
    assert "uci delete network.dc_net" in conflict["message"]


@pytest.mark.parametrize("check_mode", [False, True])
def test_every_uplink_metered_changes_nothing_and_says_why(fake, user_route, check_mode):
    action = fake({"preferred_uplink": "wan", "metered_uplinks": ["wan", "wanb"]}, user_route, check_mode=check_mode)
    result = action.run(task_vars={})
    assert result.get("failed") is not True          # the role fails on it, naming its own option
    assert (result["changed"], result["commands"], result["committed"]) == (False, [], False)
    assert result["refused"].startswith("every uplink of this router is metered (wan: eth1, wanb: wwan0)")
    assert [(u["device"], u["metered"]) for u in result["uplinks"]] == [("eth1", True), ("wwan0", True)]
    assert SET not in action.router.calls() and DEL not in action.router.calls() and len(action.ran) == 1


def test_one_unmetered_uplink_is_picked(fake, user_route):
    result = fake({"preferred_uplink": "wan", "metered_uplinks": ["wanb"]}, user_route, check_mode=True).run(task_vars={})
    assert result["refused"] is None and result["commands"] == [SET, DEL]
    assert "warnings" not in result


def test_a_metered_name_that_is_no_uplink_is_warned_about(fake, user_route):
    """A modem interface's device is named at run time: wanb4 (a typo here) matches no uplink, so a warning says so."""
    result = fake({"preferred_uplink": "wan", "metered_uplinks": ["wanb4"]}, user_route, check_mode=True).run(task_vars={})
    assert result["warnings"] == ["metered_uplinks: 'wanb4' is no uplink's uci interface or device (uplinks: eth1, wwan0); "
                                  "a modem interface's device is named at run time, list the device (wwan0)"]
    assert result["commands"] == [SET, DEL]


@pytest.mark.parametrize("names", [["wan;reboot"], ["wan", ""], ["x" * 16]])
def test_a_bad_metered_uplink_fails_before_any_command(fake, user_route, names):
    action = fake({"metered_uplinks": names}, user_route)
    result = action.run(task_vars={})
    assert result["failed"] is True and result["msg"].startswith("metered_uplinks: %s " % json.dumps(names[-1]))
    assert action.ran == []


@pytest.mark.parametrize("uplink", [["wan"], "wan;reboot", "", "x" * 16])
def test_a_bad_preferred_uplink_fails_naming_it_before_any_command(fake, user_route, uplink):
    """The check openwrt_facts and the role make (uplinks.uplink_option_errors): the fix took any preferred_uplink."""
    action = fake({"preferred_uplink": uplink}, user_route)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == "preferred_uplink: %s is not a uci interface or device name (%s)" % (json.dumps(str(uplink)), RULE)
    assert action.ran == []


def test_without_netaddr_the_task_fails_naming_the_package_and_the_fix(fake, case01, monkeypatch):
    monkeypatch.setattr(ipnet, "netaddr", None)
    action = fake({}, case01)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].endswith("tunnelfix.fleet needs the Python package netaddr on the controller: pip install netaddr==1.3.0")
    assert result["msg"].startswith("uci network: ") and "Traceback" not in repr(result)
    assert SET not in action.router.calls() and DEL not in action.router.calls()   # nothing changed


def test_a_live_endpoint_inside_the_routed_allowed_ips_is_a_full_tunnel_as_the_finding_sees_it(fake, by_hostname, load_fixture):
    """The tunnel's kind is the facts' (live endpoint, else uci), the one fault 1's rule and plan read: uci names a host,
    netifd resolved it to 203.0.113.10, inside the routed 203.0.113.0/24. nohostroute there would route the tunnel's
    own packets into it; reading uci alone, the action used to set it and delete the host route."""
    case01 = by_hostname
    case01[SHOW] = (0, case01[SHOW][1].replace("192.168.20.0/24", "203.0.113.0/24"), "")
    case01.update({"date +%s": (0, "1767225600\n", ""),
                   "wg show all dump": (0, load_fixture("wg_show_all_dump", "case01_endpoint_hostroute.txt"), "")})
    result = fake({}, case01, check_mode=True).run(task_vars={})
    entry = result["interfaces"]["wg0"]
    assert (entry["tunnel"], entry["reason"]) == ("full", "endpoint 203.0.113.10 is inside the routed allowed_ips 203.0.113.0/24")
    assert result["commands"] == [] and result["changed"] is False
    assert result["full_tunnel_endpoints"] == [{"interface": "wg0", "endpoint": "203.0.113.10"}]
    assert "routing loop" in result["warnings"][0]


HOOK_PROBE = "sha256sum /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint /etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"
HOOK_KEYS = ("exists", "endpoints", "install", "remove", "stale", "old_exists", "remove_old")


def hook_probe(load_fixture, case, tool="busybox_openwrt24.10"):
    """The probe's answer as recorded (tests/unit/fixtures/README.md): ``none``, ``hook_only``, ``both``."""
    name = "%s_%s.txt" % (tool, case)
    return (0 if case == "both" else 1, load_fixture("sha256sum_hotplug_hook", name), load_fixture("sha256sum_hotplug_hook_stderr", name))


@pytest.mark.parametrize("args, case, tool, hook", [
    # a fixed split tunnel with the hook a full tunnel left: the plan says remove it, the action changes nothing
    ({}, "hook_only", "busybox_openwrt24.10",
     {"exists": True, "endpoints": [], "install": False, "remove": True, "stale": "no full tunnel left", "old_exists": False,
      "remove_old": False}),
    ({"full_tunnel_hotplug": False}, "hook_only", "gnu_debian12",
     {"exists": True, "endpoints": [], "install": False, "remove": True, "stale": "openwrt_mwan3_wg_full_tunnel_hotplug is false",
      "old_exists": False, "remove_old": False}),
    # the file an earlier version left: removed too
    ({}, "both", "busybox_openwrt24.10",
     {"exists": True, "endpoints": [], "install": False, "remove": True, "stale": "no full tunnel left", "old_exists": True,
      "remove_old": True}),
    # converged: nothing to remove
    ({}, "none", "gnu_debian12",
     {"exists": False, "endpoints": [], "install": False, "remove": False, "stale": "no full tunnel left", "old_exists": False,
      "remove_old": False}),
])
def test_the_hook_is_read_in_the_first_batch_and_planned(fake, case01, load_fixture, args, case, tool, hook):
    routes = [route for route in json.loads(case01[ROUTES][1]) if route.get("dst") != "203.0.113.10"]
    case01.update({SHOW: (0, load_fixture("uci_show", "case01_fixed_network.txt"), ""), ROUTES: (0, json.dumps(routes), ""),
                   HOOK_PROBE: hook_probe(load_fixture, case, tool)})
    action = fake(args, case01)
    result = action.run(task_vars={})
    assert {key: result["hotplug_hook"][key] for key in HOOK_KEYS} == hook
    assert result["hotplug_hook"]["path"] == "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint"
    assert result["hotplug_hook"]["content"] is None   # not wanted: no text to write
    assert result["changed"] is False and result["commands"] == []   # the role's plain_file removes it, not this action
    assert action.router.calls() == [SHOW, CHANGES, ROUTES, ROUTES_TEXT, GET, GET_TEXT, HOOK_PROBE]
    assert len(action.ran) == 1


@pytest.mark.parametrize("tool", ["busybox_openwrt24.10", "gnu_debian12"])
@pytest.mark.parametrize("args, case, reason", [
    # the router the recorded hook was written for (wg0 full, wan on eth1 preferred, wanb on wwan0 metered): converged
    ({"preferred_uplink": "wan", "metered_uplinks": ["wanb"]}, "hook_only", None),
    ({"preferred_uplink": "wan", "metered_uplinks": ["wanb"]}, "both", None),
    # no hook, or the text of another router (wanb not metered here)
    ({"preferred_uplink": "wan", "metered_uplinks": ["wanb"]}, "none", "hotplug hook missing"),
    ({"preferred_uplink": "wan"}, "hook_only", "hotplug hook differs"),
])
def test_a_full_tunnel_s_hook_is_planned_for_writing_only_when_the_router_s_text_differs(
        fake, by_hostname, load_fixture, tool, args, case, reason):
    """The plan installs the hook when the router's SHA-256 is not its text's (the role's plain_file runs only then), and
    gives that text; the action itself never writes it."""
    case01 = by_hostname
    case01[SHOW] = (0, case01[SHOW][1].replace("192.168.20.0/24", "203.0.113.0/24"), "")
    case01.update({"date +%s": (0, "1767225600\n", ""),
                   "wg show all dump": (0, load_fixture("wg_show_all_dump", "case01_endpoint_hostroute.txt"), ""),
                   HOOK_PROBE: hook_probe(load_fixture, case, tool)})
    result = fake(args, case01, check_mode=True).run(task_vars={})
    hook = result["hotplug_hook"]
    assert (hook["endpoints"], hook["install"], hook["install_reason"], hook["remove"]) == (["203.0.113.10"], reason is not None, reason, False)
    assert (hook["old_exists"], hook["remove_old"]) == ((True, True) if case == "both" else (False, False))
    converged = hashlib.sha256(hook["content"].encode("utf-8")).hexdigest() == "97029a11afe0d1e22a84f892289068096897cb9c43e9184496888a2dc4ed62ae"
    assert converged is (args.get("metered_uplinks") == ["wanb"])   # the text is the router's, whatever it has
    assert result["changed"] is False and result["commands"] == []
