# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which wg-quick files and systemd-networkd .netdev files configure WireGuard on a Linux host.

Pure functions, no I/O. The role wireguard_keepalive lists both directories with one python-free
``raw`` command (``__wireguard_keepalive_listing_command`` in its vars/main.yml, POSIX sh and
grep -E, Debian 12 dash and BusyBox 1.35 ash alike), which prints one line per file::

    wg-quick /etc/wireguard/wg0.conf
    netdev /etc/systemd/network/30-wg1.netdev      (only files with Kind=wireguard)

parse_config_listing() reads that output, config_plan() chooses the files to edit: the wireguard_config_plan
filter (plugins/filter/role_support.py) for the role, and the fault's plan (``plan.py``) on the files the facts
listed. Only this fault uses it (moved here from parse/).
"""

from __future__ import annotations

import posixpath

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

KINDS = {"wg-quick": "wg_quick", "netdev": "netdev"}


def parse_config_listing(text: str) -> dict:
    """``"wg-quick /etc/wireguard/wg0.conf\\nnetdev /etc/systemd/network/wg1.netdev\\n"`` →
    ``{"wg_quick": ["/etc/wireguard/wg0.conf"], "netdev": ["/etc/systemd/network/wg1.netdev"]}`` (sorted).

    CRLF line ends (raw over ``ssh -tt``) are accepted. Raises ParseError naming the line for
    anything that is not ``KIND /absolute/path``.
    """
    if not isinstance(text, str):
        raise ParseError("config listing must be text, got %s" % type(text).__name__)
    found = {"wg_quick": [], "netdev": []}
    for lineno, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if not line.strip():
            continue
        kind, _sep, path = line.partition(" ")
        if kind not in KINDS or not path.startswith("/"):
            raise ParseError("config listing line %d: expected 'wg-quick PATH' or 'netdev PATH', got %r"
                             % (lineno, line[:200]))
        found[KINDS[kind]].append(path)
    return {kind: sorted(paths) for kind, paths in found.items()}


def config_plan(listing: dict, interfaces: list, config_dir: str, networkd_dir: str) -> dict:
    """Choose the files to change: a named interface with a wg-quick file is wg-quick's, the others networkd's.

    ``listing``: parse_config_listing() output; ``interfaces``: names, empty for every interface.
    Returns ``{"wg_quick_paths": [...], "netdev_paths": [...], "netdev_interfaces": [...]}``:
    with no names, every wg-quick file and every wireguard .netdev; with names, the wg-quick files
    of those names, and every wireguard .netdev only when a name has no wg-quick file (the
    networkd_keepalive module then picks the .netdev by its Name=). Raises ParseError, naming
    both directories (and the named interfaces), when there is nothing to work on.
    """
    by_name = {posixpath.basename(path)[:-len(".conf")]: path for path in listing["wg_quick"]}
    if interfaces:
        wg_quick_paths = sorted(by_name[name] for name in interfaces if name in by_name)
        netdev_interfaces = [name for name in interfaces if name not in by_name]
        netdev_paths = list(listing["netdev"]) if netdev_interfaces else []
    else:
        wg_quick_paths, netdev_interfaces, netdev_paths = sorted(by_name.values()), [], list(listing["netdev"])
    if not wg_quick_paths and not netdev_paths and interfaces:
        raise ParseError("; ".join(
            "wireguard_keepalive_interfaces: no configuration for %s (no %s and no .netdev with Kind=wireguard in %s)"
            % (name, posixpath.join(config_dir, name + ".conf"), networkd_dir) for name in interfaces))
    if not wg_quick_paths and not netdev_paths:
        raise ParseError("wireguard_keepalive_config_dir: no wg-quick *.conf file in %s and no .netdev with "
                         "Kind=wireguard in %s" % (_json_str(config_dir), _json_str(networkd_dir)))
    return {"wg_quick_paths": wg_quick_paths, "netdev_paths": netdev_paths, "netdev_interfaces": netdev_interfaces}


def _json_str(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"')


def unmatched_messages(wanted: dict, matched: dict, host: str, config_dir: str, networkd_dir: str) -> list:
    """One message per named interface no configuration holds and per listed key no peer has.

    ``wanted``/``matched``: ``{"interfaces": [...], "public_keys": [...]}``, what the options name and
    what the edits found. ``{"interfaces": ["wg9"], ...}, {"interfaces": [], ...}, "peer", "/w", "/n"`` →
    ``["wireguard_keepalive_interfaces: no configuration for wg9 on peer (no /w/wg9.conf and no .netdev
    with Name=wg9 and Kind=wireguard in /n)"]``.
    """
    messages = ["wireguard_keepalive_interfaces: no configuration for %s on %s (no %s/%s.conf and no .netdev with "
                "Name=%s and Kind=wireguard in %s)" % (name, host, config_dir, name, name, networkd_dir)
                for name in wanted["interfaces"] if name not in matched["interfaces"]]
    where = ", ".join(wanted["interfaces"]) if wanted["interfaces"] else "any WireGuard interface"
    messages += ["wireguard_keepalive_public_keys: no peer %s on %s in %s" % (key, host, where)
                 for key in wanted["public_keys"] if key not in matched["public_keys"]]
    return messages
