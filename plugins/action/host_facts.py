# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather one host's tunnel facts as its platform needs: openwrt_facts on a router, tunnel_facts elsewhere.

Documentation: plugins/modules/host_facts.py (``ansible-doc tunnelfix.fleet.host_facts``).
The platform comes from the inventory, as the playbooks choose hosts: a host in the group
``tunnelfix_openwrt`` is a router. One task for the whole fleet lets routers and Linux hosts be read
in the same fork pass, where two tasks (or two plays) wait for the slowest host of each in turn
(docs/performance.md). Runs the chosen action in this process, with this task's connection: still
one remote execution per host; its result is returned as it is.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule as OpenWrtFacts
from ansible_collections.tunnelfix.fleet.plugins.action.tunnel_facts import ActionModule as TunnelFacts

ROUTER_GROUP = "tunnelfix_openwrt"
ROUTER_ONLY_OPTIONS = ("preferred_uplink", "metered_uplinks")


def facts_action_of(group_names):
    """The facts action class for a host in ``group_names``: OpenWrtFacts for a router, else TunnelFacts."""
    return OpenWrtFacts if ROUTER_GROUP in (group_names or ()) else TunnelFacts


class ActionModule(ActionBase):
    """The ``tunnelfix.fleet.host_facts`` action."""

    TRANSFERS_FILES = False
    _requires_connection = True
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        del tmp
        task_vars = task_vars or {}
        chosen = facts_action_of(task_vars.get("group_names"))
        task = self._task.copy()
        task.args = dict(self._task.args)
        if chosen is TunnelFacts:
            for option in ROUTER_ONLY_OPTIONS:
                task.args.pop(option, None)
        action = chosen(task, self._connection, self._play_context, self._loader, self._templar, self._shared_loader_obj)
        return action.run(task_vars=task_vars)
