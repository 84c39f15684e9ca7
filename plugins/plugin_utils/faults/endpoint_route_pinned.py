# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1: the WireGuard endpoint's host route is pinned to a backup uplink (OpenWrt + mwan3).

netifd adds a /32 to each endpoint when the interface starts, through whichever uplink is best at
that moment, and never moves it when mwan3 switches back: the tunnel rides the backup (in the field
2 Mbit/s; 127 Mbit/s after the fix). Reads openwrt_facts' ``endpoint_routes`` (``ip route show table
all``, read by plugins/plugin_utils/remote/route_reader.py, the reader the fix's action uses too;
netifd's pinned routes apart from the ones a ``config route`` section asks for, the user's; the
uplinks, which are metered, and their byte counters) and ``wireguard`` (split or full tunnel), and
the device of the preferred uplink.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Fault, Proof, does_not_apply, is_router, name_list, not_checked, role_setting, wireguard_interfaces)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.wg_route_plan import metered_refusal, user_route_conflict

# openwrt_mwan3_wg's defaults/main.yml (pinned by a test)
FIX_DEFAULTS = {"openwrt_mwan3_wg_interfaces": [], "openwrt_mwan3_wg_full_tunnel_hotplug": True}
# the inventory's metered uplinks (playbooks/facts.yml hands them to openwrt_facts, the role to wg_endpoint_route)
METERED_OPTION = "openwrt_mwan3_wg_metered_uplinks"


def _uplinks(routes):
    """openwrt_facts' uplinks (a list of dicts), or None when the facts did not read them."""
    found = routes.get("uplinks")
    return [uplink for uplink in found if isinstance(uplink, dict)] if isinstance(found, list) else None


def _metered_text(dev, uplinks):
    """The explanation's sentences on metered uplinks for an endpoint reached through ``dev`` ('' when it is not metered)."""
    uplink = next((entry for entry in uplinks or [] if entry.get("device") == dev), None)
    if not uplink or not uplink.get("metered"):
        return ""
    counted = ", ".join("%s RX %s TX %s bytes" % (entry.get("device"), _count(entry.get("rx_bytes")), _count(entry.get("tx_bytes")))
                        for entry in uplinks)
    text = (" %s is marked metered (%s): the tunnel's traffic is paid for there (counters since each uplink came up: %s)."
            % (dev, METERED_OPTION, counted))
    if metered_refusal(uplinks):
        text += (" Every uplink is marked metered, so the fix refuses to pick one: leave the uplink the tunnel may use out "
                 "of %s." % METERED_OPTION)
    return text


def _count(value):
    return "unknown" if value is None else value


def _conflict(endpoint, preferred):
    """The user's config route that keeps ``endpoint`` (an entry of openwrt_facts' ``endpoint_routes.endpoints``) off
    the preferred uplink's device ``preferred`` (``user_route_conflict``: a dict with its ``message``), or None."""
    return user_route_conflict(endpoint.get("user_routes"), endpoint.get("address"), preferred)


def pinned_endpoints(host, view, views):
    """One (evidence, explanation) per split-tunnel endpoint reached through another device than the preferred one,
    because of netifd's pinned /32 or /128 or of a ``config route`` of the user's (a conflict: the fix keeps it).

    Nothing when the preferred uplink's device is unknown (no guess), for full tunnels (their /32
    must stay: the default route goes into the tunnel) and for endpoints with neither.
    """
    facts = view.get("openwrt") or {}
    routes = facts.get("endpoint_routes") or {}
    preferred = view.get("preferred_uplink_device")
    interfaces = wireguard_interfaces(facts)
    uplinks = _uplinks(routes)
    out = []
    for endpoint in routes.get("endpoints") or []:
        iface = interfaces.get(endpoint.get("interface")) or {}
        pinned = endpoint.get("pinned_routes") or []
        conflict = _conflict(endpoint, preferred)
        if not (pinned or conflict) or not preferred or iface.get("tunnel") != "split" or endpoint.get("dev") == preferred:
            continue
        dev = endpoint.get("dev")
        uplink = next((entry for entry in uplinks or [] if entry.get("device") == dev), None)
        evidence = {
            "interface": endpoint.get("interface"), "endpoint": endpoint.get("address"), "dev": dev,
            "gateway": endpoint.get("gateway"), "preferred_uplink_device": preferred, "pinned_routes": pinned,
            "user_route_conflict": conflict,
            "metered_uplink": None if uplinks is None else bool(uplink and uplink.get("metered")),
            "uplinks": uplinks}
        text = "The WireGuard endpoint %s of %s is reached through %s, not the preferred uplink %s, " % (
            endpoint.get("address"), endpoint.get("interface"), dev, preferred)
        if pinned:
            text += """because of a static host route. netifd adds that route when the interface starts, through
                whichever uplink is best at that moment, and never moves it when mwan3 switches back. For a split tunnel
                set nohostroute=1 and delete the pinned route."""
            if conflict:
                text += " That alone will not move it: %s." % conflict["message"]
        else:
            text += "because of a route you configured: %s." % conflict["message"]
        text += _metered_text(dev, uplinks)
        text += (" mwan3 marks the router's own packets too (its hook is on mangle OUTPUT as well as PREROUTING), but "
                 "every destination of the main table counts for it as connected and keeps the default mark, so the "
                 "endpoint's own host route puts it outside mwan3's policies: adding mwan3 rules will not help, the "
                 "route has to change.")
        out.append((evidence, text))
    return out


def pinned_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): a router with endpoint routes and a known preferred uplink."""
    if not is_router(view):
        return does_not_apply("not an OpenWrt router")
    facts = view.get("openwrt") or {}
    routes = facts.get("endpoint_routes")
    if not isinstance(routes, dict) or not isinstance(facts.get("wireguard"), dict):
        return not_checked("openwrt_facts read no WireGuard interfaces or endpoint routes")
    if not routes.get("endpoints"):
        return does_not_apply("no WireGuard peer endpoint")
    if not view.get("preferred_uplink_device"):
        return not_checked("the preferred uplink's device is unknown (openwrt_mwan3_wg_preferred_uplink names no uci interface)")
    return None


def route_plan(view, role_vars):
    """What openwrt_mwan3_wg would change, from openwrt_facts' ``wireguard`` and ``endpoint_routes``.

    Split tunnel: ``nohostroute`` set to 1 where unset, every pinned /32 or /128 of its endpoints deleted
    (netifd's: the facts leave out the routes a ``config route`` section asks for, which the role
    keeps). Full tunnel: an existing ``nohostroute`` removed; with the hotplug script on, None (the
    facts do not read that file). None without the facts, for a named interface uci does not have
    (the role fails naming it), a tunnel of unknown kind, when something would change and every
    uplink is metered (the role refuses, saying why), or when nothing would change but a user's
    ``config route`` still sends an endpoint over another uplink (the role's final check names it).
    """
    facts = view.get("openwrt") or {}
    routes = facts.get("endpoint_routes")
    if not isinstance(facts.get("wireguard"), dict) or not isinstance(routes, dict):
        return None
    interfaces = {name: iface for name, iface in wireguard_interfaces(facts).items() if iface.get("in_uci")}
    chosen = name_list(role_setting(role_vars, "openwrt_mwan3_wg_interfaces", FIX_DEFAULTS)) or sorted(interfaces)
    if any(name not in interfaces for name in chosen):
        return None
    changes = []
    for name in chosen:
        iface = interfaces[name]
        if iface.get("tunnel") == "split":
            if not iface.get("nohostroute"):
                written = (iface.get("options") or {}).get("nohostroute")
                written = " ".join(written) if isinstance(written, list) else written   # a `list nohostroute` by mistake
                changes.append("network.%s.nohostroute: %s -> '1'" % (name, "unset" if written is None else "'%s' (netifd honours only '1')" % written))
            changes.extend("delete the pinned route %s via %s dev %s (endpoint of %s)"
                           % (route.get("dst"), route.get("gateway"), route.get("dev"), name)
                           for endpoint in routes.get("endpoints") or [] if endpoint.get("interface") == name
                           for route in endpoint.get("pinned_routes") or [])
        elif iface.get("tunnel") == "full":
            if iface.get("nohostroute"):
                changes.append("network.%s.nohostroute: '1' -> unset (a full tunnel needs the endpoint's host route)" % name)
            if role_setting(role_vars, "openwrt_mwan3_wg_full_tunnel_hotplug", FIX_DEFAULTS) not in (False, "false", "no", "0"):
                return None
        else:
            return None
    if changes and metered_refusal(_uplinks(routes)):
        return None
    if not changes and any(_conflict(endpoint, view.get("preferred_uplink_device"))
                           for endpoint in routes.get("endpoints") or [] if endpoint.get("interface") in chosen):
        return None   # only a user's route in conflict: nothing to change, the role runs to say so (its final check)
    return changes


ENDPOINT_ROUTE_PINNED = Fault(
    id="endpoint_route_pinned",
    number=1,
    title="My tunnel rides the backup uplink",
    severity="high",
    hosts="OpenWrt router",
    reads=("openwrt.endpoint_routes", "openwrt.wireguard", "preferred_uplink_device"),
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
        "(openwrt_mwan3_wg_full_tunnel_hotplug, on by default).",
    fix_role="tunnelfix.fleet.openwrt_mwan3_wg",
    fix_groups=("tunnelfix_openwrt",),
    subject=lambda evidence: evidence.get("interface"),
    plan=route_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the routes (the same reader, ip route show table all) and the rule no longer "
                    "fires: no pinned host route sends the endpoint through another device. A router that is also in "
                    "tunnelfix_wireguard_peers is measured too and must meet its single-flow floor."),
    files=("plugins/plugin_utils/faults/endpoint_route_pinned.py", "roles/openwrt_mwan3_wg/tasks/routes.yml",
           "playbooks/verify.yml"),
)
