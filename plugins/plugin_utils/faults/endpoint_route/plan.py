# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's one plan: what openwrt_mwan3_wg (its action wg_endpoint_route) changes, decided in one place.

``plan_endpoint_routes`` decides, on openwrt_facts' own shapes: the ``wireguard`` interfaces
(``merge_wireguard``, split or full by ``tunnels.add_tunnels``) and the ``endpoint_routes`` endpoints (``reads.endpoint_route_facts``).
Both callers use it:

- the fault (``Fault.plan``: ``route_plan``) on the facts diagnose gathered, as the lines remediate shows
  (``[]`` converged, None cannot tell);
- wg_endpoint_route on the same facts built from its own read (``reads.read_endpoint_routes``, the reading's
  gather's function, and the same reader): it applies the commands of that plan.

``plan_wg_endpoint_routes`` is the plan from parsed uci and routes alone (no lookup), for the tests.

Background (OpenWrt's wireguard proto handler, netifd ``interface_ip_add_target_route``): unless
``option nohostroute '1'``, every peer endpoint gets a /32 (/128) attached to the uplink in use when the
interface starts. For a split tunnel the host route is not needed: set ``nohostroute`` and delete the
stale route. For a full tunnel (the endpoint is inside the routed ``allowed_ips``) it is required: without
it the tunnel's own UDP packets are routed into the tunnel (a routing loop).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import HOOK_PATH, OLD_HOOK_PATH, content_sha256, hook_content
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.reads import endpoint_route_facts, endpoint_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import user_route_conflict
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.tunnels import add_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import facts_uplinks, find_uplinks, metered_refusal
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import is_true, name_list, role_setting, wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import allowed_network, merge_wireguard

# openwrt_mwan3_wg's defaults (faults/role_specs.py, generated from its argument_specs)
FIX_DEFAULTS = role_defaults("openwrt_mwan3_wg")
_TUNNELS = ("split", "full")


def route_delete_argv(route) -> list:
    """``ip route del`` argv that matches exactly this route: destination/prefix, gateway, device, table.

    ``{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0", "table": "main"}`` →
    ``["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]``
    """
    address = ipnet.address(route["dst"].split("/")[0])
    if address is None:
        raise ParseError("route_delete_argv: %r is not a host route" % (route["dst"],))
    argv = ["ip"] + (["-6"] if address.version == 6 else []) + [
        "route", "del", "%s/%d" % (address, ipnet.host_prefixlen(address))]
    if route.get("gateway"):
        argv += ["via", route["gateway"]]
    argv += ["dev", route["dev"]]
    if route.get("table") not in (None, "main", "254"):
        argv += ["table", str(route["table"])]
    return argv


def _route_line(route):
    return " ".join(route_delete_argv(route)[3:])


def over_tunnel(info, connection_address) -> bool:
    """Tell whether ``connection_address`` (the address Ansible connects to) is reached through this tunnel.

    ``info``: one interface of ``merge_wireguard`` (its ``addresses`` and its peers' routed ``allowed_ips``).
    """
    address = endpoint_address(connection_address) if connection_address else None
    if address is None:
        return False
    routed = [prefix for peer in info.get("peers") or [] if peer.get("route_allowed_ips") for prefix in peer.get("allowed_ips") or []]
    for prefix in routed + list(info.get("addresses") or []):
        if address in allowed_network(prefix, "allowed_ips"):
            return True
    return False


def _host_route_of(user, address):
    """The kernel route a user's ``config route`` installed when it is a host route (/32, /128) to ``address``, else None."""
    net = ipnet.network(user.get("target") or "")
    return user.get("installed") if user.get("installed") and net is not None and net.size == 1 and net.ip == address else None


def _endpoints(info, name, endpoints):
    """``({address: endpoint facts}, unresolved hostnames)`` of interface ``name``: one entry per address (the first)."""
    mine = [endpoint for endpoint in endpoints if endpoint.get("interface") == name]
    looked_up = {endpoint.get("section") for endpoint in mine}
    by_address = {}
    for endpoint in mine:
        address = endpoint_address(endpoint.get("address"))
        if address is not None:
            by_address.setdefault(str(address), endpoint)
    unresolved = [peer["endpoint_host"] for peer in info.get("peers") or [] if peer.get("endpoint_host")
                  and peer.get("section") not in looked_up and endpoint_address(peer["endpoint_host"]) is None]
    return by_address, unresolved


def hotplug_hook_plan(entries, full_tunnel_endpoints, hotplug, exists, *, sha256=None, old_exists=None, wireguard=(), uplinks=None,
                      preferred_device=None, preferred_uplink=None) -> dict:
    """What becomes of openwrt_mwan3_wg's full-tunnel hook (``hook.HOOK_PATH``) and of the file an earlier version left
    (``hook.OLD_HOOK_PATH``), given the plan's ``interfaces`` and ``full_tunnel_endpoints``.

    ``hotplug``: the option openwrt_mwan3_wg_full_tunnel_hotplug; ``exists``, ``sha256``, ``old_exists``: what the
    ``endpoint_routes`` reading says (``hotplug_hook_exists``, ``hotplug_hook_sha256``, ``old_hotplug_hook_exists``;
    ``exists`` None: unknown). ``endpoints``: the handled full tunnels' IPv4 endpoints, each once, which the hook re-points
    (an IPv6 endpoint's /128 goes via an IPv6 gateway, which the hook does not pick). The hook is wanted when the option
    is on and that list is not empty: ``content`` is then its text (``hook.hook_content`` of ``endpoints``, ``wireguard``:
    every WireGuard interface of uci, ``uplinks``: ``uplinks.find_uplinks``, ``preferred_device``, ``preferred_uplink``:
    the option openwrt_mwan3_wg_preferred_uplink), else None. ``install`` when it is wanted and the router's is not that
    text; ``install_reason`` says why: ``hotplug hook missing``, ``hotplug hook differs``, or ``hotplug hook unknown`` (the
    read failed). ``remove`` when the hook is not wanted and may be there (``exists`` True or unknown: removing an absent
    file changes nothing): the option is off, no handled full tunnel is left, or their endpoints are all IPv6. With no
    IPv4 endpoint known but a full tunnel's endpoint unknown (none read, or a hostname no lookup resolved: it may be
    IPv4), the hook it has stays. ``stale`` says why it goes (None when it stays). ``remove_old`` when the old file may
    be there (``old_exists`` True or unknown)::

        {"path": "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint", "exists": True, "sha256": "97029a11...", "endpoints": [],
         "content": None, "install": False, "install_reason": None, "remove": True, "stale": "no full tunnel left",
         "old_path": "/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint", "old_exists": False, "remove_old": False}

    ``content`` is None also when the hook is wanted but ``uplinks`` is None (not read; wg_endpoint_route reads them
    whenever there is an endpoint): ``install`` then says the text is unknown, and remediate's plan cannot tell.
    """
    ipv4 = []
    for item in full_tunnel_endpoints:
        if ipnet.address(item["endpoint"]).version == 4 and item["endpoint"] not in ipv4:
            ipv4.append(item["endpoint"])
    full = [entry for entry in entries.values() if entry["tunnel"] == "full"]
    unknown = any(entry["unresolved"] or not entry["endpoints"] for entry in full)
    if not hotplug:
        stale = "openwrt_mwan3_wg_full_tunnel_hotplug is false"
    elif not full:
        stale = "no full tunnel left"
    elif ipv4 or unknown:
        stale = None
    else:
        stale = "no full tunnel has an IPv4 endpoint"
    content = reason = None
    if hotplug and ipv4:
        content = None if uplinks is None else hook_content(ipv4, wireguard, preferred_device, uplinks, preferred_uplink)
        if content is None:
            reason = "hotplug hook text unknown: the uplinks were not read"
        elif exists is None:
            reason = "hotplug hook unknown"
        elif not exists:
            reason = "hotplug hook missing"
        elif sha256 != content_sha256(content):
            reason = "hotplug hook differs"
    return {"path": HOOK_PATH, "exists": exists, "sha256": sha256, "endpoints": ipv4, "content": content,
            "install": reason is not None, "install_reason": reason, "remove": stale is not None and exists is not False,
            "stale": stale, "old_path": OLD_HOOK_PATH, "old_exists": old_exists, "remove_old": old_exists is not False}


def plan_endpoint_routes(wireguard: dict, endpoints: list, interfaces=None, *, uplinks=None, preferred_device=None,
                         connection_address=None, hotplug=True, hook=None, preferred_uplink=None) -> dict:
    """Decide what to do for each WireGuard interface: THE plan of fault 1 (module doc).

    ``wireguard``: openwrt_facts' ``wireguard.interfaces`` (``merge_wireguard``; only the ``in_uci`` ones are the
    role's); ``endpoints``: its ``endpoint_routes.endpoints`` (``reads.endpoint_route_facts``: each endpoint's
    ``pinned_routes``, netifd's, and ``user_routes``, the ``config route`` sections holding it); ``interfaces``
    the names to handle (empty or None: every one in uci); ``uplinks``: ``uplinks.find_uplinks``;
    ``preferred_device``: the preferred uplink's device (None: unknown, no conflict is named); ``hotplug``: the option
    openwrt_mwan3_wg_full_tunnel_hotplug; ``hook``: the ``endpoint_routes`` facts' ``hotplug_hook_exists``,
    ``hotplug_hook_sha256`` and ``old_hotplug_hook_exists`` (a missing key: unknown); ``preferred_uplink``: the option
    openwrt_mwan3_wg_preferred_uplink, which the hook's text names (``hotplug_hook_plan``).

    Returns::

        {"interfaces": {"wg0": {"tunnel": "split", "reason": None, "nohostroute": False,
                                "endpoints": ["203.0.113.10"], "unresolved": [],
                                "delete_routes": [{"dst": "203.0.113.10", "gateway": "198.51.100.1",
                                                   "dev": "wwan0", ...}],
                                "kept_routes": [],      # host routes a config route section asks for
                                "user_routes": [],      # user_routes of each endpoint, plus "endpoint"
                                "conflicts": [],        # user_route_conflict of each endpoint, plus "endpoint"
                                "over_tunnel": False, "changed": True, "refused": None}},
         "uci_commands": [["uci", "set", "network.wg0.nohostroute=1"]],
         "route_commands": [["ip", "route", "del", "203.0.113.10/32", "via", "198.51.100.1", "dev", "wwan0"]],
         "full_tunnel_endpoints": [],   # [{"interface", "endpoint"}]: the handled full tunnels' endpoints
         "hotplug_hook": {"path": "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint", "exists": False, "endpoints": [],
                          "content": None, "install": False, "remove": False, "stale": "no full tunnel left", ...},
                                        # hotplug_hook_plan
         "uplinks": [...],              # as given
         "refused": None,               # metered_refusal: why nothing changes
         "changed": True,
         "diff": {"before": "...", "after": "..."}}

    Split tunnel: ``nohostroute=1`` unless it is the literal ``'1'`` (the one value netifd honours), and every
    pinned host route to its endpoints deleted; a host route a ``config route`` section asks for is the user's
    and kept. A configured route that would still send an endpoint through another device than
    ``preferred_device`` is listed in ``conflicts`` (kept all the same: the user's to change). Full tunnel:
    ``refused`` explains why nohostroute would loop; an existing ``nohostroute=1`` is removed (the host route is
    required); no route is deleted. Endpoint hostnames no lookup resolved are listed in ``unresolved``. When
    something would change and every uplink is metered, nothing changes: ``refused`` says why (no uplink to pick).
    The full-tunnel hook is installed or removed as ``hotplug_hook_plan`` says (not part of ``changed``, which is the
    action's: the role's plain_file does it).

    Raises ParseError for a requested interface that is not a ``proto wireguard`` interface in uci, or one whose
    tunnel is neither split nor full (unknown).
    """
    found = {name: info for name, info in (wireguard or {}).items() if info.get("in_uci")}
    wanted = list(interfaces or [])
    for name in wanted:
        if name not in found:
            raise ParseError("interfaces: %r is not a proto wireguard interface in /etc/config/network (found: %s)"
                             % (name, ", ".join(sorted(found)) or "none"))
    plan = {"interfaces": {}, "uci_commands": [], "route_commands": [], "full_tunnel_endpoints": [],
            "uplinks": uplinks, "refused": None, "changed": False}
    before, after = [], []
    for name in wanted or sorted(found):
        info = found[name]
        if info.get("tunnel") not in _TUNNELS:
            raise ParseError("interfaces: whether %s is a split or a full tunnel is unknown" % name)
        by_address, unresolved = _endpoints(info, name, endpoints)
        entry = {"tunnel": info["tunnel"], "reason": info.get("tunnel_reason"), "nohostroute": bool(info.get("nohostroute")),
                 "endpoints": list(by_address), "unresolved": unresolved, "delete_routes": [], "kept_routes": [],
                 "user_routes": [], "conflicts": [], "over_tunnel": over_tunnel(info, connection_address),
                 "changed": False, "refused": None}
        option = "network.%s.nohostroute" % name
        if info["tunnel"] == "split":
            written = (info.get("options") or {}).get("nohostroute")
            before.append("%s=%s" % (option, "'%s'" % written if isinstance(written, str) else "(unset)"))
            after.append("%s='1'" % option)
            if not entry["nohostroute"]:
                plan["uci_commands"].append(["uci", "set", "%s=1" % option])
                entry["changed"] = True
            for address, endpoint in by_address.items():
                for route in endpoint.get("pinned_routes") or []:
                    before.append("route %s" % _route_line(route))
                    entry["delete_routes"].append(route)
                    plan["route_commands"].append(route_delete_argv(route))
                    entry["changed"] = True
                users = endpoint.get("user_routes") or []
                kept = [route for route in (_host_route_of(user, endpoint_address(address)) for user in users) if route]
                for route in [route for index, route in enumerate(kept) if route not in kept[:index]]:
                    before.append("route %s" % _route_line(route))
                    after.append("route %s" % _route_line(route))
                    entry["kept_routes"].append(route)
                entry["user_routes"].extend(dict(user, endpoint=address) for user in users)
                conflict = user_route_conflict(users, address, preferred_device)
                if conflict:
                    entry["conflicts"].append(dict(conflict, endpoint=address))
        else:
            entry["refused"] = (
                "nohostroute refused for %s: %s, so without the endpoint host route the tunnel's own "
                "packets would be routed into %s (a routing loop); the host route is kept and re-pointed "
                "by an mwan3 hotplug script instead" % (name, entry["reason"], name))
            if entry["nohostroute"]:
                before.append("%s='1'" % option)
                after.append("%s=(unset)" % option)
                plan["uci_commands"].append(["uci", "delete", option])
                entry["changed"] = True
            plan["full_tunnel_endpoints"].extend({"interface": name, "endpoint": address} for address in by_address)
        plan["changed"] = plan["changed"] or entry["changed"]
        plan["interfaces"][name] = entry
    hook = hook or {}
    plan["hotplug_hook"] = hotplug_hook_plan(
        plan["interfaces"], plan["full_tunnel_endpoints"], hotplug, hook.get("hotplug_hook_exists"),
        sha256=hook.get("hotplug_hook_sha256"), old_exists=hook.get("old_hotplug_hook_exists"), wireguard=sorted(found),
        uplinks=uplinks, preferred_device=preferred_device, preferred_uplink=preferred_uplink)
    refusal = metered_refusal(uplinks) if plan["changed"] else None
    if refusal:
        plan.update(refused=refusal, uci_commands=[], route_commands=[], changed=False)
        for entry in plan["interfaces"].values():
            entry.update(changed=False, delete_routes=[])
        after = list(before)
    plan["diff"] = {"before": "\n".join(before) + ("\n" if before else ""),
                    "after": "\n".join(after) + ("\n" if after else "")}
    return plan


def plan_wg_endpoint_routes(network: dict, routes: list, interfaces=None, connection_address=None, *, targets=None,
                            preferred_device=None, metered=(), wireguard=None) -> dict:
    """``plan_endpoint_routes`` from parsed uci and routes: the facts openwrt_facts would gather, built with its functions.

    ``network``: ``parse_uci_show(text)["network"]``; ``routes``: parsed routes (table all); ``wireguard``:
    ``add_tunnels(merge_wireguard(network, live))`` (None: uci alone); ``targets``: ``reads.endpoint_targets`` of it (None:
    computed; a target whose address is no IP is skipped); ``metered``: uci interface or device names
    (``uplinks.find_uplinks``). Each endpoint's facts are ``reads.endpoint_route_facts`` (no lookup: the plan
    reads only its routes). Raises ParseError as ``plan_endpoint_routes`` and ``merge_wireguard`` do.
    """
    wireguard = add_tunnels(merge_wireguard(network, None)) if wireguard is None else wireguard
    targets = endpoint_targets(wireguard)["targets"] if targets is None else targets
    endpoints = [endpoint_route_facts(target, None, routes, None, network) for target in targets
                 if endpoint_address(target.get("address")) is not None]
    return plan_endpoint_routes(wireguard, endpoints, interfaces, uplinks=find_uplinks(network, routes, preferred_device, metered),
                                preferred_device=preferred_device, connection_address=connection_address)


def _changes(plan, interfaces):
    """The plan as remediate shows it, per interface in order: its uci change, then its route deletions."""
    lines = []
    for name, entry in plan["interfaces"].items():
        option = "network.%s.nohostroute" % name
        if ["uci", "set", "%s=1" % option] in plan["uci_commands"]:
            written = (interfaces[name].get("options") or {}).get("nohostroute")
            written = " ".join(written) if isinstance(written, list) else written   # a `list nohostroute` by mistake
            lines.append("%s: %s -> '1'" % (option, "unset" if written is None else "'%s' (netifd honours only '1')" % written))
        if ["uci", "delete", option] in plan["uci_commands"]:
            lines.append("%s: '1' -> unset (a full tunnel needs the endpoint's host route)" % option)
        lines.extend("delete the pinned route %s via %s dev %s (endpoint of %s)"
                     % (route.get("dst"), route.get("gateway"), route.get("dev"), name) for route in entry["delete_routes"])
    hook = plan["hotplug_hook"]
    if hook["install"]:
        lines.append("%s the hook %s (%s)" % ("install" if hook["exists"] is False else "rewrite", hook["path"], hook["install_reason"]))
    if hook["remove"]:
        lines.append("remove the stale hook %s (%s)" % (hook["path"], hook["stale"]))
    if hook["remove_old"]:
        lines.append("remove the hook an earlier version left at %s (mwan3 never runs it)" % hook["old_path"])
    return lines


def route_plan(view, role_vars):
    """What openwrt_mwan3_wg would change, from openwrt_facts' ``wireguard`` and ``endpoint_routes``: the plan
    wg_endpoint_route applies (``plan_endpoint_routes``), one line per change.

    Split tunnel: ``nohostroute`` set to 1 where it is not the literal '1', every pinned /32 or /128 of its endpoints
    deleted (netifd's: the facts leave out the routes a ``config route`` section asks for, which the role keeps).
    Full tunnel: an existing ``nohostroute`` removed. The full-tunnel hook (``hotplug_hook_plan``): installed or rewritten
    when it is wanted and the router's is missing or differs from the planned text (the facts' SHA-256 of it), removed
    when stale (no full tunnel left, none has an IPv4 endpoint, or the option is off) and the facts say it exists; the
    file an earlier version left in /etc/hotplug.d/mwan3/ removed when the facts say it exists. ``[]`` when nothing would
    change: a converged full tunnel's router costs no role. None where the facts cannot tell: the hook's read failed while
    the plan installs or removes it, the old file's read failed, the hook's text cannot be known (no uplinks read),
    without the facts, for a named interface uci does not have (the role fails naming it), a tunnel of unknown kind,
    when something would change and every uplink is metered (the role refuses, saying why), or when nothing would
    change but a user's ``config route`` still sends an endpoint over another uplink (the role's final check names it).
    """
    facts = view.get("openwrt") or {}
    routes = facts.get("endpoint_routes")
    if not isinstance(facts.get("wireguard"), dict) or not isinstance(routes, dict):
        return None
    interfaces = wireguard_interfaces(facts)
    chosen = name_list(role_setting(role_vars, "openwrt_mwan3_wg_interfaces", FIX_DEFAULTS))
    hotplug = is_true(role_setting(role_vars, "openwrt_mwan3_wg_full_tunnel_hotplug", FIX_DEFAULTS))
    try:
        plan = plan_endpoint_routes(interfaces, routes.get("endpoints") or [], chosen, uplinks=facts_uplinks(routes),
                                    preferred_device=view.get("preferred_uplink_device"), hotplug=hotplug, hook=routes,
                                    preferred_uplink=role_setting(role_vars, "openwrt_mwan3_wg_preferred_uplink", FIX_DEFAULTS))
    except ParseError:
        return None
    hook = plan["hotplug_hook"]
    if (hook["install"] or hook["remove"]) and hook["exists"] is None or hook["install"] and hook["content"] is None:
        return None   # the hook is wanted or stale, and the facts cannot tell whether the router has it, or its text
    if hook["old_exists"] is None:
        return None   # the file an earlier version left may be there
    if plan["refused"]:
        return None
    if not plan["changed"] and any(entry["conflicts"] for entry in plan["interfaces"].values()):
        return None   # only a user's route in conflict: nothing to change, the role runs to say so (its final check)
    return _changes(plan, interfaces)
