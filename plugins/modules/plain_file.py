#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``plain_file`` action (plugins/action/plain_file.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: plain_file
short_description: Write a text file or a marked block in one, python-free
version_added: 0.1.0
description:
  - Makes a text file hold exactly O(content), or makes it contain O(block) between
    C(# BEGIN MARKER) and C(# END MARKER) lines, keeping the rest of the file. For OpenWrt routers
    without Python; the file is read with C(sh), C(stat) and C(cat), compared on the controller,
    and written only when it differs (new content on standard input, then C(mv) over the file).
  - A block that is already there is replaced in place; a new one goes before the first line matching
    O(insert_before), or at the end of the file.
  - O(state=absent) removes the file in the same single round trip that reads it (the read alone in check mode).
  - Reports C(changed) only when the content or the mode changes, or a file is removed. Check mode and C(--diff) are supported.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  path:
    description: Absolute path of the file. Missing parent directories are created.
    type: str
    required: true
  state:
    description: V(present) writes O(content) or O(block); V(absent) removes the file (then O(content), O(block) and O(mode) must not be set).
    type: str
    choices: [present, absent]
    default: present
  content:
    description: The whole content of the file. Exclusive with O(block). O(content) or O(block) is required with O(state=present).
    type: str
  block:
    description: Lines to keep between the marker lines. Exclusive with O(content).
    type: str
  marker:
    description: Text after C(# BEGIN ) and C(# END ) on the marker lines; one block per marker.
    type: str
    default: tunnelfix.fleet
  insert_before:
    description: Python regular expression; a new block goes before the first matching line (for C(/etc/rc.local) use C(^exit 0)).
    type: str
  mode:
    description: Octal mode as a string, for example C('0755'). Default is the file's current mode, or C(0644) for a new file.
    type: str
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - Needs a POSIX shell with C(stat -c), C(cat), C(chmod), C(mv) and C(mkdir) (BusyBox has them).
"""

EXAMPLES = r"""
- name: Re-apply the offload settings at boot, before exit 0
  tunnelfix.fleet.plain_file:
    path: /etc/rc.local
    block: /usr/sbin/tunnelfix-bridge-offload br-lan
    marker: tunnelfix.fleet bridge_gso_off
    insert_before: "^exit 0"

- name: A hotplug handler
  tunnelfix.fleet.plain_file:
    path: /etc/hotplug.d/iface/99-tunnelfix-gso
    content: |
      [ "$ACTION" = ifup ] && /usr/sbin/tunnelfix-bridge-offload br-lan
    mode: "0644"

- name: No drop-in where no value took effect
  tunnelfix.fleet.plain_file:
    path: /etc/sysctl.d/60-tunnelfix-bbr-fq.conf
    state: absent
"""

RETURN = r"""
path:
  description: The file.
  returned: success
  type: str
  sample: /etc/rc.local
mode:
  description: The file's mode after the task; null with O(state=absent).
  returned: success
  type: str
  sample: "0755"
created:
  description: Whether the file did not exist before.
  returned: success
  type: bool
removed:
  description: Whether the file existed and was removed (would be, in check mode).
  returned: O(state=absent)
  type: bool
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
