# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugin: tcp_tuning_plan (documentation in tcp_tuning_plan.yml)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import plan_tcp_tuning


def tcp_tuning_plan(wanted, tcp, netns):
    """Jinja wrapper of plan_tcp_tuning(); bad input becomes an AnsibleFilterError."""
    if not isinstance(wanted, dict) or not isinstance(tcp, dict) or not isinstance(netns, dict):
        raise AnsibleFilterError("tcp_tuning_plan expects a dict of sysctl values and the tcp and netns facts "
                                 "of tunnelfix.fleet.tunnel_facts")
    for key, value in wanted.items():
        if isinstance(value, (bool, list, dict)):
            raise AnsibleFilterError("tcp_tuning_plan: %s must be a string or a number, got %r" % (key, value))
    for name in ("congestion_control_available", "congestion_control_allowed"):
        if not isinstance(tcp.get(name, []), list):
            raise AnsibleFilterError("tcp_tuning_plan: tcp.%s must be a list, got %r" % (name, tcp.get(name)))
    return plan_tcp_tuning(wanted, tcp, netns)


class FilterModule:
    """tunnelfix.fleet TCP tuning filters."""

    def filters(self):
        return {"tcp_tuning_plan": tcp_tuning_plan}
