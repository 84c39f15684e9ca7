# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``udp_gro`` subset of openwrt_facts and tunnel_facts: one reader, so the fault and its fix see the same NIC.

``UdpGroReader`` is a mixin for the two fact actions (``OpenWrtActionBase`` subclasses with an
``ethtool_k(device)`` method): it reads ``uname -r`` and the forwarding-and-links step from the
action's batch (``self.batch``), takes the routes and the endpoints' routes the action already
parsed, and asks ``ethtool_k`` for each default-route NIC (from the batch's ethtool loop; a NIC
the loop did not list, the underlay of a full tunnel, is read with a command of its own). What
a missing tool or a failed command leaves unknown is said in ``note``, never a failure.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    FORWARD_AND_LINKS_ARGV, parse_ip_link_tunnels, split_forward_and_links)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.udp_gro import parse_kernel_release, udp_gro_subset
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, Step, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import KERNEL_RELEASE_NAME, UNAME_R


def udp_gro_steps() -> list:
    """The batch steps ``gather_udp_gro`` reads besides the routes and the ethtool loop (faults/udp_gro_forwarding/reads.py ``udp_gro_reading``)."""
    return [step_of(FORWARD_AND_LINKS_ARGV), Step(KERNEL_RELEASE_NAME, UNAME_R)]


def _short(res):
    return "%s: rc=%s: %s" % (res["cmd"], res["rc"], ((res["stderr"] or "").strip() or "no output").splitlines()[0][:200])


class UdpGroReader:
    """``gather_udp_gro`` for the fact actions (module doc)."""

    def kernel_release(self):
        """``(parse_kernel_release output or None, note or None)`` from ``uname -r``."""
        res = self.step(UNAME_R, ok_rcs=ANY_EXIT_STATUS, name=KERNEL_RELEASE_NAME)
        if res["rc"] != 0:
            return None, "the kernel release is unknown (%s)" % _short(res)
        try:
            return parse_kernel_release(res["stdout"]), None
        except ParseError as exc:
            return None, "the kernel release is unknown (%s)" % exc

    def forwarding_and_tunnels(self):
        """``(ip_forward, tunnels or None, note or None)`` from the forwarding-and-links step."""
        res = self.step(FORWARD_AND_LINKS_ARGV, ok_rcs=ANY_EXIT_STATUS)
        ip_forward, links = self.parse_output(res, split_forward_and_links)
        if res["rc"] != 0:  # 127: no ip; 255: an ip without -d or -j
            return ip_forward, None, "the tunnels are unknown (%s)" % _short(res)
        try:
            return ip_forward, parse_ip_link_tunnels(links), None
        except ParseError as exc:  # an ip without -j prints text or usage
            return ip_forward, None, "the tunnels are unknown (%s)" % str(exc)[:200]

    def gather_udp_gro(self, routes, endpoint_routes):
        """The ``udp_gro`` facts (``parse/udp_gro.udp_gro_subset``).

        ``routes``: the parsed route table (every table, or at least the main table's defaults),
        None when it could not be read; ``endpoint_routes``: ``{tunnel: [(dev, gateway), ...]}``.
        """
        kernel, kernel_note = self.kernel_release()
        ip_forward, tunnels, links_note = self.forwarding_and_tunnels()
        notes = [kernel_note, links_note]
        if ip_forward is None:
            notes.append("net.ipv4.ip_forward could not be read: forwarding unknown")
        if routes is None:
            notes.append("the routes could not be read: the default-route NIC is unknown")
        return udp_gro_subset(kernel, ip_forward, tunnels, routes, endpoint_routes, self.ethtool_k, notes)
