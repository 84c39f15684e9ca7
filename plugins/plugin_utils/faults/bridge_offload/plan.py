# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge fault's plan (``Fault.plan``): what bridge_gso_off would turn off live, from the facts alone (pure).

It decides with the role's action's own function (``ethtool_plan.offload_decision``), fed the facts' features
instead of a fresh ``ethtool -k``: the lines are the ``ethtool -K`` commands the action runs, one per device
with something to change, ports before their bridge, features in the order asked. ``decided_lines`` and
``converged_or_unknown`` are the offload family's: the tunnel fault's plan (faults/tunnel_offload/plan.py)
answers with them too.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.ethtool_plan import (
    bridge_devices, command_lines, offload_decision)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.rule import bridges_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import name_list, role_setting
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

# bridge_gso_off's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("bridge_gso_off")
# the role's feature choices, ethtool's short names -> the names ethtool -k prints
FEATURE_NAMES = {"gso": "generic-segmentation-offload", "tso": "tcp-segmentation-offload",
                 "gro": "generic-receive-offload", "lro": "large-receive-offload"}
# the facts' feature states (parse/bridges.device_offloads) -> (enabled, fixed)
_FACT_STATES = {"on": (True, False), "off": (False, False), "on [fixed]": (True, True), "off [fixed]": (False, True)}


def bridge_plan(view, role_vars):
    """What bridge_gso_off would turn off live: the commands its action would run on each chosen bridge and its ports.

    ``[]`` when all are off and persisting is off; None when all are off and persisting is on (the
    facts do not read the script, unit or hotplug files the role writes), without the bridges'
    offload facts, or for a bridge the facts do not have or a feature the role does not offer (the role fails naming it).
    """
    bridges = bridges_facts(view).get("bridges")
    names = name_list(role_setting(role_vars, "bridge_gso_off_bridges", FIX_DEFAULTS))
    wanted = name_list(role_setting(role_vars, "bridge_gso_off_features", FIX_DEFAULTS))
    if not isinstance(bridges, dict) or not names or any(name not in bridges for name in names):
        return None
    changes = []
    for name in names:  # the role's loop: one action run per bridge
        ports = bridges[name].get("ports") or {}
        lines = decided_lines({device: ports[device] if device != name else bridges[name]
                               for device in bridge_devices(name, ports)}, wanted)
        if lines is None:
            return None
        changes.extend(lines)
    return converged_or_unknown(changes, role_vars)


def fact_features(facts):
    """One device's facts features (``{"generic-segmentation-offload": "on [fixed]", ...}``) in the shape
    ``parse_ethtool_features`` gives the action (``{name: {"enabled": True, "fixed": True, "requested": None}}``);
    None when they were not read or a state is not one the facts write."""
    current = (facts or {}).get("features") if isinstance(facts, dict) else None
    if not isinstance(current, dict) or any(state not in _FACT_STATES for state in current.values()):
        return None
    return {name: {"enabled": _FACT_STATES[state][0], "fixed": _FACT_STATES[state][1],
                   "requested": None if _FACT_STATES[state][1] else _FACT_STATES[state][0]}
            for name, state in current.items()}


def decided_lines(devices, wanted):
    """The ``ethtool -K ... off`` lines the action would run on ``devices`` (``{device: its facts}``, in the
    action's order) for the role's ``wanted`` short names, decided by ``offload_decision``; None when a
    device's features were not read, or a name is not one of the role's choices or the action would refuse it."""
    if not wanted or any(name not in FEATURE_NAMES for name in wanted):
        return None
    features = {device: fact_features(facts) for device, facts in devices.items()}
    if any(value is None for value in features.values()):
        return None
    try:
        return command_lines(offload_decision(features, wanted, "off")["commands"])
    except ParseError:
        return None


def converged_or_unknown(changes, role_vars):
    """A bridge_gso_off plan's answer: ``changes``; with none, ``[]`` when persisting is off, else None (the
    facts do not read the files the role writes to persist)."""
    persist = role_setting(role_vars, "bridge_gso_off_persist", FIX_DEFAULTS) not in (False, "false", "no", "0")
    return changes or (None if persist else [])
