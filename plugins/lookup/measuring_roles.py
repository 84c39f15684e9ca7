# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The measuring roles the faults of the registry declare, which diagnose.yml and verify.yml run."""

from __future__ import annotations

DOCUMENTATION = r"""
name: measuring_roles
version_added: 0.6.0
author:
  - tunnelfix.fleet developers (!UNKNOWN)
short_description: The measuring roles of the collection's faults, which diagnose and verify run
description:
  - Returns the FQCN of every measuring role a fault of the fault registry declares as its own (today
    C(tunnelfix.fleet.path_mtu_measure), the PMTU fault's don't-fragment ping ladders), each once, in the registry's
    order. C(playbooks/diagnose.yml) and C(playbooks/verify.yml) run each of them on every fleet host of the run, with
    the phase in C(tunnelfix_measure_phase) (C(before) in diagnose, C(after) in verify), so a fault that adds a
    measuring role changes no playbook.
  - The general measuring roles (C(tunnelfix.fleet.tunnel_measure), C(tunnelfix.fleet.health_check_measure),
    C(tunnelfix.fleet.tunnel_sweep)) are not listed; the playbooks run them in plays of their own.
  - Takes no terms.
options: {}
"""

EXAMPLES = r"""
- name: Run the measuring role of every fault that has one, as diagnose does
  ansible.builtin.include_role:
    name: "{{ __measuring_role }}"
  vars:
    tunnelfix_measure_phase: before
  loop: "{{ query('tunnelfix.fleet.measuring_roles') }}"
  loop_control:
    loop_var: __measuring_role
"""

RETURN = r"""
_raw:
  description: Role FQCNs, in the fault registry's order; empty when no fault declares one.
  type: list
  elements: str
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry


class LookupModule(LookupBase):
    """``query('tunnelfix.fleet.measuring_roles')``: see DOCUMENTATION."""

    def run(self, terms, variables=None, **kwargs):
        if terms:
            raise AnsibleLookupError("tunnelfix.fleet.measuring_roles takes no terms, got %r" % (terms,))
        return list(registry.measuring_roles())
