# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 5 on the tunnel itself as the registry lists it: its texts, the reading it reads, its rule and its plan."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.plan import FIX_DEFAULTS
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.reads import BRIDGES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.plan import tunnel_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.rule import offload_coverage, offload_on_small_mtu_tunnel


TUNNEL_OFFLOAD_SMALL_MTU = Fault(
    id="tunnel_offload_small_mtu",
    number=5,
    title="Segmentation offload on a small-MTU tunnel",
    severity="medium",
    hosts="any",
    reads=("tunnelfix.bridges", "openwrt.bridges"),
    facts=(BRIDGES,),
    rule=offload_on_small_mtu_tunnel,
    coverage=offload_coverage,
    fires_when="IP forwarding on, an up layer-3 tunnel with an MTU below 1500 bytes, and tso on (not [fixed]) for it; "
               "gso alone (every device's default) and in-kernel WireGuard (it segments itself) are not",
    symptom="Forwarded TCP through the tunnel stalls or crawls with retransmits while ping and the router's own traffic are fine.",
    fix="tso and gso off on the tunnel device only, live (ethtool -K) and again each time the tunnel is created "
        "(a udev rule, or an OpenWrt hotplug script); a device that is not a tunnel is refused.",
    fix_role="tunnelfix.fleet.bridge_gso_off",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"),
    fix_vars=lambda evidence: {"bridge_gso_off_tunnels": [evidence["tunnel"]]},
    fix_needs="bridge_gso_off_tunnels",
    fix_persist="bridge_gso_off_persist",
    fix_var_names=("bridge_gso_off_tunnels",),
    subject=lambda evidence: evidence.get("tunnel"),
    plan=tunnel_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the tunnel's offload features (the same ethtool reader) and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/tunnel_offload/__init__.py", "roles/bridge_gso_off/tasks/tunnels.yml",
           "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
