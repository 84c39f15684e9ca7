# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3's buffers (buffer_below_bdp): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("sysctl", "`net.ipv4.tcp_wmem` or `net.ipv4.tcp_rmem`"),
    ("max_bytes", "its maximum, bytes per socket"),
    ("bdp_bytes", "the path's bandwidth-delay product, bytes"),
    (("path_bits_per_second", "rtt_ms"), "the path's rate (bits/s) and RTT (ms) the product comes from"),
)
