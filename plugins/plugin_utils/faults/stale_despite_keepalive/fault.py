# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""stale_despite_keepalive as the registry lists it: its texts, the reading it reads and its rule (this folder; no role fixes it)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import STALE_HANDSHAKE_S
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.stale_despite_keepalive.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.stale_despite_keepalive.rule import dead_coverage, dead_with_keepalive


STALE_DESPITE_KEEPALIVE = Fault(
    id="stale_despite_keepalive",
    number=4,
    title="The tunnel is dead although keepalives are on",
    severity="critical",
    hosts="any (its own WireGuard facts; no hub needed)",
    reads=("tunnelfix.wireguard", "openwrt.wireguard", "hub's wireguard (evidence only)"),
    facts=(WIREGUARD,),
    rule=dead_with_keepalive,
    coverage=dead_coverage,
    fires_when="PersistentKeepalive set on a running peer entry, yet no handshake ever, or the newest over %d s old"
               % STALE_HANDSHAKE_S,
    symptom="The tunnel is down: no handshake at all, or none for minutes, although PersistentKeepalive is set.",
    fix="No role: check the endpoint, the other end's key and allowed IPs, the firewall and the NAT's UDP timeout "
        "(the explanation lists them).",
    subject=lambda evidence: "%s %s" % (evidence.get("interface"), evidence.get("peer_public_key")),
    proof=Proof(how="verify re-reads the handshakes and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/stale_despite_keepalive/__init__.py", "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
