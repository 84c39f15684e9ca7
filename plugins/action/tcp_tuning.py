# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the TCP stack and set TCP sysctls key by key, with no Python on the target (OpenWrt).

Documentation: plugins/modules/tcp_tuning.py (``ansible-doc tunnelfix.fleet.tcp_tuning``).
The facts are built by ``_tcp_tuning.tcp_facts``/``netns_facts`` (as tunnel_facts builds them),
the per-key outcome and the result by ``_sysctl_apply`` (as sysctl_live reports them); this file
only decides which commands to run and reads their results.

Every read (each sysctl ``cat``, the presence listing and ``modinfo`` for the kernel modules, the
package managers, ``systemd-detect-virt``; the same probes as tunnel_facts, _fact_commands and
_host_probe) runs in ONE remote execution (``_remote_batch``, ``run_batch``); when a key must change
(not in check mode), every ``sysctl -w`` and its read-back run in one more. A result the batch
lacks is read with a command of its own (``batch_step``).
"""

from __future__ import annotations


from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    DETECT_VIRT, PRESENCE, PROBED_MODULES, modinfo_argv, sysctl_path)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.host_probe import (
    module_state, netns_from_probe, parse_present_paths, sysfs_module_state)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step, step_name
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import normalize_sysctl_value
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl_apply import (
    check_values, needs_write, status_before_write, summarize, write_status)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import TCP_FACT_KEYS, package_listed, tcp_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase

# kernel module -> OpenWrt package that ships it as a loadable module (OpenWrt has no modinfo)
MODULE_PACKAGES = {"tcp_bbr": "kmod-tcp-bbr"}
# package manager -> argv prefix listing an installed package: apk (OpenWrt 25.12) first, then opkg
PACKAGE_LISTINGS = (("apk", ["apk", "list", "--installed"]), ("opkg", ["opkg", "list-installed"]))
BATCH_SHOWN = "sh -c '<tcp_tuning: %d commands in one script>'"


def _steps(argvs):
    """One Step per argv, named ``shlex.join(argv)``; an argv seen before is not repeated."""
    return list({step_name(argv): Step(step_name(argv), list(argv)) for argv in argvs}.values())


def cat_argv(key):
    return ["cat", sysctl_path(key)]


def read_steps(keys) -> list:
    """The first batch: ``cat`` of every key in ``keys``, the presence listing, ``modinfo`` per module,
    the package listings, ``systemd-detect-virt``.

    More than the decisions may need (modinfo and the package listings when sysfs already shows
    the module): a command too many costs less than a round trip.
    """
    argvs = [cat_argv(key) for key in keys] + [PRESENCE] + [modinfo_argv(name) for name in PROBED_MODULES]
    for package in MODULE_PACKAGES.values():
        for tool, prefix in PACKAGE_LISTINGS:
            argvs += [["command", "-v", tool], prefix + [package]]
    return _steps(argvs + [DETECT_VIRT])


def write_steps(writes) -> list:
    """The second batch: ``sysctl -w KEY=VALUE`` then the read-back ``cat``, key by key, in order."""
    argvs = []
    for key, value in writes.items():
        argvs += [["sysctl", "-w", "%s=%s" % (key, value)], cat_argv(key)]
    return _steps(argvs)


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.tcp_tuning`` action."""

    ARGUMENT_SPEC = {
        "values": {"type": "raw", "default": {}},  # raw: check_values names a non-dict value
    }

    batch: dict = {}  # the results of the latest run_batch

    def run_openwrt(self, args, task_vars):
        values = check_values(args["values"])
        self.run_steps(read_steps((*TCP_FACT_KEYS, *values)))
        self.present = self.parse_output(self.step(PRESENCE, ok_rcs=range(256)), parse_present_paths)
        facts = {"tcp": self.gather_tcp(), "netns": self.gather_netns()}
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
                    res = self.step(["sysctl", "-w", "%s=%s" % (key, value)], ok_rcs=range(256))
                    after = self.read_sysctl(key)
                    status = write_status(res["rc"], res["stderr"], after, value)
            outcomes.append((key, value, before[key], after, status))
        result = summarize(outcomes)
        result["ansible_facts"] = {"tunnelfix": facts}
        return result

    def run_steps(self, steps):
        """Run ``steps`` in one remote execution; the results replace the previous batch's."""
        self.batch = self.run_batch(steps, shown=BATCH_SHOWN % len(steps))

    def read_sysctl(self, key):
        """The key's value, whitespace-normalised, or None where this kernel or namespace lacks it."""
        res = self.step(cat_argv(key), ok_rcs=(0, 1))
        return normalize_sysctl_value(res["stdout"]) if res["rc"] == 0 else None

    def package_installed(self, package):
        """Whether apk (OpenWrt 25.12) or opkg lists ``package`` as installed; False without either.

        The tool is looked up with the base's command_exists (read from the batch).
        """
        for tool, prefix in PACKAGE_LISTINGS:
            if self.command_exists(tool):
                res = self.step(prefix + [package], ok_rcs=(0, 1))
                return package_listed(res["stdout"], package)
        return False

    def gather_tcp(self):
        read = {key: self.read_sysctl(key) for key in TCP_FACT_KEYS}
        states = {}
        for name in PROBED_MODULES:
            sysfs = sysfs_module_state(name, self.present)
            modinfo = self.step(modinfo_argv(name), ok_rcs=range(256))
            package = MODULE_PACKAGES.get(name)
            installed = (sysfs == "absent" and modinfo["rc"] != 0 and package is not None
                         and self.package_installed(package))
            states[name] = module_state(sysfs, modinfo["rc"], modinfo["stdout"], installed)
        return tcp_facts(read, states["tcp_bbr"], states["sch_fq"])

    def gather_netns(self):
        detect = self.step(DETECT_VIRT, ok_rcs=range(256))
        return netns_from_probe(self.present, detect["rc"], detect["stdout"])
