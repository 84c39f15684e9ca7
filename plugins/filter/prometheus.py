# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugin: prometheus_textfile (documentation in the .yml twin; rendering in plugin_utils/report/prometheus.py)."""

from __future__ import annotations

import time

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.prometheus import render_textfile


def prometheus_textfile(wireguard_facts, measurement=None, findings=None, now_epoch_s=None, floor_bits_per_second=None):
    """WireGuard facts, a tunnel_measure record and findings → node_exporter textfile (see _prometheus).

    ``now_epoch_s`` defaults to the controller's clock; it only matters for facts without handshake times.
    """
    if now_epoch_s is None:
        now_epoch_s = int(time.time())
    try:
        return render_textfile(wireguard_facts, measurement, findings, now_epoch_s, floor_bits_per_second)
    except ValueError as exc:
        raise AnsibleFilterError("prometheus_textfile: %s" % exc) from None


class FilterModule:
    """tunnelfix.fleet Prometheus filters."""

    def filters(self):
        return {"prometheus_textfile": prometheus_textfile}
