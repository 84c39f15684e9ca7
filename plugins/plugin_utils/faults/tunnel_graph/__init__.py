# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's tunnel graph (issue 32): faults between hosts, found by joining both ends of every tunnel by public key.

- ``graph.py``: the graph, from the ``wireguard`` facts every host already has (no extra execution), built once per run.
- ``one_sided.py``: ``one_sided_peer``, an entry whose other end runs no entry back.
- ``duplicate_key.py``: ``duplicate_public_key``, one key on two machines' interfaces.
- ``endpoints.py``: ``no_endpoint_either_side`` and ``endpoint_port_mismatch``, who starts a tunnel and where it knocks.
- ``endpoint_address.py``: ``endpoint_address_mismatch``, an endpoint address the other end does not have (a copied
  [Peer], a dynamic-DNS peer that moved: ``resolve.py`` resolves endpoint names once per run from the controller).
- ``return_path.py``: ``return_path_not_allowed``, AllowedIPs that leave out the address the other end sends from.
- ``handshake.py``: ``handshake_never_completes``, both ends run and list each other, no handshake: the cause from
  both ends' counters and preshared key presence (measured on wireguard-go; its docstring has the table);
  ``samples.py``: the second reading of the counters diagnose takes on both ends where one sample cannot settle it.
- ``allowed_ips.py``: ``allowed_ips_overlap``, two entries of one interface claiming the same addresses.
- ``shadow.py``: ``allowed_ips_shadow_lan``, a tunnel prefix routed over a prefix connected on the host (its LAN);
  ``reads.py``: the ``link_addresses`` reading it adds (every device's live addresses, from the PMTU fault's listing).
- ``key_mismatch.py``: ``public_key_mismatch``, an entry listing another key for an interface of the run, or an
  interface running another key than its private key gives (``wg pubkey`` on the host: the facts' configured_public_key).
- ``fault.py``: the registry's entries; ``evidence.py``: what their findings hold.
- ``keys.py``: a run host's private key listed as another's peer key (X25519 of it is that host's public key): the
  graph shows a placeholder instead, the registry removes it from every finding.
- ``export.py``: the graph as reports/findings.json carries it (``tunnel_graph``), each entry's state (healthy, stale,
  dead, one-sided, in conflict) for the report's picture (plugin_utils/report/tunnel_graph.py).

No role fixes these: a wrong guess about keys or AllowedIPs would cut a tunnel, so the findings name the lines to change.
One exception, safe and local: ``keepalive.py``'s ``keepalive_on_wrong_side`` is fixed by wireguard_keepalive on the end
that keeps the endpoint, aimed by the finding's vars at its one entry (its plan is fault 4's, nat_peer_keepalive/plan.py).
"""
