# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One host's view: its facts and measurements, the input of every fault's rule (registry.py).

``host_view(host_vars, phase=None)`` takes one host's variables (``hostvars[host]``, any mapping)
and returns::

    {"groups": [...], "tunnel_hub": "hub" | None,
     "tunnelfix": tunnel_facts' facts | None,          # host_facts on Linux, registered as tunnelfix_gathered_facts
     "openwrt": openwrt_facts' facts | None,           # host_facts on a router, the same register
     "measurement": tunnel_measure_record | None, "health_checks": health_check_measure_record | None,
     "sweep": tunnel_sweep_record | None,
     "path_mtu": path_mtu_measure_record | None,      # the PMTU ladders (faults/path_mtu/rule.py has its shape)
     "path_bits_per_second": tunnelfix_path_bits_per_second, else the lab's bottleneck, else None,
     "preferred_uplink_device": openwrt_facts' endpoint_routes.preferred_uplink_device | None,
     "facts_error": why the facts task failed on this host (its msg) | None}

The facts are registered by playbooks/facts.yml, which diagnose and verify both import (one
facts execution per host and run). With ``phase`` ("before" in diagnose, "after" in verify) a
measurement record of another phase counts as missing: verify's rules must not judge the fix by
diagnose's numbers (a sweep verify skipped leaves diagnose's record behind).

Used through the filter of the same name with ``map``: one expression builds every view, where a
loop that combines one host at a time into a growing dict costs time that grows with the square
of the fleet (docs/performance.md). Missing or odd values become None; never raises.
"""

from __future__ import annotations

# what playbooks/facts.yml registers host_facts' result as
GATHERED = "tunnelfix_gathered_facts"


def _get(mapping, *path):
    """``mapping[path[0]][path[1]]...``, or None where a level is missing or not a mapping."""
    value = mapping
    for key in path:
        try:
            value = value[key] if key in value else None
        except TypeError:  # not a mapping (a string, a number, None)
            return None
        if value is None:
            return None
    return value


def _of_phase(record, phase):
    """``record`` when ``phase`` is None or the record's ``phase`` is ``phase``, else None."""
    if phase is None or (isinstance(record, dict) and record.get("phase") == phase):
        return record
    return None


def host_view(host_vars, phase=None) -> dict:
    """One host's view from its variables (see module doc)."""
    path = _get(host_vars, "tunnelfix_path_bits_per_second")
    if path is None:
        path = _get(host_vars, "tunnelfix_lab_bottleneck_bits_per_second")
    groups = _get(host_vars, "group_names")
    return {
        "groups": list(groups) if isinstance(groups, (list, tuple)) else [],
        "tunnel_hub": _get(host_vars, "tunnelfix_tunnel_hub"),
        "tunnelfix": _get(host_vars, GATHERED, "ansible_facts", "tunnelfix"),
        "openwrt": _get(host_vars, GATHERED, "ansible_facts", "tunnelfix_openwrt"),
        "measurement": _of_phase(_get(host_vars, "tunnel_measure_record"), phase),
        "health_checks": _of_phase(_get(host_vars, "health_check_measure_record"), phase),
        "sweep": _of_phase(_get(host_vars, "tunnel_sweep_record"), phase),
        "path_mtu": _of_phase(_get(host_vars, "path_mtu_measure_record"), phase),
        "path_bits_per_second": path,
        "preferred_uplink_device": _get(host_vars, GATHERED, "ansible_facts", "tunnelfix_openwrt",
                                        "endpoint_routes", "preferred_uplink_device"),
        "facts_error": _facts_error(_get(host_vars, GATHERED)),
    }


def _facts_error(result):
    """The registered facts result's ``msg`` when it failed or the host was unreachable, else None."""
    if isinstance(result, dict) and (result.get("failed") or result.get("unreachable")):
        return str(result.get("msg") or "the facts task failed")
    return None
