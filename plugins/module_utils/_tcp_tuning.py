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

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import parse_cc_list

CC_KEY = "net.ipv4.tcp_congestion_control"
QDISC_KEY = "net.core.default_qdisc"
BACKLOG_KEY = "net.core.netdev_max_backlog"
HOST_LEVEL_KEYS = (QDISC_KEY, BACKLOG_KEY)
AVAILABLE_KEY = "net.ipv4.tcp_available_congestion_control"
ALLOWED_KEY = "net.ipv4.tcp_allowed_congestion_control"
RMEM_KEY = "net.ipv4.tcp_rmem"
WMEM_KEY = "net.ipv4.tcp_wmem"
# every key tcp_facts() reads
TCP_FACT_KEYS = (CC_KEY, AVAILABLE_KEY, ALLOWED_KEY, QDISC_KEY, RMEM_KEY, WMEM_KEY, BACKLOG_KEY)
MODULE_STATES = ("builtin", "loaded", "module")

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
    "read_only": "/proc/sys is read-only here (EROFS; procps-ng 4 says 'permission denied on key'), so "
                 "{key}={value} cannot be set: set it on the container host or start the container with "
                 "--sysctl {key}={value}",
    "invalid": "the kernel rejected {key}={value} as invalid (EINVAL)",
    "unknown": "{key}={value} could not be set",
}


def explain(reason, key, value, allowed=None):
    """Return the operator-facing sentence for a reason code from ``REASONS``.

    A congestion control refused with EPERM is one the namespace does not allow, unless
    ``allowed`` (its tcp_allowed_congestion_control, when read) lists it: then the advice to
    allow it would be wrong.

    >>> explain("host_level", "net.core.default_qdisc", "fq").startswith("net.core.default_qdisc does")
    True
    """
    if key == CC_KEY and reason == "permission_denied" and (allowed is None or value not in allowed):
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


def tcp_facts(read, bbr_state, fq_state):
    """Build the ``tcp`` facts of tunnel_facts from read sysctls and module states.

    ``read``: ``{key: whitespace-normalised value or None}`` for TCP_FACT_KEYS (None: absent here).
    ``bbr_state``/``fq_state``: ``"builtin"``, ``"loaded"``, ``"module"`` (loadable, not loaded)
    or None (kernel lacks it). ``{"net.ipv4.tcp_congestion_control": "cubic",
    "net.ipv4.tcp_available_congestion_control": "reno cubic", ...}, None, "builtin"`` →
    ``{"congestion_control": "cubic", "congestion_control_available": ["reno", "cubic"], ...,
    "tcp_bbr_available": False, "tcp_bbr_loadable_module": False, "sch_fq_available": True}``.
    Raises ParseError for a congestion control list or backlog that does not parse.
    """
    available = parse_cc_list(read[AVAILABLE_KEY]) if read.get(AVAILABLE_KEY) is not None else []
    allowed = read.get(ALLOWED_KEY)
    backlog = read.get(BACKLOG_KEY)
    if backlog is not None and not backlog.isdigit():
        raise ParseError("%s must be a number of packets, got %r" % (BACKLOG_KEY, backlog))
    return {
        "congestion_control": read.get(CC_KEY),
        "congestion_control_available": available,
        "congestion_control_allowed": parse_cc_list(allowed) if allowed is not None else [],
        "default_qdisc": read.get(QDISC_KEY),
        "tcp_rmem": read.get(RMEM_KEY),
        "tcp_wmem": read.get(WMEM_KEY),
        "netdev_max_backlog": int(backlog) if backlog is not None else None,
        "tcp_bbr_available": "bbr" in available or bbr_state is not None,
        "tcp_bbr_loadable_module": bbr_state in ("module", "loaded"),
        "sch_fq_available": fq_state is not None,
    }


def netns_facts(has_net, has_host_keys, container):
    """The ``netns`` facts: ``child_netns`` when /proc/sys/net exists but the host-level keys do not."""
    return {"child_netns": bool(has_net and not has_host_keys), "container": container}


def package_listed(text, package):
    """Whether ``opkg list-installed PKG`` or ``apk list --installed PKG`` output lists ``package``.

    opkg: ``kmod-tcp-bbr - 5.15.167-1``; apk (OpenWrt 25.12):
    ``kmod-tcp-bbr-6.6.73-r1 x86_64 {kmod-tcp-bbr} (GPL-2.0-only) [installed]``.
    """
    pattern = re.compile(r"^%s(?: - |-[0-9])" % re.escape(package))
    return any(pattern.match(line.strip()) for line in text.splitlines())
