# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugin: path_mtu_measure_timeout (docs in the .yml twin).

The role path_mtu_measure's task timeout, from the PMTU fault's measuring step (plugin_utils/faults/path_mtu/measure.py).
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import task_timeout_s


def path_mtu_measure_timeout(view, hub_address, interval_ms, timeout_s, attempts):
    """The host's view and the role's options -> the seconds its ladders may take (``measure.task_timeout_s``)."""
    if not isinstance(view, dict):
        raise AnsibleFilterError("path_mtu_measure_timeout: expected the host's view (host_view), got %s" % type(view).__name__)
    try:
        return task_timeout_s(view, hub_address or None, _whole(interval_ms), _whole(timeout_s), _whole(attempts))
    except ValueError as exc:
        raise AnsibleFilterError("path_mtu_measure_timeout: %s" % exc) from None


def _whole(value):
    """A whole number given as a string of digits (``-e``) as an int; anything else as given (the check names it)."""
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value


class FilterModule:
    """tunnelfix.fleet filters of the role path_mtu_measure."""

    def filters(self):
        return {"path_mtu_measure_timeout": path_mtu_measure_timeout}
