#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``wireguard_counters`` action (plugins/action/wireguard_counters.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: wireguard_counters
short_description: Read the WireGuard peers' live counters again (python-free, Linux and OpenWrt)
version_added: 0.9.0
description:
  - Runs the command the facts run for WireGuard's live state (the target's C(date +%s), then C(wg show all dump) with
    every private and preshared key replaced on the target) and returns, per interface and peer public key, the
    bytes received and sent and the handshake's age, with the target's clock when it was read.
  - The second sample of the counters - C(playbooks/diagnose.yml) runs it, after a wait, on the two ends of every
    tunnel the finding C(handshake_never_completes) would judge from one sample only (both running, listing each
    other, no handshake), and registers it as C(tunnelfix_wireguard_second_sample); the rule compares it with the
    facts' first sample (M(tunnelfix.fleet.tunnel_facts), M(tunnelfix.fleet.openwrt_facts) C(wireguard)).
  - An action plugin running one command over the connection; works without Python on the target (OpenWrt).
    Never reports changed; a missing C(wg) is no failure (C(wg_installed) false).
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  phase:
    description:
      - A word returned as is under C(phase) (C(before) in diagnose), so the findings read only this run's sample.
    type: str
attributes:
  check_mode:
    support: full
    details: Runs in check mode too; it only reads.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - Needs C(wg) (wireguard-tools) and C(date) on the target, and the rights C(wg show) needs (root).
  - The counters add up since each peer entry was created; a restart of the interface sets them back to 0.
"""

EXAMPLES = r"""
- name: Read the counters of both ends again, a few seconds after the facts
  tunnelfix.fleet.wireguard_counters:
    phase: before
  register: tunnelfix_wireguard_second_sample
"""

RETURN = r"""
wg_installed:
  description: Whether C(wg) was found on the target.
  returned: success
  type: bool
  sample: true
sampled_at_epoch:
  description: The target's clock when C(wg) ran (Unix seconds); null when no dump was read.
  returned: success
  type: int
  sample: 1796513334
note:
  description: Why no counters were read (no C(wg), C(wg) failed, no live interface), or null.
  returned: success
  type: str
  sample: null
interfaces:
  description:
    - By interface name, by peer public key - C(rx_bytes), C(tx_bytes) (bytes since the entry was created) and
      C(handshake_age_s) (s; null when never). Empty when nothing was read.
  returned: success
  type: dict
  sample: {"wg0": {"RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR=": {"rx_bytes": 0, "tx_bytes": 444, "handshake_age_s": null}}}
phase:
  description: The C(phase) option as given.
  returned: when C(phase) is given
  type: str
  sample: before
"""
