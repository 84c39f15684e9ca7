# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module-side steps shared by the PersistentKeepalive modules (wg_quick_keepalive, networkd_keepalive).

Not a parser: these run on the target inside an AnsibleModule (read and write the config file,
``wg show``/``wg set``). The file formats differ only in parsing and editing, which stay in
``_wg_quick`` and ``_networkd_netdev``.
"""

from __future__ import annotations

import os
import tempfile

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._keepalive_edit import MAX_KEEPALIVE_S
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import redact_wg_quick
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import (
    is_wg_public_key,
    parse_wg_keepalive,
)

# Options every keepalive module takes; a module adds its own (networkd: interfaces).
ARGUMENT_SPEC = {
    "path": {"type": "path", "required": True},
    "persistent_keepalive_s": {"type": "int", "default": 25},
    "public_keys": {"type": "list", "elements": "str", "default": [], "no_log": False},
    "backup": {"type": "bool", "default": True},
    "apply_live": {"type": "bool", "default": True},
}


def check_options(module, result):
    """Fail naming the option and value: keepalive outside 0-65535, a malformed key, a missing file."""
    keepalive = module.params["persistent_keepalive_s"]
    if not 0 <= keepalive <= MAX_KEEPALIVE_S:
        module.fail_json(msg="persistent_keepalive_s must be 0-%d, got %s" % (MAX_KEEPALIVE_S, keepalive), **result)
    for key in module.params["public_keys"]:
        if not is_wg_public_key(key):
            module.fail_json(msg="public_keys: %r is not a WireGuard public key (44 base64 characters "
                                 "ending in '=')" % key, **result)
    if not os.path.isfile(module.params["path"]):
        module.fail_json(msg="path: %s does not exist or is not a file" % module.params["path"], **result)


def read_config(module, path, result):
    """The file's text, line ends kept byte for byte (newline=""); fails cleanly on unreadable or non-UTF-8."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        module.fail_json(msg="path: cannot read %s as UTF-8 text: %s" % (path, exc), **result)


def choose_targets(peers, wanted_keys):
    """Public keys to change: the listed ones this file holds (a key may live in another file), or,
    with no list, every peer that has an endpoint (the side that initiates, typically behind NAT)."""
    if wanted_keys:
        return [peer["public_key"] for peer in peers if peer["public_key"] in wanted_keys]
    return [peer["public_key"] for peer in peers if peer["endpoint"]]


def write_config(module, path, before, after, result):
    """Record changed and a redacted diff; outside check mode back up and replace the file.

    The new file is created with mkstemp (O_EXCL, mode 0600 from the first byte: it holds a private
    key), given the old file's mode and owner, and moved over the symlink's target (the link stays).
    """
    result["changed"] = True
    result["diff"] = {"before": redact_wg_quick(before), "after": redact_wg_quick(after),
                      "before_header": path, "after_header": path}
    if module.check_mode:
        return
    if module.params["backup"]:
        result["backup_file"] = module.backup_local(path)
    target = os.path.realpath(path)
    stat = os.stat(target)
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(target), dir=os.path.dirname(target))
    with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
        handle.write(after)
    os.chmod(tmp, stat.st_mode & 0o7777)
    os.chown(tmp, stat.st_uid, stat.st_gid)
    module.atomic_move(tmp, target)


def apply_live(module, interface, targets, keepalive, result):
    """Set the keepalive of ``targets`` on the running interface with ``wg set`` where it differs.

    Nothing happens when apply_live is off, ``wg`` is missing or the interface is down
    (``wg show`` fails); sets ``interface_up``, ``live_changed_peers`` and ``changed`` in ``result``.
    """
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
