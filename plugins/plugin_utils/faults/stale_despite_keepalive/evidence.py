# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""stale_despite_keepalive: what its finding's ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    (("interface", "peer_public_key", "endpoint"), "the WireGuard interface, the peer entry's public key and endpoint"),
    ("persistent_keepalive_s", "its PersistentKeepalive, s"),
    (("handshake_age_s", "handshake"), "the newest handshake's age, s (null: never), and `never` or `stale`"),
    (("rx_bytes", "tx_bytes"), "the entry's byte counters"),
    (("hub", "hub_sees_endpoint"), "when the entry is this host's hub and its facts are in the run: the hub, and the "
     "endpoints its entries for this host show; else null"),
)
