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

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, does_not_apply, is_router, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import TCP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import undone_at_boot

# linux_bbr_fq's drop-in at its default path (linux_bbr_fq_sysctl_file): the rule knows no host's role variables
DROPIN = role_defaults("linux_bbr_fq")["linux_bbr_fq_sysctl_file"]


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


TCP_FIX_UNDONE_AT_BOOT = Fault(
    id="tcp_fix_undone_at_boot",
    number=3,
    title="A later sysctl file undoes the TCP fix at the next boot",
    severity="medium",
    hosts="Linux host with linux_bbr_fq's drop-in",
    reads=("tunnelfix.tcp",),
    facts=(TCP,),
    rule=undone_at_next_boot,
    coverage=boot_coverage,
    subject=lambda evidence: evidence.get("sysctl"),
    fires_when="%s (linux_bbr_fq's drop-in at its default path) sets a key, and the last file the boot applies that sets it "
               "(systemd-sysctl's order when systemd booted the host, else sysctl --system's, /etc/sysctl.conf last) is "
               "another one, applied after it, with another value; or the drop-in is masked by a file of its name read first. "
               "Lines the boot rejects set nothing: a key the kernel lacks, a '#' after a name (numbers before a '#' are taken)"
               % DROPIN,
    symptom="BBR, fq or the larger buffers are gone after a reboot, although remediate set them and verify passed.",
    fix="No role: the later file is someone's configuration and no role edits it. Remove or change the line the finding "
        "names (evidence file and line), or set linux_bbr_fq_sysctl_file to a name that sorts after that file and run "
        "linux_bbr_fq again (it names such files itself when it runs). tunnel_facts also warns about lines the boot "
        "rejects: a '#' after a value (not a comment there), a key this kernel lacks.",
    proof=Proof(how="verify re-reads every sysctl file the boot applies and the rule no longer fires; a reboot then keeps "
                    "the fix (not done by verify)."),
    files=("plugins/plugin_utils/faults/sysctl_boot_order.py", "plugins/plugin_utils/parse/sysctl_boot.py",
           "playbooks/verify.yml"),
    evidence=(
        ("sysctl", "the key the drop-in sets"),
        (("fix_value", "fix_file"), "the value linux_bbr_fq's drop-in sets, and the drop-in"),
        (("boot_value", "file", "line"), "the value the later file sets at boot, that file and its line"),
        ("applied_by", "what applies the files at boot (`systemd-sysctl` or `sysctl --system`)"),
    ),
)
