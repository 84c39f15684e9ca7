# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set PersistentKeepalive on running WireGuard peers with ``wg set``, with no Python on the target, and say it in the diff.

Documentation: plugins/modules/wg_live_keepalive.py (``ansible-doc tunnelfix.fleet.wg_live_keepalive``).
Reads the live state once through remote/wg_live_reader.py (``wg show all dump``, the reader the
facts use), plans with ``live_keepalive_plan`` (pure: faults/nat_peer_keepalive/plan.py, the fault's plan uses it
too), and outside check mode runs every ``wg set`` in one more remote execution. The same plan drives the result,
the diff and check mode.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import is_wg_public_key
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.plan import live_keepalive_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import is_interface_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.wg_live_reader import WgLiveReader

MAX_KEEPALIVE_S = 65535  # wg(8): 1-65535 seconds, 0 or "off" turns it off
BATCH_SHOWN = "sh -c '<wg_live_keepalive: %d wg set commands in one script>'"


def _shown(value):
    return "off" if value is None else str(value)


def keepalive_diff(plan):
    """The diff of the peers ``plan`` sets: one ``wg show`` line per peer, before and after (public keys only)."""
    changes = [entry for entry in plan if entry["status"] == "set"]
    line = "%s peer %s persistent-keepalive %s\n"
    return {"before_header": "wg show (running)", "after_header": "wg show (running, after wg set)",
            "before": "".join(line % (e["interface"], e["public_key"], _shown(e["before"])) for e in changes),
            "after": "".join(line % (e["interface"], e["public_key"], _shown(e["after"])) for e in changes)}


class ActionModule(WgLiveReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.wg_live_keepalive`` action."""

    ARGUMENT_SPEC = {
        "peers": {"type": "list", "elements": "dict", "required": True,
                  "options": {"interface": {"type": "str", "required": True}, "public_key": {"type": "str", "required": True}}},
        "persistent_keepalive_s": {"type": "int", "required": True},
    }

    def run_openwrt(self, args, task_vars):
        want = args["persistent_keepalive_s"]
        if not 0 <= want <= MAX_KEEPALIVE_S:
            raise AnsibleActionFail("persistent_keepalive_s: %r is not 0 (off) to %d seconds" % (want, MAX_KEEPALIVE_S))
        for index, peer in enumerate(args["peers"]):
            if not is_interface_name(peer["interface"]):
                raise AnsibleActionFail("peers[%d].interface: %r is not an interface name" % (index, peer["interface"]))
            if not is_wg_public_key(peer["public_key"]):
                raise AnsibleActionFail("peers[%d].public_key: %r is not a WireGuard public key (44 base64 characters)"
                                        % (index, peer["public_key"]))
        # without wg, or when it cannot read the kernel, every peer reads as interface-down and the note says why
        _installed, interfaces, note = self.wg_live()
        plan = live_keepalive_plan(interfaces, args["peers"], want)
        changes = [entry for entry in plan if entry["status"] == "set"]
        if changes and not self.check_mode:
            steps = [Step("wg set %s peer %s" % (e["interface"], e["public_key"]),
                          ["wg", "set", e["interface"], "peer", e["public_key"], "persistent-keepalive", str(want)]) for e in changes]
            done = self.run_batch(steps, shown=BATCH_SHOWN % len(steps))
            for step in steps:
                self.batch_step(done, step.name, step.argv)
        result = {"changed": bool(changes), "peers": plan, "note": note}
        if self.diff_mode:
            result["diff"] = keepalive_diff(plan)
        return result
