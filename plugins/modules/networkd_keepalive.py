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
  - tunnelfix.fleet developers
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

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._networkd_netdev import (
    parse_netdev_wireguard,
    set_netdev_keepalive,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import redact_wg_quick
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import (
    is_wg_public_key,
    parse_wg_keepalive,
)


def apply_live(module, interface, targets, keepalive, result):
    """Set the keepalive of ``targets`` on the running interface with ``wg set`` where it differs."""
    wg = module.get_bin_path("wg")
    if not (module.params["apply_live"] and wg and interface):
        return
    rc, out, _err = module.run_command([wg, "show", interface, "persistent-keepalive"])
    if rc != 0:
        return
    result["interface_up"] = True
    try:
        live = parse_wg_keepalive(out)
    except ParseError as exc:
        module.fail_json(msg="wg show %s persistent-keepalive: %s" % (interface, exc), **result)
    for key in targets:
        if key in live and live[key] != (keepalive or None):
            result["live_changed_peers"].append(key)
            if not module.check_mode:
                argv = [wg, "set", interface, "peer", key, "persistent-keepalive", str(keepalive)]
                rc, _out, err = module.run_command(argv)
                if rc != 0:
                    module.fail_json(msg="wg set failed on %s" % interface, cmd=argv, rc=rc, stderr=err, **result)
    result["changed"] = result["changed"] or bool(result["live_changed_peers"])


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "interfaces": {"type": "list", "elements": "str", "default": []},
            "persistent_keepalive_s": {"type": "int", "default": 25},
            "public_keys": {"type": "list", "elements": "str", "default": [], "no_log": False},
            "backup": {"type": "bool", "default": True},
            "apply_live": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    path = module.params["path"]
    keepalive = module.params["persistent_keepalive_s"]
    wanted_keys = module.params["public_keys"]
    result = {"changed": False, "interface": None, "selected": False, "matched_public_keys": [],
              "file_changed_peers": [], "live_changed_peers": [], "interface_up": False}

    if not 0 <= keepalive <= 65535:
        module.fail_json(msg="persistent_keepalive_s must be 0-65535, got %s" % keepalive, **result)
    for key in wanted_keys:
        if not is_wg_public_key(key):
            module.fail_json(msg="public_keys: %r is not a WireGuard public key (44 base64 characters "
                                 "ending in '=')" % key, **result)
    if not os.path.isfile(path):
        module.fail_json(msg="path: %s does not exist or is not a file" % path, **result)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            before = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        module.fail_json(msg="path: cannot read %s as UTF-8 text: %s" % (path, exc), **result)
    try:
        netdev = parse_netdev_wireguard(before)
    except ParseError as exc:
        module.fail_json(msg="%s: %s" % (path, exc), **result)
    result["interface"] = netdev["name"]
    wanted_ifaces = module.params["interfaces"]
    if netdev["kind"] != "wireguard" or (wanted_ifaces and netdev["name"] not in wanted_ifaces):
        module.exit_json(**result)
    result["selected"] = True

    if wanted_keys:
        targets = [peer["public_key"] for peer in netdev["peers"] if peer["public_key"] in wanted_keys]
    else:
        targets = [peer["public_key"] for peer in netdev["peers"] if peer["endpoint"]]
    try:
        after, file_changed = set_netdev_keepalive(before, keepalive, targets) if targets else (before, [])
    except ParseError as exc:
        module.fail_json(msg="%s: %s" % (path, exc), **result)
    result["matched_public_keys"] = targets
    result["file_changed_peers"] = file_changed

    if file_changed:
        result["changed"] = True
        result["diff"] = {"before": redact_wg_quick(before), "after": redact_wg_quick(after),
                          "before_header": path, "after_header": path}
        if not module.check_mode:
            if module.params["backup"]:
                result["backup_file"] = module.backup_local(path)
            target = os.path.realpath(path)
            st = os.stat(target)
            # mkstemp: 0600 from the first byte (a .netdev may hold PrivateKey=); then the file's own mode/owner.
            fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(target), dir=os.path.dirname(target))
            with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
                handle.write(after)
            os.chmod(tmp, st.st_mode & 0o7777)
            os.chown(tmp, st.st_uid, st.st_gid)
            module.atomic_move(tmp, target)

    apply_live(module, netdev["name"], targets, keepalive, result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
