# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugin: tcp_tuning_plan (documentation in tcp_tuning_plan.yml)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import plan_tcp_tuning
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import undone_at_boot


def _files_to_change(plan, wanted, tcp, netns, sysctl_file, modules_file):
    """The persistence files a run would write or remove: the drop-in unless it already holds exactly the values to
    apply (or is absent with nothing to apply), the modules file unless it is there exactly when tcp_bbr is to be
    loaded at boot. A file whose state the facts do not give counts as one to change."""
    out = []
    dropins = tcp.get("sysctl_dropins")
    held = {key: " ".join(str(value).split()) for key, value in plan["apply"].items()}
    if not isinstance(dropins, dict) or dropins.get(sysctl_file, {} if held else None) != (held or None):
        out.append(sysctl_file)
    load = (wanted.get("net.ipv4.tcp_congestion_control") == "bbr" and tcp.get("tcp_bbr_loadable_module") is True
            and not netns.get("child_netns"))
    files = tcp.get("tcp_bbr_module_files")
    if not isinstance(files, list) or load != (modules_file in files):
        out.append(modules_file)
    return out


def tcp_tuning_plan(wanted, tcp, netns, sysctl_file=None, modules_file=None):
    """Jinja wrapper of plan_tcp_tuning(); bad input becomes an AnsibleFilterError.

    With ``sysctl_file`` (the drop-in the values go to) the plan also says which of the values to apply
    a sysctl file applied after it at boot sets otherwise (``overridden_at_boot``, parse/sysctl_boot.py's
    undone_at_boot over ``tcp.sysctl_boot``). With ``modules_file`` too (the file that loads tcp_bbr at
    boot), ``files_to_change`` lists which of the two a run would write or remove (only those need to be
    writable).
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
    plan = plan_tcp_tuning(wanted, tcp, netns)
    if sysctl_file is not None:
        if not isinstance(sysctl_file, str) or not sysctl_file.startswith("/"):
            raise AnsibleFilterError("tcp_tuning_plan: sysctl_file must be an absolute path, got %r" % (sysctl_file,))
        plan["overridden_at_boot"] = [dict(item, reason="overridden_at_boot")
                                      for item in undone_at_boot(tcp.get("sysctl_boot"), sysctl_file, plan["apply"])]
        if modules_file is not None:
            if not isinstance(modules_file, str) or not modules_file.startswith("/"):
                raise AnsibleFilterError("tcp_tuning_plan: modules_file must be an absolute path, got %r" % (modules_file,))
            plan["files_to_change"] = _files_to_change(plan, wanted, tcp, netns, sysctl_file, modules_file)
    return plan


class FilterModule:
    """tunnelfix.fleet TCP tuning filters."""

    def filters(self):
        return {"tcp_tuning_plan": tcp_tuning_plan}
