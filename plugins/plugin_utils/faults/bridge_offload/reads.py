# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the offload faults read: the ``bridges`` reading (``BRIDGES``), the subset of tunnel_facts (Linux) and
openwrt_facts (routers) both the bridge fault and the tunnel fault (faults/tunnel_offload/) judge.

Its commands, in the host's one batch: /proc/sys/net/ipv4/ip_forward and ``ip -d -j link show`` in one step
(``FORWARD_AND_LINKS_ARGV``, which the PMTU fault's ``link_mtu`` reading lists too: it runs once), the MSS clamp
listings (``remote/tunnel_reader.mss_clamp_steps``), and ``ethtool -k`` of every bridge, port and tunnel
(``OFFLOAD_LOOP``, over the devices the link listing names). The gathers turn them into the facts with the
parsers of parse/bridges.py and parse/tunnel_links.py and the action's ``bridges_and_tunnels``
(remote/tunnel_reader.py: the offloads and clamps), the reader the role's action bridge_offload shares.

faults/readings.py imports ``BRIDGES`` for its ``ORDER`` (the gather order); this file imports nothing of it.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import LoopLines, Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import bridges_subset, parse_ip_link_bridges
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import (
    FORWARD_AND_LINKS_ARGV, parse_ip_link_tunnels, split_forward_and_links)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import ETHTOOL_K, NOT_FOUND, OFFLOAD_DEVICE_LINES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tunnel_reader import mss_clamp_steps

# the one ethtool loop of a facts batch: bridges, their ports, tunnels and default-route NICs, a device once
# (the udp_gro reading's loop over the default-route NICs is this one too: faults/udp_gro_forwarding/reads.py)
OFFLOAD_LOOP = (ETHTOOL_K,)


def _no_link_list(ip_forward, why):
    """The ``bridges`` subset when ``ip -d -j link show`` gave no link list (``why``, text): bridges, tunnels and
    offloads unknown (``bridges_subset`` gives ``{}`` for both with an ``ip_error``), forwarding as read."""
    return bridges_subset(None, None, ip_forward, None, why)


def _ip_failed(res):
    """Why a failed ip gave no list: ``rc=N: STDERR``, at most 200 characters of it, ``no output`` when empty."""
    return "rc=%s: %s" % (res["rc"], (res["stderr"] or "no output").strip()[:200])


def _from_links(action, ip_forward, links):
    """The ``bridges`` subset from the link listing ip printed with exit status 0: an unreadable one is reported."""
    try:
        bridges, tunnels = parse_ip_link_bridges(links), parse_ip_link_tunnels(links)
    except ParseError as exc:  # an ip without -j prints text or usage
        return _no_link_list(ip_forward, str(exc)[:200])
    return action.bridges_and_tunnels(bridges, tunnels, ip_forward)


def _linux_bridges(action, facts, args):
    """The ``bridges`` subset (``_bridges.bridges_subset``): no ip or ethtool is reported, not a failure."""
    res = action.step(FORWARD_AND_LINKS_ARGV, ok_rcs=ANY_EXIT_STATUS)
    ip_forward, links = action.parse_output(res, split_forward_and_links)
    if res["rc"] == NOT_FOUND:
        return _no_link_list(ip_forward, "ip (iproute2) is not installed")
    if res["rc"] != 0:
        return _no_link_list(ip_forward, _ip_failed(res))
    return _from_links(action, ip_forward, links)


def _openwrt_bridges(action, facts, args):
    """Bridges, ports, offloads, tunnels and ip_forward from the forwarding-and-links step and the ethtool steps."""
    res = action.step(FORWARD_AND_LINKS_ARGV, ok_rcs=(0, 1, 255, NOT_FOUND))
    ip_forward, links = action.parse_output(res, split_forward_and_links)
    if res["rc"] != 0:  # 1: BusyBox ip (no -d, no -j); 255: an ip without -d or -j; 127: no ip at all
        return _no_link_list(ip_forward, _ip_failed(res))
    return _from_links(action, ip_forward, links)


_BRIDGE_STEPS = (step_of(FORWARD_AND_LINKS_ARGV), *mss_clamp_steps())
_BRIDGE_LOOP = (LoopLines(OFFLOAD_DEVICE_LINES, (step_name(FORWARD_AND_LINKS_ARGV),), OFFLOAD_LOOP),)
BRIDGES = Reading("bridges", {
    "linux": Read(steps=_BRIDGE_STEPS, loops=_BRIDGE_LOOP, gather=_linux_bridges),
    "openwrt": Read(steps=_BRIDGE_STEPS, loops=_BRIDGE_LOOP, gather=_openwrt_bridges),
})
