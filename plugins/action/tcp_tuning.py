# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the TCP stack and set TCP sysctls key by key, with no Python on the target (OpenWrt).

Documentation: plugins/modules/tcp_tuning.py (``ansible-doc tunnelfix.fleet.tcp_tuning``).
The facts are built by ``_tcp_tuning.tcp_facts``/``netns_facts`` (as tunnel_facts builds them),
the per-key outcome and the result by ``_sysctl_apply`` (as sysctl_live reports them); this file
only decides which commands to run and reads their results.

Every read (each sysctl ``cat``, the presence listing and ``modinfo`` for the kernel modules, the
package managers, ``systemd-detect-virt``, the sysctl files read at boot; the same probes as
tunnel_facts, _fact_commands and _host_probe; ``id -u``; with ``persist_paths`` whether the
directories of those files take a new file) runs in ONE remote execution (``_remote_batch``,
``run_batch``); when a key must change (not in check mode), every ``sysctl -w`` and its read-back run
in one more. A result the batch lacks is read with a command of its own (``batch_step``).
"""

from __future__ import annotations

import posixpath

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, Step, step_name
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl_apply import (
    check_values, needs_write, status_before_write, summarize, write_status)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import TcpReader, cat_argv, tcp_read_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.text_file import WRITE_PROBE_SCRIPT, parse_write_probe, unwritable

BATCH_SHOWN = "sh -c '<tcp_tuning: %d commands in one script>'"
UID = ["id", "-u"]
WRITE_PROBE_NAME = "whether the files to persist can be written"


def _steps(argvs):
    """One Step per argv, named ``shlex.join(argv)``; an argv seen before is not repeated."""
    return list({step_name(argv): Step(step_name(argv), list(argv)) for argv in argvs}.values())


def write_probe_argv(paths) -> list:
    """WRITE_PROBE_SCRIPT over ``paths`` (remote/text_file.py)."""
    return ["sh", "-c", WRITE_PROBE_SCRIPT, "sh"] + list(paths)


def read_steps(keys, persist_paths=()) -> list:
    """The first batch: the TCP-stack reads (remote/tcp_reader.py, as the facts read them), ``cat`` of ``keys``,
    ``id -u`` (procps-ng 4 words a read-only /proc/sys as it words a user's missing permission) and, for
    ``persist_paths``, the write probe."""
    steps = tcp_read_steps(keys) + [Step(step_name(UID), UID)]
    if persist_paths:
        steps.append(Step(WRITE_PROBE_NAME, write_probe_argv(persist_paths)))
    return steps


def write_steps(writes) -> list:
    """The second batch: ``sysctl -w KEY=VALUE`` then the read-back ``cat``, key by key, in order."""
    argvs = []
    for key, value in writes.items():
        argvs += [["sysctl", "-w", "%s=%s" % (key, value)], cat_argv(key)]
    return _steps(argvs)


class ActionModule(TcpReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.tcp_tuning`` action."""

    ARGUMENT_SPEC = {
        "values": {"type": "raw", "default": {}},  # raw: check_values names a non-dict value
        "persist_paths": {"type": "list", "elements": "str", "default": []},
    }

    batch: dict = {}  # the results of the latest run_batch

    def run_openwrt(self, args, task_vars):
        values = check_values(args["values"])
        paths = args["persist_paths"]
        for path in paths:
            if not posixpath.isabs(path) or path.endswith("/"):
                raise AnsibleActionFail("persist_paths: %r is not an absolute file path" % (path,))
        self.run_steps(read_steps(tuple(values), paths))
        facts = {"tcp": self.gather_tcp(), "netns": self.gather_netns()}
        uid = self.step(UID, ok_rcs=ANY_EXIT_STATUS)
        as_root = uid["rc"] != 0 or uid["stdout"].strip() == "0"  # unknown: as root, as the roles run
        persist_failed = []
        if paths:
            persist_failed = unwritable(self.parse_output(self.step(write_probe_argv(paths), name=WRITE_PROBE_NAME),
                                                          parse_write_probe))
        before = {key: self.read_sysctl(key) for key in values}
        writes = {key: value for key, value in values.items() if needs_write(before[key], value)}
        if writes and not self.check_mode:
            self.run_steps(write_steps(writes))
        outcomes = []
        for key, value in values.items():
            status, after = status_before_write(before[key], value), before[key]
            if key in writes:
                if self.check_mode:
                    after = value
                else:
                    res = self.step(["sysctl", "-w", "%s=%s" % (key, value)], ok_rcs=ANY_EXIT_STATUS)
                    after = self.read_sysctl(key)
                    status = write_status(res["rc"], res["stderr"], after, value, as_root)
            outcomes.append((key, value, before[key], after, status))
        result = summarize(outcomes, facts["tcp"]["congestion_control_allowed"])  # [] when unread: not allowed
        result["ansible_facts"] = {"tunnelfix": facts}
        result["persist_failed"] = persist_failed
        return result

    def run_steps(self, steps):
        """Run ``steps`` in one remote execution; the results replace the previous batch's."""
        self.batch = self.run_batch(steps, shown=BATCH_SHOWN % len(steps))
