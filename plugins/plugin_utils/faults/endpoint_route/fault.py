# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1 as the registry lists it: its texts, the readings it reads, its rule and its one plan (this folder)."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import FIX_DEFAULTS, route_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.rule import pinned_coverage, pinned_endpoints
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import ENDPOINT_ROUTES, WIREGUARD


ENDPOINT_ROUTE_PINNED = Fault(
    id="endpoint_route_pinned",
    number=1,
    title="My tunnel rides the backup uplink",
    severity="high",
    hosts="OpenWrt router",
    reads=("openwrt.endpoint_routes", "openwrt.wireguard", "preferred_uplink_device"),
    facts=(ENDPOINT_ROUTES, WIREGUARD),
    rule=pinned_endpoints,
    coverage=pinned_coverage,
    fires_when="a split tunnel's endpoint has a pinned host route (a /32 or /128 that is not the kernel's and that no "
               "config route section asks for, in any table) or a config route of the user's that sends it over another "
               "uplink (a conflict), and ip route get sends it through another device than the preferred uplink's "
               "(openwrt_mwan3_wg_preferred_uplink, default wan, resolved to its uci device). The finding says when that "
               "device is a metered uplink (openwrt_mwan3_wg_metered_uplinks) and carries the uplinks' byte counters",
    symptom="The tunnel is slow (the backup's rate) although the main uplink is back: the endpoint's /32 still "
            "points at the uplink that was up when the WireGuard interface started.",
    fix="Split tunnel: nohostroute=1 on every split-tunnel interface (or those in openwrt_mwan3_wg_interfaces) and "
        "every pinned /32 or /128 of its endpoints deleted (a peer's live endpoint, else its uci IP), so the endpoint "
        "follows mwan3 (a new flow gets its policy's mark; a flow conntrack already tracks keeps the default mark and "
        "the main table's default route). A route a config route section asks for is the user's: kept, and when it still "
        "sends the endpoint over another uplink the role's final check fails naming the section. When every uplink is "
        "in openwrt_mwan3_wg_metered_uplinks the role changes nothing and fails saying so. A changed interface is brought "
        "up again with an automatic rollback of /etc/config/network (the uci commit and the route deletion before it are "
        "not guarded: docs/rollback.md). Full tunnel: an existing nohostroute is removed, the host route stays and is "
        "re-pointed when mwan3track reports an uplink connected or disconnected, by a script in /etc/hotplug.d/iface/ "
        "(openwrt_mwan3_wg_full_tunnel_hotplug, on by default), to a metered uplink only when no other is usable; the "
        "script re-points IPv4 endpoints only. It is removed when no handled interface is a full tunnel any more, none "
        "has an IPv4 endpoint, or the option is false: left behind, it "
        "would pin a split tunnel's endpoint again on every mwan3 event.",
    fix_role="tunnelfix.fleet.openwrt_mwan3_wg",
    fix_groups=("tunnelfix_openwrt",),
    subject=lambda evidence: evidence.get("interface"),
    plan=route_plan,
    fix_defaults=FIX_DEFAULTS,
    evidence=EVIDENCE,
    proof=Proof(how="verify re-reads the routes (the same reader, ip route show table all) and the rule no longer "
                    "fires: no pinned host route sends the endpoint through another device. A router that is also in "
                    "tunnelfix_wireguard_peers is measured too and must meet its single-flow floor."),
    files=("plugins/plugin_utils/faults/endpoint_route/__init__.py", "roles/openwrt_mwan3_wg/tasks/routes.yml",
           "playbooks/verify.yml"),
)
