# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Watch banIP's ICMP flood counter and mwan3track's failed checks over a passive window, with no Python on the router.

Documentation: plugins/modules/health_check_window.py (``ansible-doc tunnelfix.fleet.health_check_window``).
The steps and the reading of their results are in plugin_utils/faults/banip_icmp/health_check_window.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.health_check_window import read_window, window_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase

SHOWN = "sh -c '<health_check_window: %d s passive window>'"


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.health_check_window`` action: a measurement, never changed."""

    ARGUMENT_SPEC = {
        "window_s": {"type": "int", "default": 30},
    }

    def run_openwrt(self, args, task_vars):
        try:
            steps = window_steps(args["window_s"])
        except ValueError as exc:
            raise AnsibleActionFail("bad option: %s" % exc) from None
        shown = SHOWN % args["window_s"]
        batch = self.run_batch(steps, shown=shown)
        try:
            window = read_window(batch, args["window_s"])
        except ParseError as exc:
            raise AnsibleActionFail("cannot read the window of %s: %s" % (shown, exc), result={"cmd": shown}) from None
        return dict(window, changed=False, cmd=shown)
