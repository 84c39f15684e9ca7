# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph's faults as the registry lists them: texts, the reading they read, their rules (no role fixes them,
but keepalive_on_wrong_side: wireguard_keepalive on the one entry its finding names)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.plan import FIX_DEFAULTS, keepalive_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.allowed_ips import allowed_ips_coverage, allowed_ips_overlap
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.duplicate_key import duplicate_keys
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoint_address import endpoint_address, endpoint_address_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoints import no_endpoint, port_mismatch
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.evidence import ENDPOINT_ADDRESS_EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.evidence import (
    ALLOWED_IPS_OVERLAP_EVIDENCE, DUPLICATE_KEY_EVIDENCE, HANDSHAKE_EVIDENCE, KEEPALIVE_SIDE_EVIDENCE, NO_ENDPOINT_EVIDENCE,
    ONE_SIDED_EVIDENCE, PORT_MISMATCH_EVIDENCE, PUBLIC_KEY_MISMATCH_EVIDENCE, RETURN_PATH_EVIDENCE, SHADOW_LAN_EVIDENCE)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.handshake import never_completes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keepalive import keepalive_fix_vars, keepalive_fixable, wrong_side
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.key_mismatch import key_mismatch, key_mismatch_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided, one_sided_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.reads import LINK_ADDRESSES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.samples import SECOND_SAMPLE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.return_path import return_path, return_path_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.shadow import allowed_ips_shadow_lan, shadow_coverage


def both_ends_read(host, evidence, views) -> bool:
    """``Fault.rechecked`` of the graph's faults: verify read ``host`` again and every other end its finding names
    (``other_host``; ``also_on``'s ``host/interface``): a run limited to one end cannot tell the finding is gone."""
    others = [evidence.get("other_host")] + [str(node).rsplit("/", 1)[0] for node in evidence.get("also_on") or []]
    return host in views and all(other in views for other in others if other)


PAIR_HOSTS = "any host with WireGuard whose peer is in the run (both ends' facts)"
PAIR_PROOF = Proof(how="verify re-reads both ends' WireGuard facts and the rule no longer fires.")


def _entry_subject(evidence):
    """The finding's subject: the interface and the peer entry's key."""
    return "%s %s" % (evidence.get("interface"), evidence.get("peer_public_key"))


def graph_fault(**fields) -> Fault:
    """A Fault of the tunnel graph: what every one shares (no field fault number, the ``wireguard`` reading of every
    host, both ends re-read by verify, no role, this folder's map; by default a pair's hosts, proof, coverage and an
    entry's subject), with ``fields`` for the rest."""
    shared = dict(number=None, reads=("tunnelfix.wireguard", "openwrt.wireguard", "every host's wireguard (the tunnel graph)"),
                  facts=(WIREGUARD,), rechecked=both_ends_read, hosts=PAIR_HOSTS, proof=PAIR_PROOF, coverage=one_sided_coverage,
                  subject=_entry_subject, files=("plugins/plugin_utils/faults/tunnel_graph/__init__.py", "playbooks/verify.yml"))
    return Fault(**dict(shared, **fields))


ONE_SIDED_PEER = graph_fault(
    id="one_sided_peer",
    title="My side lists the peer, the peer does not list me",
    severity="critical",
    rule=one_sided,
    fires_when="an interface lists a peer whose public key is exactly one other interface of the run, and that interface "
               "has no peer entry for this interface's own public key",
    symptom="The tunnel never comes up (no handshake), or came up once and died after a key was changed on one side.",
    fix="No role (a wrong guess about keys cuts a tunnel): the finding names the entry to add on the other end, with "
        "this interface's public key, or the entry to remove here.",
    evidence=ONE_SIDED_EVIDENCE,
)

DUPLICATE_PUBLIC_KEY = graph_fault(
    id="duplicate_public_key",
    title="Two of my hosts share a WireGuard key",
    severity="critical",
    hosts="any host with a running WireGuard interface (every host's facts: the tunnel graph)",
    rule=duplicate_keys,
    fires_when="a running interface's own public key is also another running interface's of the run (two hosts alike in "
               "key, listen port, addresses and peer keys, listed twice or an untouched clone, give one finding with "
               "identical: true; an interface listing its own key is harmless: the kernel skips it)",
    symptom="Two sites flap: each works until the other connects (a cloned VM or router image).",
    fix="No role (a new key pair must reach every peer that lists the old key): the finding names the interfaces and "
        "the entries to update.",
    subject=lambda evidence: "%s %s" % (evidence.get("interface"), evidence.get("public_key")),
    proof=Proof(how="verify re-reads every host's WireGuard facts and the rule no longer fires."),
    evidence=DUPLICATE_KEY_EVIDENCE,
)

NO_ENDPOINT_EITHER_SIDE = graph_fault(
    id="no_endpoint_either_side",
    title="Neither end of my tunnel knows where the other is",
    severity="critical",
    rule=no_endpoint,
    fires_when="two interfaces list each other, and neither entry keeps an endpoint (a file's Endpoint, uci endpoint_host; "
               "a learned one is lost on the next restart)",
    symptom="The tunnel never comes up, with no error anywhere: both ends wait for the other to start.",
    fix="No role (which end can reach the other is the operator's knowledge): the finding names both entries; one "
        "end gets Endpoint = the other's address and listen port.",
    evidence=NO_ENDPOINT_EVIDENCE,
)

ENDPOINT_PORT_MISMATCH = graph_fault(
    id="endpoint_port_mismatch",
    title="My peer sends to a port the other end does not listen on",
    severity="high",
    rule=port_mismatch,
    fires_when="an entry's kept endpoint port differs from the listen port of the interface whose key it lists, and the "
               "entry sent and never received a byte, with no handshake newer than 180 s (an answer, or a tunnel that "
               "worked before, proves a NAT forwards the port)",
    symptom="The tunnel does not come up after a port was changed on one side (a new ListenPort, a second tunnel).",
    fix="No role (a NAT may forward another port on purpose): the finding names the entry, its port and the port the "
        "other end listens on.",
    evidence=PORT_MISMATCH_EVIDENCE,
)

ENDPOINT_ADDRESS_MISMATCH = graph_fault(
    id="endpoint_address_mismatch",
    title="My peer sends to an address the other end does not have",
    severity="high",
    hosts="any host with WireGuard whose peer is in the run with its live addresses read (both ends' facts)",
    reads=("tunnelfix.wireguard", "tunnelfix.link_addresses", "openwrt.wireguard", "openwrt.link_addresses",
           "every host's wireguard and link_addresses (the tunnel graph)"),
    facts=(WIREGUARD, LINK_ADDRESSES),
    rule=endpoint_address,
    coverage=endpoint_address_coverage,
    fires_when="an entry with no handshake newer than 180 s keeps an endpoint whose address (a hostname: the address "
               "the kernel resolved when the entry was set, unless the name resolves to it now, from the controller) "
               "is on none of the other end's devices and is not where other entries reach it with a fresh handshake, "
               "the other end's entry does not show this end's packets arriving (bytes received and never a handshake, or "
               "more at the second sample), and something shows it wrong: it is inside the tunnel itself, another host's address, the name now "
               "resolves to the other end, others reach the other end elsewhere, or the entry sent into nothing while "
               "the other end has addresses of that kind (no NAT explains it)",
    symptom="A tunnel stays down after a peer got a new address (a dynamic-DNS hub that moved, a renumbered site), or "
            "after a [Peer] was copied from another host's config.",
    fix="No role (which address reaches the other end is the operator's knowledge): the finding names the entry, the "
        "addresses the other end has and how others reach it, and the Endpoint line to change (or the command to have "
        "WireGuard resolve the name again).",
    proof=Proof(how="verify re-reads both ends' WireGuard facts and live addresses and the rule no longer fires."),
    evidence=ENDPOINT_ADDRESS_EVIDENCE,
)

RETURN_PATH_NOT_ALLOWED = graph_fault(
    id="return_path_not_allowed",
    title="The handshake works, nothing passes: my peer's AllowedIPs leave out my address",
    severity="critical",
    rule=return_path,
    coverage=return_path_coverage,
    fires_when="a running entry lists the key of another interface of the run, and an address that interface sends from "
               "toward it (wg-quick Address, uci addresses; only the families its entry back routes; link-local left out) "
               "is not inside the entry's AllowedIPs",
    symptom="The tunnel shows a fresh handshake, but pings and traffic from one side never arrive.",
    fix="No role (AllowedIPs decide routing: a wrong guess moves traffic to another peer): the finding names the entry "
        "and the address to add.",
    evidence=RETURN_PATH_EVIDENCE,
)

KEEPALIVE_ON_WRONG_SIDE = graph_fault(
    id="keepalive_on_wrong_side",
    title="The keepalive is on the end that cannot start the tunnel",
    severity="medium",
    rule=wrong_side,
    fires_when="of two running entries that list each other, only this one keeps an endpoint (so only this end can start "
               "the tunnel) and it sends no PersistentKeepalive, while the other end's entry sends one",
    symptom="The tunnel dies after a quiet spell although keepalive is set (on the hub); traffic from the far end "
            "brings it back.",
    fix="PersistentKeepalive on this end's entry only (the finding's interface and peer key: wireguard_keepalive_interfaces, "
        "wireguard_keepalive_public_keys), the role's value (25 s unless the inventory sets "
        "wireguard_keepalive_persistent_keepalive_s), in its wg-quick file, .netdev or uci and live, on a hub, router or "
        "peer alike; every-role mode never runs the role for it. An entry no configuration keeps (live only) names no "
        "role: the finding gives the wg set line.",
    # any fleet host can be the end that keeps the endpoint; the finding's vars aim the role at its one entry, so these
    # groups count only for a finding's own host (registry.remediate_plans), never for every-role mode
    fix_role="tunnelfix.fleet.wireguard_keepalive",
    fix_groups=("tunnelfix_wireguard_peers", "tunnelfix_wireguard_hubs", "tunnelfix_openwrt"),
    fix_vars=keepalive_fix_vars,
    fix_var_names=("wireguard_keepalive_interfaces", "wireguard_keepalive_public_keys"),
    fixable=keepalive_fixable,
    fix_every_role=False,
    plan=keepalive_plan,
    fix_defaults=FIX_DEFAULTS,
    files=("plugins/plugin_utils/faults/tunnel_graph/__init__.py", "roles/wireguard_keepalive/tasks/main.yml", "playbooks/verify.yml"),
    evidence=KEEPALIVE_SIDE_EVIDENCE,
)

HANDSHAKE_NEVER_COMPLETES = graph_fault(
    id="handshake_never_completes",
    title="Both ends of my tunnel run and list each other, yet no handshake ever completes",
    severity="critical",
    rule=never_completes,
    # the second reading of both ends' counters diagnose.yml takes where one sample cannot settle the cause (samples.py)
    reads=("tunnelfix.wireguard", "openwrt.wireguard", "every host's wireguard (the tunnel graph)", "wireguard_second_sample"),
    records=(SECOND_SAMPLE,),
    fires_when="two running entries list each other's running public key and either exactly one of them has a preshared "
               "key or both have one and their fingerprints (salted on each host, one run) differ (no handshake newer than "
               "180 s), or neither ever had a handshake and one sent bytes; the finding "
               "classifies the cause from both ends' counters (a key or PSK mismatch, a path problem, or cannot tell, "
               "with a confidence; measured on wireguard-go; equal preshared key fingerprints leave the path), from their "
               "growth over a second reading of both ends where diagnose took one, and leaves a port mismatch to "
               "endpoint_port_mismatch",
    symptom="Both ends are configured with the right keys, one keeps sending, and wg show never shows a handshake.",
    fix="No role (a preshared key or a firewall is the operator's to change): the finding says which end to look at "
        "and what to compare.",
    evidence=HANDSHAKE_EVIDENCE,
)

ALLOWED_IPS_OVERLAP = graph_fault(
    id="allowed_ips_overlap",
    title="One peer of my tunnel takes addresses another peer lists",
    severity="medium",
    hosts="any host with WireGuard (its own interfaces; the other ends' facts name the peers and their addresses)",
    rule=allowed_ips_overlap,
    coverage=allowed_ips_coverage,
    fires_when="two enabled entries of one interface list the same prefix as their owner keeps them (a file's "
               "AllowedIPs, uci allowed_ips): one of them gets none of it; or a prefix of one lies inside a wider one "
               "of the other, except when the wider one's entry is an exit (its prefixes cover at least half of the "
               "family: /0, a /1 half, the apps' Exclude private IPs list) or the narrower one a "
               "single address (/32, /128): both are how a route is carved out on purpose; either exception is a "
               "finding again when the part lost holds the tunnel address of the losing entry's own other end",
    symptom="A site or a client is unreachable through the tunnel although its peer's handshake is fresh; wg show "
            "lists one peer's prefix under another peer, or (none).",
    fix="No role (AllowedIPs decide routing: a wrong guess moves traffic to another peer): the finding names both "
        "entries, the prefixes and the line of each to change.",
    proof=Proof(how="verify re-reads the host's WireGuard facts (and the losing entry's other end's, when its tunnel "
                    "address is what is lost) and the rule no longer fires."),
    subject=lambda evidence: "%s %s>%s" % (evidence.get("interface"), evidence.get("peer_public_key"),
                                           evidence.get("holder_public_key")),
    evidence=ALLOWED_IPS_OVERLAP_EVIDENCE,
)

ALLOWED_IPS_SHADOW_LAN = graph_fault(
    id="allowed_ips_shadow_lan",
    title="My tunnel routes a prefix of my own LAN",
    severity="high",
    hosts="any host with WireGuard whose live addresses are read (link_addresses)",
    reads=("tunnelfix.wireguard", "tunnelfix.link_addresses", "openwrt.wireguard", "openwrt.link_addresses",
           "every host's wireguard (the tunnel graph)"),
    facts=(WIREGUARD, LINK_ADDRESSES),
    rule=allowed_ips_shadow_lan,
    coverage=shadow_coverage,
    fires_when="an enabled entry whose owner adds routes for its AllowedIPs (wg-quick; uci route_allowed_ips 1) lists "
               "a prefix connected on another device of the host (ip -j addr show: its address and prefix), or a "
               "narrower one inside it; not a wider one (a full tunnel keeps the LAN), not a single address (/32, "
               "/128: a road warrior given a LAN address), not the interface's own subnet, link-local or loopback",
    symptom="A remote site is unreachable (or wg-quick up fails with \"RTNETLINK answers: File exists\"), or some "
            "hosts of the local LAN stop answering once the tunnel is up.",
    fix="No role (AllowedIPs decide routing: a wrong guess moves traffic to another peer): the finding names the "
        "entry, the prefixes and the device they meet; renumber or NAT one of two sites numbered alike, or correct the "
        "prefix.",
    proof=Proof(how="verify re-reads the host's WireGuard facts and live addresses and the rule no longer fires."),
    subject=_entry_subject,
    evidence=SHADOW_LAN_EVIDENCE,
)

PUBLIC_KEY_MISMATCH = graph_fault(
    id="public_key_mismatch",
    title="A public key in my tunnels does not match the host's own private key",
    severity="critical",
    hosts="any host with WireGuard (its entries, judged against the keys of the run's other hosts; its own interfaces, "
          "against the public key of their private key, derived on the host)",
    rule=key_mismatch,
    coverage=key_mismatch_coverage,
    fires_when="an entry lists a key that is no interface's of the run, and it is meant for one interface of another host "
               "(its endpoint is that host's address or name, at its listen port when known, else that interface's tunnel address is in its AllowedIPs, "
               "/24 or /64 at widest, and no other's) whose key (running, else the public key of its private key) differs; "
               "or an interface runs with another key than the private key its file or uci keeps gives (wg pubkey on the "
               "host: the next restart changes its key)",
    symptom="A tunnel never comes up after a key was regenerated or pasted on one side; or a tunnel that works now dies "
            "at the next restart or reboot of one end.",
    fix="No role (a wrong guess about keys cuts a tunnel): the finding names the line to change and the key to put "
        "there, or the private key to put back (read on the host; never in the report).",
    subject=lambda evidence: "%s %s" % (evidence.get("interface"), evidence.get("peer_public_key") or "own key"),
    evidence=PUBLIC_KEY_MISMATCH_EVIDENCE,
)
