# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel fault (tunnel_offload_small_mtu): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys,
meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("tunnel", "the tunnel device"),
    ("kind", "its kind (`tun`, `wireguard`, `gre`, ...)"),
    ("tunnel_mtu_bytes", "its MTU, bytes"),
    ("offloads_on", "the segmentation offloads on and changeable, ethtool's long names"),
    ("mss_clamp", "`{\"to_tunnel\": ..., \"from_tunnel\": ...}`, see below"),
    ("ip_forward", "`net.ipv4.ip_forward`"),
)
