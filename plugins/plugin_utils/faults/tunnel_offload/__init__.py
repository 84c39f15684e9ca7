# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 5 on the tunnel itself, ``tunnel_offload_small_mtu``: TSO/GSO on a layer-3 tunnel device with an MTU below
Ethernet's.

A forwarding host, an up TUN/GRE... device with an MTU below 1500 bytes, and tcp segmentation
offload on (and changeable) for it: forwarded TCP from LAN clients, whose MSS is 1460, is built into
super-packets sized for the LAN and handed to the tunnel whole; what does not fit the tunnel's MTU is
dropped or bounced with an ICMP error, and TCP stalls on retransmits. TSO decides: a TUN shows it
only where its owner asked for super-packets (wireguard-go and tailscaled with virtio-net headers,
``TUNSETOFFLOAD``). Generic segmentation offload alone is the kernel's default on every device and
cuts in software before the device sees the packet, so it is listed in the evidence but is no
finding; nor is in-kernel WireGuard (kind ``wireguard``), which cuts its super-packets to its own
MTU before encrypting them (drivers/net/wireguard/send.c). No
bridge is needed (a bridge in the path is the bridge fault, faults/bridge_offload/). The evidence says
whether an MSS clamp covers the tunnel in each direction (nftables ``maxseg``, iptables ``TCPMSS``);
the fix turns tso and gso off on the tunnel only and leaves the clamp alone.

Follow it here, top to bottom, then in roles/bridge_gso_off/tasks/tunnels.yml (the role that applies the fix):

- ``fault.py``: ``TUNNEL_OFFLOAD_SMALL_MTU``, the registry's entry (faults/registry.py): texts, reading, rule, plan.
- what it reads: the ``bridges`` reading it shares with the bridge fault (faults/bridge_offload/reads.py): its
  ``tunnels``, their offloads and MSS clamps.
- ``rule.py``: the finding (evidence and explanation, ``evidence.py``) and whether the host could be judged.
- ``plan.py``: what bridge_gso_off would turn off on the chosen tunnels (the bridge fault's role, defaults and
  per-device answer, faults/bridge_offload/plan.py).
- ``device.py``: whether a device the role's action (plugins/action/bridge_offload.py) is asked to change is a
  layer-3 tunnel; it refuses anything else. The action and this fault's plan decide with one function,
  faults/bridge_offload/ethtool_plan.py's ``offload_decision``.

The Fault value is imported from ``fault.py``, not re-exported here (as in faults/endpoint_route/).
"""
