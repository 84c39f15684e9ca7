# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role udp_gro_forwarding's plan (issue 17.9): states, the NIC it may change, the commands guarded_apply runs
(and run for real under dash, bash and BusyBox sh with stub ethtool and ping: the gateway check reverts the change).
The probe that chooses the Linux interface hook: test_hook_probe.py."""

import os
import subprocess
import time

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.plan import (
    change_diff, ethtool_command, gateway_wait, udp_gro_plan)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote import rollback as rb

SHELLS = HOST_COMMANDS = ("dash", "bash", "busybox")
RUN = "0123456789abcdef"   # the run id of the guarded change
OFF = {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"}


def facts(nics=None, **changes):
    nic = {"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"}, "through_tunnel": None,
           "features": dict(OFF), "ethtool_error": None}
    base = {"kernel_release": "6.6.73", "kernel_version": [6, 6, 73], "ip_forward": 1,
            "tunnels": {"wg0": {"kind": "wireguard", "mtu": 1420, "operstate": "UNKNOWN"}},
            "nics": [nic] if nics is None else nics, "ethtool_installed": True, "note": None}
    base.update(changes)
    return base


def nic(device="eth0", **changes):
    return dict(facts()["nics"][0], device=device, **changes)


def test_the_change_and_its_commands():
    plan = udp_gro_plan(facts(nics=[nic(features=dict(OFF, **{"rx-gro-list": "on"}))]))
    assert (plan["state"], plan["reason"], plan["device"], plan["tunnels"], plan["gateway"]) == (
        "change", None, "eth0", ["wg0"], "192.0.2.1")
    assert plan["changes"] == {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"}
    assert plan["ethtool"] == "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off"
    assert plan["restore"] == "ethtool -K eth0 rx-udp-gro-forwarding off rx-gro-list on"
    assert plan["hook_command"] == "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off"
    assert plan["gateway_check"] == gateway_wait("eth0", "192.0.2.1", 30)
    assert "ping -c 1 -W 1 -I eth0 192.0.2.1" in plan["gateway_check"] and "+ 30))" in plan["gateway_check"]
    # what --diff shows (issue 30.4): each feature it changes, before and after
    assert plan["diff"] == {"before": "eth0 rx-udp-gro-forwarding: off\neth0 rx-gro-list: on\n",
                            "after": "eth0 rx-udp-gro-forwarding: on\neth0 rx-gro-list: off\n"}
    assert udp_gro_plan(facts(nics=[nic(features=dict(OFF, **{"rx-udp-gro-forwarding": "on"}))]))["diff"] is None  # converged


@pytest.mark.parametrize("features, changes, restore, hook", [
    (OFF, {"rx-udp-gro-forwarding": "on"}, "ethtool -K eth0 rx-udp-gro-forwarding off",
     "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off"),
    (dict(OFF, **{"rx-udp-gro-forwarding": "on", "rx-gro-list": "on"}), {"rx-gro-list": "off"}, "ethtool -K eth0 rx-gro-list on",
     "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off"),
    # a [fixed] feature is neither changed nor put in the hook (ethtool -K would fail on it)
    (dict(OFF, **{"rx-gro-list": "off [fixed]"}), {"rx-udp-gro-forwarding": "on"}, "ethtool -K eth0 rx-udp-gro-forwarding off",
     "ethtool -K eth0 rx-udp-gro-forwarding on"),
    (dict(OFF, **{"rx-udp-gro-forwarding": "off [fixed]", "rx-gro-list": "on"}), {"rx-gro-list": "off"},
     "ethtool -K eth0 rx-gro-list on", "ethtool -K eth0 rx-gro-list off"),
])
def test_only_what_differs_changes_and_fixed_features_are_left_out(features, changes, restore, hook):
    plan = udp_gro_plan(facts(nics=[nic(features=dict(features))]))
    assert (plan["changes"], plan["restore"], plan["hook_command"]) == (changes, restore, hook)


@pytest.mark.parametrize("udp_gro, reason", [
    (facts(kernel_release="6.1.0-26-amd64", kernel_version=[6, 1, 0]), "kernel 6.1.0-26-amd64 is older than 6.2"),
    (facts(ip_forward=0), "IP forwarding is off (net.ipv4.ip_forward=0)"),
    (facts(tunnels={}), "no WireGuard or TUN tunnel is up"),
    (facts(tunnels={"tap0": {"kind": "tun", "mtu": 1500, "operstate": "DOWN"}}), "no WireGuard or TUN tunnel is up"),
])
def test_left_alone(udp_gro, reason):
    plan = udp_gro_plan(udp_gro)
    assert plan["state"] == "left_alone" and plan["reason"].startswith(reason)
    assert plan["device"] is plan["ethtool"] is plan["restore"] is None


@pytest.mark.parametrize("features, reason", [
    (dict(OFF, **{"rx-udp-gro-forwarding": "on"}), "eth0 already has rx-udp-gro-forwarding on, rx-gro-list off"),
    (dict(OFF, **{"rx-udp-gro-forwarding": "off [fixed]", "rx-gro-list": "off [fixed]"}),
     "eth0 already has rx-udp-gro-forwarding off [fixed], rx-gro-list off [fixed]"),
    (dict(OFF, **{"generic-receive-offload": "off"}), "GRO is off on eth0"),
])
def test_converged(features, reason):
    plan = udp_gro_plan(facts(nics=[nic(features=dict(features))]))
    assert plan["state"] == "converged" and plan["reason"].startswith(reason) and plan["ethtool"] is None


def test_no_gateway_check_without_a_gateway_or_with_timeout_0():
    assert udp_gro_plan(facts(nics=[nic(gateways={"inet": None})]))["gateway_check"] is None      # default dev ppp0
    assert udp_gro_plan(facts(), gateway_timeout_s=0)["gateway_check"] is None
    assert udp_gro_plan(facts(nics=[nic(gateways={"inet6": "fe80::1"})]))["gateway"] == "fe80::1"
    assert udp_gro_plan(facts(nics=[nic(gateways={"inet": "192.0.2.1", "inet6": "fe80::1"})]))["gateway"] == "192.0.2.1"


def test_device_must_be_a_default_route_nic():
    two = facts(nics=[nic(), nic("eth1", families=["inet6"], gateways={"inet6": "fe80::1"})])
    assert udp_gro_plan(two, "eth1")["device"] == "eth1" and udp_gro_plan(two, "eth1")["gateway"] == "fe80::1"
    assert udp_gro_plan(facts(), "eth0")["device"] == "eth0"
    with pytest.raises(ValueError, match=r"udp_gro_forwarding_device=br-lan is not the default-route NIC of this host \(eth0\)"):
        udp_gro_plan(facts(), "br-lan")
    with pytest.raises(ValueError, match=r"2 default-route NICs \(eth0, eth1\): choose one with udp_gro_forwarding_device"):
        udp_gro_plan(two)


@pytest.mark.parametrize("udp_gro, device, message", [
    (facts(), "eth0; reboot", "udp_gro_forwarding_device must be an interface name .* got 'eth0; reboot'"),
    (facts(), 5, "udp_gro_forwarding_device must be an interface name .* got 5"),
    # parse/ifname.py: ':' (the kernel's dev_valid_name refuses it), and a trailing newline "^...$" let through
    (facts(), "eth0:1", r"udp_gro_forwarding_device must be an interface name \(1-15 characters .* got 'eth0:1'"),
    (facts(), "eth0\n", r"udp_gro_forwarding_device must be an interface name .* got 'eth0\\n'"),
    (facts(nics=[], note="no default route in the main table"), "", "the default-route NIC is unknown: no default route"),
    (facts(nics=[nic(features=None, ethtool_error="Operation not permitted")]), "",
     "the offload features of eth0 could not be read: Operation not permitted"),
    (facts(nics=[nic(features={"generic-receive-offload": "on"})]), "", "ethtool -k eth0 does not show rx-udp-gro-forwarding"),
    (facts(ip_forward=None, note="net.ipv4.ip_forward could not be read"), "",
     "cannot tell whether this host forwards .*: net.ipv4.ip_forward could not be read"),
    (facts(kernel_version=None), "", "cannot tell whether"),
    (facts(tunnels=None), "", "cannot tell whether"),
    ("facts", "", "expected the udp_gro facts"),
])
def test_what_the_role_refuses(udp_gro, device, message):
    with pytest.raises(ValueError, match=message):
        udp_gro_plan(udp_gro, device)


def test_commands_quote_what_they_name():
    assert ethtool_command("eth0", {"rx-gro-list": "off"}) == "ethtool -K eth0 rx-gro-list off"
    assert "-I 'odd name' fe80::1" in gateway_wait("odd name", "fe80::1", 5)


# ---- every decision on both sides of its boundary (issue 31.5) ---------------------------------------------------

@pytest.mark.parametrize("timeout, check", [
    (1, True),          # the smallest timeout there is: the gateway is still checked
    (1.9, True),        # whole seconds: 1
    (0, False),         # 0 turns the check off
    (0.9, False),       # ... and so does anything under a second
    (-1, False),
])
def test_the_gateway_check_at_the_smallest_timeouts(timeout, check):
    plan = udp_gro_plan(facts(), gateway_timeout_s=timeout)
    assert plan["state"] == "change" and plan["ethtool"] == "ethtool -K eth0 rx-udp-gro-forwarding on"
    assert plan["gateway_check"] == (gateway_wait("eth0", "192.0.2.1", 1) if check else None)
    if check:
        assert "+ 1))" in plan["gateway_check"] and "within 1 s" in plan["gateway_check"]


def test_the_gateway_check_word_for_word():
    assert gateway_wait("eth0", "192.0.2.1", 30) == (
        "end=$(($(date +%s) + 30)); until ping -c 1 -W 1 -I eth0 192.0.2.1 >/dev/null 2>&1; do "
        "if [ \"$(date +%s)\" -ge \"$end\" ]; then echo 'the gateway 192.0.2.1 did not answer through eth0 within 30 s'; "
        "exit 1; fi; sleep 1; done")


@pytest.mark.parametrize("changes, reason", [
    # ip_forward: an integer, 1 or more is on; a bool or anything else cannot tell
    ({"ip_forward": 1}, None),
    ({"ip_forward": 2}, None),
    ({"ip_forward": 0}, "IP forwarding is off (net.ipv4.ip_forward=0): not an exit node or subnet router"),
    ({"ip_forward": -1}, "IP forwarding is off (net.ipv4.ip_forward=-1): not an exit node or subnet router"),
    ({"ip_forward": True}, ""),
    ({"ip_forward": False}, ""),
    ({"ip_forward": "1"}, ""),
    # the kernel: 6.2 is the first that applies
    ({"kernel_release": "6.2.0", "kernel_version": [6, 2, 0]}, None),
    ({"kernel_release": "6.2", "kernel_version": [6, 2]}, None),
    ({"kernel_release": "7.0.1", "kernel_version": [7, 0, 1]}, None),
    ({"kernel_release": "6.1.99", "kernel_version": [6, 1, 99]},
     "kernel 6.1.99 is older than 6.2 (TUN devices take UDP GSO from Linux 6.2 on)"),
    ({"kernel_release": "5.15.0", "kernel_version": [5, 15, 0]},
     "kernel 5.15.0 is older than 6.2 (TUN devices take UDP GSO from Linux 6.2 on)"),
    ({"kernel_version": []}, ""),
    ({"kernel_version": [6, "x"]}, ""),
    # the tunnels: a WireGuard or TUN device UP or UNKNOWN
    ({"tunnels": {"tailscale0": {"kind": "tun", "operstate": "UP"}}}, None),
    ({"tunnels": {"wg0": {"kind": "wireguard", "operstate": "UP"}}}, None),
    ({"tunnels": {"gre1": {"kind": "gre", "operstate": "UP"}}}, "no WireGuard or TUN tunnel is up"),
    ({"tunnels": {"wg0": {"kind": "wireguard", "operstate": "DOWN"}}}, "no WireGuard or TUN tunnel is up"),
    ({"tunnels": {"wg0": {"kind": "wireguard", "operstate": "LOWERLAYERDOWN"}}}, "no WireGuard or TUN tunnel is up"),
    ({"tunnels": {"wg0": "wireguard"}}, "no WireGuard or TUN tunnel is up"),
    ({"tunnels": []}, ""),
    # the order of the reasons: forwarding first, then tunnels, then the kernel
    ({"ip_forward": 0, "tunnels": {}, "kernel_version": [5, 4]},
     "IP forwarding is off (net.ipv4.ip_forward=0): not an exit node or subnet router"),
    ({"tunnels": {}, "kernel_version": [5, 4]}, "no WireGuard or TUN tunnel is up"),
    ({"tunnels": {}, "kernel_version": None}, "no WireGuard or TUN tunnel is up"),
    ({"ip_forward": None, "kernel_version": [5, 4], "kernel_release": "5.4"},
     "kernel 5.4 is older than 6.2 (TUN devices take UDP GSO from Linux 6.2 on)"),
])
def test_left_alone_reasons_exactly(changes, reason):
    udp_gro = facts(**changes)
    if reason == "":
        with pytest.raises(ValueError, match="^the facts cannot tell whether this host forwards through a tunnel on "
                                             "Linux 6.2 or later: a fact was not read$"):
            udp_gro_plan(udp_gro)
        return
    plan = udp_gro_plan(udp_gro)
    assert plan["reason"] == reason
    assert plan["state"] == ("change" if reason is None else "left_alone")


def test_left_alone_carries_what_it_knows_and_nothing_else():
    plan = udp_gro_plan(facts(ip_forward=0, tunnels={"wg1": {"kind": "wireguard", "operstate": "UP"},
                                                     "tailscale0": {"kind": "tun", "operstate": "UNKNOWN"},
                                                     "wg9": {"kind": "wireguard", "operstate": "DOWN"}}))
    assert plan == {"state": "left_alone", "reason": "IP forwarding is off (net.ipv4.ip_forward=0): not an exit node or "
                                                     "subnet router",
                    "device": None, "kernel_release": "6.6.73", "tunnels": ["tailscale0", "wg1"], "features": None,
                    "changes": {}, "hook_states": {}, "hook_command": None, "gateway": None, "ethtool": None,
                    "gateway_check": None, "restore": None, "diff": None}


def test_a_change_plan_whole():
    plan = udp_gro_plan(facts(nics=[nic(features=dict(OFF, **{"rx-gro-list": "on"}))]), gateway_timeout_s=5)
    assert plan == {
        "state": "change", "reason": None, "device": "eth0", "kernel_release": "6.6.73", "tunnels": ["wg0"],
        "features": dict(OFF, **{"rx-gro-list": "on"}),
        "changes": {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"},
        "hook_states": {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"},
        "hook_command": "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off",
        "gateway": "192.0.2.1",
        "ethtool": "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off",
        "gateway_check": gateway_wait("eth0", "192.0.2.1", 5),
        "restore": "ethtool -K eth0 rx-udp-gro-forwarding off rx-gro-list on",
        "diff": {"before": "eth0 rx-udp-gro-forwarding: off\neth0 rx-gro-list: on\n",
                 "after": "eth0 rx-udp-gro-forwarding: on\neth0 rx-gro-list: off\n"}}


@pytest.mark.parametrize("features, state, changes, hook, reason", [
    # a feature the NIC does not show is neither changed nor in the hook
    ({"rx-udp-gro-forwarding": "off", "generic-receive-offload": "on"}, "change", {"rx-udp-gro-forwarding": "on"},
     {"rx-udp-gro-forwarding": "on"}, None),
    ({"rx-udp-gro-forwarding": "on", "generic-receive-offload": "on"}, "converged", {}, {"rx-udp-gro-forwarding": "on"},
     "eth0 already has rx-udp-gro-forwarding on"),
    # a state that is not text is not read as one
    (dict(OFF, **{"rx-gro-list": None}), "change", {"rx-udp-gro-forwarding": "on"}, {"rx-udp-gro-forwarding": "on"}, None),
    # the first word is the state: "on [requested off]" is on
    (dict(OFF, **{"rx-udp-gro-forwarding": "on [requested off]"}), "converged", {},
     {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"},
     "eth0 already has rx-udp-gro-forwarding on [requested off], rx-gro-list off"),
    # GRO: only "off" as its first word turns the fix away; "on [fixed]" and no GRO line do not
    (dict(OFF, **{"generic-receive-offload": "off [fixed]"}), "converged", {}, {},
     "GRO is off on eth0 (generic-receive-offload): UDP GRO forwarding works inside GRO, and the fix does not turn GRO on"),
    (dict(OFF, **{"generic-receive-offload": "on [fixed]"}), "change", {"rx-udp-gro-forwarding": "on"},
     {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"}, None),
    ({"rx-udp-gro-forwarding": "off", "rx-gro-list": "off"}, "change", {"rx-udp-gro-forwarding": "on"},
     {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"}, None),
    ({"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": 0}, "change",
     {"rx-udp-gro-forwarding": "on"}, {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"}, None),
    # nothing changeable at all: no hook
    ({"rx-udp-gro-forwarding": "off [fixed]", "rx-gro-list": "on [fixed]", "generic-receive-offload": "on"}, "converged",
     {}, {}, "eth0 already has rx-udp-gro-forwarding off [fixed], rx-gro-list on [fixed]"),
])
def test_features_read_word_by_word(features, state, changes, hook, reason):
    plan = udp_gro_plan(facts(nics=[nic(features=features)]))
    assert (plan["state"], plan["changes"], plan["hook_states"], plan["reason"]) == (state, changes, hook, reason)
    assert plan["hook_command"] == (ethtool_command("eth0", hook) if hook else None)


@pytest.mark.parametrize("gateways, gateway", [
    ({"inet": "192.0.2.1"}, "192.0.2.1"),
    ({"inet6": "2001:db8::1"}, "2001:db8::1"),
    ({"inet6": "2001:DB8::A"}, "2001:DB8::A"),                         # hex digits either case
    ({"inet": "192.0.2.1; reboot", "inet6": "fe80::1"}, "fe80::1"),    # not an address: never put in a command
    ({"inet": "x"}, None),
    ({"inet": 3232235521}, None),
    ({}, None),
    (None, None),
])
def test_the_gateway_of_the_nic(gateways, gateway):
    plan = udp_gro_plan(facts(nics=[nic(gateways=gateways)]))
    assert plan["gateway"] == gateway
    assert (plan["gateway_check"] is None) is (gateway is None)


# "eth0:1": an alias label, never a device; the kernel refuses ":" in a name (dev_valid_name, parse/ifname.py)
@pytest.mark.parametrize("device, ok", [
    ("e", True), ("a" * 15, True), ("WAN", True), ("Eth0", True), ("a" * 16, False), ("wg0.10", True), ("eth0:1", False), ("veth@if3", True),
    ("eth 0", False), ("eth0/1", False), ("-", True),
])
def test_device_names(device, ok):
    udp_gro = facts(nics=[nic(device)])
    if ok:
        assert udp_gro_plan(udp_gro, device)["device"] == device
    else:
        with pytest.raises(ValueError, match="^udp_gro_forwarding_device must be an interface name"):
            udp_gro_plan(udp_gro, device)


def test_nics_without_a_name_are_not_nics():
    """One named NIC among entries without a device: it is the default-route NIC, no choice to make."""
    plan = udp_gro_plan(facts(nics=["eth1", {"device": ""}, {"device": None}, nic()]))
    assert plan["device"] == "eth0" and plan["state"] == "change"
    with pytest.raises(ValueError, match=r"^the default-route NIC is unknown: no default route$"):
        udp_gro_plan(facts(nics=[{"device": ""}]))


def test_the_second_nic_when_named():
    two = facts(nics=[nic(features=dict(OFF, **{"rx-udp-gro-forwarding": "on"})), nic("eth1")])
    assert (udp_gro_plan(two, "eth0")["state"], udp_gro_plan(two, "eth1")["state"]) == ("converged", "change")
    assert udp_gro_plan(two, "eth1")["ethtool"] == "ethtool -K eth1 rx-udp-gro-forwarding on"


@pytest.mark.parametrize("nic_changes, note, message", [
    ({"features": None, "ethtool_error": "Operation not permitted"}, "n",
     "^the offload features of eth0 could not be read: Operation not permitted$"),
    ({"features": None, "ethtool_error": None}, "ethtool is not installed",
     "^the offload features of eth0 could not be read: ethtool is not installed$"),
    ({"features": None, "ethtool_error": ""}, None, "^the offload features of eth0 could not be read: ethtool -k gave nothing$"),
    ({"features": ["rx-udp-gro-forwarding"]}, None, "^the offload features of eth0 could not be read"),
    ({"features": {"rx-gro-list": "off"}}, None, r"^ethtool -k eth0 does not show rx-udp-gro-forwarding \(an ethtool "
                                                 r"older than the kernel's feature\)$"),
])
def test_features_that_cannot_be_read(nic_changes, note, message):
    with pytest.raises(ValueError, match=message):
        udp_gro_plan(facts(nics=[nic(**nic_changes)], note=note))


def test_what_the_role_refuses_word_for_word():
    two = facts(nics=[nic(), nic("eth1")])
    with pytest.raises(ValueError, match=r"^this host has 2 default-route NICs \(eth0, eth1\): choose one with "
                                         r"udp_gro_forwarding_device$"):
        udp_gro_plan(two)
    with pytest.raises(ValueError, match=r"^udp_gro_forwarding_device=eth2 is not the default-route NIC of this host "
                                         r"\(eth0, eth1\): the role changes no other NIC; leave it empty or name that NIC$"):
        udp_gro_plan(two, "eth2")
    with pytest.raises(ValueError, match=r"^the default-route NIC is unknown: no default route in the main table$"):
        udp_gro_plan(facts(nics=[], note="no default route in the main table"))
    with pytest.raises(ValueError, match=r"^the default-route NIC is unknown: no default route$"):
        udp_gro_plan(dict(facts(), nics=None))
    with pytest.raises(ValueError, match=r"^udp_gro_forwarding_device must be an interface name \(1-15 characters of letters, "
                                         r"digits and _\.@=\+-, not \. or \.\.\) or empty for the default-route NIC, got None$"):
        udp_gro_plan(facts(), None)
    with pytest.raises(ValueError, match=r"^expected the udp_gro facts of tunnel_facts or openwrt_facts \(a dict\), "
                                         r"got \['x'\]$"):
        udp_gro_plan(["x"])


def test_change_diff_lists_the_changed_features_in_order():
    assert change_diff("br-lan", {"rx-gro-list": "on", "rx-udp-gro-forwarding": "off"},
                       {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"}) == {
        "before": "br-lan rx-udp-gro-forwarding: off\nbr-lan rx-gro-list: on\n",
        "after": "br-lan rx-udp-gro-forwarding: on\nbr-lan rx-gro-list: off\n"}


def test_ethtool_command_quotes_every_word():
    assert ethtool_command("eth0", {}) == "ethtool -K eth0"
    assert ethtool_command("a b", {"rx-gro-list": "off", "x y": "on"}) == "ethtool -K 'a b' rx-gro-list off 'x y' on"


# ---- the guarded change, run for real (rollback.py's scripts, stub ethtool and ping) ------------------------

class Host:
    """A directory standing in for the host: stub ``ethtool`` (logs its arguments) and ``ping`` (answers or not)."""

    def __init__(self, tmp_path, shell, gateway_answers):
        self.base, self.hook = str(tmp_path / "guards"), tmp_path / "50-tunnelfix-udp-gro"
        self.log = tmp_path / "ethtool.log"
        stubs = tmp_path / "stubs"
        stubs.mkdir()
        (stubs / "ethtool").write_text('#!/bin/sh\necho "$*" >> %s\n' % self.log, encoding="utf-8")
        (stubs / "ping").write_text("#!/bin/sh\nexit %d\n" % (0 if gateway_answers else 1), encoding="utf-8")
        for stub in ("ethtool", "ping"):
            (stubs / stub).chmod(0o755)
        self.env = dict(os.environ, PATH="%s:%s" % (stubs, os.environ["PATH"]))
        self.argv = ["busybox", "sh"] if shell == "busybox" else [shell]

    def run(self, script):
        done = subprocess.run(self.argv + ["-c", script], capture_output=True, text=True, timeout=30, check=False, env=self.env)
        assert done.returncode == 0, done.stderr
        return rb.parse_status(done.stdout, [str(self.hook)])

    def wait_for(self, name, seconds=15.0):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if os.path.exists("%s/udp_gro_forwarding.%s/%s" % (self.base, RUN, name)):
                return True
            time.sleep(0.05)
        return False

    def guarded_change(self, plan):
        """The role's order: snapshot the hook, write it, arm and apply (ethtool, then the gateway check)."""
        self.run(rb.snapshot_script("udp_gro_forwarding", [str(self.hook)], RUN, base=self.base))
        self.hook.write_text("#!/bin/sh\n%s\n" % plan["hook_command"], encoding="utf-8")
        self.run(rb.arm_and_apply_script("udp_gro_forwarding", [str(self.hook)], plan["ethtool"] + " && " + plan["gateway_check"],
                                         plan["restore"], 60, "0123abcd", RUN, base=self.base, systemd_dir=self.base + "/no-systemd"))
        assert self.wait_for("apply.rc")
        return self.run(rb.confirm_script("udp_gro_forwarding", RUN, base=self.base))


@pytest.mark.parametrize("shell", SHELLS)
def test_a_gateway_that_answers_confirms_the_change(tmp_path, shell):
    host = Host(tmp_path, shell, gateway_answers=True)
    status = host.guarded_change(udp_gro_plan(facts(), gateway_timeout_s=2))
    assert status["state"] == "confirmed"
    assert host.log.read_text(encoding="utf-8") == "-K eth0 rx-udp-gro-forwarding on\n"
    assert host.hook.exists()


@pytest.mark.parametrize("shell", SHELLS)
def test_a_gateway_that_does_not_answer_reverts_the_features_and_the_hook(tmp_path, shell):
    host = Host(tmp_path, shell, gateway_answers=False)
    status = host.guarded_change(udp_gro_plan(facts(), gateway_timeout_s=2))
    assert status["state"] == "failed" and status["apply_rc"] == 1
    assert "the gateway 192.0.2.1 did not answer through eth0 within 2 s" in status["words"]["apply_out"]
    assert host.wait_for("rolled-back")
    assert host.log.read_text(encoding="utf-8") == "-K eth0 rx-udp-gro-forwarding on\n-K eth0 rx-udp-gro-forwarding off\n"
    assert not host.hook.exists(), "the hook the change wrote is gone again (it was absent before)"
