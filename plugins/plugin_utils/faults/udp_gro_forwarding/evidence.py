# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The UDP GRO fault (udp_gro_forwarding_off): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys,
meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("nic", "the default-route NIC (the finding's subject)"),
    ("kernel_release", "`uname -r`"),
    (("rx_udp_gro_forwarding", "rx_gro_list"), "the two features as `ethtool -k` shows them (`off`, `on`, `off [fixed]`)"),
    ("ip_forward", "`net.ipv4.ip_forward`"),
    (("tunnel", "tunnel_kind"), "the first up WireGuard or TUN tunnel, by name"),
    ("families", "the default routes (`inet`, `inet6`) that leave through the NIC"),
    ("through_tunnel", "null, or the tunnel of a full-tunnel default whose endpoint route carries it"),
)
