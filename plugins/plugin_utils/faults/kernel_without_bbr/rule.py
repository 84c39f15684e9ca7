# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kernel or the container allows: limits the congestion-control fix cannot change.

No role fixes these; they say why fault 3's fix cannot apply here (no BBR in the kernel, a
container whose host does not allow BBR in its namespace) or where it runs without fq pacing.
Read from tunnel_facts' ``tcp`` (available/allowed congestion controls, sch_fq) and ``netns``
(child namespace: Proxmox CT, Docker, LXC).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof, does_not_apply, is_router, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import NETNS, TCP

_FILES = ("plugins/plugin_utils/faults/kernel_limits.py", "playbooks/verify.yml")


def _tcp_netns(view):
    """(tcp facts, netns facts, the available congestion controls) or None when they were not read."""
    facts = view.get("tunnelfix") or {}
    tcp, netns = facts.get("tcp") or {}, facts.get("netns") or {}
    available = tcp.get("congestion_control_available")
    if not tcp or not isinstance(available, list):  # not read (or junk): no guess about the kernel
        return None
    return tcp, netns, available


def tcp_stack_read(view):
    """None when the TCP stack was read, else Fault.coverage's not_checked with the reason (a router's facts lack it)."""
    if _tcp_netns(view) is not None:
        return None
    return not_checked("the TCP stack was not read (openwrt_facts does not read it)" if is_router(view)
                       else "the TCP stack was not read")


def _in_container(host, view, views):
    """Coverage of the container rule: the TCP stack read, and a child network namespace (else it does not apply)."""
    unread = tcp_stack_read(view)
    if unread or ((view.get("tunnelfix") or {}).get("netns") or {}).get("child_netns"):
        return unread
    return does_not_apply("not a container (no child network namespace)")


def _not_container(host, view, views):
    """Coverage of the fq rule: the TCP stack read, and not a container (there the qdisc is the host's)."""
    unread = tcp_stack_read(view)
    if unread or not ((view.get("tunnelfix") or {}).get("netns") or {}).get("child_netns"):
        return unread
    return does_not_apply("a container: the qdisc is the host's")


def no_bbr(host, view, views):
    """One (evidence, explanation) when BBR is neither built in nor loadable."""
    read = _tcp_netns(view)
    if read is None:
        return []
    tcp, _netns, available = read
    if "bbr" in available or tcp.get("tcp_bbr_loadable_module") or tcp.get("tcp_bbr_available"):
        return []
    return [({"congestion_control_available": available}, """
        This kernel offers no BBR (not built in, no tcp_bbr module): the congestion-control fix cannot be
        applied here; tune buffers and keep loss low, or use a kernel with CONFIG_TCP_CONG_BBR.""")]


def bbr_not_allowed_in_container(host, view, views):
    """One (evidence, explanation) when this child namespace may not select the BBR the kernel has."""
    read = _tcp_netns(view)
    if read is None:
        return []
    tcp, netns, available = read
    allowed = tcp.get("congestion_control_allowed") or []
    if not (netns.get("child_netns") and "bbr" in available and "bbr" not in allowed):
        return []
    return [({"container": netns.get("container"), "congestion_control_allowed": allowed}, """
        This host is a container (a child network namespace): it may only select a congestion control the
        host lists in net.ipv4.tcp_allowed_congestion_control, and bbr is not there. Add it on the host
        (Proxmox node, Docker host); the container cannot.""")]


def no_fq(host, view, views):
    """One (evidence, explanation) when the fq qdisc is missing on a host that is not a container."""
    read = _tcp_netns(view)
    if read is None:
        return []
    tcp, netns, _available = read
    if tcp.get("sch_fq_available") is not False or netns.get("child_netns"):
        return []
    return [({"default_qdisc": tcp.get("default_qdisc")}, """
        The fq qdisc is not available in this kernel. BBR paces with TCP's internal pacing instead, which
        costs some CPU; install the sch_fq module for net.core.default_qdisc=fq.""")]


KERNEL_WITHOUT_BBR = Fault(
    id="kernel_without_bbr", number=None, title="The kernel has no BBR", severity="medium", hosts="any",
    reads=("tunnelfix.tcp",), facts=(TCP,), rule=no_bbr, coverage=lambda host, view, views: tcp_stack_read(view),
    fires_when="no BBR built in or as a module",
    symptom="The congestion-control fix cannot be applied on this host.",
    fix="No role: a kernel with CONFIG_TCP_CONG_BBR (built in or as tcp_bbr).",
    proof=Proof(how="verify re-reads the available congestion controls and the rule no longer fires."),
    files=_FILES,
    evidence=(
        ("congestion_control_available", "the congestion controls the kernel offers (`tcp_available_congestion_control`), "
         "with no `bbr` among them and no loadable tcp_bbr"),
    ),
)

CONGESTION_CONTROL_RESTRICTED_IN_CONTAINER = Fault(
    id="congestion_control_restricted_in_container", number=None, title="The container may not use BBR",
    severity="medium", hosts="container",
    reads=("tunnelfix.tcp", "tunnelfix.netns"), facts=(TCP, NETNS), rule=bbr_not_allowed_in_container, coverage=_in_container,
    fires_when="BBR exists but the host does not allow it in this network namespace",
    symptom="Setting BBR in a Proxmox CT or Docker container fails with 'Operation not permitted'.",
    fix="No role here: add bbr to net.ipv4.tcp_allowed_congestion_control on the container's host.",
    proof=Proof(how="verify re-reads the allowed congestion controls and the rule no longer fires."),
    files=_FILES,
    evidence=(
        ("container", "the container's name, as the facts read it (null when unknown)"),
        ("congestion_control_allowed", "the congestion controls the container may select (`tcp_allowed_congestion_control`), "
         "without `bbr`"),
    ),
)

SCH_FQ_MISSING = Fault(
    id="sch_fq_missing", number=None, title="No fq qdisc for pacing", severity="low", hosts="any, not a container",
    reads=("tunnelfix.tcp", "tunnelfix.netns"), facts=(TCP, NETNS), rule=no_fq, coverage=_not_container,
    fires_when="no fq qdisc",
    symptom="BBR runs with TCP's internal pacing (more CPU) instead of fq.",
    fix="No role: install the sch_fq module.",
    proof=Proof(how="verify re-reads the qdiscs the kernel offers and the rule no longer fires."),
    files=_FILES,
    evidence=(
        ("default_qdisc", "`net.core.default_qdisc` of a kernel without sch_fq"),
    ),
)
