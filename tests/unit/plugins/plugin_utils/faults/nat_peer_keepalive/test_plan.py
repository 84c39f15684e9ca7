# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4's one plan (faults/nat_peer_keepalive/plan.py): ``keepalive_plan`` (Fault.plan) on OpenWrt and Linux views,
both sides of each decision (moved from test_fault_plans.py)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.plan import (
    choose_interfaces, choose_peers, keepalive_plan, live_keepalive_plan)

KEY_A, KEY_B = "A" * 43 + "=", "B" * 43 + "="
DIRS = {"wg_quick": "/etc/wireguard", "networkd": "/etc/systemd/network"}


def openwrt_keepalive_view(uci=25, live=25, endpoint="203.0.113.10", key=KEY_A):
    peer = {"section": "hub", "public_key": key, "endpoint_host": endpoint, "persistent_keepalive_s": uci,
            "live": None if live == "down" else {"persistent_keepalive_s": live}}
    return {"openwrt": {"wireguard": {"interfaces": {"wg0": {"in_uci": True, "peers": [peer]}}}}}


def linux_keepalive_view(live=25, endpoint="203.0.113.10", in_file=25, netdev=False):
    peer = {"public_key": KEY_A, "endpoint": endpoint, "persistent_keepalive_s": in_file}
    config = ({"path": "/etc/systemd/network/30-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True, "peers": [peer]}
              if netdev else {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True, "peers": [peer]})
    running = [] if live == "down" else [{"public_key": KEY_A, "endpoint_host": endpoint, "persistent_keepalive_s": live}]
    return {"tunnelfix": {"wireguard": {"interfaces": {"wg0": {"peers": running}} if running else {}, "configs": [config],
                                        "config_dirs": DIRS}}}


@pytest.mark.parametrize("view, role_vars, expected", [
    (openwrt_keepalive_view(), {}, []),
    (openwrt_keepalive_view(uci=None), {}, ["network.hub.persistent_keepalive: unset -> 25"]),
    (openwrt_keepalive_view(live=None), {}, ["wg set wg0 peer %s persistent-keepalive 25" % KEY_A]),
    (openwrt_keepalive_view(live="down"), {}, []),                     # not live: uci is all the role changes
    (openwrt_keepalive_view(uci=None, live=None), {"wireguard_keepalive_persistent_keepalive_s": 0}, []),
    (openwrt_keepalive_view(), {"wireguard_keepalive_persistent_keepalive_s": "0"},
     ["network.hub.persistent_keepalive: 25 -> unset", "wg set wg0 peer %s persistent-keepalive off" % KEY_A]),
    (openwrt_keepalive_view(uci=None, endpoint=None), {}, []),          # no endpoint: not the NATed side
    (openwrt_keepalive_view(uci=None, endpoint=None), {"wireguard_keepalive_public_keys": [KEY_A]},
     ["network.hub.persistent_keepalive: unset -> 25"]),
    (openwrt_keepalive_view(), {"wireguard_keepalive_public_keys": [KEY_B]}, None),   # the role fails naming it
    (openwrt_keepalive_view(), {"wireguard_keepalive_interfaces": ["wg9"]}, None),
    (openwrt_keepalive_view(), {"wireguard_keepalive_persistent_keepalive_s": "often"}, None),
    (linux_keepalive_view(), {}, []),
    (linux_keepalive_view(netdev=True), {}, []),
    (linux_keepalive_view(live=None), {}, ["wg set wg0 peer %s persistent-keepalive 25" % KEY_A]),
    (linux_keepalive_view(live=24), {}, ["wg set wg0 peer %s persistent-keepalive 25" % KEY_A]),
    (linux_keepalive_view(live="down"), {}, []),                        # not up: the file is all the role changes
    (linux_keepalive_view(in_file=None), {}, ["/etc/wireguard/wg0.conf: PersistentKeepalive of peer %s: unset -> 25" % KEY_A]),
    (linux_keepalive_view(in_file=None, netdev=True), {"wireguard_keepalive_interfaces": ["wg0"]},
     ["/etc/systemd/network/30-wg0.netdev: PersistentKeepalive of peer %s: unset -> 25" % KEY_A]),
    (linux_keepalive_view(in_file="25s"), {}, ["/etc/wireguard/wg0.conf: PersistentKeepalive of peer %s: 25s -> 25" % KEY_A]),
    (linux_keepalive_view(in_file=None, live=None, endpoint=None), {}, []),    # no Endpoint: not the NATed side
    (linux_keepalive_view(in_file=None, live=None, endpoint=None), {"wireguard_keepalive_public_keys": KEY_A},
     ["/etc/wireguard/wg0.conf: PersistentKeepalive of peer %s: unset -> 25" % KEY_A,
      "wg set wg0 peer %s persistent-keepalive 25" % KEY_A]),
    (linux_keepalive_view(), {"wireguard_keepalive_public_keys": [KEY_B]}, None),     # the role fails naming it
    (linux_keepalive_view(), {"wireguard_keepalive_interfaces": ["wg1"]}, None),
    (linux_keepalive_view(), {"wireguard_keepalive_config_dir": "/srv/wg"}, None),    # not the directory the facts read
    (linux_keepalive_view(), {"wireguard_keepalive_config_dir": "/etc/wireguard/"}, []),
    (linux_keepalive_view(), {"wireguard_keepalive_networkd_dir": "/run/systemd/network"}, None),
])
def test_keepalive_plan(view, role_vars, expected):
    assert keepalive_plan(view, role_vars) == expected


def test_linux_keepalive_plan_without_files_cannot_tell():
    view = linux_keepalive_view()
    view["tunnelfix"]["wireguard"]["configs"] = []                       # no file at all: the role fails naming it
    assert keepalive_plan(view, {}) is None
    del view["tunnelfix"]["wireguard"]["configs"]                        # facts that do not read the files
    assert keepalive_plan(view, {}) is None
    assert keepalive_plan({"tunnelfix": {"wireguard": "up"}}, {}) is None


def test_linux_files_come_in_the_roles_order_and_peers_as_the_modules_choose():
    """The files as the role loops over them (config_plan: sorted paths), not in the order the interfaces are named;
    each file's peers as wg_quick_keepalive chooses them (an Endpoint, or a listed key)."""
    view = linux_keepalive_view(in_file=None, live="down")
    wg0 = view["tunnelfix"]["wireguard"]["configs"][0]
    wg1 = dict(wg0, path="/etc/wireguard/wg1.conf", interface="wg1",
               peers=[{"public_key": KEY_B, "endpoint": None, "persistent_keepalive_s": None}])
    view["tunnelfix"]["wireguard"]["configs"] = [wg1, wg0]
    line = "/etc/wireguard/%s.conf: PersistentKeepalive of peer %s: unset -> 25"
    assert keepalive_plan(view, {"wireguard_keepalive_interfaces": ["wg1", "wg0"]}) == [line % ("wg0", KEY_A)]
    assert keepalive_plan(view, {"wireguard_keepalive_public_keys": [KEY_B, KEY_A]}) == [line % ("wg0", KEY_A), line % ("wg1", KEY_B)]


@pytest.mark.parametrize("found, names, expected", [
    (["wg1", "wg0"], [], (["wg0", "wg1"], [])),                      # none named: every one, sorted
    ({"wg1": {}, "wg0": {}}, None, (["wg0", "wg1"], [])),
    (["wg0", "wg1"], ["wg1"], (["wg1"], [])),                       # named: as named
    (["wg0"], ["wg9", "wg0", "wg8"], (["wg9", "wg0", "wg8"], ["wg9", "wg8"])),
    ([], [], ([], [])),
])
def test_choose_interfaces(found, names, expected):
    assert choose_interfaces(found, names) == expected


PEERS = [("a", {"public_key": KEY_A, "endpoint": "203.0.113.1:51820"}), ("b", {"public_key": KEY_B, "endpoint": None}),
         ("c", {"public_key": "C" * 43 + "=", "endpoint": ""}), ("d", {"public_key": "D" * 43 + "=", "endpoint_host": "x"})]


@pytest.mark.parametrize("keys, endpoint_key, chosen", [
    ([], "endpoint", ["a"]),                            # none listed: the peers with an endpoint ("" and None are none)
    (None, "endpoint_host", ["d"]),                     # the caller says which key is the endpoint
    ([KEY_B], "endpoint", ["b"]),                       # listed: those keys, endpoint or not
    ([KEY_B, KEY_A], "endpoint", ["a", "b"]),           # in the peers' order
    (["E" * 43 + "="], "endpoint", []),                 # a key no peer has: not an error here
])
def test_choose_peers(keys, endpoint_key, chosen):
    assert [where for where, _peer in choose_peers(PEERS, keys, endpoint_key)] == chosen


def test_live_keepalive_plan_before_and_after():
    interfaces = {"wg0": {"peers": [{"public_key": KEY_A, "persistent_keepalive_s": 24}, {"public_key": KEY_B}]}}
    peers = [{"interface": "wg0", "public_key": KEY_A}, {"interface": "wg0", "public_key": KEY_B}]
    assert live_keepalive_plan(interfaces, peers, 25) == [
        {"interface": "wg0", "public_key": KEY_A, "before": 24, "after": 25, "status": "set"},
        {"interface": "wg0", "public_key": KEY_B, "before": None, "after": 25, "status": "set"}]
    assert [(e["after"], e["status"]) for e in live_keepalive_plan(interfaces, peers, 0)] == [(None, "set"), (None, "unchanged")]
    assert live_keepalive_plan({"wg0": {}}, peers[:1], 25) == [
        {"interface": "wg0", "public_key": KEY_A, "before": None, "after": None, "status": "peer-not-live"}]
    assert live_keepalive_plan({}, peers[:1], 25)[0]["status"] == "interface-down"
