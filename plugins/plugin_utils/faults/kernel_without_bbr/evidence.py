# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kernel has no BBR (``kernel_without_bbr``): what its finding's ``evidence`` holds (``Fault.evidence``),
one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("congestion_control_available", "the congestion controls the kernel offers (`tcp_available_congestion_control`), "
     "with no `bbr` among them and no loadable tcp_bbr"),
)
