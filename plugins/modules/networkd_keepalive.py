#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set PersistentKeepalive= on [WireGuardPeer] sections of a systemd-networkd .netdev and apply it live."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: networkd_keepalive
short_description: Set PersistentKeepalive on WireGuard peers in a systemd-networkd .netdev and live
version_added: 0.1.0
description:
  - Edits the C([WireGuardPeer]) sections of a systemd-networkd C(.netdev) file with
    C(Kind=wireguard). It sets or replaces C(PersistentKeepalive=) right after the peer's
    C(PublicKey=), never in C([WireGuard]) or C([NetDev]), and keeps every other line byte for byte.
  - Applies the value live with C(wg set IFACE peer KEY persistent-keepalive N) when the interface
    exists. It never runs C(networkctl reload) or restarts systemd-networkd; both drop the
    interface's peers or learned endpoints (systemd issues 38196, 25547, 21877). The file keeps
    the value for the next boot.
  - The diff redacts C(PrivateKey=) and C(PresharedKey=) values; no key material is returned.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  path:
    description: The C(.netdev) file; the interface name is its C([NetDev]) C(Name=).
    type: path
    required: true
  interfaces:
    description:
      - Act only when the file's C(Name=) is one of these; empty means any. A file that is not
        C(Kind=wireguard) or not selected is left alone and reported with RV(selected=false).
    type: list
    elements: str
    default: []
  persistent_keepalive_s:
    description: Keepalive interval in seconds, 0-65535; 0 turns it off (the line is removed).
    type: int
    default: 25
  public_keys:
    description:
      - Peers to change, by public key. Empty means every peer that has an C(Endpoint=).
      - Keys this file does not hold are ignored here (they may belong to another interface).
    type: list
    elements: str
    default: []
  backup:
    description: Keep a timestamped copy of the file before changing it.
    type: bool
    default: true
  apply_live:
    description: Also set the value on the running interface with C(wg set) when it exists.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
seealso:
  - module: tunnelfix.fleet.wg_quick_keepalive
"""

EXAMPLES = r"""
- name: Keepalive 25 s on every peer of wg0 that has an Endpoint
  tunnelfix.fleet.networkd_keepalive:
    path: /etc/systemd/network/50-wg0.netdev

- name: Keepalive 5 s on one peer only
  tunnelfix.fleet.networkd_keepalive:
    path: /etc/systemd/network/50-wg0.netdev
    persistent_keepalive_s: 5
    public_keys:
      - HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH=
"""

RETURN = r"""
interface:
  description: The C(Name=) of the C([NetDev]) section; null when it has none.
  returned: always
  type: str
  sample: wg0
selected:
  description: Whether the file is a WireGuard .netdev for one of O(interfaces) (nothing is done otherwise).
  returned: always
  type: bool
matched_public_keys:
  description: Public keys of this file's peers that were chosen.
  returned: always
  type: list
  elements: str
file_changed_peers:
  description: Public keys whose PersistentKeepalive= line was written.
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
from ansible_collections.tunnelfix.fleet.plugins.module_utils._networkd_netdev import (
    parse_netdev_wireguard,
    set_netdev_keepalive,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(ARGUMENT_SPEC, interfaces={"type": "list", "elements": "str", "default": []}),
        supports_check_mode=True,
    )
    path = module.params["path"]
    keepalive = module.params["persistent_keepalive_s"]
    result = {"changed": False, "interface": None, "selected": False, "matched_public_keys": [],
              "file_changed_peers": [], "live_changed_peers": [], "interface_up": False}

    check_options(module, result)
    before = read_config(module, path, result)
    try:
        netdev = parse_netdev_wireguard(before)
    except ParseError as exc:
        module.fail_json(msg="%s: %s" % (path, exc), **result)
    result["interface"] = netdev["name"]
    wanted_ifaces = module.params["interfaces"]
    if netdev["kind"] != "wireguard" or (wanted_ifaces and netdev["name"] not in wanted_ifaces):
        module.exit_json(**result)
    result["selected"] = True

    targets = choose_targets(netdev["peers"], module.params["public_keys"])
    try:
        after, file_changed = set_netdev_keepalive(before, keepalive, targets) if targets else (before, [])
    except ParseError as exc:
        module.fail_json(msg="%s: %s" % (path, exc), **result)
    result["matched_public_keys"] = targets
    result["file_changed_peers"] = file_changed
    if file_changed:
        write_config(module, path, before, after, result)
    apply_live(module, netdev["name"], targets, keepalive, result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
