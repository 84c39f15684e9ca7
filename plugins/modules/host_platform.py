#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``host_platform`` action (plugins/action/host_platform.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: host_platform
short_description: Tell an OpenWrt router from another Linux host (python-free) and set tunnelfix_platform
version_added: 0.1.0
description:
  - Runs C(ls -1d /etc/openwrt_release) on the target (the file OpenWrt's base-files install) and sets the
    host fact C(tunnelfix_platform) to C(openwrt) when it exists, else C(linux).
  - The fixing roles (C(linux_bbr_fq), C(wireguard_keepalive), C(bridge_gso_off)) run it when no role has set
    C(tunnelfix_platform) yet in this run, and pick their OpenWrt or Linux tasks by it.
  - An action plugin running one command over the connection; works without Python on the target.
    Never reports changed.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options: {}
attributes:
  check_mode:
    support: full
    details: Runs in check mode too; it only reads.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - Needs C(ls) on the target (BusyBox or coreutils).
"""

EXAMPLES = r"""
- name: Find out whether the host is an OpenWrt router
  tunnelfix.fleet.host_platform:
  when: tunnelfix_platform is not defined

- name: Run the platform's tasks
  ansible.builtin.include_tasks: "{{ tunnelfix_platform }}.yml"
"""

RETURN = r"""
platform:
  description: C(openwrt) when C(/etc/openwrt_release) exists, else C(linux).
  returned: success
  type: str
  sample: openwrt
ansible_facts:
  description: The same answer as a host fact.
  returned: success
  type: dict
  contains:
    tunnelfix_platform:
      description: C(openwrt) or C(linux).
      type: str
      sample: linux
"""
