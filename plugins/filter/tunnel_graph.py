# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins over the fleet's tunnel graph (plugin_utils/faults/tunnel_graph/): second_sample_hosts,
tunnel_graph_export. Documentation in the .yml twins."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import graph_export
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import second_sample_hosts


def _second_sample_hosts(views):
    """The hosts whose WireGuard counters diagnose reads a second time (``handshake.second_sample_hosts``)."""
    if not isinstance(views, dict):
        raise AnsibleFilterError("second_sample_hosts: expected the views ({host: view}), got %s" % type(views).__name__)
    return second_sample_hosts(views)


def _tunnel_graph_export(views, findings=None, phase=None):
    """The tunnel graph of ``views`` as reports/findings.json carries it (``export.graph_export``), each entry's state
    from ``findings`` (the same views' findings); with ``phase``, a ``phase`` key says whose facts it is drawn from."""
    if not isinstance(views, dict):
        raise AnsibleFilterError("tunnel_graph_export: expected the views ({host: view}), got %s" % type(views).__name__)
    if findings is not None and not isinstance(findings, list):
        raise AnsibleFilterError("tunnel_graph_export: findings must be a list, got %s" % type(findings).__name__)
    exported = graph_export(build_graph(views), findings)
    if phase is not None:
        exported["phase"] = phase
    return exported


class FilterModule:
    """tunnelfix.fleet tunnel graph filters."""

    def filters(self):
        return {"second_sample_hosts": _second_sample_hosts, "tunnel_graph_export": _tunnel_graph_export}
