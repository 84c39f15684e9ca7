#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``wg_endpoint_route`` action (plugins/action/wg_endpoint_route.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: wg_endpoint_route
short_description: Unpin WireGuard endpoint host routes on OpenWrt (split tunnels), python-free
version_added: 0.1.0
description:
  - Reads C(uci show network), C(wg show all dump) (keys replaced on the router), C(ip -j route show table all)
    (its text form where C(ip) has no C(-j)) and C(ip route get) for every peer endpoint with the same readers
    as M(tunnelfix.fleet.openwrt_facts), and plans on the controller, with no Python on the router. The
    endpoints are the facts' too - a peer's live endpoint, else its uci C(endpoint_host) when that is an IP
    address - so a peer set up by hostname, or one that roamed, is fixed at the address netifd pinned; a
    hostname with no live endpoint is listed under C(unresolved) and skipped.
  - What changes, per interface (RV(interfaces)) - a split tunnel gets C(nohostroute=1) where it is unset and
    every pinned host route (a /32 or /128 that is not the kernel's, any table) to its endpoints deleted,
    except one a C(config route) section asks for (the user's, listed under C(kept_routes)); a full tunnel keeps
    its routes and loses an existing C(nohostroute). Nothing changes when C(nohostroute) is set and no pinned
    route is left. The role then brings a changed interface up again with an automatic rollback, and for a full
    tunnel installs the mwan3 hotplug script that re-points the endpoint's host route when mwan3 switches uplinks.
  - netifd installs its own host route and a user's C(config route) alike (C(proto static)), so uci tells them
    apart - a kernel route is the user's when a C(config route) (C(route6)) section has its destination prefix
    (C(target), C(netmask)) and, where the section names them, its C(gateway), C(metric) (else its interface's),
    C(table) and the device of its C(interface). Every section whose target holds an endpoint is listed under
    C(user_routes); the one that carries the endpoint once netifd's routes are gone (the most specific installed
    route of the main table) is listed under C(conflicts) when it leaves through another device than
    O(preferred_uplink)'s - kept all the same, the user's to change.
  - When every uplink (RV(uplinks) - the preferred uplink and every device with a default route in the main
    table, WireGuard interfaces left out) is named in O(metered_uplinks) and something would change, nothing
    changes and RV(refused) says why; the action does not fail, the role does. A name of O(metered_uplinks) that
    is no uplink's interface or device gives a warning (a modem interface's device is named at run time - list the
    device, C(wwan0)).
  - One remote execution when nothing changes, two when something does. All reads run in one POSIX sh
    script (BusyBox ash, dash, bash) framed by marker lines; the endpoint addresses for C(ip route get)
    (every uci C(endpoint_host) and every live endpoint) are listed by the same script. C(uci show) redacts secret
    values on the router, so not even C(-vvv) holds a key. When something must change (and not in
    check mode) a second script runs the uci commands, C(uci commit network), the route deletions and
    the C(ip route get) after them. It stops at the first command that fails, which is reported.
    The scripts need C(mktemp -d) and a writable C(/tmp).
  - "Split tunnel (the routed allowed IPs hold neither every IPv4 nor every IPv6 address, as C(0.0.0.0/0), C(::/0),
    C(0.0.0.0/1)+C(128.0.0.0/1) or four C(/2) would, and no routed prefix contains an endpoint - a peer's live
    endpoint where the router knows one, else its uci one, as M(tunnelfix.fleet.openwrt_facts) classifies it):
    sets C(network.<wg>.nohostroute=1), commits C(network), and deletes each
    pinned host route to an endpoint with C(ip route del <dst>/32 via <gw> dev <dev>) (C(ip -6 ... /128) for IPv6), matched exactly
    by destination, gateway and device (and table). Host routes asked for by a C(config route) section are kept."
  - "Full tunnel: refuses nohostroute (the tunnel's own packets would be routed into it, a routing loop),
    says so in C(warnings), removes an existing C(nohostroute=1), deletes no route, and lists the
    endpoints in RV(full_tunnel_endpoints) for an mwan3 hotplug script."
  - Does not bring the interface up again; the C(tunnelfix.fleet.openwrt_mwan3_wg) role does.
  - Endpoint hostnames are not resolved; they are listed in C(unresolved) and skipped.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - tunnelfix.fleet.uci_commit
options:
  interfaces:
    description: WireGuard interface names (uci sections with C(proto wireguard)). Empty means all of them. An unknown name fails.
    type: list
    elements: str
    default: []
  preferred_uplink:
    description:
      - Logical interface (C(wan), resolved to its C(device)) or device name whose route should carry the endpoints; returned as
        RV(preferred_device). A value that is not an interface or device name fails before any command runs.
    type: str
  connection_address:
    description: Address Ansible connects to; sets C(over_tunnel) per interface when it is inside the tunnel's addresses or routed allowed_ips.
    type: str
  metered_uplinks:
    description:
      - Uplinks paid by volume - logical interfaces (C(wanb), resolved to their device) or device names. When every
        uplink is one of them, no uplink is picked for the endpoints (see RV(refused)). A name that is not an
        interface or device name fails before any command runs.
    type: list
    elements: str
    default: []
  full_tunnel_hotplug:
    description:
      - Whether the role installs its full-tunnel hotplug hook (C(/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint)).
        Only decides RV(hotplug_hook); this action never writes the hook.
    type: bool
    default: true
    version_added: 0.6.0
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - Needs C(uci) and C(ip) (iproute2 or BusyBox) on the target.
"""

EXAMPLES = r"""
- name: Unpin the endpoint host routes of every WireGuard interface
  tunnelfix.fleet.wg_endpoint_route:
    preferred_uplink: wan
  register: wg_routes
"""

RETURN = r"""
interfaces:
  description:
    - Per interface the decision. C(delete_routes) are netifd's pinned host routes, C(kept_routes) the host routes a
      C(config route) section asks for, C(user_routes) every such section whose target holds an endpoint (with the
      kernel route it C(installed), null when none), C(conflicts) the one per endpoint that still sends it through
      another device than the preferred uplink's (C(section), C(target), C(interface), C(dev), C(gateway),
      C(message), C(endpoint)).
  returned: always
  type: dict
  sample:
    wg0:
      tunnel: split
      reason: null
      nohostroute: false
      endpoints: [203.0.113.10]
      unresolved: []
      delete_routes: [{dst: 203.0.113.10, gateway: 198.51.100.1, dev: wwan0, table: main, protocol: static, metric: 20}]
      kept_routes: [{dst: 203.0.113.10, gateway: 192.0.2.1, dev: eth1, table: main, protocol: static, metric: 30}]
      user_routes:
        - section: wg_endpoint
          target: 203.0.113.10/32
          interface: wan
          gateway: 192.0.2.1
          metric: 30
          table: null
          installed: {dst: 203.0.113.10, gateway: 192.0.2.1, dev: eth1, table: main, protocol: static, metric: 30}
          endpoint: 203.0.113.10
      conflicts: []
      over_tunnel: false
      changed: true
      refused: null
commands:
  description: The uci and ip commands run (or that would run in check mode).
  returned: always
  type: list
  elements: str
  sample: ["uci set network.wg0.nohostroute=1", "ip route del 203.0.113.10/32 via 198.51.100.1 dev wwan0"]
wireguard_interfaces:
  description: Every C(proto wireguard) interface of /etc/config/network, whether handled or not (no route may lead into one).
  returned: always
  type: list
  elements: str
  sample: [wg0, wg1]
full_tunnel_endpoints:
  description: Endpoints of full tunnels, whose host route must be kept and re-pointed on uplink changes.
  returned: always
  type: list
  elements: dict
  sample: [{interface: wg1, endpoint: 203.0.113.55}]
hotplug_hook:
  description:
    - The full-tunnel hotplug hook - its C(path), whether it C(exists) and its C(sha256) (C(sha256sum) of the file; both
      null when the read failed, C(sha256) null when it is absent), the C(endpoints) it re-points (the handled full
      tunnels' IPv4 endpoints, each once), its C(content) (the text the role writes, null when the hook is not wanted),
      and what the role does with it. C(install) when O(full_tunnel_hotplug) is on, C(endpoints) is not empty and the
      router's hook is not C(content) - C(install_reason) says why (C(hotplug hook missing), C(hotplug hook differs),
      C(hotplug hook unknown)); C(remove) when it is not wanted (no handled full tunnel, none with an IPv4 endpoint, or
      O(full_tunnel_hotplug) off) and may exist; C(stale) says why it is not wanted (null when it is, or when a full
      tunnel's endpoint is unknown and the hook is kept). C(old_path) is where an earlier version installed it (which
      mwan3 never runs), C(old_exists) whether a file is there (null unknown), C(remove_old) whether the role removes it.
  returned: always
  version_added: 0.6.0
  type: dict
  sample: {path: /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint, exists: true,
           sha256: 97029a11afe0d1e22a84f892289068096897cb9c43e9184496888a2dc4ed62ae, endpoints: [], content: null,
           install: false, install_reason: null, remove: true, stale: no full tunnel left,
           old_path: /etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint, old_exists: false, remove_old: false}
endpoint_routes:
  description: What C(ip route get <endpoint>) returns after the change (null when there is no route).
  returned: always
  type: dict
  sample: {203.0.113.10: {dev: eth1, gateway: 192.0.2.1}}
preferred_device:
  description: Device of O(preferred_uplink), null when not given.
  returned: always
  type: str
  sample: eth1
uplinks:
  description:
    - The router's uplinks - the preferred uplink's device first, then every device with a unicast default route in
      the main table that is not a WireGuard interface - with the uci interface that owns the device (null when none
      does) and whether it is in O(metered_uplinks). Null when there is no endpoint address to look up (no route is
      read), as in the C(endpoint_routes) facts of M(tunnelfix.fleet.openwrt_facts).
  returned: always
  type: list
  elements: dict
  sample:
    - {interface: wan, device: eth1, preferred: true, metered: false}
    - {interface: wanb, device: wwan0, preferred: false, metered: true}
refused:
  description:
    - Why nothing was changed although something would have - every uplink is metered, so no uplink is picked for
      the endpoints. Null otherwise.
  returned: always
  type: str
  sample: null
committed:
  description: Whether C(uci commit network) ran.
  returned: always
  type: bool
routes_source:
  description: The command the routes were read with; null when there is no endpoint address to look up.
  returned: always
  type: str
  sample: ip -j route show table all
"""
