# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one route reader of the python-free OpenWrt actions: the finding's facts and the fix see the same routes.

openwrt_facts (fault 1's facts) and wg_endpoint_route (its fix) both read every route with
``ip -j route show table all``, else its text form (an ``ip`` without ``-j``; BusyBox ``ip`` prints
every table too), and the route a packet to an endpoint takes with ``ip [-j] route get ADDRESS``,
in the same form. No other fallback: BusyBox ``route -n`` shows the main table only, where netifd's
pinned /32 may not be, so a fix reading it could miss the route the finding saw.

``RouteReader`` is a mixin for ``OpenWrtActionBase`` subclasses: it reads the steps of
``route_table_steps()`` from the action's batch (``self.batch``), running a missing one on its own.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ipnet import endpoint_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import (
    parse_ip_route_get, parse_ip_route_get_text, parse_ip_route_show, parse_ip_route_show_text)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import foreach_name, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    ROUTE_GET_JSON, ROUTE_GET_TEXT, ROUTES_JSON, ROUTES_TEXT)


def route_table_steps() -> list:
    """The batch steps ``routes_table_all`` reads: both forms (the script cannot ask whether ``-j`` works)."""
    return [step_of(ROUTES_JSON), step_of(ROUTES_TEXT)]


def json_source(command) -> bool:
    """Whether ``routes_table_all``'s command was the ``-j`` form, so lookups use ``ip -j route get`` too."""
    return " -j " in " %s " % command


class RouteReader:
    """``routes_table_all`` and ``route_get`` for an OpenWrtActionBase subclass (``step``, ``batch_step``, ``parse_output``)."""

    def routes_table_all(self):
        """``(routes, command)``: ``ip -j route show table all``, else its text form; routes as parse_ip_route_show gives them.

        A ParseError of the text form fails the action naming the command (``parse_output``).
        """
        res = self.step(ROUTES_JSON, ok_rcs=(0, 1, 255))
        if res["rc"] == 0:
            try:
                return parse_ip_route_show(res["stdout"]), res["cmd"]
            except ParseError:
                pass  # an ip without -j prints text or usage
        res = self.step(ROUTES_TEXT)
        return self.parse_output(res, parse_ip_route_show_text), res["cmd"]

    def route_get(self, address, json_ok):
        """``(route or None, error or None)`` for ``ip [-j] route get ADDRESS``; no route is not a failure.

        ``json_ok``: use the ``-j`` form (``json_source`` of routes_table_all's command). The batch's
        lookups are named by the address the shell printed; an address written differently in uci
        (``fd99:0:0::1``) is matched by its parsed value.
        """
        prefix = ROUTE_GET_JSON if json_ok else ROUTE_GET_TEXT
        batch = self.batch or {}
        name = foreach_name(prefix, address)
        if name not in batch:
            head = foreach_name(prefix, "")
            wanted = endpoint_address(address)
            name = next((key for key in batch if key.startswith(head) and wanted is not None
                         and endpoint_address(key[len(head):]) == wanted), name)
        argv = prefix + [address]
        res = self.batch_step(batch, name, argv, ok_rcs=(0, 1, 2, 255), shown=step_name(argv))
        if res["rc"] != 0:
            return None, (res["stderr"] or "no output").strip()[:200]
        return self.parse_output(res, parse_ip_route_get if json_ok else parse_ip_route_get_text), None
