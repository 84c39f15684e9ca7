#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``host_facts`` action (plugins/action/host_facts.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: host_facts
short_description: Gather a host's tunnel facts with the facts action of its platform (python-free)
version_added: 0.1.0
description:
  - Runs M(tunnelfix.fleet.openwrt_facts) on a host in the inventory group C(tunnelfix_openwrt) and
    M(tunnelfix.fleet.tunnel_facts) on any other host, with the same connection, and returns that
    action's result unchanged (C(ansible_facts.tunnelfix_openwrt) or C(ansible_facts.tunnelfix)).
  - One task for a mixed fleet of routers and Linux hosts - what C(playbooks/facts.yml) runs, so that
    diagnose and verify read the whole fleet in one pass of forks. Still one remote execution per host.
  - Python is not needed on the target.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
  - tunnelfix.fleet.facts_label
options:
  preferred_uplink:
    description:
      - Routers only, passed to M(tunnelfix.fleet.openwrt_facts) (see its option of the same name); left out on
        other hosts.
    type: str
  metered_uplinks:
    description:
      - Routers only, passed to M(tunnelfix.fleet.openwrt_facts) (see its option of the same name); left out on
        other hosts.
    type: list
    elements: str
    default: []
  fingerprint_salt:
    description:
      - Passed to the chosen action (see the option of the same name of M(tunnelfix.fleet.tunnel_facts)) - the run's
        salt for the preshared key fingerprints, the same for every host of a run.
    type: str
notes:
  - The platform is the inventory's, not probed. M(tunnelfix.fleet.host_platform) probes a host instead.
  - Supports check mode; never changes anything.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Read every hub, peer and router in one task
  hosts: tunnelfix_wireguard_hubs:tunnelfix_wireguard_peers:tunnelfix_openwrt
  gather_facts: false
  tasks:
    - name: Read the host's tunnel facts (one remote execution)
      tunnelfix.fleet.host_facts:
        preferred_uplink: wan
      register: gathered

    - name: Show each router's preferred uplink device
      ansible.builtin.debug:
        var: ansible_facts.tunnelfix_openwrt.endpoint_routes.preferred_uplink_device
      when: ansible_facts.tunnelfix_openwrt is defined
"""

RETURN = r"""
ansible_facts:
  description:
    - On a router, what M(tunnelfix.fleet.openwrt_facts) returns (C(tunnelfix_openwrt)); elsewhere what
      M(tunnelfix.fleet.tunnel_facts) returns (C(tunnelfix)). The other keys of the result are that action's too.
  returned: success
  type: dict
  sample: {"tunnelfix": {"wireguard": {"available": true, "interfaces": {}}}}
label:
  description: The C(label) option as given.
  returned: when C(label) is given
  type: str
  sample: before
"""
