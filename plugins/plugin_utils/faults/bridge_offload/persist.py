# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a Linux host brings its network up, and the state of bridge_gso_off's units, from one probe.

Pure functions, no I/O. The role bridge_gso_off runs ``__bridge_gso_off_linux_probe_command``
(its vars/main.yml; POSIX sh, systemctl) with ``raw``, no Python; it prints::

    ifupdown yes|no                       (/etc/network/interfaces and /sbin/ifup both exist)
    networkd SUBSTATE                     (systemctl show -p SubState --value systemd-networkd.service;
                                           empty without systemd)
    unit NAME ENABLED ACTIVE              (systemctl is-enabled / is-active per unit; "-" when empty)
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError


def parse_persist_probe(text: str) -> dict:
    """``"ifupdown no\\nnetworkd running\\nunit tunnelfix-bridge-offload@br0.service enabled active\\n"`` →
    ``{"ifupdown": False, "networkd_running": True, "method": "systemd",
    "units": {"tunnelfix-bridge-offload@br0.service": {"enabled": "enabled", "active": "active"}},
    "units_ready": True}``.

    ``method`` is ``ifupdown`` where ifupdown is there and systemd-networkd is not running, else
    ``systemd``; ``units_ready`` is true when every unit listed is enabled and active.
    Raises ParseError naming the line for anything else, or when a line is missing.
    """
    if not isinstance(text, str):
        raise ParseError("persist probe output must be text, got %s" % type(text).__name__)
    seen = {}
    units = {}
    for lineno, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        words = line.split()
        if not words:
            continue
        if words[0] == "ifupdown" and len(words) == 2 and words[1] in ("yes", "no"):
            seen["ifupdown"] = words[1] == "yes"
        elif words[0] == "networkd" and len(words) <= 2:
            seen["networkd_running"] = words[1:] == ["running"]
        elif words[0] == "unit" and len(words) == 4:
            units[words[1]] = {"enabled": words[2], "active": words[3]}
        else:
            raise ParseError("persist probe line %d: expected 'ifupdown yes|no', 'networkd SUBSTATE' or "
                             "'unit NAME ENABLED ACTIVE', got %r" % (lineno, line[:200]))
    missing = [name for name in ("ifupdown", "networkd_running") if name not in seen]
    if missing:
        raise ParseError("persist probe: no %s line (output cut short?)" % " and no ".join(
            "'%s'" % name.split("_")[0] for name in missing))
    seen["method"] = "ifupdown" if seen["ifupdown"] and not seen["networkd_running"] else "systemd"
    seen["units"] = units
    seen["units_ready"] = all(state == {"enabled": "enabled", "active": "active"} for state in units.values())
    return seen
