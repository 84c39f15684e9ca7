# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1, ``endpoint_route_pinned``: the WireGuard endpoint's host route pinned to a backup uplink (OpenWrt + mwan3).

Follow it here, top to bottom, then in roles/openwrt_mwan3_wg/tasks/routes.yml (the role that applies the fix):

- ``fault.py``: ``ENDPOINT_ROUTE_PINNED``, the registry's entry (faults/registry.py): texts, readings, rule, plan.
- ``reads.py``: what it reads on the router (the ``endpoint_routes`` reading: its commands, its steps and its
  gather; faults/readings.py builds ``ENDPOINT_ROUTES`` from it with the shared readings it uses, because the
  udp_gro reading needs it too) and how that becomes facts: which endpoints, each one's routes, the uplinks
  and their byte counters (``link_counters.py``: ``ip -s -j link show`` and its parser).
- ``hook.py``: the role's full-tunnel hotplug hook (its path, its text, which the plan hands the role, and the probe of
  the reading that reads its SHA-256).
- ``tunnels.py``: split or full tunnel (``classify_tunnel``), written into the ``wireguard`` facts by
  ``add_tunnels`` (the shared reading's gather, the fix and the plan call it on the merged view).
- ``routes.py``: netifd's pinned host routes apart from a user's ``config route`` sections, and the conflict
  when a user's route sends the endpoint over another uplink.
- ``uplinks.py``: the uplinks, the preferred one's device, the metered ones, the one check of the options
  naming them (``uplink_option_errors``: openwrt_facts, wg_endpoint_route and the role's option check), and the
  uplink a full tunnel's endpoint route takes (``full_tunnel_uplink``: the rule the role's hotplug hook applies in
  awk on the router, pinned to it by tests/unit/roles/test_openwrt_mwan3_wg_hook.py).
- ``rule.py``: the finding (evidence and explanation) and whether the host could be judged.
- ``plan.py``: the one plan. ``Fault.plan`` (remediate's view) and the wg_endpoint_route action (the fix,
  plugins/action/wg_endpoint_route.py) both call ``plan_endpoint_routes`` on the same facts, which the fix
  builds with the reading's own function (``reads.read_endpoint_routes``).

Shared parsers stay in parse/: routes (``route.py``), uci (``uci.py``), addresses (``ipnet.py``: ``endpoint_address``),
the WireGuard tunnels merged with the live state (``openwrt_wireguard.py``), the route an endpoint
takes (``endpoint_route.py``). The route reader both the facts and the fix use is remote/route_reader.py.

The Fault value is imported from ``fault.py``, not re-exported here: faults/readings.py imports ``reads.py``
(through this package), and ``fault.py`` imports faults/readings.py for the readings it declares. For the same
reason ``reads.py`` imports no reading from faults/readings.py: the uci step it lists comes from remote/uci_reader.py.
"""
