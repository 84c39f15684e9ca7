#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``openwrt_facts`` action (plugins/action/openwrt_facts.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: openwrt_facts
short_description: Gather banIP and mwan3 facts on OpenWrt, python-free
version_added: 0.1.0
description:
  - Reads what tunnelfix needs to diagnose banIP's ICMP flood limit eating mwan3's ping health
    checks, with plain commands over the connection. No Python is needed on the router; this is
    an action plugin and the output is parsed on the controller.
  - C(banip) - whether banIP is installed (C(/etc/init.d/banip)), its version (C(apk list --installed banip)
    or C(opkg list-installed banip)), its global uci settings (C(uci -q show banip)), the
    effective C(ban_icmplimit) (the version's default when unset - 10 before banIP 1.5.3, 25
    from 1.5.3), and from C(nft -j list table inet banIP) (text C(nft list) when nft has no JSON)
    the ICMP flood counter (C(cnt_icmpflood), or C(cnt-icmpflood) before banIP 1.5.0) and the
    limit rule that feeds it.
  - C(mwan3) - interface status (C(mwan3 interfaces)) and each interface's tracking settings
    (C(uci -q show mwan3)).
  - Results go to C(ansible_facts.tunnelfix_openwrt). Secret uci options (keys, passwords) are
    redacted by the parsers. A missing tool (no banIP, no mwan3, no nft) is reported as not
    installed, never a failure.
author:
  - tunnelfix.fleet developers
options:
  gather_subset:
    description:
      - Which parts to gather. C(all) or any of C(banip), C(mwan3).
      - Prefix a name with C(!) to leave it out, for example C(['all', '!mwan3']).
    type: list
    elements: str
    default: [all]
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
  - Needs only a POSIX shell and C(uci) on the target; C(nft), C(mwan3), C(apk) or C(opkg) are used when present.
  - Never changes anything; runs the same in check mode.
seealso:
  - module: tunnelfix.fleet.uci
"""

EXAMPLES = r"""
- name: Gather banIP and mwan3 facts
  tunnelfix.fleet.openwrt_facts:

- name: Only banIP
  tunnelfix.fleet.openwrt_facts:
    gather_subset: [banip]

- name: Show the effective ICMP limit and the flood counter
  ansible.builtin.debug:
    msg: >-
      ban_icmplimit {{ ansible_facts.tunnelfix_openwrt.banip.icmplimit_per_second }}/s
      ({{ ansible_facts.tunnelfix_openwrt.banip.icmplimit_source }}),
      dropped {{ ansible_facts.tunnelfix_openwrt.banip.icmp_counter.packets | default('n/a') }} packets
"""

RETURN = r"""
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
            - C(enabled) (C(ban_enabled) as a bool, null when unset), C(ban_icmplimit) (as set in
              uci, null when unset), C(icmplimit_per_second) (effective, packets per second; 0 is
              off), C(icmplimit_source) (C(uci), C(default) or null), C(settings) (all options of
              C(banip.global), secrets redacted).
            - C(nft_installed) (bool), C(nft_table_loaded) (bool, null without nft),
              C(icmp_counter) (C(name), C(packets), C(bytes); null when the table is not loaded),
              C(icmp_limit_rule) (C(rate_per_second), C(burst_packets), C(counter), C(rules) - 2
              for banIP before 1.5.3, one rule per family; null when absent).
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
            icmp_limit_rule: {rate_per_second: 25, burst_packets: 5, counter: cnt_icmpflood, rules: 1}
        mwan3:
          description:
            - C(installed) (bool, the C(mwan3) command exists).
            - C(interfaces), by name - C(status) (online, offline, disabled, ...), C(tracking)
              (active, down, not enabled, ...), C(online_s), C(offline_s), C(uptime_s) (null when
              not printed).
            - C(tracking), by name, from uci - C(enabled), C(family), C(track_method), C(track_ip)
              (list), C(reliability), C(count), C(timeout_s), C(interval_s),
              C(failure_interval_s), C(recovery_interval_s), C(down), C(up); null when unset
              (mwan3 then uses its defaults - ping, count 1, interval 10 s).
          type: dict
          sample:
            installed: true
            interfaces:
              wan: {status: online, tracking: active, online_s: 8049, offline_s: null, uptime_s: 8200}
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
cmd:
  description: The command that failed.
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
