# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``kernel_without_bbr`` as the registry lists it: a kernel limit no role fixes (texts, reading, rule: this folder)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_without_bbr.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_without_bbr.rule import bbr_coverage, no_bbr
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import TCP


KERNEL_WITHOUT_BBR = Fault(
    id="kernel_without_bbr", number=None, title="The kernel has no BBR", severity="medium", hosts="any",
    reads=("tunnelfix.tcp",), facts=(TCP,), rule=no_bbr, coverage=bbr_coverage,
    fires_when="no BBR built in or as a module",
    symptom="The congestion-control fix cannot be applied on this host.",
    fix="No role: a kernel with CONFIG_TCP_CONG_BBR (built in or as tcp_bbr).",
    proof=Proof(how="verify re-reads the available congestion controls and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/kernel_without_bbr/__init__.py", "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
