# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``tcp_fix_undone_at_boot`` as the registry lists it: texts, reading, rule (this folder); no role fixes it."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import TCP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tcp_fix_undone_at_boot.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tcp_fix_undone_at_boot.rule import DROPIN, boot_coverage, undone_at_next_boot


TCP_FIX_UNDONE_AT_BOOT = Fault(
    id="tcp_fix_undone_at_boot",
    number=3,
    title="A later sysctl file undoes the TCP fix at the next boot",
    severity="medium",
    hosts="Linux host with linux_bbr_fq's drop-in",
    reads=("tunnelfix.tcp",),
    facts=(TCP,),
    rule=undone_at_next_boot,
    coverage=boot_coverage,
    subject=lambda evidence: evidence.get("sysctl"),
    fires_when="%s (linux_bbr_fq's drop-in at its default path) sets a key, and the last file the boot applies that sets it "
               "(systemd-sysctl's order when systemd booted the host, else sysctl --system's, /etc/sysctl.conf last) is "
               "another one, applied after it, with another value; or the drop-in is masked by a file of its name read first. "
               "Lines the boot rejects set nothing: a key the kernel lacks, a '#' after a name (numbers before a '#' are taken)"
               % DROPIN,
    symptom="BBR, fq or the larger buffers are gone after a reboot, although remediate set them and verify passed.",
    fix="No role: the later file is someone's configuration and no role edits it. Remove or change the line the finding "
        "names (evidence file and line), or set linux_bbr_fq_sysctl_file to a name that sorts after that file and run "
        "linux_bbr_fq again (it names such files itself when it runs). tunnel_facts also warns about lines the boot "
        "rejects: a '#' after a value (not a comment there), a key this kernel lacks.",
    proof=Proof(how="verify re-reads every sysctl file the boot applies and the rule no longer fires; a reboot then keeps "
                    "the fix (not done by verify)."),
    files=("plugins/plugin_utils/faults/tcp_fix_undone_at_boot/__init__.py", "plugins/plugin_utils/parse/sysctl_boot.py",
           "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
