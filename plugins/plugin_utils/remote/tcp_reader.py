# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one TCP-stack reader of the python-free actions: tunnel_facts and tcp_tuning read alike.

What the facts say about a host's TCP stack (fault 3's rule and plan) and what linux_bbr_fq's
tcp_tuning decides from are the same reads through the same code: every sysctl of
``TCP_FACT_KEYS`` (``cat /proc/sys/...``), which paths exist (kernel modules in sysfs, host-level
keys, container markers), ``modinfo`` of tcp_bbr and sch_fq, the OpenWrt package of tcp_bbr (apk
or opkg), ``systemd-detect-virt``; and what would set the managed keys again at boot:

* ``SYSCTL_DROPINS``: every line of a sysctl configuration file that sets one of
  ``PERSISTED_KEYS``, as ``PATH<TAB>LINE``. The files systemd-sysctl reads (sysctl.d(5):
  /etc, /run, /usr/local/lib, /usr/lib and /lib ``sysctl.d/*.conf``) and ``/etc/sysctl.conf``
  (procps; Debian links it as /etc/sysctl.d/99-sysctl.conf; OpenWrt's /etc/init.d/sysctl reads
  /etc/sysctl.d/*.conf and /etc/sysctl.conf). Parsed by parse/sysctl_dropins.py.
* ``TCP_BBR_MODULE_FILES``: the files that load tcp_bbr at boot (a line that is ``tcp_bbr``):
  modules-load.d(5) directories and OpenWrt's /etc/modules.d.

``TcpReader`` is a mixin for ``OpenWrtActionBase`` subclasses: it reads the steps of
``tcp_read_steps()`` from the action's batch (``self.batch``), running a missing one on its own.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import normalize_sysctl_value
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import (
    BACKLOG_KEY, CC_KEY, QDISC_KEY, RMEM_KEY, TCP_FACT_KEYS, WMEM_KEY, package_listed, tcp_facts)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_dropins import parse_path_lines, parse_sysctl_dropins
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step, step_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    DETECT_VIRT, PRESENCE, PROBED_MODULES, modinfo_argv, sysctl_path)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.host_probe import (
    module_state, netns_from_probe, parse_present_paths, sysfs_module_state)

# The keys linux_bbr_fq manages, whose persisted values the facts report.
PERSISTED_KEYS = (QDISC_KEY, CC_KEY, RMEM_KEY, WMEM_KEY, BACKLOG_KEY)
# kernel module -> OpenWrt package that ships it as a loadable module (OpenWrt has no modinfo)
MODULE_PACKAGES = {"tcp_bbr": "kmod-tcp-bbr"}
# package manager -> argv prefix listing an installed package: apk (OpenWrt 25.12) first, then opkg
PACKAGE_LISTINGS = (("apk", ["apk", "list", "--installed"]), ("opkg", ["opkg", "list-installed"]))

SYSCTL_FILES = ("/etc/sysctl.d/*.conf /run/sysctl.d/*.conf /usr/local/lib/sysctl.d/*.conf /usr/lib/sysctl.d/*.conf "
                "/lib/sysctl.d/*.conf /etc/sysctl.conf")
# A key may be written with dots or slashes, after blanks and an optional '-' (ignore errors). The
# regular expression goes to awk as a string ("[/.]", not "[./]": BusyBox awk reads "[." as a
# collating element), so no "/" ends it early.
_KEYS_ERE = "|".join(key.replace(".", "[/.]") for key in PERSISTED_KEYS)
SYSCTL_DROPINS_NAME = "sysctl files setting the managed keys"
SYSCTL_DROPINS = ["sh", "-c", "for f in %s; do [ -f \"$f\" ] && awk -v f=\"$f\" -v re='^[[:space:]]*-?(%s)[[:space:]]*=' "
                  "'$0 ~ re { print f \"\\t\" $0 }' \"$f\"; done; true" % (SYSCTL_FILES, _KEYS_ERE)]
MODULE_FILES = "/etc/modules-load.d/*.conf /run/modules-load.d/*.conf /usr/lib/modules-load.d/*.conf /etc/modules.d/*"
TCP_BBR_MODULE_FILES_NAME = "files that load tcp_bbr at boot"
TCP_BBR_MODULE_FILES = ["sh", "-c", "for f in %s; do [ -f \"$f\" ] && awk -v f=\"$f\" "
                        "'NF == 1 && $1 == \"tcp_bbr\" { print f; exit }' \"$f\"; done; true" % MODULE_FILES]


def cat_argv(key):
    """``cat /proc/sys/...`` of a sysctl key."""
    return ["cat", sysctl_path(key)]


def tcp_read_steps(keys=(), tcp=True, netns=True) -> list:
    """The reads ``gather_tcp`` (``tcp``) and ``gather_netns`` (``netns``) use, plus ``cat`` of ``keys``:
    every one, since the script cannot ask (modinfo and the package listings even where sysfs
    already answers)."""
    argvs = [cat_argv(key) for key in keys] + [PRESENCE]
    if tcp:
        argvs += [cat_argv(key) for key in TCP_FACT_KEYS] + [modinfo_argv(name) for name in PROBED_MODULES]
        for package in MODULE_PACKAGES.values():
            for tool, prefix in PACKAGE_LISTINGS:
                argvs += [["command", "-v", tool], prefix + [package]]
    if netns:
        argvs.append(DETECT_VIRT)
    steps = {step_name(argv): Step(step_name(argv), list(argv)) for argv in argvs}
    if tcp:
        steps[SYSCTL_DROPINS_NAME] = Step(SYSCTL_DROPINS_NAME, SYSCTL_DROPINS)
        steps[TCP_BBR_MODULE_FILES_NAME] = Step(TCP_BBR_MODULE_FILES_NAME, TCP_BBR_MODULE_FILES)
    return list(steps.values())


class TcpReader:
    """``gather_tcp``/``gather_netns`` for an OpenWrtActionBase subclass (``step``, ``command_exists``, ``parse_output``).

    Not in openwrt_facts: its batch with these steps would not fit dropbear's command line
    (tests/unit/.../test_remote_batch.py); a router's TCP stack is read by tcp_tuning when
    linux_bbr_fq runs there.
    """

    present = None  # the paths of PRESENCE that exist (read_presence)

    def read_presence(self):
        """Read which of PRESENCE's paths exist (once per batch)."""
        self.present = self.parse_output(self.step(PRESENCE, ok_rcs=range(256)), parse_present_paths)

    def read_sysctl(self, key):
        """The key's value, whitespace-normalised, or None where this kernel or namespace lacks it."""
        res = self.step(cat_argv(key), ok_rcs=range(256))
        return normalize_sysctl_value(res["stdout"]) if res["rc"] == 0 else None

    def package_installed(self, package):
        """Whether apk (OpenWrt 25.12) or opkg lists ``package`` as installed; False without either."""
        for tool, prefix in PACKAGE_LISTINGS:
            if self.command_exists(tool):
                res = self.step(prefix + [package], ok_rcs=(0, 1))
                return package_listed(res["stdout"], package)
        return False

    def gather_tcp(self):
        """tunnel_facts' ``tcp`` facts (``_tcp_tuning.tcp_facts``) plus what sets the managed keys at boot::

            "sysctl_dropins": {"/etc/sysctl.d/60-tunnelfix-bbr-fq.conf": {"net.ipv4.tcp_congestion_control": "bbr"}},
            "tcp_bbr_module_files": ["/etc/modules-load.d/tunnelfix-bbr.conf"]

        A ParseError (a list or backlog that does not parse, a dropin line that is not PATH<TAB>LINE)
        fails the task naming the command.
        """
        if self.present is None:
            self.read_presence()
        read = {key: self.read_sysctl(key) for key in TCP_FACT_KEYS}
        states = {}
        for name in PROBED_MODULES:
            sysfs = sysfs_module_state(name, self.present)
            modinfo = self.step(modinfo_argv(name), ok_rcs=range(256))
            package = MODULE_PACKAGES.get(name)
            installed = (sysfs == "absent" and modinfo["rc"] != 0 and package is not None
                         and self.package_installed(package))
            states[name] = module_state(sysfs, modinfo["rc"], modinfo["stdout"], installed)
        facts = tcp_facts(read, states["tcp_bbr"], states["sch_fq"])
        dropins = self.step(SYSCTL_DROPINS, name=SYSCTL_DROPINS_NAME)
        modules = self.step(TCP_BBR_MODULE_FILES, name=TCP_BBR_MODULE_FILES_NAME)
        facts["sysctl_dropins"] = self.parse_output(dropins, parse_sysctl_dropins)
        facts["tcp_bbr_module_files"] = self.parse_output(modules, parse_path_lines)
        return facts

    def gather_netns(self):
        """The ``netns`` facts (``host_probe.netns_from_probe``)."""
        if self.present is None:
            self.read_presence()
        detect = self.step(DETECT_VIRT, ok_rcs=range(256))
        return netns_from_probe(self.present, detect["rc"], detect["stdout"])
