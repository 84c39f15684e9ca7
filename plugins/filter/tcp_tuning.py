# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugin: tcp_tuning_plan (documentation in tcp_tuning_plan.yml)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import linux_bbr_fq_plan


def tcp_tuning_plan(wanted, tcp, netns, sysctl_file=None, modules_file=None):
    """Jinja wrapper of linux_bbr_fq's one plan (faults/loss_sensitive_cc/plan.py ``linux_bbr_fq_plan``, which fault 3's
    ``Fault.plan`` computes too); bad input becomes an AnsibleFilterError.

    With ``sysctl_file`` (the drop-in the values go to) the plan also says which of the values to apply
    a sysctl file applied after it at boot sets otherwise (``overridden_at_boot``, parse/sysctl_boot.py's
    undone_at_boot over ``tcp.sysctl_boot``). With ``modules_file`` too (the file that loads tcp_bbr at
    boot), ``load_module`` says whether the role loads tcp_bbr and ``files_to_change`` lists which of the
    two files a run would write or remove (only those need to be writable).
    """
    if not isinstance(wanted, dict) or not isinstance(tcp, dict) or not isinstance(netns, dict):
        raise AnsibleFilterError("tcp_tuning_plan expects a dict of sysctl values and the tcp and netns facts "
                                 "of tunnelfix.fleet.tunnel_facts")
    for key, value in wanted.items():
        if isinstance(value, (bool, list, dict)):
            raise AnsibleFilterError("tcp_tuning_plan: %s must be a string or a number, got %r" % (key, value))
    for name in ("congestion_control_available", "congestion_control_allowed"):
        if not isinstance(tcp.get(name, []), list):
            raise AnsibleFilterError("tcp_tuning_plan: tcp.%s must be a list, got %r" % (name, tcp.get(name)))
    if sysctl_file is not None and (not isinstance(sysctl_file, str) or not sysctl_file.startswith("/")):
        raise AnsibleFilterError("tcp_tuning_plan: sysctl_file must be an absolute path, got %r" % (sysctl_file,))
    if sysctl_file is not None and modules_file is not None and (not isinstance(modules_file, str) or not modules_file.startswith("/")):
        raise AnsibleFilterError("tcp_tuning_plan: modules_file must be an absolute path, got %r" % (modules_file,))
    return linux_bbr_fq_plan(wanted, tcp, netns, sysctl_file=sysctl_file, modules_file=modules_file)


class FilterModule:
    """tunnelfix.fleet TCP tuning filters."""

    def filters(self):
        return {"tcp_tuning_plan": tcp_tuning_plan}
