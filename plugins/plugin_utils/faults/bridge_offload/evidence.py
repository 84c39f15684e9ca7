# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge fault (bridge_offload_small_mtu_tunnel): what its finding's ``evidence`` holds (``Fault.evidence``), one
(keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("bridge", "the bridge's name"),
    ("bridge_mtu_bytes", "its MTU, bytes"),
    ("tunnel", "the up tunnel with the smallest MTU below the bridge's"),
    ("tunnel_mtu_bytes", "that tunnel's MTU, bytes"),
    ("kind", "the tunnel's kind (`tun`, `wireguard`, ...)"),
    ("offloads_on", "`{device: [feature, ...]}`: the bridge and ports with gso/tso/gro on and changeable, ethtool's long names "
     "(`generic-segmentation-offload`, `tcp-segmentation-offload`, `generic-receive-offload`)"),
    ("ip_forward", "`net.ipv4.ip_forward`"),
)
