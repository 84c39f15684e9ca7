# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3's fix undone at the next boot: a sysctl file applied after linux_bbr_fq's drop-in sets its keys otherwise.

linux_bbr_fq persists the values that took effect in a sysctl.d drop-in. At boot systemd-sysctl (or
``sysctl --system``) applies every sysctl file in name order and the last assignment of a key wins
(parse/sysctl_boot.py), so a later file, ``/etc/sysctl.d/99-zz-local.conf`` with
``net.ipv4.tcp_congestion_control = cubic`` or Debian's ``99-sysctl.conf`` (``/etc/sysctl.conf``),
brings the old value back although the running kernel holds the fix today. Read from tunnel_facts'
``tcp.sysctl_boot`` (every sysctl file the boot reads, one facts execution) and ``tcp.sysctl_dropins``.

A finding of its own, not a variant of ``loss_sensitive_congestion_control``: that one is judged from a
flow and its proof is a faster flow, which this fault does not change until the host reboots; this one is
judged from files alone and no role fixes it, since the later file is someone's configuration
(linux_bbr_fq never edits another file). The role names the same conflicts when it runs
(``linux_bbr_fq_result.overridden_at_boot``), from the same function.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, is_router, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import FIX_DEFAULTS
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import undone_at_boot

# linux_bbr_fq's drop-in at its default path (linux_bbr_fq_sysctl_file): the rule knows no host's role variables
DROPIN = FIX_DEFAULTS["linux_bbr_fq_sysctl_file"]


def _boot(view):
    """(``sysctl_boot``, ``sysctl_dropins``) of the host's TCP facts, or None when the facts lack them."""
    tcp = (view.get("tunnelfix") or {}).get("tcp") or {}
    boot, dropins = tcp.get("sysctl_boot"), tcp.get("sysctl_dropins")
    if not isinstance(boot, dict) or not isinstance(boot.get("effective"), dict) or not isinstance(dropins, dict):
        return None
    return boot, dropins


def undone_at_next_boot(host, view, views):
    """One (evidence, explanation) per key of linux_bbr_fq's drop-in that a file applied after it sets otherwise."""
    read = _boot(view)
    if read is None:
        return []
    boot, dropins = read
    fix = dropins.get(DROPIN)
    if not isinstance(fix, dict):
        return []
    out = []
    for undone in undone_at_boot(boot, DROPIN, fix):
        evidence = {"sysctl": undone["key"], "fix_value": undone["value"], "fix_file": DROPIN,
                    "boot_value": undone["boot_value"], "file": undone["file"], "line": undone["line"],
                    "applied_by": boot["applied_by"]}
        out.append((evidence, """
            The running kernel may hold the fix, but it does not survive a reboot: %s""" % undone["message"]))
    return out


def boot_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): the sysctl files read, and the drop-in there."""
    read = _boot(view)
    if read is None:
        return not_checked("the sysctl files read at boot were not read (openwrt_facts does not read them)" if is_router(view)
                           else "the sysctl files read at boot were not read (facts of an older collection)")
    if not read[1].get(DROPIN):
        return does_not_apply("no %s here: no TCP fix persisted that a later file could undo" % DROPIN)
    return None
