# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``sch_fq_missing`` as the registry lists it: a kernel limit no role fixes (texts, readings, rule: this folder)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.sch_fq_missing.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.sch_fq_missing.rule import no_fq, not_container_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import NETNS, TCP


SCH_FQ_MISSING = Fault(
    id="sch_fq_missing", number=None, title="No fq qdisc for pacing", severity="low", hosts="any, not a container",
    reads=("tunnelfix.tcp", "tunnelfix.netns"), facts=(TCP, NETNS), rule=no_fq, coverage=not_container_coverage,
    fires_when="no fq qdisc",
    symptom="BBR runs with TCP's internal pacing (more CPU) instead of fq.",
    fix="No role: install the sch_fq module.",
    proof=Proof(how="verify re-reads the qdiscs the kernel offers and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/sch_fq_missing/__init__.py", "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
