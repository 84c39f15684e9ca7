# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge fault's plan (``Fault.plan``): what bridge_gso_off would turn off live, from the facts alone (pure).

``features_off_commands`` and ``converged_or_unknown`` are the offload family's: the tunnel fault's plan
(faults/tunnel_offload/plan.py) answers with them too. What the role's action (plugins/action/bridge_offload.py)
decides per device from ``ethtool -k`` is ``ethtool_plan.py``'s.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.rule import bridges_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import name_list, role_setting
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

# bridge_gso_off's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("bridge_gso_off")
# ethtool's short names (ethtool -K) -> the names ethtool -k prints
FEATURE_NAMES = {"gso": "generic-segmentation-offload", "tso": "tcp-segmentation-offload",
                 "gro": "generic-receive-offload", "lro": "large-receive-offload"}


def offload_plan(view, role_vars):
    """What bridge_gso_off would turn off live: each chosen feature that is on (and not [fixed]) on a chosen bridge or port.

    ``[]`` when all are off and persisting is off; None when all are off and persisting is on (the
    facts do not read the script, unit or hotplug files the role writes), without the bridges'
    offload facts, or for a bridge or feature the facts do not have (the role fails naming it).
    """
    bridges = bridges_facts(view).get("bridges")
    names = name_list(role_setting(role_vars, "bridge_gso_off_bridges", FIX_DEFAULTS))
    features = [FEATURE_NAMES.get(name) for name in name_list(role_setting(role_vars, "bridge_gso_off_features", FIX_DEFAULTS))]
    if not isinstance(bridges, dict) or not names or None in features or any(name not in bridges for name in names):
        return None
    changes = []
    for name in names:
        for device, facts in [(name, bridges[name])] + sorted((bridges[name].get("ports") or {}).items()):
            commands = features_off_commands(device, facts, features)
            if commands is None:
                return None
            changes.extend(commands)
    return converged_or_unknown(changes, role_vars)


def features_off_commands(device, facts, features):
    """``["ethtool -K DEVICE SHORT off", ...]`` for each of ``features`` (long names) on and changeable in
    ``facts["features"]``, in FEATURE_NAMES' order; None when the device's features were not read."""
    current = (facts or {}).get("features")
    if not isinstance(current, dict):
        return None
    return ["ethtool -K %s %s off" % (device, short) for short, long_name in FEATURE_NAMES.items()
            if long_name in features and current.get(long_name) == "on"]


def converged_or_unknown(changes, role_vars):
    """A bridge_gso_off plan's answer: ``changes``; with none, ``[]`` when persisting is off, else None (the
    facts do not read the files the role writes to persist)."""
    persist = role_setting(role_vars, "bridge_gso_off_persist", FIX_DEFAULTS) not in (False, "false", "no", "0")
    return changes or (None if persist else [])
