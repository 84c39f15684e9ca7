# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A later sysctl file undoes the TCP fix at boot (``tcp_fix_undone_at_boot``): what its finding's ``evidence`` holds
(``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("sysctl", "the key the drop-in sets"),
    (("fix_value", "fix_file"), "the value linux_bbr_fq's drop-in sets, and the drop-in"),
    (("boot_value", "file", "line"), "the value the later file sets at boot, that file and its line"),
    ("applied_by", "what applies the files at boot (`systemd-sysctl` or `sysctl --system`)"),
)
