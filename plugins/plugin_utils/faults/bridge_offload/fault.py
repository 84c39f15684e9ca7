# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 5 as the registry lists it: its texts, the reading it reads, its rule and its plan (this folder)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.plan import FIX_DEFAULTS, bridge_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.reads import BRIDGES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.rule import offload_coverage, offload_on_small_mtu_bridge
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof


BRIDGE_OFFLOAD_SMALL_MTU_TUNNEL = Fault(
    id="bridge_offload_small_mtu_tunnel",
    number=5,
    title="LAN clients behind the tunnel crawl",
    severity="high",
    hosts="any",
    reads=("tunnelfix.bridges", "openwrt.bridges"),
    facts=(BRIDGES,),
    rule=offload_on_small_mtu_bridge,
    coverage=offload_coverage,
    fires_when="IP forwarding on, an up tunnel with an MTU below a bridge's, and gso/tso/gro on for the bridge or a port",
    symptom="TCP through the tunnel to LAN clients runs at a fraction of a Mbit/s while the router itself is fast.",
    fix="gso, tso and gro off on the bridge and every port, live (ethtool -K) and persistent "
        "(networkd .link, ifupdown, or an OpenWrt hotplug script).",
    fix_role="tunnelfix.fleet.bridge_gso_off",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"),
    fix_vars=lambda evidence: {"bridge_gso_off_bridges": [evidence["bridge"]]},
    fix_needs="bridge_gso_off_bridges",
    fix_persist="bridge_gso_off_persist",
    fix_var_names=("bridge_gso_off_bridges",),
    subject=lambda evidence: evidence.get("bridge"),
    plan=bridge_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the offload features (the same ethtool reader) and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/bridge_offload/__init__.py", "roles/bridge_gso_off/tasks/main.yml",
           "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
