# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""No fq qdisc for pacing (``sch_fq_missing``): what its finding's ``evidence`` holds (``Fault.evidence``),
one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("default_qdisc", "`net.core.default_qdisc` of a kernel without sch_fq"),
)
