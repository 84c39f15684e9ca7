# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Turn offloads (gso/tso/gro) off or on on a bridge and every port, or on one tunnel device, with no Python on the target.

Documentation: plugins/modules/bridge_offload.py (``ansible-doc tunnelfix.fleet.bridge_offload``).
Parsing and planning are pure: parse/ethtool.py, faults/bridge_offload/ethtool_plan.py (``offload_decision``, the
decision the offload faults' plans make from the facts too) and
faults/tunnel_offload/device.py (whether a device is a tunnel); this file only reads, runs and reports.

The bridge's port listing and ``ethtool -k`` of every port (named on the target, ``ForEachLine``)
and of the bridge run in ONE remote execution (``_remote_batch``, ``run_batch``); when something
must change (not in check mode), every ``ethtool -K`` and the read-backs run in one more. A result
the batch lacks (a port the shell listed differently) is read with a command of its own. For a
``tunnel``, the first execution reads the device's kind (``ip -d -j link show dev``, sysfs) with its
``ethtool -k``, and a device that is not a layer-3 tunnel is refused before anything changes.
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.ethtool_plan import (
    STATES, bridge_devices, command_lines, describe_states, device_plan, offload_decision, parse_brif_listing)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.device import classify_tunnel_device
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import (
    classify_ethtool_k_error, parse_ethtool_features)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE as INTERFACE_NAME_RULE, is_interface_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, ForEachLine, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import ETHTOOL_K, NOT_FOUND
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase

DEFAULT_FEATURES = ["gso", "tso", "gro"]
_FEATURE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")  # fullmatch: ethtool -k names
# the ports for ForEachLine: the brif listing's output ("$1"), one name per line
PORT_LINES = 'cat "$1"'
BATCH_SHOWN = "sh -c '<bridge_offload: %s in one script>'"


def before_states(plans):
    return {device: plan["before"] for device, plan in plans.items()}


def brif_argv(bridge):
    return ["ls", "/sys/class/net/%s/brif/" % bridge]


def read_steps(bridge) -> list:
    """The first batch: the bridge's port listing, ``ethtool -k`` of every listed port, then of the bridge."""
    listing = brif_argv(bridge)
    return [step_of(listing), ForEachLine(PORT_LINES, (step_name(listing),), (ETHTOOL_K,)),
            step_of(ETHTOOL_K + [bridge])]


def link_argv(device):
    return ["ip", "-d", "-j", "link", "show", "dev", device]


def sysfs_argv(device, name):
    return ["cat", "/sys/class/net/%s/%s" % (device, name)]


def tunnel_read_steps(device) -> list:
    """The first batch for a tunnel: its link (``ip -d -j``), ``tun_flags`` and ``uevent``, then ``ethtool -k``."""
    return [step_of(argv) for argv in (link_argv(device), sysfs_argv(device, "tun_flags"), sysfs_argv(device, "uevent"),
                                       ETHTOOL_K + [device])]


def write_steps(commands, devices) -> list:
    """The second batch: every ``ethtool -K`` (ports first), then ``ethtool -k`` of every device again."""
    return [step_of(argv) for argv in commands + [ETHTOOL_K + [device] for device in devices]]


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.bridge_offload`` action."""

    ARGUMENT_SPEC = {
        "bridge": {"type": "str"},
        "tunnel": {"type": "str"},
        "features": {"type": "list", "elements": "str", "default": DEFAULT_FEATURES},
        "state": {"type": "str", "default": "off", "choices": list(STATES)},
    }
    MUTUALLY_EXCLUSIVE = [["bridge", "tunnel"]]
    REQUIRED_ONE_OF = [["bridge", "tunnel"]]

    batch: dict = {}  # the results of the latest run_batch

    def run_openwrt(self, args, task_vars):
        bridge, tunnel, state = args["bridge"], args["tunnel"], args["state"]
        features = [name.strip() for name in args["features"] if name and name.strip()]
        option, target = ("tunnel", tunnel) if tunnel is not None else ("bridge", bridge)
        if not is_interface_name(target):
            raise AnsibleActionFail("%s: %r is not an interface name (%s)" % (option, target, INTERFACE_NAME_RULE))
        if not features:
            raise AnsibleActionFail("features: needs at least one feature name, got %r" % (args["features"],))
        for name in features:  # ethtool short (gso) or long (generic-segmentation-offload) names
            if not _FEATURE_NAME.fullmatch(name):
                raise AnsibleActionFail("features: %r is not an ethtool feature name such as gso or "
                                        "generic-segmentation-offload" % (name,))

        if tunnel is not None:
            self.batch = self.run_batch(tunnel_read_steps(tunnel), shown=BATCH_SHOWN % "ip link, sysfs and ethtool -k")
            kind = self._tunnel_kind(tunnel)
            devices = [tunnel]
        else:
            self.batch = self.run_batch(read_steps(bridge), shown=BATCH_SHOWN % "ls and ethtool -k")
            listing = self.step(brif_argv(bridge), ok_rcs=(0, 1, 2))
            if listing["rc"] != 0:
                raise AnsibleActionFail("bridge: %r is not a bridge on the target (no /sys/class/net/%s/brif/)"
                                        % (bridge, bridge),
                                        result={"cmd": listing["cmd"], "rc": listing["rc"], "stderr": listing["stderr"]})
            ports = self.parse_output(listing, parse_brif_listing)
            devices = bridge_devices(bridge, ports)  # ports first: the kernel recomputes the bridge's features from its ports
        try:
            decision = offload_decision({device: self._features(device) for device in devices}, features, state)
        except ParseError as exc:
            raise AnsibleActionFail("features: %s" % exc) from None
        plans, commands = decision["plans"], decision["commands"]
        after = {device: plan["after"] for device, plan in plans.items()}
        if commands and not self.check_mode:
            self.batch = self.run_batch(write_steps(commands, devices), shown=BATCH_SHOWN % "ethtool -K and -k")
            for argv in commands:
                self._set(argv)
            after = {device: device_plan(self._features(device), features, state)["before"] for device in devices}
            refused = {device: [name for name in plans[device]["to_change"] if after[device][name] != (state == "on")]
                       for device in devices}
            refused = {device: names for device, names in refused.items() if names}
            if refused:
                raise AnsibleActionFail(
                    "ethtool -K ran but these features are still not %s: %s" % (
                        state, "; ".join("%s: %s" % (dev, ", ".join(names)) for dev, names in refused.items())),
                    result={"changed": before_states(plans) != after, "refused": refused})

        before = before_states(plans)
        result = {
            "changed": before != after,
            **({"tunnel": tunnel, "kind": kind} if tunnel is not None else {"bridge": bridge, "ports": ports}),
            "state": state,
            "commands": command_lines(commands),
            "devices": {device: {"changed": plan["to_change"], "skipped_fixed": plan["skipped_fixed"],
                                 "already": plan["already"], "absent": plan["absent"]} for device, plan in plans.items()},
            "skipped_fixed": {device: plan["skipped_fixed"] for device, plan in plans.items() if plan["skipped_fixed"]},
        }
        absent = {device: plan["absent"] for device, plan in plans.items() if plan["absent"]}
        notes = [what % "; ".join("%s: %s" % (dev, ", ".join(names)) for dev, names in found.items())
                 for what, found in (("left [fixed] features as they are: %s", result["skipped_fixed"]),
                                     ("left alone features these devices do not have: %s", absent)) if found]
        if notes:
            result["msg"] = "; ".join(notes)
        if self.diff_mode:
            result["diff"] = {"before": describe_states(before), "after": describe_states(after),
                              "before_header": "%s offloads" % target, "after_header": "%s offloads" % target}
        return result

    def _tunnel_kind(self, device):
        """The tunnel's kind (``classify_tunnel_device``); refuses (AnsibleActionFail) a device that is not a layer-3 tunnel."""
        link = self.step(link_argv(device), ok_rcs=ANY_EXIT_STATUS)
        if link["rc"] != 0 and "does not exist" in link["stderr"]:
            raise AnsibleActionFail("tunnel: %r does not exist on the target (%s)" % (device, link["stderr"].strip()[:200]),
                                    result={"cmd": link["cmd"], "rc": link["rc"], "stderr": link["stderr"]})
        sysfs = {name: self.step(sysfs_argv(device, name), ok_rcs=ANY_EXIT_STATUS) for name in ("tun_flags", "uevent")}
        try:
            found = classify_tunnel_device(device, link["stdout"] if link["rc"] == 0 else None,
                                           *(res["stdout"] if res["rc"] == 0 else None for res in sysfs.values()))
        except ParseError as exc:
            raise AnsibleActionFail("tunnel: cannot tell whether %r is a tunnel: %s" % (device, exc)) from None
        if not found["tunnel"]:
            raise AnsibleActionFail("tunnel: %r is not a layer-3 tunnel device (%s: %s); offloads are only changed on TUN, "
                                    "WireGuard and other IP tunnels, never on a NIC, bridge or veth"
                                    % (device, found["source"], found["what"]))
        return found["kind"]

    def _features(self, device):
        """``parse_ethtool_features``'s features of ``device``, from its ``ethtool -k`` (the batch's answer)."""
        res = self.step(ETHTOOL_K + [device], ok_rcs=(0, NOT_FOUND))
        if res["rc"] == NOT_FOUND:
            raise AnsibleActionFail("ethtool is not installed on the target (%s: command not found); install it "
                                    "(OpenWrt: opkg install ethtool; Debian: apt-get install ethtool)" % res["cmd"],
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
        return self.parse_output(res, parse_ethtool_features)["features"]

    def _set(self, argv):
        res = self.step(argv, ok_rcs=ANY_EXIT_STATUS)
        if res["rc"] not in (0, 1):  # 1: some change refused, checked by reading back
            why = classify_ethtool_k_error(res["stderr"])
            raise AnsibleActionFail("%s failed with rc=%s (%s): %s" % (res["cmd"], res["rc"], why["reason"], why["message"]),
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
