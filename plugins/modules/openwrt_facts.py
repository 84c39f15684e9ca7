#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``openwrt_facts`` action (plugins/action/openwrt_facts.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: openwrt_facts
short_description: Gather banIP, mwan3, WireGuard, bridge and endpoint-route facts on OpenWrt, python-free
version_added: 0.1.0
description:
  - Reads what tunnelfix needs to diagnose banIP's ICMP flood limit eating mwan3's ping health
    checks, with plain commands over the connection. No Python is needed on the router; this is
    an action plugin and the output is parsed on the controller.
  - One remote execution per call, whatever O(gather_subset) is. Every command the requested
    subsets need runs in one POSIX sh script (BusyBox ash, dash, bash), which prints each
    command's output, error output and exit code between marker lines. The markers hold a random
    value that is new for every call, so no command output can forge one. The shell only runs the
    commands; all decisions (which tool is there, JSON or text, what failed) are made on the controller
    from the collected output. Names only the router knows come from two small loops in the same
    script. One loop runs C(ethtool -k) for every bridge and bridge port in
    C(/sys/class/net/*/bridge) and C(/sys/class/net/*/brif/*). The other runs C(ip -j route get)
    and C(ip route get) for every endpoint address in the uci C(endpoint_host) values and the live
    dump. Only a result the script did not produce (an endpoint address or a device the shell did not
    list) is read with a command of its own. The script needs C(mktemp -d) and a writable C(/tmp).
  - Commands whose output holds secrets redact on the router, inside the script. C(uci -q show)
    replaces secret option values and C(wg show all dump) replaces private and preshared keys
    before anything is printed. So not even C(-vvv), which shows the raw output, holds a key.
  - C(banip) - whether banIP is installed (C(ls -1d /etc/init.d/banip)), its version (C(apk list --installed banip)
    or C(opkg list-installed banip)), its global uci settings (C(uci -q show banip)), the
    effective C(ban_icmplimit) (the version's default when unset - 10 before banIP 1.5.3, 25
    from 1.5.3), and from C(nft -tj list table inet banIP) (terse, without the sets' elements, as banIP
    lists it; text C(nft -t list) when nft has no JSON) the ICMP flood counter (C(cnt_icmpflood), or C(cnt-icmpflood) before banIP 1.5.0) and the
    limit rule that feeds it.
  - C(mwan3) - interface status (C(mwan3 interfaces)) and each interface's tracking settings
    (C(uci -q show mwan3)).
  - C(wireguard) - every C(proto wireguard) interface and its peers from C(uci -q show network),
    merged with the live state of C(wg show all dump) (run as C(sh -c 'date +%s; exec wg show all dump')
    so handshake ages use the router's clock). Peers are matched by public key; full-tunnel
    detection is the one C(wg_endpoint_route) uses. Without C(wg) or a live interface the uci view
    is returned with a C(note), not a failure.
  - C(endpoint_routes) - for each peer endpoint (the live one from C(wg), else a uci C(endpoint_host)
    that is an IP literal, C([v6]:port) accepted) the route C(ip -j route get) picks (device,
    gateway, source) and every pinned non-kernel host route (/32, /128) to it in C(ip -j route
    show table all), apart from the C(config route) sections of uci whose target holds it (the user's routes;
    netifd installs both alike, C(proto static)). Text C(ip route) is used when C(ip) has no C(-j). Hostnames
    without a live endpoint are listed as unresolved (no DNS lookup). Also the uplinks (the preferred one and
    every device with a default route in the main table), which are metered (O(metered_uplinks)) and their
    byte counters from C(ip -s -j link show), and whether the full-tunnel hook of C(tunnelfix.fleet.openwrt_mwan3_wg)
    exists (C(ls -1d /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint)).
  - C(bridges) - every bridge and its ports from C(ip -d -j link show) and each device's offload
    features from C(ethtool -k DEV) (ports first, then the bridge), C([fixed]) marked; the
    layer-3 tunnel devices (WireGuard, TUN in tun mode, GRE, IPIP, SIT, VTI, ...) from the same
    output and C(net.ipv4.ip_forward), read in the same round trip
    (C(sh -c 'cat /proc/sys/net/ipv4/ip_forward 2>/dev/null || echo; exec ip -d -j link show')).
    C(ethtool -k) of every tunnel device and the TCP MSS clamping rules of C(nft list ruleset) (firewall4's
    C(mtu_fix) zones) and C(iptables-save) come in the same execution; a missing tool or one that refuses
    is reported in C(mss_clamp_sources), never a failure.
  - C(link_mtu) - every device's MTU from the C(ip -d -j link show) listing C(bridges) reads (no command of its own).
  - C(link_ipv6) - the live IPv6 addresses of every device that is up, from C(ip -j addr show) (all families, so a
    device without IPv6 is listed too); the PMTU fault decides from it whether IPv6 runs inside a tunnel (the 1280 floor).
  - C(link_addresses) - every address of every device that is up, all families, from the same C(ip -j addr show)
    listing (no command of its own); the tunnel graph compares the connected prefixes with the peers' AllowedIPs.
  - Each command runs at most once per call; C(uci -q show network) and C(wg) are shared by
    C(wireguard) and C(endpoint_routes). C(ethtool -k) runs once per bridge, port and tunnel.
    The text forms (C(nft list), C(ip route show)) are read only when the JSON ones do not work.
    C(ip) missing or without C(-j) gives C(ip_json=false) and a C(note), not a failure.
  - Results go to C(ansible_facts.tunnelfix_openwrt). Secret uci options (keys, passwords) are
    redacted by the parsers; WireGuard private and preshared keys are never returned, only
    C(private_key_set) and C(preshared_key_set). A missing tool (no banIP, no mwan3, no nft) is reported as not
    installed, never a failure.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
  - tunnelfix.fleet.facts_label
  - tunnelfix.fleet.fingerprint_salt
options:
  gather_subset:
    description:
      - Which parts to gather. C(all) or any of C(banip), C(mwan3), C(wireguard), C(bridges),
        C(endpoint_routes), C(udp_gro), C(link_mtu), C(link_ipv6),
        C(link_addresses).
      - C(udp_gro) gathers C(endpoint_routes) too (a full tunnel's NIC is the one that carries its endpoint).
      - Prefix a name with C(!) to leave it out, for example C(['all', '!mwan3']).
    type: list
    elements: str
    default: [all]
  preferred_uplink:
    description:
      - The uplink WireGuard endpoints should use. Either a logical interface (C(wan), resolved to
        its uci C(device)) or a device name. When given, the C(endpoint_routes) subset also returns
        C(preferred_uplink_device), the same value M(tunnelfix.fleet.wg_endpoint_route) returns as
        C(preferred_device), from the C(network) config this call already read. A value that is not an
        interface or device name fails before anything runs.
    type: str
  metered_uplinks:
    description:
      - Uplinks paid by volume - logical interfaces (C(wanb), resolved to their uci C(device)) or device names.
        The C(endpoint_routes) subset marks them C(metered) in its C(uplinks). A name that is not an interface or
        device name fails before anything runs.
    type: list
    elements: str
    default: []
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
notes:
  - Needs only a POSIX shell, C(uci) and the BusyBox applets every OpenWrt has (C(mktemp), C(cat),
    C(ls), C(sed), C(awk), C(sort); C(sha256sum) and C(cut) for the preshared key fingerprints) on the target;
    C(nft), C(mwan3), C(apk), C(opkg), C(wg),
    C(ip) (iproute2, C(ip-full)) and C(ethtool) are used when present.
  - Never changes anything; runs the same in check mode.
seealso:
  - module: tunnelfix.fleet.uci
  - module: tunnelfix.fleet.wg_endpoint_route
  - module: tunnelfix.fleet.bridge_offload
"""

EXAMPLES = r"""
- name: Gather banIP and mwan3 facts
  tunnelfix.fleet.openwrt_facts:

- name: Only banIP
  tunnelfix.fleet.openwrt_facts:
    gather_subset: [banip]

- name: Only the tunnel view (WireGuard, endpoint routes, bridges)
  tunnelfix.fleet.openwrt_facts:
    gather_subset: [wireguard, endpoint_routes, bridges]

- name: Endpoint routes and the device of the preferred uplink, in the same remote execution
  tunnelfix.fleet.openwrt_facts:
    gather_subset: [endpoint_routes]
    preferred_uplink: wan

- name: Endpoints that do not leave through the preferred uplink
  ansible.builtin.debug:
    msg: "{{ item.address }} leaves through {{ item.dev }}, not {{ __routes.preferred_uplink_device }}"
  loop: "{{ __routes.endpoints }}"
  when: item.dev != __routes.preferred_uplink_device
  vars:
    __routes: "{{ ansible_facts.tunnelfix_openwrt.endpoint_routes }}"

- name: Peers whose last handshake is older than 3 minutes
  ansible.builtin.debug:
    msg: "{{ item.public_key }} ({{ item.description }}) {{ item.live.handshake_age_s }} s"
  loop: "{{ ansible_facts.tunnelfix_openwrt.wireguard.interfaces.wg0.peers }}"
  when: item.live is not none and (item.live.handshake_age_s is none or item.live.handshake_age_s > 180)

- name: Show the effective ICMP limit and the flood counter
  ansible.builtin.debug:
    msg: >-
      ban_icmplimit {{ ansible_facts.tunnelfix_openwrt.banip.icmplimit_per_second }}/s
      ({{ ansible_facts.tunnelfix_openwrt.banip.icmplimit_source }}),
      dropped {{ ansible_facts.tunnelfix_openwrt.banip.icmp_counter.packets | default('n/a') }} packets
"""

RETURN = r"""
label:
  description: The I(label) option, as given.
  returned: when I(label) is given
  type: str
  sample: after
ansible_facts:
  description: Facts under the C(tunnelfix_openwrt) key.
  returned: always
  type: dict
  contains:
    tunnelfix_openwrt:
      description: Everything gathered, one key per subset.
      type: dict
      contains:
        banip:
          description:
            - C(installed) (bool). When false every other key is null (C(settings) is empty).
            - C(version), C(upstream_version) (null when no package manager lists banIP),
              C(icmplimit_default_per_second) (the version's default, 10 or 25; null when the
              version is unknown).
            - C(enabled) (false only for C(banip.global.ban_enabled '0'), the one value banIP refuses to
              start with; true for any other value or none; null without a banip config), C(ban_icmplimit) (as set in
              uci, null when unset), C(icmplimit_per_second) (effective, packets per second; 0 is
              off), C(icmplimit_source) (C(uci), C(default) or null), C(settings) (all options of
              C(banip.global), secrets redacted).
            - C(nft_installed) (bool), C(nft_table_loaded) (bool, null without nft),
              C(icmp_counter) (C(name), C(packets), C(bytes); null when the table is not loaded),
              C(icmp_limit_rule) (C(rate_per_second), C(burst_packets), C(counter) of the first rule, C(rules) - 2
              for banIP before 1.5.3, one rule per family; C(rates_per_second) every rule's limit in rule order;
              null when absent).
          type: dict
          sample:
            installed: true
            version: 1.8.12-r1
            upstream_version: 1.8.12
            icmplimit_default_per_second: 25
            enabled: true
            ban_icmplimit: null
            icmplimit_per_second: 25
            icmplimit_source: default
            settings: {ban_enabled: "1", ban_autodetect: "1", ban_feed: [cinsscore, firehol1]}
            nft_installed: true
            nft_table_loaded: true
            icmp_counter: {name: cnt_icmpflood, packets: 152, bytes: 12748}
            icmp_limit_rule: {rate_per_second: 25, burst_packets: 5, counter: cnt_icmpflood, rules: 1, rates_per_second: [25]}
        mwan3:
          description:
            - C(installed) (bool, the C(mwan3) command exists).
            - C(interfaces), by name, from C(mwan3 interfaces) (23.05's and 24.10+'s line formats) -
              C(format) (C(23.05), C(24.10+), or null where the line fits both), C(status) (23.05 - mwan3's
              routing state online/offline, error, disabled; 24.10+ - mwan3track's online, offline,
              connecting, disconnecting, disabled, unknown), C(tracking) (active, paused, down, not enabled
              (23.05) or disabled (24.10+)), C(hotplug_state) (mwan3's routing state online/offline where
              printed), C(online_s) (since mwan3track last declared the uplink online), C(offline_s) (never
              printed by mwan3, always null), C(uptime_s) (netifd's), C(error_code) (mwan3's missing-rules
              number, 0 nothing missing, null not checked or not told) and C(missing) (what it names -
              ip_rule_iif, ip_rule_fwmark, ip_rule_unreachable, iptables_iface_in_chain,
              table_default_route); null when not printed.
            - C(tracking), by name, from uci - C(enabled), C(family), C(track_method), C(track_ip)
              (list), C(reliability), C(count), C(timeout_s), C(interval_s),
              C(failure_interval_s), C(recovery_interval_s), C(down), C(up); null when unset
              (mwan3 then uses its defaults - ping, count 1, interval 10 s).
          type: dict
          sample:
            installed: true
            interfaces:
              wan: {format: 24.10+, status: online, tracking: active, hotplug_state: online, online_s: 8049,
                    offline_s: null, uptime_s: 8200, error_code: null, missing: []}
              wanb: {format: 24.10+, status: offline, tracking: active, hotplug_state: null, online_s: null,
                     offline_s: null, uptime_s: null, error_code: 4, missing: [ip_rule_unreachable]}
            tracking:
              wan:
                enabled: true
                family: ipv4
                track_method: ping
                track_ip: [1.0.0.1, 1.1.1.1]
                reliability: 2
                count: 2
                timeout_s: 1
                interval_s: 1
                failure_interval_s: null
                recovery_interval_s: null
                down: 3
                up: 3
        wireguard:
          description:
            - C(wg_installed) (bool), C(live) (bool, some interface is live), C(note) (why the view
              is uci only, or null), C(sampled_at_epoch) (the router's clock when the live state was read, Unix
              seconds; null when it was not read), which a second reading of the counters is compared with
              (M(tunnelfix.fleet.wireguard_counters)). C(preshared_key_salt_id) - 8 hex digits naming the salt the
              preshared key fingerprints were made with, never the salt (null when none was read - no C(sha256sum),
              C(wg) failing).
            - C(interfaces), by name - C(in_uci), C(live) (bools), C(proto), C(disabled),
              C(private_key_set) (bool; the key itself is never returned), C(listen_port),
              C(mtu) (int or null), C(addresses) (list), C(nohostroute) (bool), C(options) (every
              uci option except secret ones, as strings), C(tunnel) (C(full) or C(split)),
              C(tunnel_reason), C(live_state) (C(public_key), C(has_private_key), C(listen_port),
              C(fwmark); null when not live), C(configured_public_key) (the public key of the uci
              private_key as C(wg pubkey) derives it on the router; null when not known - no C(wg), unset; the
              private key never leaves the router), C(peers).
            - Each peer - C(public_key), C(section) (as uci show prints it), C(description),
              C(disabled), C(preshared_key_set), C(endpoint_host), C(endpoint_port),
              C(allowed_ips), C(route_allowed_ips), C(persistent_keepalive_s) (uci; null when unset
              or 0), C(in_uci), C(full_tunnel) (bool), C(full_tunnel_reason), C(live) (null when
              the kernel does not know the peer - C(endpoint), C(endpoint_host), C(endpoint_port),
              C(allowed_ips), C(latest_handshake_epoch), C(handshake_age_s), C(handshake_state)
              (never, fresh, aging, stale), C(persistent_keepalive_s), C(rx_bytes), C(tx_bytes),
              C(has_preshared_key), C(preshared_key_fingerprint) - 16 hex digits, the salted sha256 of the peer's
              preshared key made on the router, see O(fingerprint_salt); null without one or when not read).
              Live-only peers come last with null uci keys.
          type: dict
          sample:
            wg_installed: true
            live: true
            note: null
            sampled_at_epoch: 1767225600
            interfaces:
              wg0:
                in_uci: true
                live: true
                proto: wireguard
                disabled: false
                private_key_set: true
                configured_public_key: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
                listen_port: 51820
                mtu: null
                addresses: [10.77.0.2/24]
                nohostroute: false
                options: {proto: wireguard, listen_port: "51820", addresses: 10.77.0.2/24}
                tunnel: split
                tunnel_reason: null
                live_state:
                  public_key: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
                  has_private_key: true
                  listen_port: 51820
                  fwmark: null
                peers:
                  - public_key: BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=
                    section: "@wireguard_wg0[0]"
                    description: site-b
                    disabled: false
                    preshared_key_set: false
                    endpoint_host: 203.0.113.10
                    endpoint_port: 51820
                    allowed_ips: [10.77.0.0/24, 192.168.20.0/24]
                    route_allowed_ips: true
                    persistent_keepalive_s: 25
                    in_uci: true
                    full_tunnel: false
                    full_tunnel_reason: null
                    live:
                      endpoint: 203.0.113.10:51820
                      endpoint_host: 203.0.113.10
                      endpoint_port: 51820
                      allowed_ips: [10.77.0.0/24, 192.168.20.0/24]
                      latest_handshake_epoch: 1767225571
                      handshake_age_s: 29
                      handshake_state: fresh
                      persistent_keepalive_s: 25
                      rx_bytes: 48213344
                      tx_bytes: 9120448
                      has_preshared_key: false
        endpoint_routes:
          description:
            - C(routes_source) (the route listing command, null when no endpoint was looked up),
              C(unresolved) (peers with only a hostname - C(interface), C(public_key), C(section),
              C(endpoint_host)).
            - C(endpoints), one per peer endpoint - C(interface), C(public_key), C(section),
              C(address), C(port), C(address_source) (C(live) or C(uci)), from C(ip route get)
              C(dev), C(gateway), C(src), C(table), the matched route's C(route_dst),
              C(route_protocol), C(route_metric), C(static_host_route) (bool, a non-kernel /32 or
              /128 to the address exists), C(pinned_routes) (the host routes no C(config route) section asks
              for, netifd's - each C(dst), C(gateway), C(dev), C(table), C(protocol), C(metric); any table),
              C(user_routes) (each C(config route) section whose target holds the address, most specific first -
              C(section), C(target), C(interface), C(gateway), C(metric), C(table), and the kernel route it
              C(installed), null when none), C(error) (why C(ip route get) found no route, else null).
            - C(uplinks) (null when no endpoint was looked up) - the preferred uplink's device first, then every
              device with a unicast default route in the main table that is not a WireGuard interface, each with
              C(interface) (the uci interface owning it, else null), C(device), C(preferred), C(metered) (named in
              O(metered_uplinks)), C(rx_bytes) and C(tx_bytes) (the kernel's counters since the device came up,
              null when unknown); C(uplinks_note) says why the counters are unknown (an C(ip) without C(-s -j)),
              else null; C(metered_unmatched) the names of O(metered_uplinks) that are no uplink's interface or
              device (a modem interface's device is named at run time - list the device, C(wwan0)).
            - C(hotplug_hook_exists) - whether the full-tunnel hook of C(tunnelfix.fleet.openwrt_mwan3_wg)
              (C(/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint)) exists, null when C(sha256sum) could not tell;
              C(hotplug_hook_sha256) its SHA-256 (null when absent or unknown), so remediate's plan can tell a
              converged hook from one to rewrite; C(old_hotplug_hook_exists) whether the file an earlier version left
              in C(/etc/hotplug.d/mwan3/) is there (null unknown). Read even when no endpoint is looked up (a hook left
              from a full tunnel that is gone re-pins the endpoint).
            - C(preferred_uplink_device) (only when O(preferred_uplink) is given) - the device of
              the preferred uplink. For a logical interface it is its uci C(device) (or C(ifname)),
              else the value itself.
          type: dict
          sample:
            routes_source: ip -j route show table all
            preferred_uplink_device: eth1
            unresolved:
              - interface: wg0
                public_key: EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE=
                section: dc
                endpoint_host: dc.example.net
            endpoints:
              - interface: wg0
                public_key: BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=
                section: "@wireguard_wg0[0]"
                address: 203.0.113.10
                port: 51820
                address_source: live
                dev: wwan0
                gateway: 198.51.100.1
                src: 198.51.100.20
                table: main
                route_dst: 203.0.113.10
                route_protocol: static
                route_metric: 20
                static_host_route: true
                pinned_routes:
                  - {dst: 203.0.113.10, gateway: 198.51.100.1, dev: wwan0, table: main, protocol: static, metric: 20}
                user_routes: []
                error: null
            uplinks:
              - {interface: wan, device: eth1, preferred: true, metered: false, rx_bytes: 1838, tx_bytes: 1838}
              - {interface: wanb, device: wwan0, preferred: false, metered: true, rx_bytes: 21468, tx_bytes: 21468}
            uplinks_note: null
            metered_unmatched: []
            hotplug_hook_exists: false
            hotplug_hook_sha256: null
            old_hotplug_hook_exists: false
        bridges:
          description:
            - C(ip_json) (bool, C(ip -d -j link show) worked; false gives no bridges and no
              tunnels), C(ethtool_installed) (bool, null when there is neither a bridge nor a tunnel), C(ip_forward)
              (int from C(/proc/sys/net/ipv4/ip_forward), null when unreadable), C(note) (why
              something is unknown, else null).
            - C(bridges), by name - C(mtu) (bytes), C(operstate), C(stp), C(vlan_filtering) (bools,
              null when not printed), C(ports) by name (C(kind), C(mtu), C(operstate),
              C(port_state)), and on the bridge and every port C(features) (every C(ethtool -k)
              feature as C(on), C(off), C(on [fixed]) or C(off [fixed])), C(gso_tso_gro) (C(on) -
              changeable and on, C(on_fixed), C(off)), C(ethtool_error) (null unless C(ethtool -k)
              failed); null features without ethtool.
            - C(tunnels), by name, the layer-3 tunnel devices of the same C(ip -d -j link show) -
              C(kind) (C(wireguard), C(tun), C(gre), C(ip6gre), C(ipip), C(sit), C(ip6tnl), C(vti),
              C(vti6), C(xfrm), C(gtp), C(bareudp), C(ovpn); a TAP device is layer 2 and not
              listed), C(mtu) (bytes), C(operstate) (C(UP), C(UNKNOWN) - up, for drivers that never
              report carrier such as WireGuard - C(DOWN), ...).
            - Each tunnel also has C(features), C(gso_tso_gro) and C(ethtool_error) as a bridge does, and
              C(mss_clamp) - C(to_tunnel) (a rule clamps the TCP SYNs forwarded into it - C(oifname)) and
              C(from_tunnel) (out of it - C(iifname)), each true, false (every installed tool read, no rule
              applies) or null (unknown - no nft and no iptables-save, not root, a named set).
            - C(mss_clamp_rules) - every clamping rule found - C(source) (C(nft) or C(iptables)), C(line),
              C(chain), C(hook) (null for a regular chain), C(mss) (C(pmtu) or bytes), C(oifname) and C(iifname)
              (lists of C(op) C(==)/C(!=) and C(names), null for a named set). C(mss_clamp_sources) - C(nft) and
              C(iptables) each C(read), C(not installed), or why not (the exit code and the first line of stderr, such as C(rc=4) and C(Permission denied)).
            - The same shape as the C(bridges) subset of M(tunnelfix.fleet.tunnel_facts) on Linux.
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
                    features: {generic-receive-offload: "off", rx-checksumming: "on"}
                    gso_tso_gro:
                      "on": [generic-segmentation-offload, tcp-segmentation-offload]
                      on_fixed: []
                      "off": [generic-receive-offload]
                    ethtool_error: null
            tunnels:
              wg0:
                kind: tun
                mtu: 1420
                operstate: UP
                features: {tcp-segmentation-offload: "on", generic-segmentation-offload: "on"}
                gso_tso_gro:
                  "on": [generic-segmentation-offload, tcp-segmentation-offload, generic-receive-offload]
                  on_fixed: []
                  "off": []
                ethtool_error: null
                mss_clamp: {to_tunnel: false, from_tunnel: false}
            mss_clamp_rules:
              - source: nft
                line: 147
                chain: inet fw4 mangle_postrouting
                hook: postrouting
                mss: pmtu
                oifname: [{op: "==", names: [wan]}]
                iifname: []
            mss_clamp_sources: {nft: read, iptables: not installed}
        udp_gro:
          description:
            - What the UDP GRO forwarding finding and its role read, the same shape as the C(udp_gro) subset of
              M(tunnelfix.fleet.tunnel_facts) -
              C(kernel_release) (C(uname -r)) and C(kernel_version) ([major, minor, patch], null when unknown),
              C(ip_forward) (int, null when unreadable), C(tunnels) (as in C(bridges); null when C(ip -d -j link show)
              failed), C(ethtool_installed) (null without a NIC to ask about), C(note) (what is unknown and why, else null).
            - C(nics), the NICs the default routes leave through - per family the main table's unicast default with the
              lowest metric (a multipath default - each next hop); a default through a tunnel (a full tunnel) gives the
              device of the route to that tunnel's endpoint instead (C(through_tunnel) names the tunnel). Each with
              C(device), C(families) (C(inet), C(inet6)), C(gateways) (family to gateway, null when on-link),
              C(features) (C(rx-udp-gro-forwarding), C(rx-gro-list), C(generic-receive-offload) as C(on), C(off),
              C(on [fixed]) or C(off [fixed]); null when not read) and C(ethtool_error).
          type: dict
          sample:
            kernel_release: 6.6.73
            kernel_version: [6, 6, 73]
            ip_forward: 1
            tunnels:
              tailscale0: {kind: tun, mtu: 1280, operstate: UNKNOWN}
            nics:
              - device: eth0
                families: [inet]
                gateways: {inet: 192.0.2.1}
                through_tunnel: null
                features: {rx-udp-gro-forwarding: "off", rx-gro-list: "off", generic-receive-offload: "on"}
                ethtool_error: null
            ethtool_installed: true
            note: null
        link_mtu:
          description:
            - Every device's MTU (bytes) from C(ip -d -j link show), the listing C(bridges) reads (one run for both) -
              C(devices) (device name to MTU; null when C(ip) failed or printed no JSON) and C(note) (why, else null).
              The PMTU fault reads the tunnels' and the uplinks' MTU from it.
          type: dict
          sample:
            devices: {lo: 65536, eth0: 1500, wg0: 1420}
            note: null
        link_ipv6:
          description:
            - The live IPv6 addresses of every device that is up, from C(ip -j addr show) - C(devices) (device name to
              its C(inet6) addresses as C(address/prefix), link-local ones too, an empty list for a device without IPv6;
              a device that is down is left out, the kernel drops its IPv6 addresses; null when C(ip) failed or printed
              no JSON, then unknown, never "no IPv6") and C(note) (why, else null).
            - The PMTU fault reads a tunnel's from it - an IPv6 address other than link-local (or an IPv6 prefix in a
              peer's AllowedIPs) keeps the MTU it sets at 1280 or more; for a device it does not list, the configured
              addresses decide (uci, a wg-quick file's C(Address =)).
          type: dict
          sample:
            devices: {lo: ["::1/128"], eth0: ["fd00::2/64", "fe80::fc:ff:fe00:1/64"], wg0: []}
            note: null
        link_addresses:
          description:
            - Every address of every device that is up, from the C(ip -j addr show) listing C(link_ipv6) reads (one run
              for both) - C(devices) (device name to its C(inet) and C(inet6) addresses as C(address/prefix), link-local
              ones too; a device that is down is left out; null when C(ip) failed or printed no JSON, then unknown) and
              C(note) (why, else null).
            - The tunnel graph's C(allowed_ips_shadow_lan) reads the connected prefixes from it, C(endpoint_address_mismatch) the addresses
              a peer's endpoint should be one of.
          type: dict
          sample:
            devices: {lo: ["127.0.0.1/8", "::1/128"], eth0: ["192.168.1.2/24", "fe80::fc:ff:fe00:1/64"], wg0: ["10.77.0.2/24"]}
            note: null
cmd:
  description: >-
    The command that failed, as it was meant (C(mwan3 interfaces), C(uci -q show banip)), also
    when it ran inside the one script. When the script as a whole failed or its output was cut
    short, it is C(sh -c '<openwrt_facts: N commands in one script>').
  returned: failure
  type: str
rc:
  description: Exit code of the command that failed.
  returned: failure
  type: int
stderr:
  description: Standard error of the command that failed.
  returned: failure
  type: str
"""
