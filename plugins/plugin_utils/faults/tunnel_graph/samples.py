# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The second sample of a WireGuard entry's counters: read again a few seconds after the facts, where one is needed.

The facts read every host's counters once (``wireguard``: ``rx_bytes``/``tx_bytes`` per entry, the target's clock in
``sampled_at_epoch``). For the pairs handshake_never_completes would judge from that one sample only (``handshake.
second_sample_hosts``: both ends run and list each other, no handshake, the cause not certain), diagnose.yml reads
both ends' counters once more after ``tunnelfix_second_sample_wait_s`` (action ``wireguard_counters``, registered as
``tunnelfix_wireguard_second_sample`` with ``phase``), which every host's view holds as ``wireguard_second_sample``
(the record ``SECOND_SAMPLE``, declared by the fault)::

    {"phase": "before", "wg_installed": True, "sampled_at_epoch": 1796513334, "note": None,
     "interfaces": {"wg0": {"RRRR…R=": {"rx_bytes": 0, "tx_bytes": 444, "handshake_age_s": None}}}}

``second_sample`` gives one graph edge's::

    {"rx_bytes": 0, "tx_bytes": 444, "handshake_age_s": None,   # at the second reading
     "sampled_after_s": 6}                                     # its clock minus the facts' (the same host's clock)

or None: no second reading of the host (none needed, the wait set to 0, verify), the entry gone, or a reading or a
first sample without its time. Both times are the same target's ``date +%s``: no clock is compared across hosts.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import Record

# the second reading as every host's view holds it (view["wireguard_second_sample"]), a host var diagnose.yml registers
SECOND_SAMPLE = Record("wireguard_second_sample", "tunnelfix_wireguard_second_sample")


def _first_sampled_at(view):
    """The facts' ``sampled_at_epoch`` (Linux or OpenWrt), or None."""
    facts = view.get("openwrt") if isinstance(view.get("openwrt"), dict) else view.get("tunnelfix")
    wireguard = facts.get("wireguard") if isinstance(facts, dict) else None
    value = wireguard.get("sampled_at_epoch") if isinstance(wireguard, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def second_sample(views, host, interface, public_key):
    """The second reading of ``host``'s entry ``public_key`` on ``interface`` (module doc), or None."""
    view = views.get(host) or {}
    reading = view.get(SECOND_SAMPLE.key)
    if not isinstance(reading, dict) or not isinstance(reading.get("interfaces"), dict):
        return None
    entry = (reading["interfaces"].get(interface) or {}).get(public_key)
    first, later = _first_sampled_at(view), reading.get("sampled_at_epoch")
    if not isinstance(entry, dict) or first is None or not isinstance(later, int) or isinstance(later, bool):
        return None
    return {"rx_bytes": entry.get("rx_bytes"), "tx_bytes": entry.get("tx_bytes"),
            "handshake_age_s": entry.get("handshake_age_s"), "sampled_after_s": later - first}
