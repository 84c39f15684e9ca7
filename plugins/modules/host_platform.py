#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``host_platform`` action (plugins/action/host_platform.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: host_platform
short_description: Tell an OpenWrt router from another Linux host (python-free)
version_added: 0.1.0
description:
  - Runs C(ls -1d /etc/openwrt_release) on the target (the file OpenWrt's base-files install) and returns
    RV(platform), C(openwrt) when it exists, else C(linux).
  - Each fixing role runs it once and picks its OpenWrt or Linux tasks by its own registered result. No host
    fact is set; on ansible-core 2.21 a fact shared by the roles was read back with another host's value
    when the roles came from a looped C(include_role).
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
  register: my_role_platform

- name: Run the platform's tasks
  ansible.builtin.include_tasks: "{{ my_role_platform.platform }}.yml"
"""

RETURN = r"""
platform:
  description: C(openwrt) when C(/etc/openwrt_release) exists, else C(linux).
  returned: success
  type: str
  sample: openwrt
"""
