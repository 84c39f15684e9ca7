# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's arithmetic: the WireGuard MTU that fits a measured outer path MTU.

A WireGuard data packet adds, in front of and behind the inner packet: the outer IP header (20
bytes IPv4, 40 IPv6), UDP (8), WireGuard's data header (16: type and reserved 4, receiver index
4, counter 8) and the Poly1305 tag (16): WIREGUARD_OVERHEAD_BYTES 60 with an IPv4 outer header, 80
with IPv6 (``struct message_data`` and ``noise_encrypted_len`` in WireGuard/wireguard-linux
drivers/net/wireguard/messages.h; wg-quick's automatic MTU is the route MTU minus 80, the IPv6
case, WireGuard/wireguard-tools src/wg-quick/linux.bash ``set_mtu_up`` @025f00454f). WireGuard pads
the inner packet to a multiple of 16 but never past the interface MTU (``calculate_skb_padding``,
drivers/net/wireguard/send.c @08f9420909), so a full-size inner packet of the tunnel MTU leaves as
exactly tunnel MTU + overhead bytes. Below the MTU the padding shows in the inner ladder: over a
path that carries P bytes, a tunnel whose MTU is over P - overhead passes inner packets only up to
the largest multiple of 16 that fits (P 1400, IPv4 outside: 1328 passes, 1329 leaves padded to 1344 +
60 = 1404 and is lost), while an MTU of exactly P - overhead (1340) carries 1340-byte packets, padded
to no more than the MTU (``padded_inner_edge``).

IPv6 needs links of at least 1280 bytes (RFC 8200 section 5): where IPv6 runs inside the tunnel the
MTU is never set below IPV6_MIN_MTU_BYTES, even when the outer path is smaller; the outer packets
of a full-size inner packet are then larger than the measured path, and ``outer_exceeds_path`` says
so (the finding must name it). WireGuard sends its outer packets without DF and lets this host
fragment them (``df`` 0, ``ignore_df`` in send4/send6, drivers/net/wireguard/socket.c @0e9725840f),
so they travel as fragments, which a hop that drops by size drops as well when a fragment is over it.
"""

from __future__ import annotations

# Outer IP + UDP + WireGuard data header + Poly1305 tag, bytes, by the outer address family (module doc)
WIREGUARD_OVERHEAD_BYTES = {4: 20 + 8 + 16 + 16, 6: 40 + 8 + 16 + 16}
IPV6_MIN_MTU_BYTES = 1280
# WireGuard pads an inner packet to a multiple of this, never past the interface MTU (module doc)
WIREGUARD_PADDING_BYTES = 16
# Linux refuses an IPv4 interface MTU below 68 (RFC 791's minimum)
IPV4_MIN_MTU_BYTES = 68
# THE floor of the fix: the smallest MTU the rule names and the role sets on a tunnel, bytes: IPv4's datagram every
# host must take whole (RFC 791's 576). A path too narrow for it is found, with no MTU to set (rule.judge).
MIN_MTU_BYTES = 576
MAX_MTU_BYTES = 65535


def tunnel_mtu_for_path(outer_path_mtu_bytes, outer_family, ipv6_inside):
    """The WireGuard interface MTU for a measured outer path MTU (module doc for the numbers).

    ``outer_path_mtu_bytes``: the path MTU measured to the endpoint (the ladder's ``path_mtu_bytes``),
    a whole number up to 65535; ``outer_family``: 4 or 6, the endpoint's address family;
    ``ipv6_inside``: True when the tunnel carries IPv6. → ``{"mtu_bytes": 1340, "computed_bytes": 1340,
    "overhead_bytes": 60, "raised_to_ipv6_minimum": False, "outer_exceeds_path": False}`` for (1400,
    4, False); (1300, 6, True) → ``{"mtu_bytes": 1280, "computed_bytes": 1220, "overhead_bytes": 80,
    "raised_to_ipv6_minimum": True, "outer_exceeds_path": True}``. Raises ValueError naming the
    argument: a family other than 4/6, a path MTU that is not a whole number, above 65535, or too
    small to leave IPV4_MIN_MTU_BYTES inside the tunnel (IPv4 inside; IPv6 inside takes the 1280 floor).
    """
    if outer_family not in (4, 6) or isinstance(outer_family, bool):
        raise ValueError("outer_family must be 4 or 6, got %r" % (outer_family,))
    overhead = WIREGUARD_OVERHEAD_BYTES[outer_family]
    if isinstance(outer_path_mtu_bytes, bool) or not isinstance(outer_path_mtu_bytes, int) \
            or not overhead + IPV4_MIN_MTU_BYTES <= outer_path_mtu_bytes <= MAX_MTU_BYTES:
        raise ValueError("outer_path_mtu_bytes must be a whole number %d-%d for an IPv%d outer path, got %r"
                         % (overhead + IPV4_MIN_MTU_BYTES, MAX_MTU_BYTES, outer_family, outer_path_mtu_bytes))
    if not isinstance(ipv6_inside, bool):
        raise ValueError("ipv6_inside must be true or false, got %r" % (ipv6_inside,))
    computed = outer_path_mtu_bytes - overhead
    raised = ipv6_inside and computed < IPV6_MIN_MTU_BYTES
    mtu = IPV6_MIN_MTU_BYTES if raised else computed
    return {"mtu_bytes": mtu, "computed_bytes": computed, "overhead_bytes": overhead,
            "raised_to_ipv6_minimum": raised, "outer_exceeds_path": mtu + overhead > outer_path_mtu_bytes}


def padded_inner_edge(fit_bytes):
    """The largest inner packet, bytes, a tunnel with an MTU over ``fit_bytes`` (the outer path MTU minus WireGuard's
    overhead) gets through that path: ``fit_bytes`` rounded down to a multiple of WIREGUARD_PADDING_BYTES (module doc).
    1340 -> 1328; 1344 -> 1344. An inner ladder that stops exactly there measured the padding, not a narrower hop."""
    return fit_bytes - fit_bytes % WIREGUARD_PADDING_BYTES
