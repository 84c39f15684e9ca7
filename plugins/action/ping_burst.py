# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Send a burst of one-shot pings like mwan3track's health checks, with no Python on the target.

Documentation: plugins/modules/ping_burst.py (``ansible-doc tunnelfix.fleet.ping_burst``).
The script and the reading of its output are in plugin_utils/measure/ping_burst.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.ping_burst import (
    MAX_PINGS, parse_ping_burst, ping_burst_script)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import NetaddrMissing
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.ping_burst`` action: a measurement, never changed."""

    ARGUMENT_SPEC = {
        "targets": {"type": "list", "elements": "str", "required": True},
        "count": {"type": "int", "default": 10},
        "interval_ms": {"type": "int", "default": 10},
        "timeout_s": {"type": "int", "default": 1},
        "max_failed": {"type": "int"},
    }

    def run_openwrt(self, args, task_vars):
        try:
            script = ping_burst_script(args["targets"], args["count"], args["interval_ms"], args["timeout_s"])
        except NetaddrMissing:
            raise  # a controller without netaddr, not a bad option: the base fails the task with its message
        except ValueError as exc:
            raise AnsibleActionFail("bad option: %s" % exc) from None
        limit = args["max_failed"]
        if limit is not None and (isinstance(limit, bool) or not 0 <= limit <= MAX_PINGS):
            raise AnsibleActionFail("bad option: max_failed must be a whole number 0-%d, got %r" % (MAX_PINGS, limit))
        if not self.command_exists("ping"):
            raise AnsibleActionFail("ping is not installed on the target")
        res = self.run_command(["sh", "-c", script], shown="sh -c <ping burst script>")
        burst = self.parse_output(res, parse_ping_burst)
        # the pause the target could make (whole seconds where its sleep takes no fraction), not the one asked for
        interval = burst.pop("interval_ms")
        interval = args["interval_ms"] if interval is None else interval
        result = {"changed": False, "cmd": res["cmd"], "interval_ms": interval,
                  "rate_per_second": None if not interval else round(1000.0 / interval, 1)}
        result.update(burst)
        if limit is not None and burst["failed_pings"] > limit:
            result.update(failed=True, msg="%d of %d one-shot pings failed (max_failed=%d)"
                          % (burst["failed_pings"], burst["sent"], limit))
        return result
