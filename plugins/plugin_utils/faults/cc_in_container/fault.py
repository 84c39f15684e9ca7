# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``congestion_control_restricted_in_container`` as the registry lists it: a container limit no role here fixes."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.cc_in_container.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.cc_in_container.rule import bbr_not_allowed_in_container, in_container_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import NETNS, TCP


CONGESTION_CONTROL_RESTRICTED_IN_CONTAINER = Fault(
    id="congestion_control_restricted_in_container", number=None, title="The container may not use BBR",
    severity="medium", hosts="container",
    reads=("tunnelfix.tcp", "tunnelfix.netns"), facts=(TCP, NETNS), rule=bbr_not_allowed_in_container, coverage=in_container_coverage,
    fires_when="BBR exists but the host does not allow it in this network namespace",
    symptom="Setting BBR in a Proxmox CT or Docker container fails with 'Operation not permitted'.",
    fix="No role here: add bbr to net.ipv4.tcp_allowed_congestion_control on the container's host.",
    proof=Proof(how="verify re-reads the allowed congestion controls and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/cc_in_container/__init__.py", "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
