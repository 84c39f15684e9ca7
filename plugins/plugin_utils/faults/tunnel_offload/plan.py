# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel fault's plan (``Fault.plan``): what bridge_gso_off would turn off live on the chosen tunnels (pure).

The role and its defaults are the bridge fault's (bridge_gso_off): ``FIX_DEFAULTS`` and the answer per device
(``decided_lines``: the role's action's own decision, fed the facts; ``converged_or_unknown``) come from
faults/bridge_offload/plan.py.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.plan import (
    FIX_DEFAULTS, converged_or_unknown, decided_lines)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.rule import bridges_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import name_list, role_setting


def tunnel_plan(view, role_vars):
    """What bridge_gso_off would turn off live on the chosen tunnels: the commands its action would run on each.

    ``[]`` when no tunnel is chosen (the bridges' plan speaks for them), or when all are off and
    persisting is off; None when all are off and persisting is on (the facts do not read the udev
    rule or hotplug script the role writes), without the tunnels' facts, or for a tunnel the facts do not
    have or a feature the role does not offer (the role fails naming it).
    """
    tunnels = bridges_facts(view).get("tunnels")
    if not isinstance(tunnels, dict):
        return None
    names = name_list(role_setting(role_vars, "bridge_gso_off_tunnels", FIX_DEFAULTS))
    if not names:
        return []
    wanted = name_list(role_setting(role_vars, "bridge_gso_off_tunnel_features", FIX_DEFAULTS))
    if any(not isinstance(tunnels.get(name), dict) for name in names):
        return None
    changes = []
    for name in names:  # the role's loop: one action run per tunnel
        lines = decided_lines({name: tunnels[name]}, wanted)
        if lines is None:
            return None
        changes.extend(lines)
    return converged_or_unknown(changes, role_vars)
