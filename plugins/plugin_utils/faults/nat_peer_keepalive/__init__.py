# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4, ``nat_peer_without_keepalive``: a NATed peer without PersistentKeepalive goes dark for its hub.

Follow it here, top to bottom, then in roles/wireguard_keepalive/tasks/linux.yml and openwrt.yml (the role that applies the fix):

- ``fault.py``: ``NAT_PEER_WITHOUT_KEEPALIVE``, the registry's entry (faults/registry.py): texts, reading, rule, plan.
  It reads the ``wireguard`` reading (faults/readings.py: fault 1, the PMTU fault and stale_despite_keepalive read it too).
- ``handshakes.py``: the running peers of a host and of its hub, and the stale-handshake threshold; shared with the
  sibling fault stale_despite_keepalive (faults/stale_despite_keepalive/), which imports it.
- ``rule.py``: the finding (evidence and explanation) and whether the host could be judged; ``evidence.py`` its keys.
- ``plan.py``: the one plan. Which interfaces and peers, which files, which running peers differ: ``Fault.plan``
  (``keepalive_plan``, remediate's lines) and the role's Python (the uci_wireguard_keepalive_targets and
  wireguard_config_plan filters, the wg_live_keepalive action) call the same functions.
- ``uci_peers.py``: the OpenWrt peer sections the role changes, from ``uci show network``.
- ``config_files.py``: the Linux role's listing of wg-quick and .netdev files, and which of them it edits.

Shared code stays outside: parse/wg_config_peers.py (the ``wireguard`` reading's file parser, the PMTU fault reads it
too), remote/wg_live_reader.py (openwrt_facts and the fixes read the live state through it), and module_utils/
(the wg_quick_keepalive and networkd_keepalive modules that edit the files on the target).

The Fault value is imported from ``fault.py``, not re-exported here (as in faults/endpoint_route/).
"""
