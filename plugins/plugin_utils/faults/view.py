# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One host's view: its facts and measurements, the input of every fault's rule (registry.py).

``host_view(host_vars, phase=None, records=())`` takes one host's variables (``hostvars[host]``, any mapping)
and the measurement records to hold (``Record``s: what the registry's faults declare, ``records_of(FAULTS)``;
the filter ``host_view`` passes them) and returns::

    {"groups": [...], "tunnel_hub": "hub" | None,
     "tunnelfix": tunnel_facts' facts | None,          # host_facts on Linux, registered as tunnelfix_gathered_facts
     "openwrt": openwrt_facts' facts | None,           # host_facts on a router, the same register
     "path_bits_per_second": tunnelfix_path_bits_per_second, else the lab's bottleneck, else None,
     "preferred_uplink_device": openwrt_facts' endpoint_routes.preferred_uplink_device | None,
     "facts_error": why the facts task failed on this host (its msg) | None,
     record.key: hostvars[record.host_var] | None, ...}   # one per record, e.g. with today's faults:
     # "measurement": tunnel_measure_record, "health_checks": health_check_measure_record, "sweep": tunnel_sweep_record
     # (the general measuring roles' records, below), "path_mtu": path_mtu_measure_record (faults/path_mtu/measure.py)

A measuring step's record is a host variable its role sets; a fault whose rule reads one declares it
(``Fault.records``), so a fault with a measuring role of its own adds its record in its folder and this
file does not change.

The facts are registered by playbooks/facts.yml, which diagnose and verify both import (one
facts execution per host and run). With ``phase`` ("before" in diagnose, "after" in verify) a
measurement record of another phase counts as missing: verify's rules must not judge the fix by
diagnose's numbers (a sweep verify skipped leaves diagnose's record behind).

Used through the filter of the same name with ``map``: one expression builds every view, where a
loop that combines one host at a time into a growing dict costs time that grows with the square
of the fleet (docs/performance.md). Missing or odd values become None; never raises.
"""

from __future__ import annotations

from typing import NamedTuple

# what playbooks/facts.yml registers host_facts' result as
GATHERED = "tunnelfix_gathered_facts"
# the keys every view has whatever the faults declare (a record may not take one)
FIXED_KEYS = ("groups", "tunnel_hub", "tunnelfix", "openwrt", "path_bits_per_second", "preferred_uplink_device", "facts_error")


class Record(NamedTuple):
    """A measuring step's record in the view: ``view[key]`` is the host variable ``host_var`` its role sets
    (a dict with the ``phase`` it was taken in; one of another phase counts as missing)."""

    key: str
    host_var: str


# The records of the collection's general measuring roles (several faults read them; each declares what it reads).
MEASUREMENT = Record("measurement", "tunnel_measure_record")            # roles/tunnel_measure
HEALTH_CHECKS = Record("health_checks", "health_check_measure_record")  # roles/health_check_measure
SWEEP = Record("sweep", "tunnel_sweep_record")                          # roles/tunnel_sweep


def records_of(faults) -> tuple:
    """The records ``faults`` declare (``Fault.records``), each once, in the order first declared.

    Raises ValueError when two declarations give one key two host variables (or one host variable two
    keys), or a record takes one of ``FIXED_KEYS``.
    """
    by_key, by_var = {}, {}
    for fault in faults:
        for record in fault.records:
            if record.key in FIXED_KEYS:
                raise ValueError("%s declares the record %r, a key every view has already" % (fault.id, record.key))
            other = by_key.setdefault(record.key, record)
            other = other if other != record else by_var.setdefault(record.host_var, record)
            if other != record:
                raise ValueError("%s declares %r, which another fault declares as %r" % (fault.id, record, other))
    return tuple(by_key.values())


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


def host_view(host_vars, phase=None, records=()) -> dict:
    """One host's view from its variables, with ``records`` (``Record``s; see module doc)."""
    path = _get(host_vars, "tunnelfix_path_bits_per_second")
    if path is None:
        path = _get(host_vars, "tunnelfix_lab_bottleneck_bits_per_second")
    groups = _get(host_vars, "group_names")
    view = {
        "groups": list(groups) if isinstance(groups, (list, tuple)) else [],
        "tunnel_hub": _get(host_vars, "tunnelfix_tunnel_hub"),
        "tunnelfix": _get(host_vars, GATHERED, "ansible_facts", "tunnelfix"),
        "openwrt": _get(host_vars, GATHERED, "ansible_facts", "tunnelfix_openwrt"),
        "path_bits_per_second": path,
        "preferred_uplink_device": _get(host_vars, GATHERED, "ansible_facts", "tunnelfix_openwrt",
                                        "endpoint_routes", "preferred_uplink_device"),
        "facts_error": _facts_error(_get(host_vars, GATHERED)),
    }
    for record in records:
        view[record.key] = _of_phase(_get(host_vars, record.host_var), phase)
    return view


def _facts_error(result):
    """The registered facts result's ``msg`` when it failed or the host was unreachable, else None."""
    if isinstance(result, dict) and (result.get("failed") or result.get("unreachable")):
        return str(result.get("msg") or "the facts task failed")
    return None
