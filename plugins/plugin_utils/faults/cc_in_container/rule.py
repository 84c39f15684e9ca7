# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``congestion_control_restricted_in_container``'s rule: a container whose host does not allow the kernel's BBR in its namespace.

Read from tunnel_facts' ``tcp`` (available and allowed congestion controls) and ``netns`` (a child network namespace:
Proxmox CT, Docker, LXC), faults/loss_sensitive_cc/reads.py.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import child_netns, tcp_netns, tcp_stack_read


def in_container_coverage(host, view, views):
    """Coverage of the container rule: the TCP stack read, and a child network namespace (else it does not apply)."""
    unread = tcp_stack_read(view)
    if unread or child_netns(view):
        return unread
    return does_not_apply("not a container (no child network namespace)")


def bbr_not_allowed_in_container(host, view, views):
    """One (evidence, explanation) when this child namespace may not select the BBR the kernel has."""
    read = tcp_netns(view)
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
