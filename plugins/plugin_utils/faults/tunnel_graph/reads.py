# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What allowed_ips_shadow_lan reads besides the WireGuard facts: every device's live addresses, all families.

``link_addresses`` (``LINK_ADDRESSES``): ``ip -j addr show``, the listing the PMTU fault's ``link_ipv6`` already runs
(``path_mtu/reads.py``'s ``ADDR_ARGV``; a step two readings list runs once in the host's batch: no command of its
own), kept whole here: each device that is up with its addresses as ``address/prefix``. A device's address and
prefix is the connected route the kernel adds for it (``proto kernel scope link``), which the rule compares with the
tunnel's AllowedIPs.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import ADDR_ARGV, gather_addresses, parse_addresses
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import step_of


def parse_device_addresses(text) -> dict:
    """``ip -j addr show`` -> ``{device: ["address/prefix", ...]}``: every device that is up (``UP`` in its ``flags``)
    with its ``inet`` and ``inet6`` addresses as printed, in order (link-local ones too; ``[]`` for one without any)::

        '[{"ifname": "eth0", "flags": ["BROADCAST", "UP", "LOWER_UP"],
           "addr_info": [{"family": "inet", "local": "192.168.1.2", "prefixlen": 24},
                         {"family": "inet6", "local": "fe80::1", "prefixlen": 64}]},
          {"ifname": "eth1", "flags": ["BROADCAST"], "addr_info": []}]'
        -> {"eth0": ["192.168.1.2/24", "fe80::1/64"]}

    A device that is down is left out: the kernel removes its connected routes. Format: iproute2's JSON (``-j``, iproute2
    >= 4.13; recorded: tests/unit/fixtures/ip_j_addr_show/). Raises ParseError as ``parse/bridges.load_ip_links`` does,
    and for a device without an ``addr_info`` list of objects.
    """
    return parse_addresses(text, ("inet", "inet6"))


def gather_link_addresses(action, facts, args):
    """The ``link_addresses`` reading's gather: ``{"devices": {device: ["address/prefix", ...]}, "note": None}``, or
    ``{"devices": None, "note": why}`` (path_mtu/reads.py's ``gather_addresses``): the connected prefixes are then
    unknown, never "none"."""
    return gather_addresses(action, parse_device_addresses, "live addresses unknown")


_LINK_ADDRESSES = Read(steps=(step_of(ADDR_ARGV),), gather=gather_link_addresses)
# every device's live addresses, all families: the connected prefixes a tunnel's AllowedIPs may shadow
LINK_ADDRESSES = Reading("link_addresses", {"linux": _LINK_ADDRESSES, "openwrt": _LINK_ADDRESSES})
