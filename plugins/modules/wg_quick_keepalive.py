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
  - tunnelfix.fleet developers
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
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import (
    parse_wg_quick_peers,
    redact_wg_quick,
    set_wg_quick_keepalive,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import (
    is_wg_public_key,
    parse_wg_keepalive,
)


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "persistent_keepalive_s": {"type": "int", "default": 25},
            "public_keys": {"type": "list", "elements": "str", "default": [], "no_log": False},
            "backup": {"type": "bool", "default": True},
            "apply_live": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    path = module.params["path"]
    keepalive = module.params["persistent_keepalive_s"]
    wanted_keys = module.params["public_keys"] or None
    interface = os.path.basename(path)[:-len(".conf")] if path.endswith(".conf") else os.path.basename(path)
    result = {"changed": False, "interface": interface, "matched_public_keys": [], "file_changed_peers": [],
              "live_changed_peers": [], "interface_up": False}

    if not 0 <= keepalive <= 65535:
        module.fail_json(msg="persistent_keepalive_s must be 0-65535, got %s" % keepalive, **result)
    for key in wanted_keys or []:
        if not is_wg_public_key(key):
            module.fail_json(msg="public_keys: %r is not a WireGuard public key (44 base64 characters "
                                 "ending in '=')" % key, **result)
    if not os.path.isfile(path):
        module.fail_json(msg="path: %s does not exist or is not a file" % path, **result)

    # newline="": keep CRLF files byte for byte.
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            before = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        module.fail_json(msg="path: cannot read %s as UTF-8 text: %s" % (path, exc), **result)
    try:
        peers = parse_wg_quick_peers(before)
        if wanted_keys:
            # Only the listed peers this file holds; a key may live in another interface's file.
            targets = [peer["public_key"] for peer in peers if peer["public_key"] in wanted_keys]
        else:
            targets = [peer["public_key"] for peer in peers if peer["endpoint"]]
        after, file_changed = set_wg_quick_keepalive(before, keepalive, targets) if targets else (before, [])
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
            target = os.path.realpath(path)  # edit a symlink's target, keep the link
            # mkstemp: a new file (O_EXCL) with mode 0600 from the first byte; the file holds a private key.
            fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(target), dir=os.path.dirname(target))
            with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
                handle.write(after)
            module.atomic_move(tmp, target)

    wg = module.get_bin_path("wg")
    if module.params["apply_live"] and wg:
        rc, out, _err = module.run_command([wg, "show", interface, "persistent-keepalive"])
        if rc == 0:
            result["interface_up"] = True
            try:
                live = parse_wg_keepalive(out)
            except ParseError as exc:
                module.fail_json(msg="wg show %s persistent-keepalive: %s" % (interface, exc), **result)
            wanted_live = keepalive or None
            for key in targets:
                if key in live and live[key] != wanted_live:
                    result["live_changed_peers"].append(key)
                    if not module.check_mode:
                        argv = [wg, "set", interface, "peer", key, "persistent-keepalive", str(keepalive)]
                        rc, _out, err = module.run_command(argv)
                        if rc != 0:
                            module.fail_json(msg="wg set failed on %s" % interface, cmd=argv, rc=rc,
                                             stderr=err, **result)
            result["changed"] = result["changed"] or bool(result["live_changed_peers"])
    module.exit_json(**result)


if __name__ == "__main__":
    main()
