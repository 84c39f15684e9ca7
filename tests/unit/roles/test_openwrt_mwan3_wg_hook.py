# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openwrt_mwan3_wg's full-tunnel hook, rendered as the role renders it and run with BusyBox sh the way
/sbin/hotplug-call runs it (sourced in a subshell, mwan3track's ``env -i ACTION= INTERFACE= DEVICE=``), with
``ip`` and ``logger`` stood in for by shell functions that record their arguments.

The router modelled: OpenWrt's default dual-stack uplinks, ``wan`` (IPv4) and ``wan6`` (DHCPv6) on the same
device ``eth1`` (both ``option device 'eth1'``; mwan3's default config tracks wan, wan6, wanb and wanb6, each
announced by its own mwan3track with the interface's device: net/mwan3/files/etc/config/mwan3 and
net/mwan3/files/usr/sbin/mwan3track of openwrt/packages openwrt-23.05@16c320b7fd, openwrt-24.10@42525d32c4,
openwrt-25.12@57654a9f48), and the backup ``wanb`` on ``wwan0``.
"""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROLE = Path(__file__).resolve().parents[3] / "roles" / "openwrt_mwan3_wg"
# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("busybox", "env")

# ip -4 route show default table main on that router: both uplinks up, wan preferred (lower metric)
ROUTES = ("default via 192.0.2.1 dev eth1 proto static src 192.0.2.2 metric 10\n"
          "default via 198.51.100.1 dev wwan0 proto static src 198.51.100.2 metric 20\n")


def plan(endpoints, metered=()):
    """The plan's keys the hook reads: full tunnel wg0 with ``endpoints``, uplinks wan (eth1) and wanb (wwan0), the
    devices in ``metered`` metered."""
    return {"full_tunnel_endpoints": [{"interface": "wg0", "endpoint": e} for e in endpoints],
            "interfaces": {"wg0": {"tunnel": "full"}},
            "wireguard_interfaces": ["wg0"],
            "uplinks": [{"interface": "wan", "device": "eth1", "preferred": True, "metered": "eth1" in metered},
                        {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": "wwan0" in metered}],
            "preferred_device": "eth1"}


def render(endpoints=("203.0.113.10",), preferred="wan", metered=()):
    values = dict(yaml.safe_load((ROLE / "defaults" / "main.yml").read_text(encoding="utf-8")),
                  ansible_managed="Ansible managed", __openwrt_mwan3_wg_plan=plan(endpoints, metered),
                  openwrt_mwan3_wg_preferred_uplink=preferred)
    templar = Templar(loader=DataLoader(), variables=values)
    return templar.template(trust_as_template((ROLE / "templates" / "mwan3-wg-endpoint.sh.j2").read_text(encoding="utf-8")))


def run_events(tmp_path, hook, events, routes=ROUTES):
    """Source ``hook`` once per ``(ACTION, INTERFACE, DEVICE)`` as hotplug-call does, under env -i, ``ip -4 route show
    default table main`` printing ``routes``; → the ``ip route replace`` lines."""
    (tmp_path / "hook").write_text(hook.replace("/var/run/tunnelfix-wg-endpoint", str(tmp_path / "down")), encoding="utf-8")
    (tmp_path / "routes").write_text(routes, encoding="utf-8")
    log = tmp_path / "ip.log"
    runner = ('ip() { if [ "$1" = route ] && [ "$2" = replace ]; then echo "$*" >> "%s"; else cat "%s"; fi; }\n'
              'logger() { :; }\n'
              '( . "%s" )\n') % (log, tmp_path / "routes", tmp_path / "hook")
    (tmp_path / "runner").write_text(runner, encoding="utf-8")
    out = []
    for action, interface, device in events:
        if log.exists():
            log.unlink()
        subprocess.run(["env", "-i", "ACTION=" + action, "INTERFACE=" + interface, "DEVICE=" + device,
                        shutil.which("busybox"), "sh", str(tmp_path / "runner")], check=True, timeout=10)
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
    ip refuses that (inet prefix expected) and the IPv4 endpoints must still move."""
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
