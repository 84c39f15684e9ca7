# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``stale_despite_keepalive`` (field fault 4's other face): the tunnel is dead although keepalives are on.

Follow it here, then in playbooks/verify.yml (no role fixes it: the explanation lists what to check):

- ``fault.py``: ``STALE_DESPITE_KEEPALIVE``, the registry's entry (faults/registry.py): texts, reading, rule.
- ``rule.py``: the finding and whether the host could be judged; ``evidence.py`` its keys.

It reads the ``wireguard`` reading (faults/readings.py) through the keepalive family's shared code,
faults/nat_peer_keepalive/handshakes.py (the running peers, the hub's end, the 180 s threshold).
"""
