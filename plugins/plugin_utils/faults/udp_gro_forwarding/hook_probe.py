# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a Linux host brings its network up, for the role udp_gro_forwarding's re-apply hook, from its python-free probe.

Pure, no I/O: the role runs the probe (its vars/main.yml) with ``raw`` and reads the output through the
``udp_gro_forwarding_hook_probe`` filter (plugins/filter/udp_gro.py).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# What brings a Linux host's network up, from the role's python-free probe (vars/main.yml), one line each:
# "systemd-networkd SUBSTATE", "networkd-dispatcher SUBSTATE", "NetworkManager SUBSTATE" (systemctl show -p SubState
# --value UNIT.service; empty without systemd or the unit) and "ifupdown yes|no" (/etc/network/interfaces and /sbin/ifup).
PROBE_UNITS = ("systemd-networkd", "networkd-dispatcher", "NetworkManager")


def parse_hook_probe(text: str) -> dict:
    """The probe's output -> ``{"method": "networkd-dispatcher" | "networkmanager" | "ifupdown" | None, "reason": str}``.

    ``"systemd-networkd running\\nnetworkd-dispatcher running\\nNetworkManager\\nifupdown no\\n"`` ->
    ``{"method": "networkd-dispatcher", "reason": "systemd-networkd and networkd-dispatcher run"}``. Where
    systemd-networkd runs, only a networkd-dispatcher hook (routable.d) follows its interfaces; else NetworkManager's
    dispatcher where it runs; else ifupdown's if-up.d where ifupdown is installed; else None (``reason`` says why:
    the role then cannot persist and fails naming udp_gro_forwarding_persist).
    Raises ParseError naming the line for anything else, or when a line is missing.
    """
    if not isinstance(text, str):
        raise ParseError("hook probe output must be text, got %s" % type(text).__name__)
    seen = {}
    for lineno, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        words = line.split()
        if not words:
            continue
        if words[0] in PROBE_UNITS and len(words) <= 2:
            seen[words[0]] = words[1:] == ["running"]
        elif words[0] == "ifupdown" and words[1:] in (["yes"], ["no"]):
            seen["ifupdown"] = words[1] == "yes"
        else:
            raise ParseError("hook probe line %d: expected 'UNIT SUBSTATE' (%s) or 'ifupdown yes|no', got %r"
                             % (lineno, ", ".join(PROBE_UNITS), line[:200]))
    missing = [name for name in PROBE_UNITS + ("ifupdown",) if name not in seen]
    if missing:
        raise ParseError("hook probe: no %s line (output cut short?)" % ", ".join(missing))
    if seen["systemd-networkd"]:
        if seen["networkd-dispatcher"]:
            return {"method": "networkd-dispatcher", "reason": "systemd-networkd and networkd-dispatcher run"}
        return {"method": None, "reason": "systemd-networkd runs without networkd-dispatcher, which would re-apply the "
                                          "setting when the NIC comes up: install networkd-dispatcher"}
    if seen["NetworkManager"]:
        return {"method": "networkmanager", "reason": "NetworkManager runs"}
    if seen["ifupdown"]:
        return {"method": "ifupdown", "reason": "ifupdown brings the network up"}
    return {"method": None, "reason": "neither systemd-networkd with networkd-dispatcher, NetworkManager nor ifupdown "
                                      "brings the network up here"}
