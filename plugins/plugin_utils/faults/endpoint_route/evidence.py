# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 1 (endpoint_route_pinned): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    (("interface", "endpoint"), "the WireGuard interface and the endpoint address"),
    (("dev", "gateway"), "what `ip route get <endpoint>` uses"),
    ("preferred_uplink_device", "the preferred uplink's device"),
    ("pinned_routes", "the /32 (/128) host routes no `config route` section asks for: netifd's, the ones the fix deletes"),
    ("user_route_conflict", "null, or the `config route` section (`section`, `target`, `interface`, `dev`, `gateway`, `message`) "
     "that keeps sending the endpoint over another uplink once netifd's routes are gone: the fix keeps it, the role's final "
     "check fails naming it"),
    ("metered_uplink", "whether `dev` is listed in `openwrt_mwan3_wg_metered_uplinks`; null when the facts read no uplinks"),
    ("uplinks", "every uplink (the preferred one, then each device with a default route in the main table): `interface`, "
     "`device`, `preferred`, `metered`, `rx_bytes`, `tx_bytes` (the kernel's counters since the device came up; null when "
     "`ip` has no `-s -j`)"),
)
