# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the TCP stack and set TCP sysctls key by key, with no Python on the target (OpenWrt).

Documentation: plugins/modules/tcp_tuning.py (``ansible-doc tunnelfix.fleet.tcp_tuning``).
The facts are built by ``_tcp_tuning.tcp_facts``/``netns_facts`` (as tunnel_facts builds them),
the per-key outcome and the result by ``_sysctl_apply`` (as sysctl_live reports them); this file
only runs ``cat``, ``sysctl -w``, the module probe and the package managers over the connection.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import normalize_sysctl_value
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl_apply import (
    check_values, needs_write, status_before_write, summarize, write_status)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import (
    QDISC_KEY, TCP_FACT_KEYS, module_state, netns_facts, package_listed, parse_module_probe, tcp_facts)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils._openwrt_action import OpenWrtActionBase

PROC_SYS = "/proc/sys"
# kernel module -> OpenWrt package that ships it as a loadable module
MODULE_PACKAGES = {"tcp_bbr": "kmod-tcp-bbr"}
PROBED_MODULES = ("tcp_bbr", "sch_fq")
# $@: module names; prints "NAME builtin|loaded|absent" (sysfs first, then lsmod; /proc/modules may be absent)
MODULE_PROBE_SCRIPT = (
    'for m in "$@"; do '
    'if [ -e "/sys/module/$m/initstate" ]; then echo "$m loaded"; '
    'elif [ -d "/sys/module/$m" ]; then echo "$m builtin"; '
    'elif lsmod 2>/dev/null | grep -q "^$m "; then echo "$m loaded"; '
    'else echo "$m absent"; fi; done')
CONTAINER_MARKERS = (("/run/.containerenv", "podman"), ("/.dockerenv", "docker"))


def sysctl_path(key):
    """``net.ipv4.tcp_rmem`` -> ``/proc/sys/net/ipv4/tcp_rmem``."""
    return "/".join((PROC_SYS,) + tuple(key.split(".")))


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.tcp_tuning`` action."""

    ARGUMENT_SPEC = {
        "values": {"type": "dict", "default": {}},
    }

    def run_openwrt(self, args, task_vars):
        values = check_values(args["values"])
        facts = {"tcp": self.gather_tcp(), "netns": self.gather_netns()}
        outcomes = []
        for key, value in values.items():
            before = self.read_sysctl(key)
            status, after = status_before_write(before, value), before
            if needs_write(before, value):
                if self.check_mode:
                    after = value
                else:
                    res = self.run_command(["sysctl", "-w", "%s=%s" % (key, value)], ok_rcs=range(256))
                    after = self.read_sysctl(key)
                    status = write_status(res["rc"], res["stderr"], after, value)
            outcomes.append((key, value, before, after, status))
        result = summarize(outcomes)
        result["ansible_facts"] = {"tunnelfix": facts}
        return result

    def read_sysctl(self, key):
        """The key's value, whitespace-normalised, or None where this kernel or namespace lacks it."""
        res = self.run_command(["cat", sysctl_path(key)], ok_rcs=(0, 1))
        return normalize_sysctl_value(res["stdout"]) if res["rc"] == 0 else None

    def package_installed(self, package):
        """Whether apk (OpenWrt 25.12) or opkg lists ``package`` as installed; False without either."""
        for tool, argv in (("apk", ["apk", "list", "--installed", package]),
                           ("opkg", ["opkg", "list-installed", package])):
            if self.command_exists(tool):
                res = self.run_command(argv, ok_rcs=(0, 1))
                return package_listed(res["stdout"], package)
        return False

    def gather_tcp(self):
        read = {key: self.read_sysctl(key) for key in TCP_FACT_KEYS}
        probe = self.run_and_parse(["sh", "-c", MODULE_PROBE_SCRIPT, "sh"] + list(PROBED_MODULES), parse_module_probe)
        states = {}
        for name in PROBED_MODULES:
            sysfs = probe.get(name, "absent")
            package = MODULE_PACKAGES.get(name)
            installed = sysfs == "absent" and package is not None and self.package_installed(package)
            states[name] = module_state(sysfs, installed)
        return tcp_facts(read, states["tcp_bbr"], states["sch_fq"])

    def gather_netns(self):
        has_net = self.run_command(["test", "-d", PROC_SYS + "/net/ipv4"], ok_rcs=(0, 1))["rc"] == 0
        has_host_keys = self.run_command(["test", "-e", sysctl_path(QDISC_KEY)], ok_rcs=(0, 1))["rc"] == 0
        container = None
        for marker, name in CONTAINER_MARKERS:
            if self.run_command(["test", "-e", marker], ok_rcs=(0, 1))["rc"] == 0:
                container = name
                break
        return netns_facts(has_net, has_host_keys, container)
