# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault as the registry lists it: its texts, the readings it reads, its rule and its plan (this folder).

``fix_role`` is None for now: the role that applies ``plan.pmtu_plan`` (uci / wg-quick / networkd MTU and the MSS
clamp, guarded by a rollback) and the measuring step that writes ``view["path_mtu"]`` come next; until then the
finding says what to change and remediate runs nothing for it.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, needs_own
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.plan import pmtu_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import LINK_MTU
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import black_holes, pmtu_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import ENDPOINT_ROUTES, ROUTES, WIREGUARD


PATH_MTU_BLACK_HOLE = Fault(
    id="path_mtu_black_hole",
    number=6,   # the field fault issue 31 adds to the brief's five
    title="Small packets pass my tunnel, large ones vanish",
    severity="high",
    hosts="Linux host or OpenWrt router with WireGuard",
    reads=("tunnelfix.wireguard", "tunnelfix.routes", "tunnelfix.link_mtu", "openwrt.wireguard", "openwrt.endpoint_routes",
           "openwrt.link_mtu", "path_mtu"),
    facts=(WIREGUARD, ROUTES, ENDPOINT_ROUTES, LINK_MTU),
    rule=black_holes,
    coverage=pmtu_coverage,
    rechecked=needs_own("path_mtu"),
    subject=lambda evidence: evidence.get("interface"),
    plan=pmtu_plan,
    evidence=EVIDENCE,
    fires_when="a don't-fragment ping ladder to a peer's endpoint (outside the tunnel) is valid and the tunnel's MTU plus "
               "WireGuard's overhead (60 bytes for an IPv4 endpoint, 80 for IPv6) is more than the path MTU it measured, or "
               "the ladder to the far tunnel address (inside it) is valid and carries less than the tunnel's MTU",
    symptom="Pings and small requests go through the tunnel, but TLS handshakes, uploads and large downloads hang: the "
            "path outside the tunnel (PPPoE 1492, DS-Lite 1452, LTE about 1428, some 5G and hotel links 1280, a tunnel "
            "inside a tunnel) carries less than the tunnel sends, and the hop that drops the larger packets sends no "
            "ICMP back, so nothing shrinks them.",
    fix="No role applies it yet (the finding names the MTU to set). Set the tunnel's MTU to what the measured path "
        "carries (the outer path MTU minus 60 or 80 bytes, or the inner path MTU; never below 1280 where IPv6 runs "
        "inside): uci network.<wg>.mtu on OpenWrt, with an MSS clamp on the tunnel's own traffic in a fw4 include "
        "(fw4's mtu_fix uses the wrong MTU under mwan3); MTU = in wg-quick's /etc/wireguard/<wg>.conf; MTUBytes= in "
        "systemd-networkd's .netdev.",
    proof=Proof(how="verify re-runs both ladders on the tunnel's fresh MTU and the rule no longer fires (every full-size "
                    "tunnel packet fits the measured path), and a bulk TCP flow through the tunnel moves at least what "
                    "it moves without the hole."),
    files=("plugins/plugin_utils/faults/path_mtu/__init__.py", "playbooks/verify.yml"),
)
