# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Measure each WireGuard tunnel's path MTU with don't-fragment ping ladders, with no Python on the target.

Documentation: plugins/modules/path_mtu_ladder.py (``ansible-doc tunnelfix.fleet.path_mtu_ladder``).
What is probed comes from the host's view (``faults/path_mtu/reads.ladder_targets``), the script and the record
from ``faults/path_mtu/measure.py``; the ladder itself is ``faults/path_mtu/ladder.py``.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import (
    DEFAULT_ATTEMPTS, DEFAULT_INTERVAL_MS, DEFAULT_TIMEOUT_S, PING_COMMANDS)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import (
    PHASES, ladders, measure_record, measure_script, pace as ladder_pace)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import ladder_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import new_nonce
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.path_mtu_ladder`` action: a measurement, never changed."""

    ARGUMENT_SPEC = {
        "view": {"type": "dict", "required": True},
        "hub_address": {"type": "str"},
        "phase": {"type": "str", "required": True, "choices": list(PHASES)},
        "interval_ms": {"type": "int", "default": DEFAULT_INTERVAL_MS},
        "timeout_s": {"type": "int", "default": DEFAULT_TIMEOUT_S},
        "attempts": {"type": "int", "default": DEFAULT_ATTEMPTS},
        "ping_command": {"type": "str", "default": "ping", "choices": list(PING_COMMANDS)},
    }

    def run_openwrt(self, args, task_vars):
        view = args["view"]
        try:
            # the banIP probe's pacing: a fifth of the router's loaded ICMP limit at most (measure/icmp_pacing.py)
            pace = ladder_pace(view, args["interval_ms"])
        except ValueError as exc:
            raise AnsibleActionFail("bad option: %s" % exc) from None
        targets = ladder_targets(view, args["hub_address"] or None)
        nonce = new_nonce()
        try:
            script = measure_script(targets, nonce, pace["interval_ms"], args["timeout_s"], args["attempts"], args["ping_command"])
        except ValueError as exc:
            raise AnsibleActionFail("bad option: %s" % exc) from None
        result = {"changed": False, "interval_ms": pace["interval_ms"], "banip_limit_per_second": pace["limit_per_second"]}
        if not script:  # no tunnel, no peer with an endpoint, no ladder with known bounds: nothing is sent
            result.update(cmd=None, record=measure_record(targets, "", nonce, args["phase"], pace["interval_ms"]))
            return result
        count = len(ladders(targets))
        res = self.run_command(["sh"], stdin=script, shown="sh <PMTU ladder script: %d ladder%s>" % (count, "" if count == 1 else "s"))
        result.update(cmd=res["cmd"], record=measure_record(targets, res["stdout"], nonce, args["phase"], pace["interval_ms"]))
        if res["stderr"].strip():
            result["stderr"] = res["stderr"]
        return result
