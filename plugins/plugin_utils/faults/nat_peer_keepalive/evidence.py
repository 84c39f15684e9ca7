# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4 (nat_peer_without_keepalive): what its finding's ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence table of the fault is generated from it (scripts/findings_doc.py).
"""

EVIDENCE = (
    ("hub", "the peer's hub (`tunnelfix_tunnel_hub`)"),
    ("peer_public_key", "the public key of the peer entry to the hub that has no PersistentKeepalive"),
    ("persistent_keepalive_s", "its PersistentKeepalive, s (null: unset)"),
    ("handshake_age_s", "the oldest newest-handshake age of both ends, s (null: none)"),
    ("hub_sees_endpoint", "the endpoints the hub's entries for this peer show (null: none)"),
    (("idle_ping_loss_percent", "idle_s"), "the hub's ping to the peer after a silence: loss %, and the silence, s"),
)
