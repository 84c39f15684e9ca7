#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``tunnel_facts`` action (plugins/action/tunnel_facts.py); no module code."""

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
  - C(bridges) also reads C(ethtool -k) of every tunnel device and the TCP MSS clamping rules of
    C(nft list ruleset) and C(iptables-save) (every table), and says per tunnel whether a clamp covers
    the SYNs forwarded into it and out of it. A missing C(nft) or C(iptables-save), or one that refuses
    (not root), is reported in C(mss_clamp_sources), never a failure.
  - C(udp_gro) - the kernel release (C(uname -r)), forwarding, the tunnels, the NIC the default routes leave
    through (for a full tunnel, the NIC that carries the tunnel's endpoint) and its UDP GRO features from
    C(ethtool -k); bridges and default-route NICs share one C(ethtool -k) per device. Without C(ethtool) the
    features are null and C(note) says why.
  - C(link_mtu) - every device's MTU from the C(ip -d -j link show) listing C(bridges) reads (no command of its own).
  - C(link_ipv6) - the live IPv6 addresses of every device that is up, from C(ip -j addr show) (all families, so a
    device without IPv6 is listed too); the PMTU fault decides from it whether IPv6 runs inside a tunnel (the 1280 floor).
  - C(link_addresses) - every address of every device that is up, all families, from the same C(ip -j addr show)
    listing (no command of its own); the tunnel graph compares the connected prefixes with the peers' AllowedIPs.
  - C(tcp) also reads every sysctl file the boot applies (the C(*.conf) of the sysctl.d directories
    and C(/etc/sysctl.conf)) and works out, per key, the value and the file and line that win at boot.
    Lines the boot rejects (a C(#) after a value, which is not a comment there; a key this kernel or
    namespace lacks; a line that is no assignment) come back as warnings, never as a failure.
  - Results go to C(ansible_facts.tunnelfix).
  - Python is not needed on the target. Every command of the requested subsets runs in one shell
    script, one remote execution per call; the output is parsed on the controller.
  - Private and preshared keys are never returned and never cross the connection - the target
    replaces them in C(wg show all dump) before printing (C(-vvv) logs show raw output).
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
      - Which parts to gather. C(all) or any of C(wireguard), C(routes), C(tcp), C(netns),
        C(bridges), C(udp_gro), C(link_mtu), C(link_ipv6),
        C(link_addresses).
      - Prefix a name with C(!) to leave it out, for example C(['all', '!routes']).
      - C(routes) needs C(wireguard) to know the endpoints; asking for C(routes) gathers
        WireGuard peers too. C(udp_gro) needs C(routes) (a full tunnel's NIC is its endpoint's) and gathers it.
    type: list
    elements: str
    default: [all]
notes:
  - Needs root for C(wg show), and C(sh), C(mktemp) and C(cat) on the target.
  - Hosts without C(wg) report C(wireguard.available=false). Handshake ages are computed from
    the target's own clock.
  - Supports check mode; never changes anything.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
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
label:
  description: The I(label) option, as given.
  returned: when I(label) is given
  type: str
  sample: after
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
            C(has_preshared_key), C(preshared_key_fingerprint) (16 hex digits, the salted sha256 of the peer's
            preshared key made on the host, see O(fingerprint_salt); null without one or when not read),
            C(endpoint), C(endpoint_host), C(endpoint_port), C(allowed_ips),
            C(latest_handshake_epoch) (null when never), C(handshake_age_s) (null when never),
            C(handshake_state) (never/fresh/aging/stale), C(persistent_keepalive_s) (null when
            off), C(rx_bytes), C(tx_bytes); C(sampled_at_epoch), the target's clock when C(wg) was read (Unix
            seconds; null without C(wg)), which a second reading of the counters is compared with
            (M(tunnelfix.fleet.wireguard_counters)). C(configs) - one per wg-quick file and .netdev (C(path), C(kind),
            C(interface), C(addresses), C(peers)) with C(configured_public_key), the public key of the file's own
            private key as C(wg pubkey) derives it on the host (null when not known - no C(wg), no private key;
            the private key never leaves the host). C(preshared_key_salt_id) - 8 hex digits naming the salt the
            fingerprints were made with, never the salt (null when no fingerprint was read - no C(sha256sum), C(wg)
            failing).
          type: dict
          sample:
            available: true
            sampled_at_epoch: 1767225600
            preshared_key_salt_id: 5d41c3a2
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
                    preshared_key_fingerprint: null
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
            C(tcp_bbr_available), C(tcp_bbr_loadable_module) (bools); what sets the keys
            M(tunnelfix.fleet.tcp_tuning) manages again at boot - C(sysctl_dropins) (dict, every sysctl.d file
            and C(/etc/sysctl.conf) that sets one of them, path to key to value as written) and C(tcp_bbr_module_files)
            (list, the modules-load.d and OpenWrt C(/etc/modules.d) files that load tcp_bbr); and what the boot
            does with every sysctl file, whatever key it sets - C(sysctl_boot) with C(applied_by)
            (C(systemd-sysctl) when systemd booted the host, else C(sysctl --system)), C(files) (applied, in
            order: by file name across /etc, /run, /usr/local/lib, /usr/lib and /lib C(sysctl.d), then
            C(/etc/sysctl.conf) without systemd), C(masked) (file to the file of its name read instead),
            C(links) (symlink to target), C(effective) (per key the C(value) the boot leaves and the C(file)
            and C(line) that set it) and C(warnings) (C(file), C(line), C(key), C(reason) - C(inline_comment),
            C(absent_key), C(not_an_assignment) - and C(message), lines the boot rejects).
          type: dict
        netns:
          description: >-
            C(child_netns) (bool, the host-level sysctls are missing: container or LXC),
            C(container) (what systemd-detect-virt or marker files say, or null).
          type: dict
        bridges:
          description:
            - C(ip_json) (bool, C(ip -d -j link show) worked; false gives no bridges and no
              tunnels), C(ethtool_installed) (bool, null when there is neither a bridge nor a tunnel), C(ip_forward)
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
            - Each tunnel also has C(features), C(gso_tso_gro) and C(ethtool_error) as a bridge does, and
              C(mss_clamp) - C(to_tunnel) (a rule clamps the TCP SYNs forwarded into it - C(oifname)) and
              C(from_tunnel) (out of it - C(iifname)), each true, false (every installed tool read, no rule
              applies) or null (unknown - no nft and no iptables-save, not root, a named set).
            - C(mss_clamp_rules) - every clamping rule found - C(source) (C(nft) or C(iptables)), C(line),
              C(chain), C(hook) (null for a regular chain), C(mss) (C(pmtu) or bytes), C(oifname) and C(iifname)
              (lists of C(op) C(==)/C(!=) and C(names), null for a named set). C(mss_clamp_sources) - C(nft) and
              C(iptables) each C(read), C(not installed), or why not (the exit code and the first line of stderr, such as C(rc=4) and C(Permission denied)).
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
              tailscale0:
                kind: tun
                mtu: 1280
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
            - What the UDP GRO forwarding finding and its role read, one shape on both platforms -
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
"""
