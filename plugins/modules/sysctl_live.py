#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Apply kernel parameters to the running kernel key by key and report what could not be set."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sysctl_live
short_description: Set kernel parameters live, key by key, and say which ones this namespace refuses
version_added: 0.1.0
description:
  - For every key, reads the current value from C(/proc/sys), and when it differs
    (whitespace-normalised) runs C(sysctl -w key=value), then reads the value back.
  - Keys must be dotted sysctl names (C(net.ipv4.tcp_rmem)); values must not be empty.
  - A key that cannot be set does not fail the module; it is reported in C(not_applied) with a
    reason (C(absent), C(permission_denied), C(read_only), C(invalid), C(unknown)) and a message
    saying what to do, so a role can persist exactly the values that took effect.
  - Writes nothing to disk; persisting is the caller's job (for example a sysctl.d drop-in
    templated from C(applied)).
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  values:
    description:
      - Kernel parameters to set, a dict of key and value. Values are compared whitespace-normalised.
      - Anything but a dict fails naming the value.
    type: raw
    required: true
attributes:
  check_mode:
    support: full
    details: Reports which keys would change; sets nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Use BBR and larger socket buffers now
  tunnelfix.fleet.sysctl_live:
    values:
      net.ipv4.tcp_congestion_control: bbr
      net.ipv4.tcp_rmem: 4096 131072 33554432
  register: live

- name: Say what could not be set
  ansible.builtin.debug:
    msg: "{{ live.not_applied | map(attribute='message') }}"
"""

RETURN = r"""
applied:
  description: Keys whose value is now in place (already or after this run), with that value.
  returned: always
  type: dict
  sample: {"net.ipv4.tcp_congestion_control": "bbr"}
not_applied:
  description: Keys that could not be set, with C(key), C(value), C(before), C(reason) and C(message).
  returned: always
  type: list
  elements: dict
by_key:
  description: Per key C(before), C(after) (null where absent) and C(status) (C(unchanged), C(changed), or a reason).
  returned: always
  type: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._proc_sys import read_sysctl
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import ALLOWED_KEY
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl_apply import (
    check_values,
    needs_write,
    status_before_write,
    summarize,
    write_status,
)


def main():
    module = AnsibleModule(
        argument_spec={"values": {"type": "raw", "required": True}},  # raw: check_values names a non-dict
        supports_check_mode=True,
    )
    sysctl = module.get_bin_path("sysctl", required=True)
    try:
        values = check_values(module.params["values"])
    except ParseError as exc:
        module.fail_json(msg=str(exc))
    outcomes = []
    for key, value in values.items():
        before = read_sysctl(key)
        status, after = status_before_write(before, value), before
        if needs_write(before, value):
            if module.check_mode:
                after = value
            else:
                rc, _out, err = module.run_command([sysctl, "-w", "%s=%s" % (key, value)])
                after = read_sysctl(key)
                status = write_status(rc, err, after, value, as_root=os.geteuid() == 0)
        outcomes.append((key, value, before, after, status))
    # The namespace's allowed congestion controls: a refused one it already allows is not blamed on that list.
    allowed = (read_sysctl(ALLOWED_KEY) or "").split() or None
    module.exit_json(**summarize(outcomes, allowed))


if __name__ == "__main__":
    main()
