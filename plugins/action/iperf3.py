# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run an iperf3 client test with no Python on the target (OpenWrt), parse and judge it on the controller.

Documentation: plugins/modules/iperf3.py (``ansible-doc tunnelfix.fleet.iperf3``). Options,
argv, retry decisions and the result are ``_iperf3_run`` (pure); this file only runs one lookup
(``command -v iperf3`` and ``timeout``, ``iperf3 --version``) and ``iperf3 ... -J`` (under ``timeout``
where the target has it, so no client outlives its test) over the connection and sleeps between busy
retries here on the controller.
"""

from __future__ import annotations

import random
import time

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import Iperf3Error, parse_iperf3_json
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_run import (
    ARGUMENT_SPEC, CHECK_MODE_MSG, KILLED_BY_TIMEOUT, LOOKUP_SCRIPT, NOT_INSTALLED, base_result, bounded_argv, build_argv,
    check_params, iperf3_error_msg, judged_result, killed_msg, parse_error_msg, parse_lookup, retry_wait_s)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.iperf3`` action."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    # controller-side waiting and jitter; tests replace them on a subclass
    sleep = staticmethod(time.sleep)
    uniform = staticmethod(random.uniform)

    def run_openwrt(self, args, task_vars):
        result = base_result(args)
        minimum, error = check_params(args)
        if error:
            return dict(result, failed=True, msg=error)
        found = self.run_command(["sh", "-c", LOOKUP_SCRIPT], ok_rcs=(0, 1, 127))
        lookup = parse_lookup(found["stdout"] if found["rc"] == 0 else "")
        iperf3, timeout_path = lookup["iperf3"], lookup["timeout"]
        if not iperf3:
            return dict(result, failed=True, msg=NOT_INSTALLED)
        if self.check_mode:
            return dict(result, skipped=True, msg=CHECK_MODE_MSG)

        if args["start_delay_s"]:
            # on the controller, per host: the flows of one measurement slot start a little apart
            self.sleep(args["start_delay_s"])
        argv = bounded_argv(build_argv(iperf3, args, lookup["version"]), timeout_path, args)
        result["udp_counters_64bit"] = "--udp-counters-64bit" in argv
        while True:
            result["attempts"] += 1
            # iperf3 exits 1 on its own errors (JSON "error" on stdout): the output decides, not the exit status
            res = self.run_command(argv, ok_rcs=ANY_EXIT_STATUS)
            if timeout_path and res["rc"] == KILLED_BY_TIMEOUT:
                return dict(result, failed=True, msg=killed_msg(args), cmd=argv, rc=res["rc"])
            try:
                measured = parse_iperf3_json(res["stdout"])
                break
            except Iperf3Error as exc:
                wait = retry_wait_s(exc.retryable, result["attempts"], args, self.uniform)
                if wait is not None:
                    self.sleep(wait)
                    continue
                return dict(result, failed=True, msg=iperf3_error_msg(result, exc, args),
                            retryable=exc.retryable, cmd=argv, rc=res["rc"])
            except ParseError as exc:
                return dict(result, failed=True, msg=parse_error_msg(result, exc), cmd=argv,
                            rc=res["rc"], stderr=res["stderr"])
        return judged_result(result, measured, minimum, args)
