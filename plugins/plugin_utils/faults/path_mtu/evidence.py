# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault (path_mtu_black_hole): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    (("interface", "endpoint", "inner_target"), "the WireGuard interface, the peer endpoint its outer ladder probed and the "
     "far tunnel address its inner ladder probed (null: no far tunnel address is known, the inner ladder did not run); the "
     "peer with the smallest MTU to set when several peers are found"),
    (("uplink_device", "uplink_mtu_bytes"), "the device the endpoint is reached through and its MTU (the outer ladder's upper bound)"),
    ("tunnel_mtu_bytes", "the tunnel device's MTU now, bytes"),
    (("outer_family", "overhead_bytes"), "the outer address family assumed (the endpoint's: 4 or 6) and WireGuard's overhead "
     "for it (60 bytes IPv4, 80 IPv6)"),
    (("outer_path_mtu_bytes", "inner_path_mtu_bytes"), "the path MTU the don't-fragment ladder measured outside the tunnel (to "
     "the endpoint) and inside it (to the far tunnel address), bytes; null where that ladder did not run or was invalid"),
    ("set_mtu_bytes", "the MTU the fix sets: outer path MTU minus the overhead, or the inner path MTU, the smaller; never below 1280 "
     "where IPv6 runs inside (or may), never below 576; null when the path is too narrow for that (nothing is set)"),
    (("ipv6_inside", "raised_to_ipv6_minimum"), "whether the tunnel carries IPv6 (an IPv6 prefix in a peer's AllowedIPs, or an "
     "IPv6 address other than link-local on the device as ip -j addr show lists it, or in its configuration: uci, a wg-quick "
     "file's Address =, which the next start adds; null: unknown, a device not listed that no wg-quick file configures, "
     "kept at the 1280 floor), "
     "and whether the MTU to set was raised to IPv6's 1280 although the path is narrower"),
    ("larger_packets", "how the probes above the largest size that passed failed, on the ladders that found the fault: "
     "\"lost silently\" (no reply, no ICMP: the black hole), \"refused with ICMP\" (a hop answered too big), \"refused by "
     "this host\" (it knew a smaller path MTU); null when none failed"),
    (("outer_probes", "outer_pings_sent", "inner_probes", "inner_pings_sent"), "each ladder's probed sizes and echo requests sent "
     "(retries of silently lost sizes included); null where it did not run"),
    (("peers_found", "peers_measured"), "how many of the tunnel's measured peers show the fault, of how many measured"),
)
