# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""linux_bbr_fq's one plan: which TCP sysctls a host can take, what the next boot undoes, which files a run changes.

One planner for both sides: ``tcp_plan`` (``Fault.plan`` of fault 3 and ``buffer_below_bdp``: remediate's view, from
the facts) and the ``tcp_tuning_plan`` filter (plugins/filter/tcp_tuning.py: the plan the role applies,
roles/linux_bbr_fq/tasks/tune.yml) both call ``linux_bbr_fq_plan`` on the same ``tcp``/``netns`` facts (the one
reader, remote/tcp_reader.py), so the fix applies the plan the fault computed.

Kernel facts behind the rules (net/ipv4/tcp_cong.c, net/core/sysctl_net_core.c):

- ``net.core.default_qdisc`` and ``net.core.netdev_max_backlog`` are registered only in the
  initial network namespace: a container or LXC guest does not have them (host-level keys).
- ``net.ipv4.tcp_congestion_control``, ``tcp_rmem`` and ``tcp_wmem`` are per network namespace;
  outside the initial namespace the default congestion control may only be one listed in
  ``net.ipv4.tcp_allowed_congestion_control`` (else EPERM).
- Without sch_fq, BBR paces by itself (TCP internal pacing, Linux >= 4.13), so a missing fq is
  not a reason to give up BBR.

Pure functions. The reasons' sentences are module_utils/_tcp_tuning.py's ``explain`` (the tcp_tuning action reports
a refused write with the same words).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import normalize_sysctl_value
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl_apply import needs_write
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import CC_KEY, HOST_LEVEL_KEYS, QDISC_KEY, explain
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import role_setting, whole_number
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import undone_at_boot

# linux_bbr_fq's defaults (its meta/argument_specs.yml, generated into role_specs.py), and the sysctl each value sets (tcp facts' key)
FIX_DEFAULTS = role_defaults("linux_bbr_fq")
_SYSCTLS = (("linux_bbr_fq_default_qdisc", "net.core.default_qdisc", "default_qdisc"),
            ("linux_bbr_fq_congestion_control", "net.ipv4.tcp_congestion_control", "congestion_control"),
            ("linux_bbr_fq_tcp_rmem", "net.ipv4.tcp_rmem", "tcp_rmem"),
            ("linux_bbr_fq_tcp_wmem", "net.ipv4.tcp_wmem", "tcp_wmem"),
            ("linux_bbr_fq_netdev_max_backlog", "net.core.netdev_max_backlog", "netdev_max_backlog"))


def plan_tcp_tuning(wanted, tcp, netns):
    """Split wanted sysctls into those to apply and those this host cannot take.

    ``wanted``: ``{sysctl key: value}``; empty or None values are not managed.
    ``tcp``/``netns``: the ``tcp`` and ``netns`` parts of ``tunnel_facts`` (see its RETURN).

    Returns ``{"apply": {key: value}, "skipped": [{"key", "value", "reason", "message"}],
    "fatal": str|None}``. ``fatal`` is set only when the host cannot be fixed at all: the wanted
    congestion control is neither available nor a loadable module (kernel without tcp_bbr).
    """
    apply, skipped = {}, []
    fatal = None

    def skip(key, value, reason):
        skipped.append({"key": key, "value": value, "reason": reason, "message": explain(reason, key, value)})

    for key, value in wanted.items():
        if value is None or str(value).strip() == "":
            continue
        value = " ".join(str(value).split())
        if key in HOST_LEVEL_KEYS and netns.get("child_netns"):
            skip(key, value, "host_level")
        elif key == QDISC_KEY and value == "fq" and not tcp.get("sch_fq_available"):
            skip(key, value, "kernel_lacks_sch_fq")
        elif key == CC_KEY:
            available = tcp.get("congestion_control_available") or []
            loadable = value == "bbr" and tcp.get("tcp_bbr_loadable_module")
            if value not in available and not loadable:
                fatal = ("kernel lacks congestion control %r (available: %s): it needs CONFIG_TCP_CONG_%s "
                         "(module tcp_%s); install a kernel that has it" % (
                             value, " ".join(available) or "unknown", value.upper(), value))
            elif netns.get("child_netns") and value != tcp.get("congestion_control") and \
                    value not in (tcp.get("congestion_control_allowed") or []):
                skip(key, value, "restricted_in_namespace")
            else:
                apply[key] = value
        else:
            apply[key] = value
    return {"apply": apply, "skipped": skipped, "fatal": fatal}


def load_tcp_bbr(wanted, tcp, netns) -> bool:
    """Whether the role loads tcp_bbr now and at boot: BBR wanted, tcp_bbr a loadable module, and the host owns its
    kernel (not a container)."""
    return (wanted.get(CC_KEY) == "bbr" and tcp.get("tcp_bbr_loadable_module") is True
            and not netns.get("child_netns"))


def _files_to_change(plan, sysctl_file, modules_file, tcp):
    """The persistence files a run would write or remove: the drop-in unless it already holds exactly the values to
    apply (or is absent with nothing to apply), the modules file unless it is there exactly when tcp_bbr is to be
    loaded at boot. A file whose state the facts do not give counts as one to change."""
    out = []
    dropins = tcp.get("sysctl_dropins")
    held = {key: " ".join(str(value).split()) for key, value in plan["apply"].items()}
    if not isinstance(dropins, dict) or dropins.get(sysctl_file, {} if held else None) != (held or None):
        out.append(sysctl_file)
    files = tcp.get("tcp_bbr_module_files")
    if not isinstance(files, list) or plan["load_module"] != (modules_file in files):
        out.append(modules_file)
    return out


def linux_bbr_fq_plan(wanted, tcp, netns, sysctl_file=None, modules_file=None) -> dict:
    """linux_bbr_fq's plan for ``wanted`` (``{sysctl key: value}``) on a host with these ``tcp``/``netns`` facts.

    ``plan_tcp_tuning``'s ``{"apply", "skipped", "fatal"}``; with ``sysctl_file`` (the drop-in the values go to) also
    ``overridden_at_boot``: the values to apply that a sysctl file applied after it at boot sets otherwise
    (parse/sysctl_boot.py's ``undone_at_boot`` over ``tcp.sysctl_boot``, each with ``reason`` ``overridden_at_boot``);
    with ``modules_file`` too (the file that loads tcp_bbr at boot) ``load_module`` (``load_tcp_bbr``) and
    ``files_to_change``: which of the two files a run would write or remove (only those need to be writable).
    """
    plan = plan_tcp_tuning(wanted, tcp, netns)
    if sysctl_file is not None:
        plan["overridden_at_boot"] = [dict(item, reason="overridden_at_boot")
                                      for item in undone_at_boot(tcp.get("sysctl_boot"), sysctl_file, plan["apply"])]
        if modules_file is not None:
            plan["load_module"] = load_tcp_bbr(wanted, tcp, netns)
            plan["files_to_change"] = _files_to_change(plan, sysctl_file, modules_file, tcp)
    return plan


def role_wanted(role_vars):
    """The sysctl values linux_bbr_fq wants on a host with ``role_vars`` (its vars/main.yml ``__linux_bbr_fq_wanted``:
    a backlog of 0 is not managed), or None where the role fails (a backlog that is not a whole number)."""
    backlog = whole_number(role_setting(role_vars, "linux_bbr_fq_netdev_max_backlog", FIX_DEFAULTS))
    if backlog is None:
        return None
    wanted = {key: role_setting(role_vars, name, FIX_DEFAULTS) for name, key, _fact in _SYSCTLS}
    wanted["net.core.netdev_max_backlog"] = backlog if backlog > 0 else ""
    return wanted


def live_changes(apply, tcp):
    """``["KEY: RUNNING -> VALUE", ...]`` for each key of ``apply`` the tcp_tuning action would write: decided by its own
    ``needs_write`` (module_utils/_sysctl_apply.py) on the facts' value, both whitespace-normalised as the action reads and
    writes them. A key the facts read as absent (None: not in this kernel or namespace) is not written, so not listed.
    None where a value is one the action refuses (check_values: a boolean, ...), as the role then fails."""
    changes = []
    for _name, key, fact in _SYSCTLS:
        if key not in apply:
            continue
        try:
            before = None if tcp.get(fact) is None else normalize_sysctl_value(tcp.get(fact))
            value = normalize_sysctl_value(apply[key])
        except ParseError:
            return None
        if needs_write(before, value):
            changes.append("%s: %s -> %s" % (key, before, value))
    return changes


def tcp_plan(view, role_vars):
    """What linux_bbr_fq would change: each sysctl this host can take (faults/loss_sensitive_cc/plan.py
    ``linux_bbr_fq_plan``, the role's own plan: its tcp_tuning_plan filter calls it) whose running value differs
    (``live_changes``: the tcp_tuning action's own test, so a key absent from this namespace is not listed),
    its sysctl.d drop-in when it does not hold exactly those values, and the file that loads tcp_bbr at boot when its presence is not what the role wants
    (there only where tcp_bbr is a loadable module and the host owns its kernel). A drop-in to be written
    says which of its values a sysctl file applied after it at boot sets otherwise (``sysctl_boot``):
    the role reports those, it does not change them (fault tcp_fix_undone_at_boot).

    Reads tunnel_facts' TCP facts (the reader tcp_tuning uses too, remote/tcp_reader.py: live values,
    ``sysctl_dropins``, ``tcp_bbr_module_files``); ``[]`` when all hold. None without them (a router:
    openwrt_facts does not read the TCP stack; facts of an older collection: no drop-ins), or where
    the role fails (a congestion control the kernel lacks; a backlog that is not a whole number).
    """
    facts = view.get("tunnelfix") or {}
    tcp, netns = facts.get("tcp"), facts.get("netns")
    if not isinstance(tcp, dict) or not isinstance(netns, dict):
        return None
    wanted = role_wanted(role_vars)
    if wanted is None or not isinstance(tcp.get("sysctl_dropins"), dict) \
            or not isinstance(tcp.get("tcp_bbr_module_files"), list):
        return None
    sysctl_file = role_setting(role_vars, "linux_bbr_fq_sysctl_file", FIX_DEFAULTS)
    modules_file = role_setting(role_vars, "linux_bbr_fq_modules_load_file", FIX_DEFAULTS)
    plan = linux_bbr_fq_plan(wanted, tcp, netns, sysctl_file, modules_file)
    if plan["fatal"]:
        return None
    changes = live_changes(plan["apply"], tcp)
    if changes is None:
        return None
    if sysctl_file in plan["files_to_change"]:
        held = ", ".join("%s = %s" % item for item in plan["apply"].items())
        undone = "".join(" (%s)" % item["message"] for item in plan["overridden_at_boot"])
        changes.append("%s: %s%s" % (sysctl_file, "write " + held if held else "remove", undone if held else ""))
    if modules_file in plan["files_to_change"]:
        changes.append("%s: %s" % (modules_file, "write tcp_bbr (load it at boot)" if plan["load_module"] else "remove"))
    return changes
