# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's rule: a split tunnel's endpoint reached through another device than the preferred uplink's.

netifd adds a /32 to each endpoint when the interface starts, through whichever uplink is best at
that moment, and never moves it when mwan3 switches back: the tunnel rides the backup (in the field
2 Mbit/s; 127 Mbit/s after the fix). Reads openwrt_facts' ``endpoint_routes`` (``reads.py``: netifd's
pinned routes apart from the ones a ``config route`` section asks for, the user's; the uplinks, which
are metered, and their byte counters) and ``wireguard`` (split or full tunnel), and the device of the
preferred uplink.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import user_route_conflict
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import facts_uplinks, metered_refusal
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, is_router, not_checked, wireguard_interfaces

# the inventory's metered uplinks (playbooks/facts.yml hands them to openwrt_facts, the role to wg_endpoint_route)
METERED_OPTION = "openwrt_mwan3_wg_metered_uplinks"


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


def _through(dev, error):
    """The device an endpoint is reached through, in words: ``dev``, or an unknown uplink when ``ip route get`` named none."""
    if dev:
        return dev
    return "an unknown uplink (ip route get named no device%s)" % (": %s" % error if error else "")


def _count(value):
    return "unknown" if value is None else value


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
    uplinks = facts_uplinks(routes)
    out = []
    for endpoint in routes.get("endpoints") or []:
        iface = interfaces.get(endpoint.get("interface")) or {}
        pinned = endpoint.get("pinned_routes") or []
        conflict = user_route_conflict(endpoint.get("user_routes"), endpoint.get("address"), preferred)
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
            endpoint.get("address"), endpoint.get("interface"), _through(dev, endpoint.get("error")), preferred)
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
