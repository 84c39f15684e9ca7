# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What fault 1 reads on OpenWrt, and how it becomes openwrt_facts' ``endpoint_routes``.

The reading: ``endpoint_routes_reading`` (faults/readings.py builds ``ENDPOINT_ROUTES`` with it, from the shared
``network`` and ``wireguard`` readings its gather uses; the udp_gro reading and the PMTU fault need it too). Its
steps, in the host's one batch: ``ip [-j] route show table all``, ``ip [-j] route get`` of every endpoint address
uci or the live state names (``UCI_AND_LIVE_ENDPOINT_LINES``, listed on the router: ``endpoint_lookup_steps``,
which wg_endpoint_route's batch runs too), ``ip -s -j link show`` for the uplinks' byte counters
(``link_counters.py``) and the SHA-256 of the role's full-tunnel hook and of the file an earlier version left (``hook.py``).
``gather_endpoint_routes`` turns their results into the facts.

Which endpoints (``endpoint_targets``: a peer's live endpoint, else its uci IP literal), each one's route
facts (``endpoint_route_facts``) and the uplinks are built one way for both sides, ``read_endpoint_routes``:
the reading's gather and wg_endpoint_route (the fix) call it on their batch, and the fix plans on what it
returns (``plan.plan_endpoint_routes``), so the fix acts on the endpoints and routes the finding saw.

Pure functions apart from ``link_counters``, ``read_endpoint_routes`` and ``gather_endpoint_routes`` (which
read the action's batch). Input: the peers of ``parse/openwrt_wireguard.merge_wireguard``; routes from
``parse/route.parse_ip_route_show`` (``ip -j route show table all``) and ``parse_ip_route_get`` (``ip -j route
get ADDRESS``). The route logic is ``parse/endpoint_route.describe_endpoint_route`` and ``routes.find_pinned_routes``'s.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import HOOK_PATH, HOOK_PROBE, OLD_HOOK_PATH, hook_state
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.link_counters import LINK_COUNTERS, parse_link_counters
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.routes import (
    find_pinned_routes, short_route, user_routes_to)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import (
    find_uplinks, metered_unmatched, uplink_device)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.endpoint_route import describe_endpoint_route
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, ForEachLine, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    ADDRESS_FILTER, ROUTE_GET_JSON, ROUTE_GET_TEXT, WG_DUMP_NAME)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import json_source, route_table_steps
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.uci_reader import uci_step

# Every uci endpoint_host ("$1", the redacted uci show network) and every live endpoint ("$2", the redacted
# dump), one address per line (fact_commands.ADDRESS_FILTER: no hostname, no DNS lookup), for ip route get.
UCI_AND_LIVE_ENDPOINT_LINES = (
    "{ sed -n \"s/^network\\.[^=]*\\.endpoint_host='\\(.*\\)'\\$/\\1/p\" \"$1\"\n"
    "  awk 'BEGIN { FS = \"\\t\" } NF == 9 { print $4 }' \"$2\"\n} | " + ADDRESS_FILTER)


def endpoint_lookup_steps() -> list:
    """The batch steps of the endpoints' routes: every route (both forms, ``route_table_steps``) and ``ip [-j] route
    get`` of each address ``UCI_AND_LIVE_ENDPOINT_LINES`` lists from the steps ``uci -q show network`` and
    ``wg show all dump`` (which the batch must hold). The reading's and wg_endpoint_route's batch alike."""
    return [*route_table_steps(), ForEachLine(UCI_AND_LIVE_ENDPOINT_LINES, (uci_step("network").name, WG_DUMP_NAME),
                                              (ROUTE_GET_JSON, ROUTE_GET_TEXT))]


def split_endpoint_host(value):
    """Read a uci ``endpoint_host`` that may carry brackets or a port: ``(ip, port)``.

    ``"203.0.113.10"`` → ``("203.0.113.10", None)``; ``"[fd99:1::1]:51820"`` →
    ``("fd99:1::1", 51820)``; ``"[fd99:1::1]"`` and ``"fd99:1::1"`` → ``("fd99:1::1", None)``;
    ``"192.0.2.1:51820"`` → ``("192.0.2.1", 51820)``; a hostname (``"dc.example.net"``),
    ``""`` or None → ``(None, None)``. The address comes back in its compressed form.
    Never raises.
    """
    if not isinstance(value, str) or not value.strip():
        return None, None
    text = value.strip()
    port = None
    if text.startswith("[") and "]:" in text:
        text, _sep, port_text = text[1:].partition("]:")
        port = int(port_text) if port_text.isdigit() and 0 < int(port_text) < 65536 else None
    elif text.count(":") == 1:
        text, _sep, port_text = text.partition(":")
        port = int(port_text) if port_text.isdigit() and 0 < int(port_text) < 65536 else None
    address = endpoint_address(text)
    return (None, None) if address is None else (str(address), port)


def endpoint_targets(interfaces: dict) -> dict:
    """List the endpoint addresses to look up, one per peer that has one.

    ``interfaces`` is merge_wireguard output. The address is the live endpoint (``wg``) when
    the peer has one, else the uci ``endpoint_host`` when it is an IP literal (see
    split_endpoint_host); a hostname without a live endpoint goes to ``unresolved`` (no DNS
    lookup is made on the controller). For case 11 (uci only)::

        {"targets": [],
         "unresolved": [{"interface": "wg0", "public_key": "EEEE…E=", "section": "dc",
                         "endpoint_host": "dc.example.net"}]}

    and a target looks like ``{"interface": "wg0", "public_key": "BBBB…B=", "section":
    "@wireguard_wg0[0]", "address": "203.0.113.10", "port": 51820, "address_source": "live"}``
    (``address_source`` is ``live`` or ``uci``; ``section`` None for a live-only peer).
    Peers without any endpoint are left out.
    """
    if not isinstance(interfaces, dict):
        raise ParseError("expected merged WireGuard interfaces (a dict), got %s" % type(interfaces).__name__)
    targets, unresolved = [], []
    for name, entry in interfaces.items():
        for peer in entry.get("peers", []):
            base = {"interface": name, "public_key": peer["public_key"], "section": peer["section"]}
            live = peer.get("live") or {}
            if live.get("endpoint_host"):
                address = endpoint_address(live["endpoint_host"])
                targets.append(dict(base, address=str(address) if address else live["endpoint_host"],
                                    port=live.get("endpoint_port"), address_source="live"))
                continue
            host = peer.get("endpoint_host")
            if not host:
                continue
            address, port = split_endpoint_host(host)
            if address is None:
                unresolved.append(dict(base, endpoint_host=host))
            else:
                targets.append(dict(base, address=address, port=port or peer.get("endpoint_port"),
                                    address_source="uci"))
    return {"targets": targets, "unresolved": unresolved}


def endpoint_route_facts(target: dict, used, routes: list, error=None, network=None) -> dict:
    """The route facts of one endpoint target.

    ``used`` is ``parse_ip_route_get`` output for ``target["address"]`` (None when ``ip route
    get`` found no route; ``error`` then says why, e.g. ``Network is unreachable``), ``routes``
    the parsed ``ip -j route show table all``, ``network`` the parsed uci network config (None: no
    ``config route`` section, every pinned route is netifd's). With the pinned case-01 route::

        {"interface": "wg0", "public_key": "BBBB…B=", "section": "@wireguard_wg0[0]",
         "address": "203.0.113.10", "port": 51820, "address_source": "live",
         "dev": "wwan0", "gateway": "198.51.100.1", "src": "198.51.100.20",   # ip route get
         "table": "main",
         "route_dst": "203.0.113.10", "route_protocol": "static", "route_metric": 20,
                                       # the route ip route get matched (longest prefix, same dev)
         "static_host_route": True,    # a non-kernel /32 (/128) to the address exists
         "pinned_routes": [{"dst": "203.0.113.10", "gateway": "198.51.100.1", "dev": "wwan0",
                            "table": "main", "protocol": "static", "metric": 20}],   # every table
         "user_routes": [],            # the config route sections holding the address
         "error": None}

    ``pinned_routes`` are the host routes no ``config route`` section asks for (netifd's, the ones
    the fix deletes); ``user_routes`` the sections whose target holds the address, most specific
    first, each with the kernel route it installed (``routes.user_routes_to``): a user's /32
    is there, not in ``pinned_routes``. Unknown values are None.
    """
    entry = dict(target)
    address = target["address"]
    pinned = [short_route(route) for route in find_pinned_routes(routes, address, network)]
    users = user_routes_to(network or {}, routes, address)
    if used is None:
        entry.update(dev=None, gateway=None, src=None, table=None, route_dst=None, route_protocol=None,
                     route_metric=None, static_host_route=bool(find_pinned_routes(routes, address)), pinned_routes=pinned,
                     user_routes=users, error=error)
        return entry
    described = describe_endpoint_route(used, routes, address)
    entry.update(dev=described["dev"], gateway=described["gateway"], src=used.get("prefsrc"),
                 table=described["table"], route_dst=described["dst"], route_protocol=described["protocol"],
                 route_metric=described["metric"], static_host_route=described["static_host_route"],
                 pinned_routes=pinned, user_routes=users, error=error)
    return entry


def link_counters(action):
    """``({device: {"rx_bytes", "tx_bytes"}}, note)`` from ``ip -s -j link show``; ``({}, why)`` when that fails."""
    res = action.step(LINK_COUNTERS, ok_rcs=ANY_EXIT_STATUS)
    if res["rc"] != 0:
        return {}, "%s failed (rc=%s: %s): byte counters unknown" % (
            res["cmd"], res["rc"], ((res["stderr"] or "").strip() or "no output").splitlines()[0][:200])
    try:
        return parse_link_counters(res["stdout"]), None
    except ParseError as exc:  # an ip that ignores -s -j prints text
        return {}, "%s: byte counters unknown" % str(exc)[:200]


def read_endpoint_routes(action, network, interfaces, preferred_uplink, metered, counters=True) -> dict:
    """The ``endpoint_routes`` facts from ``action``'s batch: the endpoints' routes (netifd's pinned ones apart
    from the user's), and the uplinks with their byte counters. THE one way both openwrt_facts (the reading's
    gather) and wg_endpoint_route (the fix) build them.

    ``network``: the parsed uci network config; ``interfaces``: ``merge_wireguard``'s; ``preferred_uplink``: a uci
    interface or device name (None: not given); ``metered``: the names of the metered uplinks. Returns
    ``{"routes_source", "endpoints", "unresolved", "uplinks", "uplinks_note", "metered_unmatched", "hotplug_hook_exists",
    "hotplug_hook_sha256", "old_hotplug_hook_exists"}`` and, when
    ``preferred_uplink`` is given, ``preferred_uplink_device``. ``uplinks`` (``find_uplinks``: which are metered)
    is None when there is no endpoint to look up (then no route is read); ``uplinks_note`` says why the counters
    are unknown (no ``ip -s -j``); ``metered_unmatched`` the names in ``metered`` that are no uplink's;
    ``preferred_uplink_device`` the device of ``preferred_uplink`` (``uplink_device``); ``hotplug_hook_exists``
    whether openwrt_mwan3_wg's full-tunnel hook is on the router (None: unknown, the probe failed),
    ``hotplug_hook_sha256`` its SHA-256 (None when absent or unknown), ``old_hotplug_hook_exists`` whether the file an
    earlier version left in /etc/hotplug.d/mwan3/ is there (None unknown): ``hook.hook_state``, read always.
    ``counters``: read the byte counters (``ip -s -j link show``), the finding's evidence; without them
    the uplinks carry no ``rx_bytes``/``tx_bytes`` (the fix does not need them and does not run the command).
    """
    preferred_device = uplink_device(network, preferred_uplink)
    wanted = endpoint_targets(interfaces)
    out = {"routes_source": None, "endpoints": [], "unresolved": wanted["unresolved"], "uplinks": None,
           "uplinks_note": None, "metered_unmatched": []}
    hook = hook_state(action)
    out.update(hotplug_hook_exists=hook[HOOK_PATH]["exists"], hotplug_hook_sha256=hook[HOOK_PATH]["sha256"],
               old_hotplug_hook_exists=hook[OLD_HOOK_PATH]["exists"])
    if wanted["targets"]:
        routes, source = action.routes_table_all()
        out["routes_source"] = source
        json_ok = json_source(source)
        looked_up = {}
        for target in wanted["targets"]:
            if target["address"] not in looked_up:  # one ip route get per address
                looked_up[target["address"]] = action.route_get(target["address"], json_ok)
            used, error = looked_up[target["address"]]
            out["endpoints"].append(endpoint_route_facts(target, used, routes, error, network))
        found = find_uplinks(network, routes, preferred_device, metered)
        if counters:
            read, out["uplinks_note"] = link_counters(action)
            found = [dict(uplink, **read.get(uplink["device"], {"rx_bytes": None, "tx_bytes": None})) for uplink in found]
        out["uplinks"] = found
        out["metered_unmatched"] = metered_unmatched(network, found, metered)
    if preferred_uplink:
        out["preferred_uplink_device"] = preferred_device
    return out


def gather_endpoint_routes(action, facts, args):
    """The ``endpoint_routes`` reading's gather: ``read_endpoint_routes`` on the uci network and the WireGuard
    interfaces (the readings it uses), with the options ``preferred_uplink`` and ``metered_uplinks``."""
    return read_endpoint_routes(action, facts["network"], facts["wireguard"]["interfaces"], args["preferred_uplink"],
                                args["metered_uplinks"])


def endpoint_routes_reading(network, wireguard) -> Reading:
    """The ``endpoint_routes`` reading (OpenWrt only): ``endpoint_lookup_steps``, the byte counters and the hook probe (its SHA-256), gathered by
    ``gather_endpoint_routes``, which uses the ``network`` and ``wireguard`` readings given (faults/readings.py's
    NETWORK and WIREGUARD, shared with other faults). faults/readings.py builds ``ENDPOINT_ROUTES`` with it: this
    module importing readings.py would be a cycle (readings.py lists ENDPOINT_ROUTES in ORDER, and the udp_gro
    reading needs it)."""
    return Reading("endpoint_routes", {
        "openwrt": Read(steps=(*endpoint_lookup_steps(), step_of(LINK_COUNTERS), step_of(HOOK_PROBE)), gather=gather_endpoint_routes,
                        uses=(network, wireguard)),
    })
