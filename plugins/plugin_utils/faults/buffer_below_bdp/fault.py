# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3's buffers as the registry lists them: texts, readings, rule (this folder); fix and plan are fault 3's."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.buffer_below_bdp.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.buffer_below_bdp.rule import bdp_coverage, buffers_below_bdp
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, needs_own
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.fault import FIX
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import FIX_DEFAULTS, tcp_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import NETNS, TCP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import MEASUREMENT


BUFFER_BELOW_BDP = Fault(
    id="buffer_below_bdp",
    number=3,
    title="One flow is capped by the socket buffers",
    severity="medium",
    hosts="any",
    reads=("tunnelfix.tcp", "measurement.ping", "measurement.iperf3", "path_bits_per_second"),
    records=(MEASUREMENT,),
    facts=(TCP, NETNS),  # the plan reads the namespace too
    rule=buffers_below_bdp,
    coverage=bdp_coverage,
    fires_when="tcp_wmem/tcp_rmem maximum below the path's bandwidth-delay product",
    symptom="One TCP flow levels off at buffer / RTT, whatever the path.",
    fix=FIX,
    fix_role="tunnelfix.fleet.linux_bbr_fq",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers"),
    plan=tcp_plan,
    fix_defaults=FIX_DEFAULTS,
    subject=lambda evidence: evidence.get("sysctl"),
    rechecked=needs_own("measurement"),
    proof=Proof(how="verify re-reads tcp_wmem/tcp_rmem and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/buffer_below_bdp/__init__.py", "roles/linux_bbr_fq/tasks/tune.yml", "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
