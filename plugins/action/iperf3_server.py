# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Start a one-test iperf3 server that is ours alone on its port, or stop it, with no Python on the hub.

Documentation: plugins/modules/iperf3_server.py (``ansible-doc tunnelfix.fleet.iperf3_server``).
The script and the reading of its report are plugin_utils/measure/iperf3_server.py; this file
runs it (one remote execution) and turns the report into a result or a failure naming the port
and the process. Stopping takes the pid and the start time the start returned and kills only that
process (issue 30.8); a pid that is another process now is named in a warning, and nothing is killed.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_server import (
    LISTEN_WAIT_S, START_SCRIPT, STOP_SCRIPT, exit_message, listener_names, parse_server_start, parse_server_stop)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.iperf3_server`` action."""

    ARGUMENT_SPEC = {
        "state": {"type": "str", "choices": ["started", "stopped"], "default": "started"},
        "bind": {"type": "str"},
        "port": {"type": "int"},
        "timeout_s": {"type": "int", "default": 600},
        "pid": {"type": "int"},
        "start_time": {"type": "int"},
    }
    REQUIRED_IF = [("state", "started", ("bind", "port")), ("state", "stopped", ("pid", "start_time"))]

    def run_openwrt(self, args, task_vars):
        if args["state"] == "stopped":
            if args["pid"] < 2:
                raise AnsibleActionFail("pid: %r is not a process id" % args["pid"])
            if args["start_time"] < 1:
                raise AnsibleActionFail("start_time: %r is not a process start time (clock ticks after boot, 1 or more)"
                                        % args["start_time"])
            stop = self.stop(args["pid"], args["start_time"])
            result = {"changed": False, "pid": args["pid"], "start_time": args["start_time"], "stop": stop["state"]}
            if stop["state"] == "not_ours":
                result["warnings"] = [
                    "iperf3_server: pid %d is no longer the iperf3 server this run started: it is now %s, started at tick %d "
                    "(the server: tick %d), so nothing was killed" % (
                        args["pid"], repr(stop["command"]) if stop["command"] else "another process", stop["start_time"],
                        args["start_time"])]
            elif stop["state"] == "running":
                result["warnings"] = ["iperf3_server: the iperf3 server (pid %d) still ran 3 s after SIGTERM; it ends by "
                                      "itself after its time limit" % args["pid"]]
            return result
        port, limit = args["port"], args["timeout_s"]
        if not 1 <= port <= 65535:
            raise AnsibleActionFail("port: %r is not a TCP port (1-65535)" % port)
        if not 1 <= limit <= 86400:
            raise AnsibleActionFail("timeout_s: %r is not 1-86400 seconds" % limit)
        if self.check_mode:
            return {"changed": False, "skipped": True, "msg": "check mode: no iperf3 server is started"}
        res = self.run_command(["sh", "-c", START_SCRIPT, "sh", args["bind"], str(port), str(limit)],
                               shown="sh -c '<start iperf3 --server --one-off --json on %s:%d>'" % (args["bind"], port))
        report = self.parse_output(res, parse_server_start)
        where = "%s:%d" % (args["bind"], port)
        if report["state"] == "busy" or (report["state"] == "listening" and not report["ours"]):
            if report["state"] == "listening":
                self.stop(report["pid"], report["start_time"])
            raise AnsibleActionFail(
                "port %d on the hub is taken by %s: another server listens there, so a client would measure (or hang on) "
                "it, not our iperf3; stop it or move this run's iperf3 ports (tunnel_measure_iperf3_port, "
                "tunnel_sweep_iperf3_port)" % (port, listener_names(report["listeners"])))
        if report["state"] == "exited":
            raise AnsibleActionFail("iperf3 --server on %s ended before it listened: %s"
                                    % (where, exit_message(report["listeners"]) or "no message"))
        if report["state"] == "slow":
            raise AnsibleActionFail("iperf3 --server on %s did not listen within %d s; it was stopped" % (where, LISTEN_WAIT_S))
        if report["state"] == "no-ss":
            raise AnsibleActionFail("ss (iproute2) is not on the hub: the iperf3 port %d cannot be checked before the test" % port)
        return {"changed": False, "pid": report["pid"], "start_time": report["start_time"], "port": port, "bind": args["bind"],
                "listeners": report["listeners"]}

    def stop(self, pid, start_time):
        """Run STOP_SCRIPT for ``pid`` started at ``start_time``; ``parse_server_stop``'s dict (``state``: gone, not_ours,
        stopped or running). Kills nothing unless that process still runs; ParseError fails naming the script."""
        res = self.run_command(["sh", "-c", STOP_SCRIPT, "sh", str(pid), str(start_time)],
                               shown="sh -c '<stop the iperf3 server pid %d started at tick %d>'" % (pid, start_time))
        return self.parse_output(res, parse_server_stop)
