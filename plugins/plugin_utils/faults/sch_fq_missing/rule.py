# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``sch_fq_missing``'s rule: no fq qdisc on a host that owns its kernel, so BBR runs without fq pacing.

Read from tunnel_facts' ``tcp`` (``sch_fq_available``) and ``netns`` (in a container the qdisc is the host's),
faults/loss_sensitive_cc/reads.py.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import child_netns, tcp_netns, tcp_stack_read


def not_container_coverage(host, view, views):
    """Coverage of the fq rule: the TCP stack read, and not a container (there the qdisc is the host's)."""
    unread = tcp_stack_read(view)
    if unread or not child_netns(view):
        return unread
    return does_not_apply("a container: the qdisc is the host's")


def no_fq(host, view, views):
    """One (evidence, explanation) when the fq qdisc is missing on a host that is not a container."""
    read = tcp_netns(view)
    if read is None:
        return []
    tcp, netns, _available = read
    if tcp.get("sch_fq_available") is not False or netns.get("child_netns"):
        return []
    return [({"default_qdisc": tcp.get("default_qdisc")}, """
        The fq qdisc is not available in this kernel. BBR paces with TCP's internal pacing instead, which
        costs some CPU; install the sch_fq module for net.core.default_qdisc=fq.""")]
