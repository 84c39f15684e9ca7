#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set a WireGuard interface's MTU in its wg-quick file or systemd-networkd .netdev, nothing else."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: wg_config_mtu
short_description: Set the MTU of a WireGuard interface in its wg-quick file or systemd-networkd .netdev
version_added: 0.5.0
description:
  - Writes C(MTU = N) in the C([Interface]) section of a wg-quick file (wg-quick(8)), or C(MTUBytes=N) in the
    C([NetDev]) section of a systemd-networkd C(.netdev) (systemd.netdev(5)). An existing line has only its value
    replaced; a new line goes after the section's last setting. Every other line, comment and the order are kept
    byte for byte.
  - Changes the file only; the running interface is the caller's (the role C(tunnelfix.fleet.wireguard_mtu) runs
    C(ip link set dev IFACE mtu N) under M(tunnelfix.fleet.guarded_apply)), so a wrong value is rolled back with the file.
  - The diff shows the file with C(PrivateKey) and C(PresharedKey) values (and any other key-shaped word)
    redacted; no key material is ever returned.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  path:
    description: The wg-quick file (C(/etc/wireguard/IFACE.conf)) or the C(.netdev) file.
    type: path
    required: true
  kind:
    description: Which format the file is in.
    type: str
    choices: [wg-quick, netdev]
    required: true
  mtu_bytes:
    description: The MTU to write, 68-65535 bytes (the role refuses less than 576, or 1280 where IPv6 runs inside).
    type: int
    required: true
  backup:
    description: Keep a timestamped copy of the file before changing it.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: MTU 1340 for wg0 (wg-quick)
  tunnelfix.fleet.wg_config_mtu:
    path: /etc/wireguard/wg0.conf
    kind: wg-quick
    mtu_bytes: 1340

- name: MTUBytes=1340 for a networkd tunnel
  tunnelfix.fleet.wg_config_mtu:
    path: /etc/systemd/network/50-wg0.netdev
    kind: netdev
    mtu_bytes: 1340
"""

RETURN = r"""
mtu_before:
  description: The value the file had (as written), or null when it set none.
  returned: always
  type: str
  sample: "1420"
backup_file:
  description: Path of the backup copy, when one was made.
  returned: changed and backup is true
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._keepalive_module import read_config, write_config
from ansible_collections.tunnelfix.fleet.plugins.module_utils._networkd_netdev import set_netdev_mtu
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import set_wg_quick_mtu

EDITS = {"wg-quick": set_wg_quick_mtu, "netdev": set_netdev_mtu}


def main():
    module = AnsibleModule(argument_spec={
        "path": {"type": "path", "required": True},
        "kind": {"type": "str", "required": True, "choices": ["wg-quick", "netdev"]},
        "mtu_bytes": {"type": "int", "required": True},
        "backup": {"type": "bool", "default": True},
    }, supports_check_mode=True)
    path, mtu = module.params["path"], module.params["mtu_bytes"]
    result = {"changed": False, "mtu_before": None}
    if not 68 <= mtu <= 65535:
        module.fail_json(msg="mtu_bytes must be 68-65535, got %s" % mtu, **result)
    if not os.path.isfile(path):
        module.fail_json(msg="path: %s does not exist or is not a file" % path, **result)
    before = read_config(module, path, result)
    try:
        after, result["mtu_before"] = EDITS[module.params["kind"]](before, mtu)
    except ParseError as exc:
        module.fail_json(msg="%s: %s" % (path, exc), **result)
    if after != before:
        write_config(module, path, before, after, result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
