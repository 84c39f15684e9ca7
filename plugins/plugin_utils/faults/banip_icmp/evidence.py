# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2 (banip_icmp_limit_drops_health_checks): what its finding's ``evidence`` holds (``Fault.evidence``), one
(keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    (("icmplimit_per_second", "burst_packets"), "the loaded rule's limit and burst (5 where nft's text hides it)"),
    ("counter", "the flood counter's name"),
    (("window_s", "window_icmp_flood_growth_packets"), "the window by the router's clock, and the counter's growth in it"),
    (("mwan3_failed_checks", "mwan3_lost_pings", "mwan3_failed_interfaces"),
     "what mwan3track logged in the window (null without a usable logread)"),
    ("mwan3_ping_budget_per_second", "the replies per second mwan3's tracking expects from healthy uplinks (min(reliability, "
     "targets) x count / interval: mwan3track stops a round once `reliability` targets answered)"),
    (("probe_rate_per_second", "probe_pings_sent", "probe_pings_failed", "probe_icmp_flood_drops_packets"),
     "the probe, and the counter's growth during it"),
)
