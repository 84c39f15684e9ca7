# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tell an OpenWrt router from another Linux host, with no Python on the target.

Documentation: plugins/modules/host_platform.py (``ansible-doc tunnelfix.fleet.host_platform``).
One command, ``ls -1d /etc/openwrt_release`` (the file OpenWrt's base-files install): rc 0 is
OpenWrt; 1 (BusyBox) or 2 (GNU ls) is not. The answer is the result's ``platform``, which each fixing role
registers and reads to pick its OpenWrt or Linux tasks (no host fact: see plugins/modules/host_platform.py).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase

OPENWRT_RELEASE = "/etc/openwrt_release"
PROBE = ["ls", "-1d", OPENWRT_RELEASE]


def platform_of(rc) -> str:
    """``ls -1d /etc/openwrt_release``'s exit code -> ``"openwrt"`` (0) or ``"linux"`` (1, 2: no such file)."""
    return "openwrt" if rc == 0 else "linux"


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.host_platform`` action."""

    def run_openwrt(self, args, task_vars):
        res = self.run_command(PROBE, ok_rcs=(0, 1, 2))
        platform = platform_of(res["rc"])
        return {"changed": False, "platform": platform}
