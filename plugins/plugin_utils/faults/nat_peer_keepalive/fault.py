# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4 as the registry lists it: its texts, the reading it reads, its rule and its one plan (this folder)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Alert, Fault, Proof, needs_own
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import STALE_HANDSHAKE_S
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.plan import FIX_DEFAULTS, keepalive_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.rule import keepalive_coverage, without_keepalive
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import MEASUREMENT


NAT_PEER_WITHOUT_KEEPALIVE = Fault(
    id="nat_peer_without_keepalive",
    number=4,
    title="The NATed peer went dark",
    severity="critical",
    hosts="peer (Linux or OpenWrt)",
    reads=("tunnelfix.wireguard", "openwrt.wireguard", "hub's wireguard", "measurement.ping"),
    records=(MEASUREMENT,),
    facts=(WIREGUARD,),
    rule=without_keepalive,
    coverage=keepalive_coverage,
    fires_when="no PersistentKeepalive and the hub's ping after idle is lost or the handshake is over %d s old"
               % STALE_HANDSHAKE_S,
    symptom="The hub cannot reach the peer after a quiet period; it comes back when the peer sends.",
    fix="PersistentKeepalive (25 s) on the peer's entry for the hub: wg-quick, systemd-networkd or OpenWrt UCI, "
        "written to the configuration and applied live.",
    fix_role="tunnelfix.fleet.wireguard_keepalive",
    fix_groups=("tunnelfix_wireguard_peers",),
    subject=lambda evidence: evidence.get("peer_public_key"),
    rechecked=needs_own("measurement"),
    plan=keepalive_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify's hub pings the peer after the same idle period (tunnel_measure, enforced): no ping "
                    "may be lost, and the rule re-run no longer fires."),
    files=("plugins/plugin_utils/faults/nat_peer_keepalive/__init__.py", "roles/wireguard_keepalive/tasks/linux.yml",
           "roles/tunnel_measure/tasks/idle_ping.yml"),
    alert=Alert(
        name="TunnelfixKeepaliveOffOnNatedPeer",
        expr="tunnelfix_wireguard_keepalive_enabled == 0 and on(job, instance) ({finding} > 0)",
        summary="{{ $labels.instance }} {{ $labels.interface }}: peer {{ $labels.peer }} has no PersistentKeepalive and "
                "its hub cannot reach it after a silence (a NAT in front forgets the mapping)",
        why="the finding says the peer is behind a NAT (its hub lost pings after idle, or the handshake went stale); "
            "keepalive_enabled names the peer entries that lack it, and clears the moment one is set"),
    evidence=EVIDENCE,
)
