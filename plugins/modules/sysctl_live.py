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
  - tunnelfix.fleet developers
options:
  values:
    description: Kernel parameters to set, a dict of key and value. Values are compared whitespace-normalised.
    type: dict
    required: true
attributes:
  check_mode:
    support: full
    details: Reports which keys would change; sets nothing.
  diff_mode:
    support: full
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

import re

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import (
    classify_sysctl_error,
    normalize_sysctl_value,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._proc_sys import read_sysctl
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import explain

# Dotted sysctl names only: no options (-p), no assignments (k=v), no slash form, no "..".
KEY_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)+$")


def main():
    module = AnsibleModule(
        argument_spec={"values": {"type": "dict", "required": True}},
        supports_check_mode=True,
    )
    sysctl = module.get_bin_path("sysctl", required=True)
    applied, not_applied, by_key = {}, [], {}
    changed = False
    before_lines, after_lines = [], []
    for key, raw in module.params["values"].items():
        if not KEY_PATTERN.match(str(key)):
            module.fail_json(msg="values: %r is not a dotted sysctl name such as net.ipv4.tcp_rmem" % (key,))
        try:
            value = normalize_sysctl_value(raw)
        except ParseError as exc:
            module.fail_json(msg="values: %s: %s" % (key, exc))
        if value == "":
            module.fail_json(msg="values: %s: the value is empty" % key)
        before = read_sysctl(key)
        status = "unchanged"
        after = before
        if before is None:
            status = "absent"
        elif before != value:
            if module.check_mode:
                status, after = "changed", value
            else:
                rc, _out, err = module.run_command([sysctl, "-w", "%s=%s" % (key, value)])
                after = read_sysctl(key)
                if rc != 0 or after != value:
                    status = classify_sysctl_error(err) if rc != 0 else "invalid"
                else:
                    status = "changed"
        by_key[key] = {"before": before, "after": after, "status": status}
        if status in ("changed", "unchanged"):
            applied[key] = value
            changed = changed or status == "changed"
        else:
            not_applied.append({"key": key, "value": value, "before": before, "reason": status,
                                "message": explain(status, key, value)})
        before_lines.append("%s = %s\n" % (key, before))
        after_lines.append("%s = %s\n" % (key, after))
    module.exit_json(changed=changed, applied=applied, not_applied=not_applied, by_key=by_key,
                     diff={"before": "".join(before_lines), "after": "".join(after_lines),
                           "before_header": "running kernel", "after_header": "running kernel"})


if __name__ == "__main__":
    main()
