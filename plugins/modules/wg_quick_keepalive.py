#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set PersistentKeepalive on peers of a wg-quick config and apply it live without a restart."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: wg_quick_keepalive
short_description: Set PersistentKeepalive on WireGuard peers in a wg-quick file and on the live interface
version_added: 0.1.0
description:
  - Edits the C([Peer]) blocks of a wg-quick configuration such as C(/etc/wireguard/IFACE.conf).
    It sets or replaces C(PersistentKeepalive) right after the peer's C(PublicKey), never in
    C([Interface]), and keeps every other line byte for byte.
  - Applies the value live with C(wg set IFACE peer KEY persistent-keepalive N) when the
    interface is up, so the tunnel is not restarted and learned endpoints are kept (a restart
    would drop sessions).
  - The diff shows the file with C(PrivateKey) and C(PresharedKey) values redacted; no key
    material is ever returned.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  path:
    description: The wg-quick configuration file; the interface name is the file name without C(.conf).
    type: path
    required: true
  persistent_keepalive_s:
    description: Keepalive interval in seconds, 0-65535; 0 turns it off (the line is removed).
    type: int
    default: 25
  public_keys:
    description:
      - Peers to change, by public key. Empty means every peer that has an C(Endpoint) (the side
        that initiates, typically the one behind NAT).
    type: list
    elements: str
    default: []
  backup:
    description: Keep a timestamped copy of the file before changing it.
    type: bool
    default: true
  apply_live:
    description: Also set the value on the running interface with C(wg set) when it is up.
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
- name: Keepalive 25 s on every peer that has an Endpoint
  tunnelfix.fleet.wg_quick_keepalive:
    path: /etc/wireguard/wg0.conf

- name: Keepalive 5 s on one peer only
  tunnelfix.fleet.wg_quick_keepalive:
    path: /etc/wireguard/wg0.conf
    persistent_keepalive_s: 5
    public_keys:
      - HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH=
"""

RETURN = r"""
interface:
  description: Interface name taken from the file name.
  returned: always
  type: str
  sample: wg0
matched_public_keys:
  description: Public keys of this file's peers that were chosen (listed ones it holds, or every peer with an Endpoint).
  returned: always
  type: list
  elements: str
file_changed_peers:
  description: Public keys whose PersistentKeepalive line was written.
  returned: always
  type: list
  elements: str
live_changed_peers:
  description: Public keys whose live keepalive was changed with C(wg set).
  returned: always
  type: list
  elements: str
interface_up:
  description: Whether the interface existed, so the live value could be checked.
  returned: always
  type: bool
backup_file:
  description: Path of the backup copy, when one was made.
  returned: changed and backup is true
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._keepalive_module import (
    ARGUMENT_SPEC,
    apply_live,
    check_options,
    choose_targets,
    read_config,
    write_config,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import (
    parse_wg_quick_peers,
    set_wg_quick_keepalive,
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    path = module.params["path"]
    keepalive = module.params["persistent_keepalive_s"]
    interface = os.path.basename(path)[:-len(".conf")] if path.endswith(".conf") else os.path.basename(path)
    result = {"changed": False, "interface": interface, "matched_public_keys": [], "file_changed_peers": [],
              "live_changed_peers": [], "interface_up": False}

    check_options(module, result)
    before = read_config(module, path, result)
    try:
        targets = choose_targets(parse_wg_quick_peers(before), module.params["public_keys"])
        after, file_changed = set_wg_quick_keepalive(before, keepalive, targets) if targets else (before, [])
    except ParseError as exc:
        module.fail_json(msg="%s: %s" % (path, exc), **result)
    result["matched_public_keys"] = targets
    result["file_changed_peers"] = file_changed
    if file_changed:
        write_config(module, path, before, after, result)
    apply_live(module, interface, targets, keepalive, result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
