#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``ping_burst`` action (plugins/action/ping_burst.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: ping_burst
short_description: Send a burst of one-shot pings like mwan3 health checks and count the failures (python-free)
version_added: 0.1.0
description:
  - Sends O(count) rounds of one-shot pings (C(ping -c 1 -W timeout)), one to each of O(targets) per
    round, O(interval_ms) apart, all in the background, then waits for each and counts replies.
    This is the traffic shape of mwan3track checking several uplinks and targets - echo replies
    arrive in short bursts.
  - A shared ICMP rate limit on the WAN side, such as banIP's C(limit rate over <ban_icmplimit>/second)
    (token bucket of 5 packets, counter C(cnt_icmpflood)), drops the replies above it; mwan3 then
    counts healthy uplinks as failing. With banIP's default 25/s and pings 10 ms apart about half
    of them fail; with C(ban_icmplimit=250) none do (measured in the lab, lab/README.md).
  - An action plugin running one C(sh -c) script over the connection; works on OpenWrt without
    Python and on any Linux host with C(ping). Never reports changed.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  targets:
    description:
      - Addresses (or host names) to ping, typically the mwan3 C(track_ip) of every uplink.
      - Only send this to hosts that expect it; it is a short burst, not a flood.
    type: list
    elements: str
    required: true
  count:
    description: Rounds; each round pings every target once. At most 1000 pings in all.
    type: int
    default: 10
  interval_ms:
    description: Pause between two pings in milliseconds (0-10000); 10 means 100 pings per second.
    type: int
    default: 10
  timeout_s:
    description: Seconds each ping waits for its reply (C(ping -W)), 1-60.
    type: int
    default: 1
  max_failed:
    description: Fail the task when RV(failed_pings) is above this. Unset, only measure.
    type: int
attributes:
  check_mode:
    support: full
    details: Runs in check mode too; it is a measurement and changes nothing.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - Needs a POSIX shell and C(ping) (BusyBox or iputils); C(usleep) is used when present, else C(sleep) with a fraction.
  - C(ping) exit status 1 (no reply, and BusyBox's C(bad address)) counts as lost, 2 or more as an error; both are failed.
seealso:
  - module: tunnelfix.fleet.openwrt_facts
  - name: banIP ICMP flood limit vs mwan3 (shared case 05)
    description: The fault this measures.
    link: https://github.com/openwrt/packages/tree/master/net/banip
"""

EXAMPLES = r"""
- name: Send mwan3-like health checks to both uplinks' track IPs
  tunnelfix.fleet.ping_burst:
    targets: [100.64.10.1, 100.64.20.1]
    count: 10
    interval_ms: 10
  register: burst

- name: Fail when any health-check ping is lost
  tunnelfix.fleet.ping_burst:
    targets: "{{ mwan3_track_ips }}"
    max_failed: 0
"""

RETURN = r"""
sent:
  description: Pings sent.
  returned: success
  type: int
  sample: 20
replied:
  description: Pings answered within O(timeout_s).
  returned: success
  type: int
  sample: 10
lost:
  description: Pings without a reply (exit status 1).
  returned: success
  type: int
  sample: 10
errors:
  description: Pings that could not be sent (exit status 2 or more, e.g. network unreachable).
  returned: success
  type: int
  sample: 0
failed_pings:
  description: Pings that failed, RV(lost) + RV(errors); what mwan3track would count as failed checks.
  returned: success
  type: int
  sample: 10
targets:
  description: The counts per target.
  returned: success
  type: dict
  sample: {"100.64.10.1": {"sent": 10, "replied": 4, "lost": 6, "errors": 0}}
interval_ms:
  description: The pause between pings that was used, ms; O(interval_ms) rounded up to whole seconds on a target whose
    C(sleep) takes no fraction and that has no C(usleep) (OpenWrt's BusyBox).
  returned: success
  type: int
  sample: 10
rate_per_second:
  description: Pings per second during the burst (1000 / interval_ms); null for 0 ms.
  returned: success
  type: float
  sample: 100.0
cmd:
  description: The command that ran (the script itself is left out).
  returned: success
  type: str
  sample: sh -c <ping burst script>
"""
