# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 5, ``bridge_offload_small_mtu_tunnel``: GSO/TSO/GRO on a bridge (or its ports) fed by a smaller-MTU tunnel.

A forwarding host, an up layer-3 tunnel whose MTU is below a bridge's, and segmentation or receive
offload still on for the bridge or a port: frames over the LAN MTU reach the clients and TCP
crawls (the field case: Tailscale's 1280-byte tunnel into br-lan, 0.2 Mbit/s).

Follow it here, top to bottom, then in roles/bridge_gso_off/tasks/main.yml (the role that applies the fix):

- ``fault.py``: ``BRIDGE_OFFLOAD_SMALL_MTU_TUNNEL``, the registry's entry (faults/registry.py): texts, reading, rule, plan.
- ``reads.py``: what it reads, the ``bridges`` reading (``BRIDGES``) of tunnel_facts and openwrt_facts: forwarding,
  bridges, ports, tunnels, their offloads and MSS clamps. The tunnel fault (faults/tunnel_offload/) reads it too.
- ``rule.py``: the finding (evidence and explanation, ``evidence.py``) and whether the host could be judged.
- ``plan.py``: what bridge_gso_off would turn off live, from the facts (``Fault.plan``): the commands the role's
  action would run, decided by ``ethtool_plan.py``'s function; the role's defaults, which the tunnel fault's plan uses too.
- ``ethtool_plan.py``: the one decision (``offload_decision``): which ``ethtool -K`` runs on a bridge and its ports or a
  tunnel, from each device's features. The role's action (plugins/action/bridge_offload.py) feeds it its own
  ``ethtool -k``, the faults' plans the facts.
- ``persist.py``: the role's Linux probe (ifupdown or systemd-networkd, its units' states), through the
  ``bridge_persist_probe`` filter.

Shared parsers stay in parse/: the links and offloads (``bridges.py``, ``tunnel_links.py``, ``ethtool.py``), the MSS
clamps (``mss_clamp.py``); the reader of offloads and clamps both facts actions use is remote/tunnel_reader.py.

The Fault value is imported from ``fault.py``, not re-exported here: faults/readings.py imports ``reads.py`` (through
this package) for its gather order, and ``fault.py`` imports the rule and plan modules.
"""
