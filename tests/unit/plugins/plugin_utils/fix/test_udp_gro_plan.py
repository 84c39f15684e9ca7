# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role udp_gro_forwarding's plan (issue 17.9): states, the NIC it may change, the commands guarded_apply runs
(and run for real under dash, bash and BusyBox sh with stub ethtool and ping: the gateway check reverts the change),
and the probe that chooses the Linux interface hook."""

import os
import subprocess
import time

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.udp_gro_plan import (
    ethtool_command, gateway_wait, parse_hook_probe, udp_gro_plan)
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


# ---- the Linux hook probe --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, method", [
    ("systemd-networkd running\nnetworkd-dispatcher running\nNetworkManager\nifupdown no\n", "networkd-dispatcher"),
    ("systemd-networkd running\nnetworkd-dispatcher dead\nNetworkManager\nifupdown yes\n", None),   # networkd, no dispatcher
    ("systemd-networkd dead\nnetworkd-dispatcher\nNetworkManager running\nifupdown yes\n", "networkmanager"),
    ("systemd-networkd dead\nnetworkd-dispatcher\nNetworkManager dead\nifupdown yes\n", "ifupdown"),
    ("systemd-networkd \nnetworkd-dispatcher \nNetworkManager \nifupdown yes\n", "ifupdown"),             # no systemd at all
    ("systemd-networkd dead\nnetworkd-dispatcher\nNetworkManager dead\nifupdown no\n", None),
])
def test_hook_probe(text, method):
    got = parse_hook_probe(text)
    assert got["method"] == method and got["reason"]


@pytest.mark.parametrize("text, message", [
    ("systemd-networkd running\n", "no networkd-dispatcher, NetworkManager, ifupdown line"),
    ("systemd-networkd running\nnetworkd-dispatcher running\nNetworkManager\nifupdown maybe\n", "line 4"),
    ("hello\n", "line 1"),
])
def test_hook_probe_refuses(text, message):
    with pytest.raises(ParseError, match=message):
        parse_hook_probe(text)
