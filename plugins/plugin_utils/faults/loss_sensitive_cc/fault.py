# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3 as the registry lists it: its texts, the readings it reads, its rule and linux_bbr_fq's one plan (this folder).

``FIX`` (the fix's text) is ``buffer_below_bdp``'s too: one role, one fix, for both findings.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import FIX_DEFAULTS, tcp_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import NETNS, TCP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.rule import (
    BOUND_SLACK, LOSS_BASED_CC, PATH_SHARE, above_the_bound, cc_coverage, flow_rechecked, held_back_by_loss)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import MEASUREMENT, SWEEP

FIX = ("net.ipv4.tcp_congestion_control=bbr, net.core.default_qdisc=fq, tcp_rmem/tcp_wmem maxima of "
       "linux_bbr_fq_tcp_rmem/_wmem (32 MiB by default: above the bandwidth-delay product of 1 Gbit/s at 250 ms) and "
       "net.core.netdev_max_backlog=5000, live and in a sysctl.d drop-in holding the values that took effect; a key "
       "the host cannot take (a host-level key in a container's namespace, fq without sch_fq, a congestion control "
       "the namespace does not allow) is skipped and said. Where tcp_bbr is a loadable module and the host owns its "
       "kernel, tcp_bbr is also loaded at boot (modules-load.d; /etc/modules.d on OpenWrt).")

LOSS_SENSITIVE_CONGESTION_CONTROL = Fault(
    id="loss_sensitive_congestion_control",
    number=3,
    title="The tunnel is far slower than the path on a long route",
    severity="high",
    hosts="peer, or hub (download)",
    reads=("tunnelfix.tcp", "measurement.iperf3", "measurement.ping", "sweep", "path_bits_per_second"),
    records=(MEASUREMENT, SWEEP),
    facts=(TCP, NETNS),  # the plan reads the namespace too
    rule=held_back_by_loss,
    coverage=cc_coverage,
    fires_when="a flow with a loss-based congestion control (%s) under %.1fx the Mathis bound (RTT, loss from "
               "retransmits or the sweep's UDP loss), that bound below %.1fx the path's rate (tunnelfix_path_bits_per_second, "
               "else the lab's bottleneck: without a known rate, no finding); a peer's own flow also only without a queue building "
               "(loaded RTT against the idle ping), a hub's download from the sweep's UDP loss below the path's rate"
               % (", ".join(LOSS_BASED_CC), BOUND_SLACK, PATH_SHARE),
    symptom="One TCP flow stays far below the path's rate on a long path with a little loss; parallel flows do better.",
    fix=FIX,
    fix_role="tunnelfix.fleet.linux_bbr_fq",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers"),
    plan=tcp_plan,
    fix_defaults=FIX_DEFAULTS,
    subject=lambda evidence: evidence.get("direction"),
    rechecked=flow_rechecked,
    proof=Proof(how="A peer's finding: verify's single flow (tunnel_measure, enforced) must reach the floor, and the "
                    "rule re-run on the new flow no longer fires. A hub's download finding sets no floor: the rule "
                    "re-run on its peers' new sweeps (tunnel_sweep) must no longer fire.",
                min_bits_per_second=above_the_bound,
                threshold_source="%.1f x the Mathis bound the finding computed (the rule's own boundary)" % BOUND_SLACK),
    files=("plugins/plugin_utils/faults/loss_sensitive_cc/__init__.py", "roles/linux_bbr_fq/tasks/tune.yml", "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
