# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``udp_gro_forwarding_off``: UDP GRO forwarding off on the default-route NIC of an exit node or subnet router
(issue 17.9).

A host that forwards (IP forwarding on) for a WireGuard or TUN tunnel (Tailscale, wireguard-go) on
Linux 6.2 or later, whose default-route NIC has ``rx-udp-gro-forwarding`` off, or ``rx-gro-list``
on (fraglist GRO takes precedence over plain UDP GRO): the UDP it forwards into the tunnel is
handled one packet at a time instead of as one aggregated buffer. Tailscale's performance guide
recommends ``ethtool -K <NIC> rx-udp-gro-forwarding on rx-gro-list off`` there; a throughput gain,
not a break, so the fix is opt-in (``udp_gro_forwarding_enable``).

Follow it here, top to bottom, then in roles/udp_gro_forwarding/tasks/apply.yml (the role that applies the fix):

- ``fault.py``: ``UDP_GRO_FORWARDING_OFF``, the registry's entry (faults/registry.py): texts, reading, rule, plan.
- ``reads.py``: what it reads, the ``udp_gro`` reading (built in faults/readings.py as ``UDP_GRO``: reads.py says
  why) and its gathers; ``udp_gro_facts``, the view's ``udp_gro`` facts.
- ``rule.py``: the finding (evidence and explanation, ``evidence.py``) and whether the host could be judged.
- ``plan.py``: the one plan. The role (its ``udp_gro_forwarding_plan`` filter, plugins/filter/udp_gro.py) and
  ``Fault.plan`` (``udp_gro_plan_lines``) both call ``udp_gro_plan`` on the same facts, and the rule decides with
  its functions.
- ``hook_probe.py``: the role's Linux probe (what brings the network up: the hook that re-applies the fix), through
  the ``udp_gro_forwarding_hook_probe`` filter.

Shared parsers stay in parse/ (``udp_gro.py``, ``tunnel_links.py``, ``ethtool.py``); the reader both facts actions
use is remote/udp_gro_reader.py.

The Fault value is imported from ``fault.py``, not re-exported here: faults/readings.py imports ``reads.py`` (through
this package), and ``fault.py`` imports faults/readings.py for the reading it declares.
"""
