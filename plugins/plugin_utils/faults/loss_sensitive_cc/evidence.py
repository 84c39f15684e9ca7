# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3 (loss_sensitive_congestion_control): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("congestion_control", "the sender's loss-based congestion control (`cubic`, `reno`, ...)"),
    (("measured_bits_per_second", "path_bits_per_second"), "the single flow's rate and the path's, bits/s"),
    ("rtt_ms", "the path's RTT, ms: the idle ping's average, else the flow's own mean RTT"),
    (("retransmits", "loss_ratio_estimate"), "a peer's own flow: its retransmits, and the loss ratio (0-1) they imply"),
    (("mathis_bits_per_second", "bdp_bytes"), "the Mathis bound for such a flow at that loss and RTT, bits/s, and the path's "
     "bandwidth-delay product, bytes"),
    (("direction", "peer", "peers"), "a hub's finding only: `download`, the peer whose flow is held back most, every such peer"),
    (("udp_loss_ratio", "udp_test", "udp_offered_bits_per_second"),
     "a hub's finding only: the lowest loss (0-1) of the peer's UDP sweep tests hub -> peer below the path's rate, that "
     "test's name and offered rate"),
)
