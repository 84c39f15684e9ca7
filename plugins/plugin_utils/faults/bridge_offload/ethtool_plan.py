# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan offload changes on a bridge and its ports, or on a tunnel device: what the role's action applies, per device.

Pure functions, no I/O: the python-free action ``bridge_offload`` (plugins/action/bridge_offload.py, the fix of
both offload faults) runs the commands and hands their output here. Feature states come from
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


def offload_plan(features: dict, wanted, state: str = "off") -> dict:
    """Sort the ``wanted`` features of one device by what setting them to ``state`` needs.

    ``features`` is ``parse_ethtool_features(text)["features"]``; ``wanted`` holds ethtool short
    names (``gso``, ``tso``, ``gro``) or long ones. For the case-12 port ``lan1``::

        offload_plan(lan1, ["gso", "tso", "gro"], "off")
        → {"to_change": ["generic-segmentation-offload", "tcp-segmentation-offload",
                         "generic-receive-offload"],
           "skipped_fixed": [], "already": [],
           "before": {"generic-segmentation-offload": True, ...},
           "after": {"generic-segmentation-offload": False, ...}}

    ``to_change`` are in the other state and changeable, ``skipped_fixed`` in the other state but
    ``[fixed]``, ``already`` in ``state`` already (fixed or not); long names in the order asked.
    ``before`` holds the current states, ``after`` the states expected once ``to_change`` is done.
    Raises ParseError for an unknown ``state`` or a name this device's ``ethtool -k`` lacks.
    """
    if state not in STATES:
        raise ParseError("state must be one of %s, got %r" % (", ".join(STATES), state))
    if state == "off":
        sorted_off = offload_changes(features, wanted)
        plan = {"to_change": sorted_off["to_change"], "skipped_fixed": sorted_off["skipped_fixed"],
                "already": sorted_off["already_off"]}
    else:
        # offload_changes with the roles of on and off swapped
        flipped = {name: dict(feature, enabled=not feature["enabled"]) for name, feature in features.items()}
        sorted_on = offload_changes(flipped, wanted)
        plan = {"to_change": sorted_on["to_change"], "skipped_fixed": sorted_on["skipped_fixed"],
                "already": sorted_on["already_off"]}
    names = plan["to_change"] + plan["skipped_fixed"] + plan["already"]
    plan["before"] = {name: features[name]["enabled"] for name in names}
    plan["after"] = dict(plan["before"], **{name: state == "on" for name in plan["to_change"]})
    return plan


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
