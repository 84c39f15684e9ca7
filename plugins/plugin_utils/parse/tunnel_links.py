# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer-3 tunnel devices and IPv4 forwarding: what feeds a bridge from a smaller-MTU tunnel.

Pure functions, no I/O. Tunnels come from the same ``ip -d -j link show`` output the bridges do
(iproute2-6.1.0, recorded on Linux 6.18): with ``-d`` every device made by an rtnetlink driver
carries ``linkinfo.info_kind``, the kernel's ``rtnl_link_ops.kind`` string, which is also the
``TYPE`` of ``ip link add ... type TYPE`` (see ``ip link help`` in iproute2's ip/iplink.c). For
TUN/TAP devices iproute2's ip/iptuntap.c prints ``linkinfo.info_data.type`` (``tun`` or ``tap``).
Forwarding comes from ``/proc/sys/net/ipv4/ip_forward`` (Documentation/networking/ip-sysctl.rst:
0 off, anything else on).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import load_ip_links
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# info_kind values of devices that carry IP packets, not Ethernet frames (no MAC header, so they
# cannot be bridge ports and reach a LAN only by routing). Layer-2 tunnels are left out on purpose:
# tap (info_kind "tun" with info_data.type "tap"), gretap, ip6gretap, erspan, ip6erspan, vxlan,
# geneve. PPP devices made by pppd have no info_kind and are not listed either.
TUNNEL_KINDS = (
    "wireguard",  # WireGuard, in-kernel (wireguard-go and Tailscale use "tun")
    "tun",        # TUN in tun mode only: OpenVPN (dev tun), wireguard-go, Tailscale
    "gre",        # GRE over IPv4 (ip_gre)
    "ip6gre",     # GRE over IPv6 (ip6_gre)
    "ipip",       # IPv4 in IPv4 (ipip)
    "sit",        # IPv6 in IPv4, 6in4/6rd (sit)
    "ip6tnl",     # IPv4 or IPv6 in IPv6 (ip6_tunnel)
    "vti",        # IPsec virtual tunnel interface over IPv4 (ip_vti)
    "vti6",       # IPsec virtual tunnel interface over IPv6 (ip6_vti)
    "xfrm",       # IPsec xfrm interface (xfrm_interface)
    "gtp",        # GPRS tunnelling, mobile data (gtp)
    "bareudp",    # IP or MPLS in UDP without a header of its own (bareudp)
    "ovpn",       # OpenVPN data channel offload, mainline since Linux 6.16 (ovpn)
)
# RFC 2863 operstates (as the kernel reports them in IFLA_OPERSTATE) of a device that is up.
# The kernel reports DOWN for every administratively down device; a driver that never signals
# carrier (wireguard, many tunnels) stays UNKNOWN while up.
UP_OPERSTATES = ("UP", "UNKNOWN")
# One round trip for the bridges subset on a router: forwarding first (an empty line when the
# file cannot be read), then the link list; ``exec`` keeps ``ip``'s exit status.
FORWARD_AND_LINKS_ARGV = ["sh", "-c", "cat /proc/sys/net/ipv4/ip_forward 2>/dev/null || echo; exec ip -d -j link show"]


def _tunnel_kind(link):
    info = link.get("linkinfo") if isinstance(link.get("linkinfo"), dict) else {}
    kind = info.get("info_kind")
    if kind not in TUNNEL_KINDS:
        return None
    if kind == "tun":
        # iproute2 prints info_data.type; without it, link_type tells: "none" for tun, "ether" for tap
        mode = (info.get("info_data") or {}).get("type") or ("tun" if link.get("link_type") == "none" else "tap")
        if mode != "tun":
            return None
    return kind


def parse_ip_link_tunnels(text: str) -> dict:
    """Parse ``ip -d -j link show`` into the layer-3 tunnel devices (kinds in TUNNEL_KINDS).

    Input: the JSON list ``ip -d -j link show`` prints (iproute2-6.1.0; without ``-d`` there is
    no ``linkinfo`` and so no tunnel). Output, by device name (MTU in bytes, operstate as ``ip``
    prints it: ``UP``, ``UNKNOWN``, ``DOWN``, ...)::

        {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UP"},
         "wg0": {"kind": "wireguard", "mtu": 1420, "operstate": "UNKNOWN"}}

    A TUN device in tap mode (``linkinfo.info_data.type == "tap"``) is layer 2 and left out, as
    are bridges, veths, plain NICs. No tunnel gives ``{}``. ``mtu`` and ``operstate`` are None
    when ``ip`` does not print them. Whether a tunnel is up: ``operstate in UP_OPERSTATES``.

    Raises ParseError for output that is not a JSON list of link objects (see
    ``_bridges.load_ip_links``).
    """
    tunnels = {}
    for link in load_ip_links(text):
        kind = _tunnel_kind(link)
        if kind is not None:
            tunnels[link["ifname"]] = {"kind": kind, "mtu": link.get("mtu"), "operstate": link.get("operstate")}
    return dict(sorted(tunnels.items()))


def parse_ip_forward(text: str):
    """``/proc/sys/net/ipv4/ip_forward`` (or ``sysctl -n net.ipv4.ip_forward``) → int, or None.

    ``"1\\n"`` → 1, ``"0\\n"`` → 0; empty or blank text (the file could not be read) → None,
    which means unknown, not off. Format: one decimal integer (Linux ip-sysctl.rst; 0 is off,
    any other value on).

    Raises ParseError when the text is not one whole number.
    """
    if not isinstance(text, str):
        raise ParseError("ip_forward must be text, got %s" % type(text).__name__)
    value = text.strip()
    if not value:
        return None
    if not value.lstrip("-").isdigit():
        raise ParseError("net.ipv4.ip_forward: expected a whole number, got %r" % value[:50])
    return int(value)


def split_forward_and_links(text: str) -> tuple:
    """Split the stdout of FORWARD_AND_LINKS_ARGV into ``(ip_forward, ip -d -j link show text)``.

    ``"1\\n[{...}]\\n"`` → ``(1, "[{...}]\\n")``; ``"\\n[...]"`` (ip_forward unreadable) →
    ``(None, "[...]")``. The first line is ``parse_ip_forward``'s input, the rest is given back
    unparsed (``ip`` may have failed: the caller checks the exit status before parsing it).

    Raises ParseError when the text is not a string or its first line is not a whole number.
    """
    if not isinstance(text, str):
        raise ParseError("output must be text, got %s" % type(text).__name__)
    first, _newline, rest = text.partition("\n")
    return parse_ip_forward(first), rest
