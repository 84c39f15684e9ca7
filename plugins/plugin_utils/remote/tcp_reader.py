# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one TCP-stack reader of the python-free actions: tunnel_facts and tcp_tuning read alike.

What the facts say about a host's TCP stack (fault 3's rule and plan) and what linux_bbr_fq's
tcp_tuning decides from are the same reads through the same code: every sysctl of
``TCP_FACT_KEYS`` (``cat /proc/sys/...``), which paths exist (kernel modules in sysfs, host-level
keys, container markers), ``modinfo`` of tcp_bbr and sch_fq, the OpenWrt package of tcp_bbr (apk
or opkg), ``systemd-detect-virt``; and what would set the managed keys again at boot:

* ``SYSCTL_BOOT_FILES``: every sysctl file the boot may read, whatever keys it sets: the
  ``*.conf`` of the sysctl.d directories systemd-sysctl and ``sysctl --system`` read (sysctl.d(5):
  /etc, /run, /usr/local/lib, /usr/lib and /lib ``sysctl.d``) and ``/etc/sysctl.conf`` (Debian
  links it in as /etc/sysctl.d/99-sysctl.conf; ``sysctl --system`` and OpenWrt's
  /etc/init.d/sysctl read it last), each with its symlink target and its lines that are not
  comments, numbered, each with whether its key exists under /proc/sys; and whether systemd
  booted the host. Parsed by parse/sysctl_boot.py, which also decides what wins at boot.
* ``TCP_BBR_MODULE_FILES``: the files that load tcp_bbr at boot (a line that is ``tcp_bbr``):
  modules-load.d(5) directories and OpenWrt's /etc/modules.d.

``TcpReader`` is a mixin for ``OpenWrtActionBase`` subclasses: it reads the steps of
``tcp_read_steps()`` from the action's batch (``self.batch``), running a missing one on its own.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import normalize_sysctl_value
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import (
    BACKLOG_KEY, CC_KEY, QDISC_KEY, RMEM_KEY, TCP_FACT_KEYS, WMEM_KEY, package_listed, tcp_facts)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import (
    parse_path_lines, parse_sysctl_boot_files, settings_by_file, sysctl_boot)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, Step, step_name
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

SYSCTL_GLOBS = ('"$R"/etc/sysctl.d/*.conf "$R"/run/sysctl.d/*.conf "$R"/usr/local/lib/sysctl.d/*.conf '
                '"$R"/usr/lib/sysctl.d/*.conf "$R"/lib/sysctl.d/*.conf "$R"/etc/sysctl.conf')
# awk: trim the line; skip blanks and comments (first character # or ;); print "L NR KEY TEXT" with
# the key as its /proc/sys path (systemd's sysctl_normalize: a dot first means dots and slashes
# swap; a tab in it a blank, so it stays one field) or "-" without one. The shell then replaces KEY
# by 1 or 0 (its /proc/sys entry exists or not), or g for a glob: `[ -e ]` is a builtin, where awk
# would need a process per key.
_BOOT_LINES_AWK = (r'{ sub(/^[[:space:]]+/, ""); sub(/[[:space:]]+$/, "") } /^[^#;]/ { k = $0; p = "-"; '
                   r'if (sub(/=.*/, "", k)) { sub(/^-/, "", k); gsub(/^[[:space:]]+|[[:space:]]+$/, "", k); '
                   r'if (k ~ /^[^\/]*\./) { gsub(/\./, "\001", k); gsub(/\//, ".", k); gsub(/\001/, "/", k) } '
                   r'if (k != "") { gsub(/\t/, " ", k); p = k } } print "L\t" NR "\t" p "\t" $0 }')
SYSCTL_BOOT_FILES_NAME = "sysctl files read at boot"


def sysctl_boot_files_argv(root=""):
    """SYSCTL_BOOT_FILES' command, reading below ``root`` (tests; "" on a host): output in parse/sysctl_boot.py.

    The awk program is a word of its own ("$2") and the script has no single quote: the batch quotes
    it, and the connection quotes that again, so each single quote would cost a dozen bytes of a
    command line dropbear bounds (tests/unit/plugins/plugin_utils/remote/test_remote_batch.py).
    """
    script = ('R=$1 t=$(printf "\\t"); [ -d "$R"/run/systemd/system ] && echo S; '
              'for f in %s; do [ -e "$f" ] || [ -L "$f" ] || continue; '
              'printf "F\\t%%s\\t>%%s\\n" "${f#"$R"}" "$(readlink "$f")"; [ -f "$f" ] && awk "$2" "$f"; done | '
              'while IFS=$t read -r a b c d; do if [ "$a" = L ]; then case $c in -) ;; *[][*?]*) c=g ;; '
              '*) [ -e "$R/proc/sys/$c" ] && c=1 || c=0 ;; esac; set -- "$b" "$c" "$d"; else set -- "$a" "$b" "$c"; a=; fi; '
              'printf "${a:+L\\t}%%s\\t%%s\\t%%s\\n" "$@"; done; true' % SYSCTL_GLOBS)
    return ["sh", "-c", script, "sh", root, _BOOT_LINES_AWK]


SYSCTL_BOOT_FILES = sysctl_boot_files_argv()
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
        steps[SYSCTL_BOOT_FILES_NAME] = Step(SYSCTL_BOOT_FILES_NAME, SYSCTL_BOOT_FILES)
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
        self.present = self.parse_output(self.step(PRESENCE, ok_rcs=ANY_EXIT_STATUS), parse_present_paths)

    def read_sysctl(self, key):
        """The key's value, whitespace-normalised, or None where this kernel or namespace lacks it."""
        res = self.step(cat_argv(key), ok_rcs=ANY_EXIT_STATUS)
        return normalize_sysctl_value(res["stdout"]) if res["rc"] == 0 else None

    def package_installed(self, package):
        """Whether apk (OpenWrt 25.12) or opkg lists ``package`` as installed; False without either."""
        for tool, prefix in PACKAGE_LISTINGS:
            if self.command_exists(tool):
                res = self.step(prefix + [package], ok_rcs=(0, 1))
                return package_listed(res["stdout"], package)
        return False

    def gather_tcp(self):
        """tunnel_facts' ``tcp`` facts (``_tcp_tuning.tcp_facts``) plus what sets the keys at boot::

            "sysctl_dropins": {"/etc/sysctl.d/60-tunnelfix-bbr-fq.conf": {"net.ipv4.tcp_congestion_control": "bbr"}},
            "sysctl_boot": parse/sysctl_boot.py's sysctl_boot (the files applied in order, the effective
                           value of every key and the file and line that set it, warnings),
            "tcp_bbr_module_files": ["/etc/modules-load.d/tunnelfix-bbr.conf"]

        ``sysctl_dropins``: every file that sets one of PERSISTED_KEYS, as written. A ParseError (a
        list or backlog that does not parse, a sysctl file listing that is not one) fails the task
        naming the command.
        """
        if self.present is None:
            self.read_presence()
        read = {key: self.read_sysctl(key) for key in TCP_FACT_KEYS}
        states = {}
        for name in PROBED_MODULES:
            sysfs = sysfs_module_state(name, self.present)
            modinfo = self.step(modinfo_argv(name), ok_rcs=ANY_EXIT_STATUS)
            package = MODULE_PACKAGES.get(name)
            installed = (sysfs == "absent" and modinfo["rc"] != 0 and package is not None
                         and self.package_installed(package))
            states[name] = module_state(sysfs, modinfo["rc"], modinfo["stdout"], installed)
        facts = tcp_facts(read, states["tcp_bbr"], states["sch_fq"])
        listing = self.parse_output(self.step(SYSCTL_BOOT_FILES, name=SYSCTL_BOOT_FILES_NAME), parse_sysctl_boot_files)
        modules = self.step(TCP_BBR_MODULE_FILES, name=TCP_BBR_MODULE_FILES_NAME)
        facts["sysctl_dropins"] = settings_by_file(listing, PERSISTED_KEYS)
        facts["sysctl_boot"] = sysctl_boot(listing)
        facts["tcp_bbr_module_files"] = self.parse_output(modules, parse_path_lines)
        return facts

    def gather_netns(self):
        """The ``netns`` facts (``host_probe.netns_from_probe``)."""
        if self.present is None:
            self.read_presence()
        detect = self.step(DETECT_VIRT, ok_rcs=ANY_EXIT_STATUS)
        return netns_from_probe(self.present, detect["rc"], detect["stdout"])
