# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins over the fleet's tunnel graph (plugin_utils/faults/tunnel_graph/): second_sample_hosts.
Documentation in the .yml twins."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import second_sample_hosts


def _second_sample_hosts(views):
    """The hosts whose WireGuard counters diagnose reads a second time (``handshake.second_sample_hosts``)."""
    if not isinstance(views, dict):
        raise AnsibleFilterError("second_sample_hosts: expected the views ({host: view}), got %s" % type(views).__name__)
    return second_sample_hosts(views)


class FilterModule:
    """tunnelfix.fleet tunnel graph filters."""

    def filters(self):
        return {"second_sample_hosts": _second_sample_hosts}
