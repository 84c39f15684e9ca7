# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openwrt_mwan3_wg's full-tunnel hotplug hook: where it is, and whether the router has it.

``HOOK_PATH`` is the one place the path is written in Python (roles/openwrt_mwan3_wg/vars/main.yml names it for the
role, pinned to it by tests/unit/roles/test_openwrt_mwan3_wg_tasks.py). ``HOOK_PROBE`` is a step of the
``endpoint_routes`` reading and of wg_endpoint_route's first batch (``reads.read_endpoint_routes`` reads it for
both), so the plan (``plan.plan_endpoint_routes``) can tell a stale hook (no full tunnel left, or the hook turned
off) from a converged router. ``parse_hook_probe`` is pure.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS

# /sbin/hotplug-call iface sources /etc/hotplug.d/iface/ (roles/openwrt_mwan3_wg/vars/main.yml says why 17)
HOOK_PATH = "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint"
# ls, not test -e (a shell builtin no test can stand in for): rc 0 when it exists, else 1 (BusyBox) or 2 (GNU)
# with "No such file or directory" on stderr
HOOK_PROBE = ["ls", "-1d", HOOK_PATH]
_MISSING = "No such file or directory"


def parse_hook_probe(rc, stderr) -> "bool | None":
    """Whether the hook exists, from ``HOOK_PROBE``'s exit code and stderr.

    ``(0, "")`` → True; ``(1, "ls: /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint: No such file or directory\\n")``
    (BusyBox; GNU ls: rc 2, ``ls: cannot access '...': No such file or directory``) → False; anything else
    (no ``ls``: 127, permission denied) → None, unknown.
    """
    if rc == 0:
        return True
    return False if _MISSING in (stderr or "") else None


def hook_exists(action) -> "bool | None":
    """``parse_hook_probe`` of ``HOOK_PROBE``'s result in ``action``'s batch (run on its own when the batch lacks it)."""
    res = action.step(HOOK_PROBE, ok_rcs=ANY_EXIT_STATUS)
    return parse_hook_probe(res["rc"], res["stderr"])
