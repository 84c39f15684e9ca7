#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``path_mtu_ladder`` action (plugins/action/path_mtu_ladder.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: path_mtu_ladder
short_description: Measure each WireGuard tunnel's path MTU with don't-fragment ping ladders (python-free)
version_added: 0.5.0
description:
  - For every WireGuard peer with an endpoint, bisects the largest don't-fragment ping that gets through outside the
    tunnel (to the endpoint, up to the uplink's MTU) and inside it (to the far tunnel address, up to the tunnel's MTU),
    and returns the record the PMTU fault (C(path_mtu_black_hole), docs/faults.md) reads.
  - What to probe comes from the host's facts as the fault's rule sees them (O(view)); the far tunnel address is the
    peer's one host address in its AllowedIPs, else O(hub_address) where the peer's AllowedIPs hold it.
  - All ladders run one after another in ONE remote execution (a POSIX sh script on the shell's standard input), so
    at most 1000 / RV(interval_ms) echo requests per second leave the host. The output is split and parsed on the
    controller; a ladder that cannot be read (nothing answered, no ping, a stray message) is recorded as invalid with
    the reason, never a failure of the task.
  - Works on OpenWrt without Python (BusyBox C(ping), whose probes carry DF up to the route's MTU and whose
    fragmentation the ladder sees in C(/proc/net/snmp)) and on Linux with iputils C(ping -M do). Changes nothing.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  view:
    description:
      - The host's view as the fault registry's rules read it, C(hostvars[inventory_hostname] | tunnelfix.fleet.host_view)
        after playbooks/facts.yml registered the facts (tunnels, their peers and endpoints, every device's MTU).
    type: dict
    required: true
  hub_address:
    description:
      - The hub's tunnel address (C(tunnelfix_tunnel_address) of the host's C(tunnelfix_tunnel_hub)), the far tunnel
        address of a peer whose AllowedIPs are a subnet or everything. Unset, such a peer's inner ladder does not run.
    type: str
  phase:
    description: The record's phase; verify's rules read only C(after), diagnose's C(before).
    type: str
    required: true
    choices: [before, after]
  interval_ms:
    description:
      - Least pause between two pings, ms (0-10000); 200 is 5 echo requests per second, a fifth of banIP's default 25/s.
      - Lengthened to C(1000 / (limit x 0.2)) ms where the router's loaded banIP ICMP limit needs it (500 ms at 10/s), the
        pacing of the banIP fault's own probe.
      - Where C(sleep) takes whole seconds only and there is no C(usleep) (OpenWrt's BusyBox) the pause is rounded up to 1 s.
    type: int
    default: 200
  timeout_s:
    description: Seconds each ping waits for its reply, 1-60.
    type: int
    default: 1
  attempts:
    description: Pings per size while they are lost without an answer, 1-5 (a chance loss is not taken for the size).
    type: int
    default: 2
  ping_command:
    description: The ping to run; C(busybox ping) where C(ping) is not BusyBox's but its probe is wanted.
    type: str
    default: ping
    choices: [ping, busybox ping]
attributes:
  check_mode:
    support: full
    details: Runs in check mode too; it is a measurement and changes nothing.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - Needs a POSIX shell and C(ping) (BusyBox or iputils) on the target; nothing is written there.
  - A ladder takes about 11 pings; one over a black hole up to about 25 s (40 s where the pause is 1 s), two per peer.
seealso:
  - module: tunnelfix.fleet.ping_burst
  - name: PMTU black hole (fault 6)
    description: The fault this measures, its rule and its evidence (plugins/plugin_utils/faults/path_mtu/).
    link: https://github.com/WireGuard/wireguard-linux/blob/master/drivers/net/wireguard/socket.c
"""

EXAMPLES = r"""
- name: Measure the path MTU of every tunnel of this host
  tunnelfix.fleet.path_mtu_ladder:
    view: "{{ hostvars[inventory_hostname] | tunnelfix.fleet.host_view }}"
    hub_address: "{{ hostvars[tunnelfix_tunnel_hub].tunnelfix_tunnel_address | default(omit) }}"
    phase: before
  register: ladders

- name: Keep the record for the rules (faults/view.py reads path_mtu_measure_record)
  ansible.builtin.set_fact:
    path_mtu_measure_record: "{{ ladders.record }}"
"""

RETURN = r"""
record:
  description:
    - The measurement the PMTU rule reads as C(view.path_mtu) - C(phase), C(interval_ms), C(ladders_run) and
      C(tunnels), one entry per tunnel and peer with an endpoint (C(interface), C(public_key), C(endpoint),
      C(uplink_device), C(uplink_mtu_bytes), C(tunnel_mtu_bytes), C(outer_family), C(inner_target)).
    - Each entry's C(outer) and C(inner) - the parsed ladder (C(path_mtu_bytes), C(largest_passing_payload_bytes),
      C(at_high_bound), C(reported_mtu_bytes), C(pings_sent), C(probes), C(tool), C(invalid)) - or null where that
      ladder could not run, with C(outer_note) / C(inner_note) saying why (no MTU known for the link, no far tunnel address).
    - A ladder with C(invalid) set (a reason) measured nothing; its sizes are null.
  returned: success
  type: dict
  sample:
    phase: before
    interval_ms: 200
    ladders_run: 2
    tunnels:
      - interface: wg0
        endpoint: 203.0.113.10
        tunnel_mtu_bytes: 1420
        outer_family: 4
        inner_target: 10.77.0.1
        outer: {path_mtu_bytes: 1400, largest_passing_payload_bytes: 1372, pings_sent: 13, invalid: null}
        inner: {path_mtu_bytes: 1340, largest_passing_payload_bytes: 1312, pings_sent: 12, invalid: null}
interval_ms:
  description: The pause between pings asked of the script, ms (O(interval_ms), lengthened for banIP's limit).
  returned: success
  type: int
  sample: 200
banip_limit_per_second:
  description: The router's loaded banIP ICMP limit the pause was fitted to; null without one (or not a router).
  returned: success
  type: int
  sample: 25
cmd:
  description: The command that ran (the script itself is left out); null when no ladder could run and nothing ran.
  returned: success
  type: str
  sample: "sh <PMTU ladder script: 2 ladders>"
stderr:
  description: What the script printed on stderr outside the ladders, when anything.
  returned: when not empty
  type: str
"""
