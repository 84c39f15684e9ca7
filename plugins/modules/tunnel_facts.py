#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather WireGuard, endpoint-route, TCP-stack, namespace and bridge/tunnel facts for tunnelfix."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tunnel_facts
short_description: Gather the facts tunnelfix needs to diagnose a slow or dead VPN tunnel
version_added: 0.1.0
description:
  - Reads WireGuard interfaces and peers from C(wg show all dump), the route the kernel uses to
    reach every peer endpoint (C(ip -j route get)) and whether a static host route pins it, the
    default routes, the TCP stack (congestion control in use, available and allowed, default
    qdisc, socket buffer limits, backlog, sch_fq and tcp_bbr availability) and whether the host
    runs in a child network namespace (container, LXC).
  - C(bridges) - every bridge and its ports from C(ip -d -j link show) with each device's offload
    features from C(ethtool -k DEV) (ports first, then the bridge), the layer-3 tunnel devices
    (WireGuard, TUN in tun mode, GRE, IPIP, SIT, VTI, ip6tnl, xfrm, ...) from the same output and
    C(net.ipv4.ip_forward). The same shape as the C(bridges) subset of
    M(tunnelfix.fleet.openwrt_facts). Without C(ethtool) the features are null and C(note) says
    why; that is not a failure.
  - Results go to C(ansible_facts.tunnelfix).
  - Private and preshared keys are never returned; the parser drops them.
author:
  - tunnelfix.fleet developers
options:
  gather_subset:
    description:
      - Which parts to gather. C(all) or any of C(wireguard), C(routes), C(tcp), C(netns),
        C(bridges).
      - Prefix a name with C(!) to leave it out, for example C(['all', '!routes']).
      - C(routes) needs C(wireguard) to know the endpoints; asking for C(routes) gathers
        WireGuard peers too.
    type: list
    elements: str
    default: [all]
notes:
  - Needs root for C(wg show). Hosts without C(wg) report C(wireguard.available=false).
  - Supports check mode; never changes anything.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
"""

EXAMPLES = r"""
- name: Gather everything tunnelfix knows how to read
  tunnelfix.fleet.tunnel_facts:

- name: Only the TCP stack (congestion control, qdisc, buffers)
  tunnelfix.fleet.tunnel_facts:
    gather_subset: [tcp, netns]

- name: Bridges, their offloads, tunnels and forwarding
  tunnelfix.fleet.tunnel_facts:
    gather_subset: [bridges]

- name: Show the handshake age of every peer
  ansible.builtin.debug:
    msg: "{{ item.public_key }} handshake_age_s={{ item.handshake_age_s }}"
  loop: "{{ ansible_facts.tunnelfix.wireguard.interfaces.wg0.peers }}"
"""

RETURN = r"""
ansible_facts:
  description: Facts under the C(tunnelfix) key.
  returned: always
  type: dict
  contains:
    tunnelfix:
      description: Everything gathered, one key per subset.
      type: dict
      contains:
        wireguard:
          description: >-
            C(available) (bool, C(wg) found) and C(interfaces), a dict by interface name with
            C(public_key), C(listen_port), C(fwmark) and C(peers); each peer has C(public_key),
            C(has_preshared_key), C(endpoint), C(endpoint_host), C(endpoint_port), C(allowed_ips),
            C(latest_handshake_epoch) (null when never), C(handshake_age_s) (null when never),
            C(handshake_state) (never/fresh/aging/stale), C(persistent_keepalive_s) (null when
            off), C(rx_bytes), C(tx_bytes).
          type: dict
          sample:
            available: true
            interfaces:
              wg0:
                public_key: HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH=
                listen_port: 51820
                fwmark: null
                peers:
                  - public_key: SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS=
                    endpoint: 192.0.2.77:41862
                    endpoint_host: 192.0.2.77
                    endpoint_port: 41862
                    allowed_ips: [10.20.0.2/32]
                    latest_handshake_epoch: 1767225040
                    handshake_age_s: 560
                    handshake_state: stale
                    persistent_keepalive_s: null
                    has_preshared_key: false
                    rx_bytes: 18222010
                    tx_bytes: 2230911
        routes:
          description: >-
            C(default) (list of default routes: dst, dev, gateway, protocol, table, metric) and
            C(endpoints), a dict by endpoint address with the route used (C(dev), C(gateway),
            C(protocol), C(table), C(metric)), C(static_host_route) (bool) and C(host_route).
          type: dict
        tcp:
          description: >-
            C(congestion_control), C(congestion_control_available),
            C(congestion_control_allowed) (lists), C(default_qdisc) (null where this namespace
            has none), C(tcp_rmem), C(tcp_wmem) (strings "min default max", bytes),
            C(netdev_max_backlog) (packets, null where absent), C(sch_fq_available),
            C(tcp_bbr_available), C(tcp_bbr_loadable_module) (bools).
          type: dict
        netns:
          description: >-
            C(child_netns) (bool, the host-level sysctls are missing: container or LXC),
            C(container) (what systemd-detect-virt or marker files say, or null).
          type: dict
        bridges:
          description:
            - C(ip_json) (bool, C(ip -d -j link show) worked; false gives no bridges and no
              tunnels), C(ethtool_installed) (bool, null when there is no bridge), C(ip_forward)
              (int from C(/proc/sys/net/ipv4/ip_forward), null when unreadable), C(note) (why
              something is unknown, else null).
            - C(bridges), by name - C(mtu) (bytes), C(operstate), C(stp), C(vlan_filtering)
              (bools, null when not printed), C(ports) by name (C(kind), C(mtu), C(operstate),
              C(port_state)), and on the bridge and every port C(features) (every C(ethtool -k)
              feature as C(on), C(off), C(on [fixed]) or C(off [fixed])), C(gso_tso_gro) (C(on) -
              changeable and on, C(on_fixed), C(off)), C(ethtool_error) (null unless C(ethtool -k)
              failed); features null without ethtool.
            - C(tunnels), by name - C(kind) (C(wireguard), C(tun), C(gre), C(ip6gre), C(ipip),
              C(sit), C(ip6tnl), C(vti), C(vti6), C(xfrm), C(gtp), C(bareudp), C(ovpn); a TAP
              device is layer 2 and not listed), C(mtu) (bytes), C(operstate) (C(UP), C(UNKNOWN)
              - up, for drivers that never report carrier - C(DOWN), ...).
          type: dict
          sample:
            ip_json: true
            ethtool_installed: true
            ip_forward: 1
            note: null
            bridges:
              br-lan:
                mtu: 1500
                operstate: UP
                stp: false
                vlan_filtering: false
                features: {generic-segmentation-offload: "on", large-receive-offload: "off [fixed]"}
                gso_tso_gro:
                  "on": [generic-segmentation-offload, tcp-segmentation-offload, generic-receive-offload]
                  on_fixed: []
                  "off": []
                ethtool_error: null
                ports:
                  lan1:
                    kind: veth
                    mtu: 1500
                    operstate: UP
                    port_state: forwarding
                    features: {generic-segmentation-offload: "on", generic-receive-offload: "off"}
                    gso_tso_gro:
                      "on": [generic-segmentation-offload, tcp-segmentation-offload]
                      on_fixed: []
                      "off": [generic-receive-offload]
                    ethtool_error: null
            tunnels:
              tailscale0: {kind: tun, mtu: 1280, operstate: UP}
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._bridges import (
    add_offloads,
    bridges_subset,
    parse_ip_link_bridges,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.module_utils._route import (
    default_routes,
    parse_ip_route_get,
    parse_ip_route_show,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._endpoint_route import (
    describe_endpoint_route,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._proc_sys import PROC_SYS, read_sysctl
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import (
    TCP_FACT_KEYS,
    netns_facts,
    tcp_facts,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._subset import resolve_gather_subset
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tunnel_links import (
    parse_ip_forward,
    parse_ip_link_tunnels,
)

SUBSETS = ("wireguard", "routes", "tcp", "netns", "bridges")


def run(module, argv):
    """Run argv; fail the module with cmd, rc and stderr when it exits non-zero."""
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg="%s failed" % " ".join(argv), cmd=argv, rc=rc, stderr=err)
    return out


def parse_or_fail(module, parser, *args):
    """Call a parser; a ParseError becomes a clean module failure."""
    try:
        return parser(*args)
    except ParseError as exc:
        module.fail_json(msg=str(exc))


def gather_wireguard(module):
    wg = module.get_bin_path("wg")
    if not wg:
        return {"available": False, "interfaces": {}}
    out = run(module, [wg, "show", "all", "dump"])
    parsed = parse_or_fail(module, parse_wg_dump, out, int(time.time()))
    return {"available": True, "interfaces": parsed["interfaces"]}


def gather_routes(module, wireguard):
    ip = module.get_bin_path("ip", required=True)
    routes = parse_or_fail(module, parse_ip_route_show, run(module, [ip, "-j", "route", "show", "table", "all"]))
    endpoints = {}
    for iface in wireguard.get("interfaces", {}).values():
        for peer in iface["peers"]:
            host = peer.get("endpoint_host")
            if not host or host in endpoints:
                continue
            used = parse_or_fail(module, parse_ip_route_get, run(module, [ip, "-j", "route", "get", host]))
            endpoints[host] = describe_endpoint_route(used, routes, host)
    return {"default": default_routes(routes), "endpoints": endpoints}


def module_state(module, name):
    """'builtin', 'loaded', 'module' (loadable, not loaded) or None (kernel lacks it)."""
    if os.path.isdir("/sys/module/%s" % name) and not os.path.exists("/sys/module/%s/initstate" % name):
        return "builtin"
    if os.path.exists("/sys/module/%s/initstate" % name):
        return "loaded"
    modinfo = module.get_bin_path("modinfo")
    if modinfo:
        rc, out, _err = module.run_command([modinfo, "-F", "filename", name])
        if rc == 0:
            return "builtin" if "(builtin)" in out else "module"
    return None


def gather_tcp(module):
    read = {key: read_sysctl(key) for key in TCP_FACT_KEYS}
    return parse_or_fail(module, tcp_facts, read, module_state(module, "tcp_bbr"), module_state(module, "sch_fq"))


def gather_netns(module):
    container = None
    detect = module.get_bin_path("systemd-detect-virt")
    if detect:
        rc, out, _err = module.run_command([detect, "--container"])
        if rc == 0 and out.strip() not in ("", "none"):
            container = out.strip()
    if container is None:
        for marker, name in (("/run/.containerenv", "podman"), ("/.dockerenv", "docker")):
            if os.path.exists(marker):
                container = name
                break
    has_net = os.path.isdir(os.path.join(PROC_SYS, "net", "ipv4"))
    has_host_keys = os.path.exists(os.path.join(PROC_SYS, "net", "core", "default_qdisc"))
    return netns_facts(has_net, has_host_keys, container)


def gather_bridges(module):
    """The ``bridges`` subset (``_bridges.bridges_subset``): no ip or ethtool is reported, not a failure."""
    forward = read_sysctl("net.ipv4.ip_forward")
    ip_forward = None if forward is None else parse_or_fail(module, parse_ip_forward, forward)
    ip = module.get_bin_path("ip")
    if not ip:
        return bridges_subset({}, {}, ip_forward, None, "ip (iproute2) is not installed")
    rc, out, err = module.run_command([ip, "-d", "-j", "link", "show"])
    if rc != 0:
        return bridges_subset({}, {}, ip_forward, None, "rc=%s: %s" % (rc, (err or "no output").strip()[:200]))
    try:
        bridges, tunnels = parse_ip_link_bridges(out), parse_ip_link_tunnels(out)
    except ParseError as exc:
        return bridges_subset({}, {}, ip_forward, None, str(exc)[:200])
    ethtool = module.get_bin_path("ethtool")

    def read_features(device):
        if not ethtool:
            return None
        rc, out, err = module.run_command([ethtool, "-k", device])
        if rc != 0:
            return (err or out or "no output").strip()[:200]
        try:
            return parse_ethtool_features(out)
        except ParseError as exc:
            module.fail_json(msg="cannot read the output of ethtool -k %s: %s" % (device, exc), cmd=[ethtool, "-k", device])

    return bridges_subset(bridges, tunnels, ip_forward, add_offloads(bridges, read_features))


def main():
    module = AnsibleModule(
        argument_spec={"gather_subset": {"type": "list", "elements": "str", "default": ["all"]}},
        supports_check_mode=True,
    )
    try:
        subsets = resolve_gather_subset(module.params["gather_subset"], SUBSETS)
    except ParseError as exc:
        module.fail_json(msg=str(exc))
    facts = {}
    if "wireguard" in subsets or "routes" in subsets:
        facts["wireguard"] = gather_wireguard(module)
    if "routes" in subsets:
        facts["routes"] = gather_routes(module, facts["wireguard"])
    if "tcp" in subsets:
        facts["tcp"] = gather_tcp(module)
    if "netns" in subsets:
        facts["netns"] = gather_netns(module)
    if "bridges" in subsets:
        facts["bridges"] = gather_bridges(module)
    module.exit_json(changed=False, ansible_facts={"tunnelfix": facts})


if __name__ == "__main__":
    main()
