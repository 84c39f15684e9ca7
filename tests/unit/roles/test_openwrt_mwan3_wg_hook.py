# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openwrt_mwan3_wg's full-tunnel hook, as the plan gives it to the role (faults/endpoint_route/hook.py), checked by
shellcheck as POSIX sh and run with BusyBox sh the way /sbin/hotplug-call runs it (sourced in a subshell, mwan3track's
``env -i ACTION= INTERFACE= DEVICE=``), with ``ip`` and ``logger`` stood in for by shell functions that record their
arguments.

The router modelled: OpenWrt's default dual-stack uplinks, ``wan`` (IPv4) and ``wan6`` (DHCPv6) on the same
device ``eth1`` (both ``option device 'eth1'``; mwan3's default config tracks wan, wan6, wanb and wanb6, each
announced by its own mwan3track with the interface's device: net/mwan3/files/etc/config/mwan3 and
net/mwan3/files/usr/sbin/mwan3track of openwrt/packages openwrt-23.05@16c320b7fd, openwrt-24.10@42525d32c4,
openwrt-25.12@57654a9f48), and the backup ``wanb`` on ``wwan0``.
"""

import shutil
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import hotplug_hook_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import full_tunnel_uplink

# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("busybox", "dash", "env", "shellcheck")

# ip -4 route show default table main on that router: both uplinks up, wan preferred (lower metric)
ROUTES = ("default via 192.0.2.1 dev eth1 proto static src 192.0.2.2 metric 10\n"
          "default via 198.51.100.1 dev wwan0 proto static src 198.51.100.2 metric 20\n")


WAN = {"interface": "wan", "device": "eth1"}
WANB = {"interface": "wanb", "device": "wwan0"}


def render(endpoints=("203.0.113.10",), preferred="wan", metered=(), preferred_device="eth1", wireguard=("wg0",), handled=("wg0",),
           uplinks=(WAN, WANB)):
    """The hook as the plan gives it to the role (``hotplug_hook_plan``'s ``content``, which the role writes as it is): full
    tunnel(s) ``handled`` (the first with ``endpoints``) of the uci WireGuard interfaces ``wireguard``, ``uplinks`` (wan on
    eth1, wanb on wwan0) with the devices in ``metered`` metered, the preferred uplink ``preferred`` (the option) and its
    device ``preferred_device``."""
    full_tunnel_endpoints = [{"interface": handled[0], "endpoint": e} for e in endpoints]
    interfaces = {name: {"tunnel": "full", "endpoints": list(endpoints) if name == handled[0] else [], "unresolved": []}
                  for name in handled}
    found = [dict(uplink, preferred=uplink["device"] == preferred_device, metered=uplink["device"] in metered) for uplink in uplinks]
    hook = hotplug_hook_plan(interfaces, full_tunnel_endpoints, True, False, wireguard=sorted(wireguard), uplinks=found,
                             preferred_device=preferred_device, preferred_uplink=preferred)
    assert hook["install"] is True
    return hook["content"]


def test_the_hook_is_posix_sh_by_shellcheck(tmp_path):
    """The text the role writes passes shellcheck as POSIX sh (BusyBox ash runs it on the router)."""
    for case, keys in (("one", {}), ("metered_two_tunnels", {"metered": ("wwan0",), "wireguard": ("wg0", "wg1")}),
                       ("no_preferred", {"preferred_device": None})):
        (tmp_path / case).write_text(render(**keys), encoding="utf-8")
        checked = subprocess.run(["shellcheck", "-s", "sh", str(tmp_path / case)], capture_output=True, text=True, timeout=60, check=False)
        assert (checked.returncode, checked.stdout) == (0, "")


# The shells the hook is run with: OpenWrt's (BusyBox ash, BusyBox awk) and dash with the host's awk (mawk), which
# keeps the hook to POSIX sh and awk. awk is a shell function for BusyBox: the hook sets its own PATH, where the
# host's awk would be found first.
SHELLS = {"busybox": (["busybox", "sh"], 'awk() { "%s" awk "$@"; }\n' % shutil.which("busybox")),
          "dash": (["dash"], "")}


def run_events(tmp_path, hook, events, routes=ROUTES, shell="busybox"):
    """Source ``hook`` once per ``(ACTION, INTERFACE, DEVICE)`` as hotplug-call does, under env -i, with ``shell`` (a
    key of SHELLS), ``ip -4 route show default table main`` printing ``routes``; → the ``ip route replace`` lines."""
    (tmp_path / "hook").write_text(hook.replace("/var/run/tunnelfix-wg-endpoint", str(tmp_path / "down")), encoding="utf-8")
    (tmp_path / "routes").write_text(routes, encoding="utf-8")
    log = tmp_path / "ip.log"
    argv, awk = SHELLS[shell]
    stand_ins = ('ip() { if [ "$1" = route ] && [ "$2" = replace ]; then echo "$*" >> "%s"; else cat "%s"; fi; }\n'
                 'logger() { :; }\n'
                 '( . "%s" )\n') % (log, tmp_path / "routes", tmp_path / "hook")
    runner = awk + stand_ins
    (tmp_path / "runner").write_text(runner, encoding="utf-8")
    out = []
    for action, interface, device in events:
        if log.exists():
            log.unlink()
        subprocess.run(["env", "-i", "ACTION=" + action, "INTERFACE=" + interface, "DEVICE=" + device,
                        shutil.which(argv[0]), *argv[1:], str(tmp_path / "runner")], check=True, timeout=10)
        out.append(log.read_text(encoding="utf-8").splitlines() if log.exists() else [])
    return out


@pytest.mark.parametrize("events, last", [
    # wan's own tracker: the endpoint follows wan's state
    ([("disconnected", "wan", "eth1")], ["route replace 203.0.113.10/32 via 198.51.100.1 dev wwan0 proto static"]),
    ([("disconnected", "wan", "eth1"), ("connected", "wan", "eth1")],
     ["route replace 203.0.113.10/32 via 192.0.2.1 dev eth1 proto static"]),
    # wan6's tracker (IPv6 on the same device) says nothing about IPv4 over eth1: no IPv4 route moves
    ([("disconnected", "wan6", "eth1")], []),
    ([("disconnected", "wan", "eth1"), ("connected", "wan6", "eth1")], []),
    # netifd's own events are ignored
    ([("ifdown", "wan", "eth1")], []),
])
def test_only_the_ipv4_uplinks_own_events_move_the_endpoint(tmp_path, events, last):
    assert run_events(tmp_path, render(), events)[-1] == last


def test_an_ipv6_endpoint_gets_no_ipv4_host_route(tmp_path):
    """An IPv6 endpoint (netifd pins a /128 via the IPv6 gateway) must not be written as ADDR/32 via an IPv4 gateway:
    ip refuses that (inet prefix expected) and the IPv4 endpoints must still move. The plan leaves it out of the list
    the hook renders (``hotplug_hook.endpoints``)."""
    routes = run_events(tmp_path, render(endpoints=("2001:db8::10", "203.0.113.10")), [("disconnected", "wan", "eth1")])[-1]
    assert routes == ["route replace 203.0.113.10/32 via 198.51.100.1 dev wwan0 proto static"]


# the 5G backup with the lower metric (a router where netifd's wanb metric is below wan's), both up
BACKUP_FIRST = ("default via 198.51.100.1 dev wwan0 proto static src 198.51.100.2 metric 5\n"
                "default via 192.0.2.1 dev eth1 proto static src 192.0.2.2 metric 10\n")
VIA_WAN = ["route replace 203.0.113.10/32 via 192.0.2.1 dev eth1 proto static"]
VIA_5G = ["route replace 203.0.113.10/32 via 198.51.100.1 dev wwan0 proto static"]


@pytest.mark.parametrize("metered, events, last", [
    # the plan's rule: a metered uplink is ridden only when no other is usable (the hook took the lowest metric, 5G)
    (("wwan0",), [("connected", "wanb", "wwan0")], VIA_WAN),
    (("wwan0",), [("connected", "wan", "eth1")], VIA_WAN),
    (("wwan0",), [("disconnected", "wan", "eth1"), ("connected", "wanb", "wwan0")], VIA_5G),   # the only one left
    (("wwan0",), [("disconnected", "wan", "eth1"), ("connected", "wan", "eth1")], VIA_WAN),
    # nothing metered: the preferred uplink (wan, eth1), although the 5G's metric is lower
    ((), [("connected", "wanb", "wwan0")], VIA_WAN),
    # the fibre metered, the 5G not: the 5G
    (("eth1",), [("connected", "wan", "eth1")], VIA_5G),
])
def test_a_metered_uplink_carries_the_endpoint_only_when_no_other_is_usable(tmp_path, metered, events, last):
    assert run_events(tmp_path, render(metered=metered), events, routes=BACKUP_FIRST)[-1] == last


def test_a_metered_preferred_uplink_is_left_while_the_other_is_usable(tmp_path):
    """wan (eth1, the lower metric) metered, wanb not: the endpoint leaves eth1 although its route wins on metric."""
    assert run_events(tmp_path, render(metered=("eth1",)), [("connected", "wanb", "wwan0")])[-1] == VIA_5G


# The hook's choice pinned to the rule stated in Python (faults/endpoint_route/uplinks.py, full_tunnel_uplink): each case
# is a router (its default routes, its uci WireGuard interfaces, the handled ones, the metered and preferred devices),
# mwan3track's events, and the uplink the endpoint must take after the last one (None: no route is written).
LTE = {"interface": "lte", "device": "wwan1"}
THREE = ("default via 198.51.100.1 dev wwan0 proto static metric 5\n"
         "default via 192.0.2.1 dev eth1 proto static metric 10\n"
         "default via 203.0.113.1 dev wwan1 proto static metric 30\n")
WG1_FIRST = "default via 10.7.0.1 dev wg1 proto static metric 1\n" + BACKUP_FIRST
CASES = {
    # the preferred uplink first while it is usable, whatever its metric (the hook took the lowest metric, the 5G)
    "preferred_over_a_lower_metric": (BACKUP_FIRST, {}, [("connected", "wanb", "wwan0")], ("eth1", "192.0.2.1")),
    "preferred_down_the_other": (BACKUP_FIRST, {}, [("disconnected", "wan", "eth1")], ("wwan0", "198.51.100.1")),
    "preferred_back": (BACKUP_FIRST, {}, [("disconnected", "wan", "eth1"), ("connected", "wan", "eth1")], ("eth1", "192.0.2.1")),
    "preferred_without_a_route": (BACKUP_FIRST, {"preferred_device": "eth9"}, [("connected", "wan", "eth1")],
                                  ("wwan0", "198.51.100.1")),
    "preferred_unknown_lowest_metric": (ROUTES, {"preferred_device": None}, [("connected", "wanb", "wwan0")],
                                        ("eth1", "192.0.2.1")),
    # another WireGuard interface of uci, not among openwrt_mwan3_wg_interfaces, with a default route via a gateway
    # (a config route): never an uplink (the hook skipped only the handled tunnels)
    "other_tunnel_skipped_preferred": (WG1_FIRST, {"wireguard": ("wg0", "wg1")}, [("connected", "wanb", "wwan0")],
                                       ("eth1", "192.0.2.1")),
    "other_tunnel_skipped_by_metric": (WG1_FIRST, {"wireguard": ("wg0", "wg1"), "preferred_device": None},
                                       [("connected", "wanb", "wwan0")], ("wwan0", "198.51.100.1")),
    "handled_tunnel_skipped": (WG1_FIRST, {"wireguard": ("wg0", "wg1"), "handled": ("wg0", "wg1"), "preferred_device": None},
                               [("connected", "wanb", "wwan0")], ("wwan0", "198.51.100.1")),
    # metered: ridden only when nothing else is usable, the preferred one first among them
    "metered_preferred_left": (BACKUP_FIRST, {"metered": ("eth1",)}, [("connected", "wan", "eth1")], ("wwan0", "198.51.100.1")),
    "metered_preferred_left_for_a_higher_metric": (ROUTES, {"metered": ("eth1",)}, [("connected", "wan", "eth1")],
                                                   ("wwan0", "198.51.100.1")),
    "metered_backup_left": (BACKUP_FIRST, {"metered": ("wwan0",)}, [("connected", "wanb", "wwan0")], ("eth1", "192.0.2.1")),
    "metered_only_one_left": (BACKUP_FIRST, {"metered": ("wwan0",)}, [("disconnected", "wan", "eth1")], ("wwan0", "198.51.100.1")),
    "every_uplink_metered_preferred": (BACKUP_FIRST, {"metered": ("eth1", "wwan0")}, [("connected", "wanb", "wwan0")],
                                       ("eth1", "192.0.2.1")),
    "unmetered_third_over_metered_lower_metric": (THREE, {"metered": ("wwan0",), "uplinks": (WAN, WANB, LTE)},
                                                  [("disconnected", "wan", "eth1")], ("wwan1", "203.0.113.1")),
    "every_unmetered_down_metered_lowest": (THREE, {"metered": ("wwan0",), "uplinks": (WAN, WANB, LTE), "preferred_device": None},
                                            [("disconnected", "wan", "eth1"), ("disconnected", "lte", "wwan1")],
                                            ("wwan0", "198.51.100.1")),
    # nothing usable: no route written
    "every_uplink_down": (BACKUP_FIRST, {}, [("disconnected", "wan", "eth1"), ("disconnected", "wanb", "wwan0")], None),
    "only_tunnels": ("default via 10.7.0.1 dev wg0 proto static metric 1\n", {}, [("connected", "wan", "eth1")], None),
    # what a usable route is: a unicast default route with a gateway; an unprinted metric is 0; equal metrics: listed first
    "no_gateway_or_device_skipped": ("default dev wwan0 proto static scope link metric 1\ndefault via 192.0.2.9 metric 0\n"
                                     "default via 192.0.2.1 dev eth1 metric 10\n",
                                     {"preferred_device": None}, [("connected", "wan", "eth1")], ("eth1", "192.0.2.1")),
    "unreachable_nexthops_and_blank_lines_skipped": ("unreachable default metric 1\n\n"
                                                     "default proto static metric 2\n\tnexthop via 198.51.100.1 dev wwan0 weight 1\n"
                                                     "default via 192.0.2.1 dev eth1 metric 10\n",
                                                     {"preferred_device": None}, [("connected", "wan", "eth1")], ("eth1", "192.0.2.1")),
    "no_metric_is_0": ("default via 198.51.100.1 dev wwan0 metric 1\ndefault via 192.0.2.1 dev eth1\n",
                       {"preferred_device": None}, [("connected", "wan", "eth1")], ("eth1", "192.0.2.1")),
    "metric_not_a_number_is_0": ("default via 192.0.2.1 dev eth1 metric 1\ndefault via 198.51.100.1 dev wwan0 metric x\n",
                                 {"preferred_device": None}, [("connected", "wan", "eth1")], ("wwan0", "198.51.100.1")),
    "metric_one_lower": ("default via 198.51.100.1 dev wwan0 metric 10\ndefault via 192.0.2.1 dev eth1 metric 9\n",
                         {"preferred_device": None}, [("connected", "wan", "eth1")], ("eth1", "192.0.2.1")),
    "equal_metric_first_listed": ("default via 198.51.100.1 dev wwan0 metric 10\ndefault via 192.0.2.1 dev eth1 metric 10\n",
                                  {"preferred_device": None}, [("connected", "wan", "eth1")], ("wwan0", "198.51.100.1")),
    "equal_metric_preferred": ("default via 198.51.100.1 dev wwan0 metric 10\ndefault via 192.0.2.1 dev eth1 metric 10\n",
                               {}, [("connected", "wan", "eth1")], ("eth1", "192.0.2.1")),
}


def rule_inputs(routes, keys, events):
    """The arguments of full_tunnel_uplink for a case: what the rendered hook reads (its routes, its rendered device
    lists, and the devices its events left disconnected)."""
    down = []
    for action, _interface, device in events:
        down = [d for d in down if d != device] + ([device] if action == "disconnected" else [])
    preferred = keys.get("preferred_device", "eth1")
    return dict(routes_text=routes, metered=keys.get("metered", ()), preferred=preferred,
                wireguard=keys.get("wireguard", ("wg0",)), down=down)


@pytest.mark.parametrize("shell", sorted(SHELLS))
@pytest.mark.parametrize("routes, keys, events, expected", list(CASES.values()), ids=list(CASES))
def test_the_hook_takes_the_uplink_full_tunnel_uplink_names(tmp_path, shell, routes, keys, events, expected):
    rule = full_tunnel_uplink(**rule_inputs(routes, keys, events))
    assert rule == (None if expected is None else {"device": expected[0], "gateway": expected[1]})
    written = run_events(tmp_path, render(**keys), events, routes=routes, shell=shell)[-1]
    assert written == ([] if rule is None else
                       ["route replace 203.0.113.10/32 via %s dev %s proto static" % (rule["gateway"], rule["device"])])
