# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``kernel_without_bbr``'s rule: the kernel offers no BBR, built in or as tcp_bbr, so fault 3's fix cannot apply.

Read from tunnel_facts' ``tcp`` (the available congestion controls, whether tcp_bbr is a loadable module:
faults/loss_sensitive_cc/reads.py).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.reads import tcp_netns, tcp_stack_read


def bbr_coverage(host, view, views):
    """Coverage of the rule (Fault.coverage): the TCP stack read."""
    return tcp_stack_read(view)


def no_bbr(host, view, views):
    """One (evidence, explanation) when BBR is neither built in nor loadable."""
    read = tcp_netns(view)
    if read is None:
        return []
    tcp, _netns, available = read
    if "bbr" in available or tcp.get("tcp_bbr_loadable_module") or tcp.get("tcp_bbr_available"):
        return []
    return [({"congestion_control_available": available}, """
        This kernel offers no BBR (not built in, no tcp_bbr module): the congestion-control fix cannot be
        applied here; tune buffers and keep loss low, or use a kernel with CONFIG_TCP_CONG_BBR.""")]
