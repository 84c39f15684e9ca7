#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``uci`` action (plugins/action/uci.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: uci
short_description: Set or delete one OpenWrt uci option, python-free
version_added: 0.1.0
description:
  - Changes one option of one section of an OpenWrt uci config, or makes sure a named section
    exists or is gone, with the router's C(uci) command. No Python is needed on the router;
    this is an action plugin that runs C(uci) over the connection and reads its output on the
    controller.
  - Reads the current state with C(uci -q show CONFIG), changes only the option it is given, and
    reports C(changed) only when the value really changes. C(uci show) cannot tell a one-item
    list from a plain option, so both count as equal to the same single value.
  - Runs C(uci set), C(uci delete), C(uci add_list) or C(uci del_list), then C(uci commit CONFIG)
    when something changed and O(commit=true). It does not reload any service.
  - The diff shows the section as C(uci show CONFIG) prints it, with secrets (C(private_key),
    C(preshared_key), C(key), C(password) and similar) replaced by C(<redacted>); a secret that
    changes shows C(<redacted, changed>). Returned commands are redacted the same way.
  - A secret value is written with C(uci batch) reading the command from standard input, never on
    a command line, so it stays out of C(-vvv) logs and the router's process list.
  - Before C(uci commit) it reads the config back, because C(uci batch) exits 0 even when its line fails
    (it only prints the error) and a connection may not pass standard input. A value that did not take
    fails the task naming the option, the value found and the value wanted (secrets shown as
    C(<redacted>)) and what C(uci batch) printed; what the task staged is reverted, nothing is committed.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - tunnelfix.fleet.uci_commit
options:
  config:
    description: The uci config (file in C(/etc/config)), for example C(network) or C(banip).
    type: str
    required: true
  section:
    description:
      - The section, by name (C(wg0)) or as C(@type[N]), the N-th section of that type counting from 0
        (negative counts from the end, C(@wireguard_wg0[-1]) is the last). Named sections count too,
        as uci counts them.
      - A missing named section is created when O(type) is given; anonymous sections are never created.
    type: str
    required: true
  type:
    description:
      - Section type. Creates the named section O(section) with this type when it is missing; fails
        when the section exists with another type. Only with a section name, not C(@type[N]).
    type: str
  option:
    description: The option to change. Without it, O(state=absent) deletes the whole section.
    type: str
  value:
    description:
      - The wanted value, a string (integers are turned into strings) or a list of strings for a uci
        list. Booleans are refused (write C('1') or C('0')), and so is an empty value (use
        O(state=absent)).
      - Required with O(option) when O(state=present); not allowed with O(state=absent).
    type: raw
  state:
    description: C(present) sets the value (or creates the section); C(absent) deletes the option or section.
    type: str
    choices: [present, absent]
    default: present
  list_mode:
    description:
      - C(replace) makes the option exactly O(value) (a list is written with C(uci delete) and C(uci add_list)).
      - C(add_list) adds the items of O(value) that are missing; C(del_list) removes the items of
        O(value) that are present, and deletes the option when none would be left.
    type: str
    choices: [replace, add_list, del_list]
    default: replace
  commit:
    description:
      - Run C(uci commit CONFIG) after a change. With V(false) the change stays staged in C(/tmp/.uci).
      - When CONFIG holds changes someone else staged, see O(commit_staged).
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - Needs only a POSIX shell and the C(uci) command on the target (OpenWrt 19.07 or later).
seealso:
  - name: OpenWrt uci documentation
    description: The uci command-line tool and config format.
    link: https://openwrt.org/docs/guide-user/base-system/uci
"""

EXAMPLES = r"""
- name: Keepalive 25 s on the first WireGuard peer of wg0
  tunnelfix.fleet.uci:
    config: network
    section: "@wireguard_wg0[0]"
    option: persistent_keepalive
    value: "25"

- name: No endpoint host route for split-tunnel wg0
  tunnelfix.fleet.uci:
    config: network
    section: wg0
    option: nohostroute
    value: "1"

- name: Allowed IPs of the peer section dc, as a list
  tunnelfix.fleet.uci:
    config: network
    section: dc
    option: allowed_ips
    value:
      - 10.30.0.3/32
      - 192.168.33.0/24

- name: One more mwan3 tracking address, keeping the others
  tunnelfix.fleet.uci:
    config: mwan3
    section: wan
    option: track_ip
    value: 9.9.9.9
    list_mode: add_list

- name: Drop a static route section
  tunnelfix.fleet.uci:
    config: network
    section: wg_endpoint_backup
    state: absent

- name: A named section created when missing, change staged only
  tunnelfix.fleet.uci:
    config: banip
    section: global
    type: banip
    option: ban_icmplimit
    value: 250
    commit: false
"""

RETURN = r"""
section:
  description: >-
    The section's name as C(uci show CONFIG) prints it (C(@type[N]) for anonymous ones); None when nothing matched with
    O(state=absent).
  returned: always
  type: str
  sample: "@wireguard_wg0[0]"
commands:
  description: The uci commands run (or that would run in check mode), secret values replaced by C(<redacted>).
  returned: always
  type: list
  elements: str
  sample: ["uci set network.@wireguard_wg0[0].persistent_keepalive=25"]
committed:
  description: Whether C(uci commit CONFIG) ran.
  returned: always
  type: bool
  sample: true
cmd:
  description: The command that failed (secret values replaced).
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
