# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decide which TCP-stack sysctls a host can take, and explain the ones it cannot.

Kernel facts behind the rules (net/ipv4/tcp_cong.c, net/core/sysctl_net_core.c):
- ``net.core.default_qdisc`` and ``net.core.netdev_max_backlog`` are registered only in the
  initial network namespace: a container or LXC guest does not have them (host-level keys).
- ``net.ipv4.tcp_congestion_control``, ``tcp_rmem`` and ``tcp_wmem`` are per network namespace;
  outside the initial namespace the default congestion control may only be one listed in
  ``net.ipv4.tcp_allowed_congestion_control`` (else EPERM).
- Without sch_fq, BBR paces by itself (TCP internal pacing, Linux >= 4.13), so a missing fq is
  not a reason to give up BBR.
"""

from __future__ import annotations

CC_KEY = "net.ipv4.tcp_congestion_control"
QDISC_KEY = "net.core.default_qdisc"
BACKLOG_KEY = "net.core.netdev_max_backlog"
HOST_LEVEL_KEYS = (QDISC_KEY, BACKLOG_KEY)

# reason code -> message template; {key}, {value} are filled in.
REASONS = {
    "host_level": "{key} does not exist in this network namespace (container or LXC guest): "
                  "it is a host-level setting, set {key}={value} on the container host",
    "kernel_lacks_sch_fq": "kernel has no sch_fq, so {key}={value} cannot be set: BBR falls back to "
                           "its internal pacing (TCP internal pacing, Linux >= 4.13)",
    "restricted_in_namespace": "{key}={value} is restricted in this network namespace (EPERM): add "
                               "{value} to net.ipv4.tcp_allowed_congestion_control on the container host",
    "absent": "{key} does not exist on this kernel or in this namespace",
    "permission_denied": "{key}={value} was refused (EPERM/EACCES): run as root in the initial network "
                         "namespace, or allow it on the container host",
    "read_only": "/proc/sys is read-only here (EROFS), so {key}={value} cannot be set: set it on the "
                 "container host or start the container with --sysctl {key}={value}",
    "invalid": "the kernel rejected {key}={value} as invalid (EINVAL)",
    "unknown": "{key}={value} could not be set",
}


def explain(reason, key, value):
    """Return the operator-facing sentence for a reason code from ``REASONS``.

    >>> explain("host_level", "net.core.default_qdisc", "fq").startswith("net.core.default_qdisc does")
    True
    """
    if key == CC_KEY and reason == "permission_denied":
        reason = "restricted_in_namespace"
    return REASONS.get(reason, REASONS["unknown"]).format(key=key, value=value)


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
