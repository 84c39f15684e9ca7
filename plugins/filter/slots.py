# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugin: measurement_slots.

Documentation in the .yml twin; the schedule is plugin_utils/measure/slots.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.slots import plan_slots


def measurement_slots(flows, seed="", flow_s=30, wait_max_s=3600, jitter_max_s=2, wait_option="wait_max_s"):
    """``plan_slots`` with its ValueError as an AnsibleFilterError naming the filter."""
    try:
        return plan_slots(list(flows), seed, flow_s, wait_max_s, jitter_max_s, wait_option)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError("measurement_slots: %s" % exc) from None


class FilterModule:
    """tunnelfix.fleet measurement slot filter."""

    def filters(self):
        return {"measurement_slots": measurement_slots}
