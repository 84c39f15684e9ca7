# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Turn offloads (gso/tso/gro) off or on on a bridge and every port, with no Python on the target.

Documentation: plugins/modules/bridge_offload.py (``ansible-doc tunnelfix.fleet.bridge_offload``).
Parsing and planning are the pure ``_ethtool`` and ``_bridge_offload`` functions; this file only
reads, runs and reports.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._bridge_offload import (
    STATES, describe_states, ethtool_set_argv, is_interface_name, offload_plan, parse_brif_listing)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._ethtool import (
    classify_ethtool_k_error, parse_ethtool_features)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils._openwrt_action import OpenWrtActionBase

DEFAULT_FEATURES = ["gso", "tso", "gro"]
_NOT_FOUND = 127  # POSIX shells: command not found


def before_states(plans):
    return {device: plan["before"] for device, plan in plans.items()}


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.bridge_offload`` action."""

    ARGUMENT_SPEC = {
        "bridge": {"type": "str", "required": True},
        "features": {"type": "list", "elements": "str", "default": DEFAULT_FEATURES},
        "state": {"type": "str", "default": "off", "choices": list(STATES)},
    }

    def run_openwrt(self, args, task_vars):
        bridge, state = args["bridge"], args["state"]
        features = [name.strip() for name in args["features"] if name and name.strip()]
        if not is_interface_name(bridge):
            raise AnsibleActionFail("bridge: %r is not an interface name (1-15 characters, no '/' or blanks)" % bridge)
        if not features:
            raise AnsibleActionFail("features: needs at least one feature name, got %r" % (args["features"],))

        listing = self.run_command(["ls", "/sys/class/net/%s/brif/" % bridge], ok_rcs=(0, 1, 2))
        if listing["rc"] != 0:
            raise AnsibleActionFail("bridge: %r is not a bridge on the target (no /sys/class/net/%s/brif/)"
                                    % (bridge, bridge),
                                    result={"cmd": listing["cmd"], "rc": listing["rc"], "stderr": listing["stderr"]})
        ports = self.parse_output(listing, parse_brif_listing)
        # ports first: the kernel recomputes the bridge's features from its ports
        devices = ports + [bridge]
        plans = {device: self._plan(device, features, state) for device in devices}

        commands = [ethtool_set_argv(device, plan["to_change"], state)
                    for device, plan in plans.items() if plan["to_change"]]
        after = {device: plan["after"] for device, plan in plans.items()}
        if commands and not self.check_mode:
            for argv in commands:
                self._set(argv)
            after = {device: self._plan(device, features, state)["before"] for device in devices}
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
            "bridge": bridge,
            "ports": ports,
            "state": state,
            "commands": [" ".join(argv) for argv in commands],
            "devices": {device: {"changed": plan["to_change"], "skipped_fixed": plan["skipped_fixed"],
                                 "already": plan["already"]} for device, plan in plans.items()},
            "skipped_fixed": {device: plan["skipped_fixed"] for device, plan in plans.items() if plan["skipped_fixed"]},
        }
        if result["skipped_fixed"]:
            result["msg"] = "left [fixed] features as they are: %s" % "; ".join(
                "%s: %s" % (dev, ", ".join(names)) for dev, names in result["skipped_fixed"].items())
        if self.diff_mode:
            result["diff"] = {"before": describe_states(before), "after": describe_states(after),
                              "before_header": "%s offloads" % bridge, "after_header": "%s offloads" % bridge}
        return result

    def _plan(self, device, features, state):
        res = self.run_command(["ethtool", "-k", device], ok_rcs=(0, _NOT_FOUND))
        if res["rc"] == _NOT_FOUND:
            raise AnsibleActionFail("ethtool is not installed on the target (%s: command not found); install it "
                                    "(OpenWrt: opkg install ethtool; Debian: apt-get install ethtool)" % res["cmd"],
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
        parsed = self.parse_output(res, parse_ethtool_features)
        try:
            return offload_plan(parsed["features"], features, state)
        except ParseError as exc:
            raise AnsibleActionFail("features: %s on %s" % (exc, device)) from None

    def _set(self, argv):
        res = self.run_command(argv, ok_rcs=range(256))
        if res["rc"] not in (0, 1):  # 1: some change refused, checked by reading back
            why = classify_ethtool_k_error(res["stderr"])
            raise AnsibleActionFail("%s failed with rc=%s (%s): %s" % (res["cmd"], res["rc"], why["reason"], why["message"]),
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
