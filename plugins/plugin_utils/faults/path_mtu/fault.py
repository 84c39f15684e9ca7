# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault as the registry lists it: its texts, the readings it reads, its rule, its plan and its fixing role.

remediate runs roles/wireguard_mtu with ``wireguard_mtu_tunnels`` from the finding (``{interface: set_mtu_bytes}``);
the role applies ``fix.fix_plan``, the same function ``plan.pmtu_plan`` shows the lines of, guarded by a rollback. The
measuring step that writes ``view["path_mtu"]``, roles/path_mtu_measure (``measure_role``), runs in diagnose and verify
as every fault's measuring role does (module doc of ``__init__.py``).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import BANIP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, needs_own
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import role_option_errors as fix_option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import RECORD, ROLE as MEASURE_ROLE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import role_option_errors as measure_option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.plan import TUNNELS_VAR, pmtu_fix_vars, pmtu_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import LINK_IPV6, LINK_MTU
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import black_holes, pmtu_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import ENDPOINT_ROUTES, ROUTES, WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

FIX_ROLE = "tunnelfix.fleet.wireguard_mtu"

PATH_MTU_BLACK_HOLE = Fault(
    id="path_mtu_black_hole",
    number=6,   # the field fault issue 31 adds to the brief's five
    title="Small packets pass my tunnel, large ones vanish",
    severity="high",
    hosts="Linux host or OpenWrt router with WireGuard",
    reads=("tunnelfix.wireguard", "tunnelfix.routes", "tunnelfix.link_mtu", "tunnelfix.link_ipv6", "openwrt.wireguard",
           "openwrt.endpoint_routes", "openwrt.link_mtu", "openwrt.link_ipv6", "openwrt.banip", "path_mtu"),
    records=(RECORD,),
    measure_role=MEASURE_ROLE,
    # BANIP: measure.py paces the ladder's probes inside banIP's ICMP limit (banip_icmp.limiter.banip_limiter)
    facts=(WIREGUARD, ROUTES, ENDPOINT_ROUTES, LINK_MTU, LINK_IPV6, BANIP),
    rule=black_holes,
    coverage=pmtu_coverage,
    rechecked=needs_own("path_mtu"),
    subject=lambda evidence: evidence.get("interface"),
    plan=pmtu_plan,
    fix_defaults=role_defaults("wireguard_mtu"),
    evidence=EVIDENCE,
    fires_when="a don't-fragment ping ladder to a peer's endpoint (outside the tunnel) is valid and the tunnel's MTU plus "
               "WireGuard's overhead (60 bytes for an IPv4 endpoint, 80 for IPv6) is more than the path MTU it measured, or "
               "the ladder to the far tunnel address (inside it) is valid and carries less than the tunnel's MTU",
    symptom="Pings and small requests go through the tunnel, but TLS handshakes, uploads and large downloads hang: the "
            "path outside the tunnel (PPPoE 1492, DS-Lite 1452, LTE about 1428, some 5G and hotel links 1280, a tunnel "
            "inside a tunnel) carries less than the tunnel sends, and the hop that drops the larger packets sends no "
            "ICMP back, so nothing shrinks them.",
    fix="The tunnel's MTU is set to what the measured path carries (the outer path MTU minus 60 or 80 bytes, or the "
        "inner path MTU; never below 1280 where IPv6 runs inside, nor below 576: a narrower path is reported with nothing "
        "to set), in the file that owns the tunnel and live with ip "
        "link set, so no tunnel is restarted: uci network.<wg>.mtu on OpenWrt (committed, no ifup), with an MSS clamp "
        "on the tunnel's forwarded TCP both ways as a fw4 include in /usr/share/nftables.d/chain-post/mangle_forward/, "
        "named in /etc/sysupgrade.conf so a firmware upgrade keeps it as it keeps uci, "
        "loaded live into inet fw4 mangle_forward (fw4's mtu_fix uses the wrong MTU under mwan3); MTU = in wg-quick's "
        "/etc/wireguard/<wg>.conf; MTUBytes= in systemd-networkd's .netdev. The live change is rolled back (files, MTU, "
        "clamp) unless Ansible reaches the host again (docs/rollback.md). Optionally wireguard_mtu_tcp_mtu_probing "
        "sets net.ipv4.tcp_mtu_probing=1 on a Linux host, which helps only the TCP it terminates itself.",
    fix_role=FIX_ROLE,
    option_checks={"path_mtu_measure": measure_option_errors, "wireguard_mtu": fix_option_errors},
    fix_groups=("tunnelfix_openwrt", "tunnelfix_wireguard_peers", "tunnelfix_wireguard_hubs"),
    fix_vars=pmtu_fix_vars,
    fix_var_names=(TUNNELS_VAR,),
    fix_needs=TUNNELS_VAR,
    proof=Proof(how="verify re-runs both ladders on the tunnel's fresh MTU and the rule no longer fires (every full-size "
                    "tunnel packet fits the measured path). verify runs no bulk flow of its own; the lab's make pmtu-e2e "
                    "also shows a bulk TCP flow through the tunnel at 90 % or more of its rate without the hole."),
    files=("plugins/plugin_utils/faults/path_mtu/__init__.py", "roles/wireguard_mtu/tasks/mtu.yml", "playbooks/verify.yml"),
)
