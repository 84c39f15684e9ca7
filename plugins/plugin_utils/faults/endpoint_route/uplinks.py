# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1's uplinks: which devices carry a default route, the preferred one's device, and which are metered.

Pure functions, no I/O, on the parsed ``network`` config (``parse/uci.parse_uci_show``) and routes
(``parse/route``). ``find_uplinks`` and ``metered_refusal`` say which uplinks there are and when every
one is metered (no uplink to pick: the plan changes nothing). ``full_tunnel_uplink`` is the uplink a full tunnel's
endpoint host route takes, the rule the role's hotplug hook (its text: ``hook.hook_content``)
applies in awk on the router. ``uplink_option_errors`` is the one check of the
options that name them (the preferred uplink, the metered ones): openwrt_facts, wg_endpoint_route and the role
openwrt_mwan3_wg (``fix/role_options.py``) all call it.
"""

from __future__ import annotations

import json
import re

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import MAIN_TABLES, interface_devices
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE as INTERFACE_NAME_RULE, is_interface_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import uci_wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import default_routes


def _quoted(value) -> str:
    """The value as Jinja's ``value | string | to_json`` shows it (as ``fix/role_options.shown`` does): ``"wan;reboot"``."""
    return json.dumps(value if isinstance(value, str) else str(value))


def uplink_option_errors(preferred, metered, prefix="", preferred_required=False) -> list:
    """Every problem with the uplink options, one message each naming the option and the value; [] when all is well.

    ``preferred``: the option ``PREFIX + preferred_uplink``, one uci interface or device name (``parse/ifname``'s
    rule: the name reaches a command line and uci), None when not given (a problem only when
    ``preferred_required``); ``metered``: ``PREFIX + metered_uplinks``, a list of such names. The actions pass their
    option names (no prefix), the role its variables' (``openwrt_mwan3_wg_``)::

        uplink_option_errors("wan", ["wanb", "lte;reboot"])
        -> ['metered_uplinks: "lte;reboot" is not a uci interface or device name (1-15 characters of ...)']
    """
    errors = []
    if (preferred is not None or preferred_required) and not is_interface_name(preferred):
        errors.append("%spreferred_uplink: %s is not a uci interface or device name (%s)" % (prefix, _quoted(preferred), INTERFACE_NAME_RULE))
    if not isinstance(metered, list):  # a comma-separated string from -e is not one
        errors.append("%smetered_uplinks must be a list of uci interface or device names, got %s" % (prefix, _quoted(metered)))
    else:
        errors += ["%smetered_uplinks: %s is not a uci interface or device name (%s)" % (prefix, _quoted(name), INTERFACE_NAME_RULE)
                   for name in metered if not is_interface_name(name)]
    return errors


def find_uplinks(network: dict, routes, preferred_device, metered=()) -> list:
    """The router's uplinks and which are metered: the preferred uplink's device first, then every other
    device with a unicast default route in the main table that is not a WireGuard interface, once each.

    ``metered``: uci interface or device names (``["wanb"]``), each resolved as ``uplink_device``
    does. With case 01's config and routes, ``find_uplinks(network, routes, "eth1", ["wanb"])`` →
    ``[{"interface": "wan", "device": "eth1", "preferred": True, "metered": False},
    {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": True}]``.
    ``interface`` is the uci interface whose device it is (None when none is).
    """
    tunnels = set(uci_wireguard_interfaces(network))
    devices = [preferred_device] if preferred_device else []
    for route in default_routes(routes):
        if route.get("table") in MAIN_TABLES and route.get("dev") and route["dev"] not in tunnels and route["dev"] not in devices:
            devices.append(route["dev"])
    names = {}
    for name, section in network.items():
        if section.get("type") == "interface" and name != "loopback" and name not in tunnels:
            names.setdefault(uplink_device(network, name), name)
    metered_devices = {uplink_device(network, name) for name in metered or ()}
    return [{"interface": names.get(device), "device": device, "preferred": device == preferred_device,
             "metered": device in metered_devices} for device in devices]


def metered_unmatched(network: dict, found_uplinks, metered) -> list:
    """The names in ``metered`` that are no uplink's interface or device (a typo, an uplink that is down, a modem
    interface whose device netifd names at run time: list its device, ``wwan0``), in the order given."""
    return [name for name in metered or () if not any(
        uplink["interface"] == name or uplink["device"] in (name, uplink_device(network, name)) for uplink in found_uplinks)]


def facts_uplinks(endpoint_routes):
    """The ``uplinks`` of openwrt_facts' ``endpoint_routes`` (dicts only), or None when the facts did not read them."""
    found = endpoint_routes.get("uplinks")
    return [uplink for uplink in found if isinstance(uplink, dict)] if isinstance(found, list) else None


def metered_refusal(found_uplinks):
    """Why no uplink may be picked for the endpoints: every one of ``found_uplinks`` (``find_uplinks``) is metered; else None (also with none)."""
    if not found_uplinks or not all(uplink["metered"] for uplink in found_uplinks):
        return None
    return ("every uplink of this router is metered (%s): refusing to pick one for the WireGuard endpoints; leave the "
            "uplink the tunnel may use out of the metered ones (and make it the preferred uplink)"
            % ", ".join("%s: %s" % (uplink["interface"], uplink["device"]) if uplink["interface"] else uplink["device"]
                        for uplink in found_uplinks))


def _route_fields(line):
    """(gateway, device, metric) of one line of ``ip -4 route show default table main``, read as the hook's awk reads
    it: the word after ``via``, ``dev`` and ``metric`` (the last one when repeated), metric 0 when not printed; None for
    a line that is no unicast default route (``unreachable default ...``, a multipath route's ``nexthop`` lines)."""
    fields = line.split()
    if not fields or fields[0] != "default":
        return None
    pairs = dict(zip(fields, fields[1:]))  # each word with the next: the last one wins, as in the awk
    digits = re.match(r"[0-9]*", pairs.get("metric", "")).group()  # awk's "$(i + 1) + 0": the leading digits, else 0
    return pairs.get("via", ""), pairs.get("dev", ""), int(digits or 0)


def full_tunnel_uplink(routes_text: str, metered=(), preferred=None, wireguard=(), down=()):
    """The uplink a full tunnel's endpoint host route should take, as the role's hotplug hook picks it on an uplink
    event: ``{"device": "eth1", "gateway": "192.0.2.1"}``, or None when no default route is usable.

    ``routes_text``: what ``ip -4 route show default table main`` prints on the router; ``metered``: the metered
    uplinks' devices; ``preferred``: the preferred uplink's device (None or '': unknown); ``wireguard``: every
    WireGuard interface of uci (``uci_wireguard_interfaces``: its device has its name), whether handled or not;
    ``down``: the devices mwan3track last reported disconnected. A route is usable when it has a gateway and a device
    that is neither a WireGuard interface nor down. Among the usable ones the first of: the preferred device unless
    metered, the lowest metric of the other unmetered ones, the preferred device when metered, the lowest metric of
    the other metered ones (a metered uplink is ridden only when nothing else is usable: ``metered_refusal``); on
    equal metrics the route listed first::

        full_tunnel_uplink("default via 198.51.100.1 dev wwan0 metric 5\ndefault via 192.0.2.1 dev eth1 metric 10\n",
                           preferred="eth1")
        -> {"device": "eth1", "gateway": "192.0.2.1"}

    The hook's awk is pinned to this function case by case (tests/unit/roles/test_openwrt_mwan3_wg_hook.py).
    """
    skip = set(wireguard or ()) | set(down or ())
    best = None
    for line in routes_text.splitlines():
        route = _route_fields(line)
        if route is None or not route[0] or not route[1] or route[1] in skip:
            continue
        gateway, device, metric = route
        rank = (2 if device in (metered or ()) else 0) + (0 if device == preferred else 1)
        if best is None or (rank, metric) < best[0]:
            best = ((rank, metric), {"device": device, "gateway": gateway})
    return None if best is None else best[1]


def uplink_device(network: dict, uplink):
    """The device of a logical interface as the kernel names it (``interface_devices``: ``wan`` → ``eth1``, a
    PPPoE ``wan`` → ``pppoe-wan``); for a modem proto its ``device`` option, else ``uplink`` itself (a device name,
    or an interface whose device uci cannot tell: none, or a ``list ifname`` of an old bridge)."""
    if not uplink:
        return None
    devices = interface_devices(network, uplink)
    if devices and len(devices) == 1:
        return next(iter(devices))
    section = network.get(uplink)
    if section and section.get("type") == "interface":
        options = section.get("options", {})
        device = options.get("device") or options.get("ifname")
        return device if isinstance(device, str) else uplink
    return uplink
