# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan offload changes on a bridge and its ports, or on a tunnel device: the one decision of both offload faults.

Pure functions, no I/O. ``offload_decision`` is what both the python-free action ``bridge_offload``
(plugins/action/bridge_offload.py, the fix of both offload faults; it runs the commands and hands
their output here) and the faults' plans (faults/bridge_offload/plan.py, from the facts) decide with,
so a plan's lines are the commands the action runs. Feature states come from
``parse/ethtool.parse_ethtool_features``; port lists from ``ls /sys/class/net/<bridge>/brif/``
(GNU coreutils 9.1 and BusyBox 1.35 ``ls`` print one name per line when not on a terminal). Whether a device
the action is asked to change is a tunnel is the tunnel fault's (faults/tunnel_offload/device.py).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import SHORT_NAMES, offload_changes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import is_interface_name

STATES = ("off", "on")
_LONG_TO_SHORT = {long: short for short, long in SHORT_NAMES.items()}


def parse_brif_listing(text: str) -> list:
    """Parse ``ls /sys/class/net/BRIDGE/brif/`` into the port names, sorted.

    ``"lan1\\nlan2\\n"`` → ``["lan1", "lan2"]``; empty output (a bridge without ports) → ``[]``.
    Raises ParseError naming the line for anything that is not an interface name.
    """
    if not isinstance(text, str):
        raise ParseError("brif listing must be text, got %s" % type(text).__name__)
    ports = []
    for lineno, line in enumerate(text.splitlines(), 1):
        name = line.strip()
        if not name:
            continue
        if not is_interface_name(name):
            raise ParseError("brif listing line %d: expected an interface name, got %r" % (lineno, line[:200]))
        ports.append(name)
    return sorted(set(ports))


def bridge_devices(bridge: str, ports) -> list:
    """The devices of one bridge in the order they are changed: its ports sorted, then the bridge.

    The kernel recomputes a bridge's features from its ports, so the ports go first:
    ``bridge_devices("br-lan", ["lan2", "lan1"])`` → ``["lan1", "lan2", "br-lan"]``.
    """
    return sorted(ports) + [bridge]


def device_plan(features: dict, wanted, state: str = "off") -> dict:
    """Sort the ``wanted`` features of one device by what setting them to ``state`` needs.

    ``features`` is ``parse_ethtool_features(text)["features"]``; ``wanted`` holds ethtool short
    names (``gso``, ``tso``, ``gro``) or long ones. For the case-12 port ``lan1``::

        device_plan(lan1, ["gso", "tso", "gro"], "off")
        → {"to_change": ["generic-segmentation-offload", "tcp-segmentation-offload",
                         "generic-receive-offload"],
           "skipped_fixed": [], "already": [], "absent": [],
           "before": {"generic-segmentation-offload": True, ...},
           "after": {"generic-segmentation-offload": False, ...}}

    ``to_change`` are in the other state and changeable, ``skipped_fixed`` in the other state but
    ``[fixed]``, ``already`` in ``state`` already (fixed or not), ``absent`` not listed by this
    device's ``ethtool -k`` at all (a kernel or ethtool without the feature: nothing to set, like
    ``[fixed]``); long names in the order asked, each once. ``before`` holds the current states of
    the listed ones, ``after`` the states expected once ``to_change`` is done.
    Raises ParseError for an unknown ``state``.
    """
    if state not in STATES:
        raise ParseError("state must be one of %s, got %r" % (", ".join(STATES), state))
    absent, present = [], []
    for wanted_name in wanted:
        name = SHORT_NAMES.get(wanted_name, wanted_name)
        if name in features:
            present.append(name)
        elif name not in absent:
            absent.append(name)
    if state == "off":
        sorted_off = offload_changes(features, present)
    else:
        # offload_changes with the roles of on and off swapped
        flipped = {name: dict(feature, enabled=not feature["enabled"]) for name, feature in features.items()}
        sorted_off = offload_changes(flipped, present)
    plan = {"to_change": sorted_off["to_change"], "skipped_fixed": sorted_off["skipped_fixed"],
            "already": sorted_off["already_off"], "absent": absent}
    names = plan["to_change"] + plan["skipped_fixed"] + plan["already"]
    plan["before"] = {name: features[name]["enabled"] for name in names}
    plan["after"] = dict(plan["before"], **{name: state == "on" for name in plan["to_change"]})
    return plan


def offload_decision(devices: dict, wanted, state: str = "off") -> dict:
    """What setting ``wanted`` to ``state`` on ``devices`` runs: the one decision of the offload faults and their action.

    ``devices`` maps each device, in the order they are changed (``bridge_devices`` for a bridge, the
    one device for a tunnel), to its ``parse_ethtool_features(text)["features"]``: the action reads them
    with its own ``ethtool -k``, the faults' plans (faults/bridge_offload/plan.py) take them from the
    facts. Returns ``{"plans": {device: device_plan(...)}, "commands": [argv, ...]}``: one ``ethtool -K``
    argv per device with something to change, in device order, features in the order asked, e.g.
    ``[["ethtool", "-K", "lan1", "gso", "off", "tso", "off"], ["ethtool", "-K", "br-lan", "gso", "off"]]``.

    A feature a device does not list is left alone there (``absent``): a device without it has
    nothing to set. Raises ParseError for an unknown ``state``, and for a name that is neither one of
    ethtool's short names (SHORT_NAMES, or its long form) nor listed by any of the devices (a typo).
    """
    plans = {device: device_plan(features, wanted, state) for device, features in devices.items()}
    for wanted_name in wanted:
        name = SHORT_NAMES.get(wanted_name, wanted_name)
        if name not in _LONG_TO_SHORT and all(name in plan["absent"] for plan in plans.values()):
            raise ParseError("offload feature %r is not in the ethtool -k output of %s (known short names: %s)"
                             % (wanted_name, ", ".join(plans) or "any device", ", ".join(sorted(SHORT_NAMES))))
    commands = [ethtool_set_argv(device, plan["to_change"], state) for device, plan in plans.items() if plan["to_change"]]
    return {"plans": plans, "commands": commands}


def command_lines(commands) -> list:
    """The argvs of ``offload_decision`` as the lines the action reports and the faults' plans list:
    ``[["ethtool", "-K", "lan1", "gso", "off"]]`` → ``["ethtool -K lan1 gso off"]``."""
    return [" ".join(argv) for argv in commands]


def ethtool_set_argv(device: str, names, state: str = "off") -> list:
    """``ethtool -K`` argv setting every feature in ``names`` to ``state``, short names where ethtool has one.

    ``ethtool_set_argv("br-lan", ["generic-segmentation-offload", "rx-gro-list"])`` →
    ``["ethtool", "-K", "br-lan", "gso", "off", "rx-gro-list", "off"]``.
    """
    argv = ["ethtool", "-K", device]
    for name in names:
        argv += [_LONG_TO_SHORT.get(name, name), state]
    return argv


def describe_states(device_states: dict) -> str:
    """Text for a diff: one ``device feature: on|off`` line per feature, devices in the given order.

    ``{"br-lan": {"generic-segmentation-offload": True}}`` → ``"br-lan generic-segmentation-offload: on\\n"``.
    """
    lines = []
    for device, states in device_states.items():
        for name, enabled in states.items():
            lines.append("%s %s: %s" % (device, name, "on" if enabled else "off"))
    return "".join(line + "\n" for line in lines)
