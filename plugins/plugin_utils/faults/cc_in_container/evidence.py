# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container may not use BBR (``congestion_control_restricted_in_container``): what its finding's ``evidence`` holds (``Fault.evidence``),
one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("container", "the container's name, as the facts read it (null when unknown)"),
    ("congestion_control_allowed", "the congestion controls the container may select (`tcp_allowed_congestion_control`), "
     "without `bbr`"),
)
