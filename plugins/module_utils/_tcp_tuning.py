# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The TCP stack's facts (``tcp_facts``, ``netns_facts``) and the sentences that explain a sysctl a host cannot take.

``REASONS``/``explain``: the operator-facing reason for a value a host cannot take, shared by linux_bbr_fq's plan
(plugins/plugin_utils/faults/loss_sensitive_cc/plan.py, which also gives the kernel facts behind the rules) and the
outcome of a write (``_sysctl_apply``, on the target too).
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
