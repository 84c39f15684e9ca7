#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``wg_live_keepalive`` action (plugins/action/wg_live_keepalive.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: wg_live_keepalive
short_description: Set PersistentKeepalive on running WireGuard peers with wg set (python-free), with a diff
version_added: 0.2.0
description:
  - Reads the running WireGuard state once (C(wg show all dump), private and preshared keys replaced on the target)
    and, for each peer in O(peers) whose keepalive differs from O(persistent_keepalive_s), runs
    C(wg set IFACE peer KEY persistent-keepalive N) - all of them in one more remote execution.
  - Changes only the running interface; the configuration (uci, wg-quick, networkd) is the caller's. No ifup,
    no restart, the tunnel stays up.
  - Check mode reads the same state and reports the same plan, C(changed) and diff, and runs no C(wg set).
  - Python is not needed on the target (OpenWrt); used by the C(wireguard_keepalive) role there.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  peers:
    description: The running peers to set, each by its interface and public key.
    type: list
    elements: dict
    required: true
    suboptions:
      interface:
        description: The WireGuard interface (device name).
        type: str
        required: true
      public_key:
        description: The peer's public key (44 base64 characters).
        type: str
        required: true
  persistent_keepalive_s:
    description: Seconds between keepalives, 1-65535; C(0) turns them off.
    type: int
    required: true
notes:
  - Needs C(wg) (wireguard-tools) and root on the target. Without C(wg) nothing is set; every peer reads
    C(interface-down) and C(note) says why.
  - A peer whose interface is not running (C(interface-down)) or that the interface does not have
    (C(peer-not-live)) is reported, never an error; the configuration applies at the next ifup.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: One line per peer it sets, C(IFACE peer KEY persistent-keepalive VALUE), before and after.
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Keepalive 25 s on the running peer for the hub
  tunnelfix.fleet.wg_live_keepalive:
    peers:
      - interface: wg0
        public_key: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
    persistent_keepalive_s: 25
"""

RETURN = r"""
peers:
  description: One entry per requested peer, in order.
  returned: success
  type: list
  elements: dict
  contains:
    interface:
      description: The interface.
      type: str
    public_key:
      description: The peer's public key.
      type: str
    before:
      description: The running keepalive in seconds, null when off or unknown.
      type: int
    after:
      description: The keepalive after the change (set only), null for off.
      type: int
    status:
      description: C(set) (set, or in check mode would be), C(unchanged), C(peer-not-live) or C(interface-down).
      type: str
  sample: [{"interface": "wg0", "public_key": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "before": null, "after": 25, "status": "set"}]
note:
  description: Why the running state could not be read (no C(wg), no running interface), else null.
  returned: success
  type: str
"""
