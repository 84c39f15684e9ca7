#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``health_check_window`` action (plugins/action/health_check_window.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: health_check_window
short_description: Watch banIP's ICMP flood counter and mwan3's failed checks over a passive window (python-free)
version_added: 0.2.0
description:
  - Sends nothing. Reads the router's clock and banIP's counters (C(nft list counters table inet banIP)),
    sleeps O(window_s), reads both again, then mwan3track's messages in the system log
    (C(logread -t -e mwan3track)), all in one remote execution.
  - Returns how much banIP's ICMP flood counter (C(cnt_icmpflood), older C(cnt-icmpflood)) grew in the
    window, and the failed checks, lost pings and disconnecting/offline events mwan3track logged in
    it. Growth with failed checks in a window the measurement sent nothing in is the router's own
    ICMP traffic (mwan3 tracking, a monitoring pinger) overflowing banIP's limit, not the measurement.
  - An action plugin; works on OpenWrt without Python. Never reports changed.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  window_s:
    description: Seconds to watch, 1-600. The task takes this long (plus one round trip).
    type: int
    default: 30
attributes:
  check_mode:
    support: full
    details: Runs in check mode too; it is a measurement and changes nothing.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - Needs C(date), C(sleep), C(nft) and OpenWrt's (ubox) C(logread), which has C(-t) and C(-e). Without nft or
    without banIP's table the growth is null (RV(icmp_counter_note) says why); with a logread that lacks C(-t)
    or C(-e) (BusyBox's), or whose lines are not in ubox logread's shape, the mwan3 counts are null
    (RV(mwan3_log_note) says why). None of these fails the task.
  - banIP's reload recreates its table and resets the counter; a counter that went back gives a null growth.
  - The log's times are whole seconds; a message in the second the window started counts.
seealso:
  - module: tunnelfix.fleet.ping_burst
  - module: tunnelfix.fleet.openwrt_facts
  - name: mwan3track's log messages
    description: The messages counted (openwrt/packages net/mwan3).
    link: https://github.com/openwrt/packages/blob/master/net/mwan3/files/usr/sbin/mwan3track
"""

EXAMPLES = r"""
- name: Watch banIP's ICMP flood counter and mwan3's checks for 30 s
  tunnelfix.fleet.health_check_window:
    window_s: 30
  register: window

- name: Show what the router's own ICMP traffic did
  ansible.builtin.debug:
    msg: >-
      {{ window.icmp_flood_growth_packets }} ICMP packets dropped in {{ window.measured_s }} s,
      {{ window.mwan3_failed_checks }} failed mwan3 checks
"""

RETURN = r"""
window_s:
  description: The window asked for, seconds.
  returned: success
  type: int
  sample: 30
measured_s:
  description: The window by the router's clock (end - start), seconds.
  returned: success
  type: int
  sample: 30
started_epoch_s:
  description: The router's clock at the start (C(date +%s)).
  returned: success
  type: int
  sample: 1796033900
ended_epoch_s:
  description: The router's clock at the end.
  returned: success
  type: int
  sample: 1796033930
icmp_counter_name:
  description: banIP's ICMP flood counter (C(cnt_icmpflood), or C(cnt-icmpflood) before banIP 1.5.0); null without one.
  returned: success
  type: str
  sample: cnt_icmpflood
icmp_counter_start_packets:
  description: The counter at the start, packets; null without one.
  returned: success
  type: int
  sample: 152
icmp_counter_end_packets:
  description: The counter at the end, packets; null without one.
  returned: success
  type: int
  sample: 170
icmp_flood_growth_packets:
  description: ICMP packets banIP dropped in the window (end - start); null when not read at both ends or reset.
  returned: success
  type: int
  sample: 18
icmp_counter_note:
  description: Why the growth is null (nft not installed, banIP's table not loaded, banIP reloaded in the window); else null.
  returned: success
  type: str
  sample: null
mwan3_failed_checks:
  description: mwan3track's C(Check (...) failed for target ...) messages in the window; null without a usable logread.
  returned: success
  type: int
  sample: 2
mwan3_lost_pings:
  description: The pings mwan3track's C(Lost N ping(s) on interface ...) messages in the window name; null as above.
  returned: success
  type: int
  sample: 2
mwan3_offline_events:
  description: mwan3track's C(Interface ... is disconnecting) and C(... is offline) messages in the window; null as above.
  returned: success
  type: int
  sample: 0
mwan3_failed_interfaces:
  description: The mwan3 interfaces those messages name, sorted.
  returned: success
  type: list
  elements: str
  sample: [wan]
mwan3_log_note:
  description: Why the mwan3 counts are null (logread not installed, failed, or printed lines not in its shape); else null.
  returned: success
  type: str
  sample: null
cmd:
  description: The command that ran (the script itself is left out).
  returned: success
  type: str
  sample: "sh -c '<health_check_window: 30 s passive window>'"
"""
