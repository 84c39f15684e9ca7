# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure readers of small host probes for tunnel_facts' ``tcp`` and ``netns`` subsets on Linux.

* ``module_paths`` / ``sysfs_module_state`` - which sysfs paths tell a kernel module's state
  (``/sys/module/NAME`` exists for a loaded or built-in module, ``.../initstate`` only for a
  loaded one: Documentation/ABI/stable/sysfs-module of the kernel) and the state they give.
* ``module_state`` - a kernel module's state from sysfs, ``modinfo -F filename NAME`` (kmod:
  prints the module's file, or ``(builtin)`` for a built-in one) and, on OpenWrt, whether the
  package that ships it is installed.
* ``netns_from_probe`` - tunnel_facts' ``netns`` facts from the same listing and
  ``systemd-detect-virt --container``.

tunnel_facts and tcp_tuning both read these from one ``ls -1d`` of PRESENCE_PATHS
(_fact_commands), so they answer alike.
* ``parse_present_paths`` - the paths ``ls -1d PATH...`` printed (it prints the existing ones
  and complains on stderr about the rest).
* ``container_name`` - the container technology from ``systemd-detect-virt --container``
  (systemd-detect-virt(1): prints ``none`` and exits 1 outside a container) or a marker file.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import netns_facts

# marker file -> container technology (podman writes the first, Docker the second)
CONTAINER_MARKERS = (("/run/.containerenv", "podman"), ("/.dockerenv", "docker"))


def module_paths(name: str) -> list:
    """The sysfs paths whose existence gives module ``name``'s state: ``[/sys/module/NAME, .../initstate]``."""
    return ["/sys/module/%s" % name, "/sys/module/%s/initstate" % name]


def sysfs_module_state(name: str, present_paths) -> str:
    """``"loaded"`` (initstate exists), ``"builtin"`` (only the directory) or ``"absent"``, from ``present_paths``."""
    directory, initstate = module_paths(name)
    if initstate in present_paths:
        return "loaded"
    return "builtin" if directory in present_paths else "absent"


def module_state(sysfs_state, modinfo_rc=None, modinfo_stdout="", package_installed=False):
    """``"builtin"``, ``"loaded"``, ``"module"`` (loadable, not loaded) or None (kernel lacks it).

    ``sysfs_state`` is ``sysfs_module_state``'s answer (``builtin``, ``loaded`` or ``absent``);
    when absent, ``modinfo`` decides: rc 0 with ``(builtin)`` in its output is built in, rc 0
    otherwise a loadable module; any other rc (127: no modinfo, as on OpenWrt; 1: unknown module)
    leaves it to ``package_installed`` (OpenWrt's kmod package): a loadable module, else None.
    """
    if sysfs_state in ("builtin", "loaded"):
        return sysfs_state
    if modinfo_rc == 0:
        return "builtin" if "(builtin)" in (modinfo_stdout or "") else "module"
    return "module" if package_installed else None


def parse_present_paths(text) -> set:
    """``ls -1d P1 P2 ...`` stdout → the set of paths it printed (one per line, blank lines ignored).

    Raises ParseError when the text is not a string or a line is not an absolute path.
    """
    if not isinstance(text, str):
        raise ParseError("ls output must be text, got %s" % type(text).__name__)
    paths = set()
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith("/"):
            raise ParseError("ls -1d: expected absolute paths, got %r" % line[:200])
        paths.add(line)
    return paths


def container_name(detect_rc, detect_stdout, present_paths):
    """The container technology name, or None on a host.

    ``systemd-detect-virt --container`` wins when it exits 0 with a name other than ``none``
    (``podman``, ``docker``, ``lxc``, ``systemd-nspawn``...); else the first marker of
    CONTAINER_MARKERS in ``present_paths``; else None.
    """
    name = (detect_stdout or "").strip()
    if detect_rc == 0 and name not in ("", "none"):
        return name
    for marker, technology in CONTAINER_MARKERS:
        if marker in present_paths:
            return technology
    return None


def netns_from_probe(present_paths, detect_rc, detect_stdout) -> dict:
    """The ``netns`` facts (``_tcp_tuning.netns_facts``) from the listed paths and systemd-detect-virt.

    A child network namespace has ``/proc/sys/net/ipv4`` but not the host-level
    ``/proc/sys/net/core/default_qdisc``.
    """
    return netns_facts("/proc/sys/net/ipv4" in present_paths, "/proc/sys/net/core/default_qdisc" in present_paths,
                       container_name(detect_rc, detect_stdout, present_paths))
