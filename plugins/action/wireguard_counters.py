# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the WireGuard peers' live counters again, with no Python on the target (Linux and OpenWrt alike).

Documentation: plugins/modules/wireguard_counters.py (``ansible-doc tunnelfix.fleet.wireguard_counters``).
One command, the one the facts run for the live state (``fact_commands.WG_DUMP``: the target's ``date +%s``, then
``wg show all dump`` with every private and preshared key replaced on the target), parsed on the controller by the
facts' own parser (``WgLiveReader.wg_live_dated``: ``split_dated_output``, ``parse_wg_dump``). diagnose runs it on
the ends of a tunnel whose handshake never completes, a few seconds after the facts: the second sample of the
counters the tunnel graph's handshake rule compares with the facts' (faults/tunnel_graph/samples.py).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.wg_live_reader import WgLiveReader


def counters_of(interfaces) -> dict:
    """parse_wg_dump's ``interfaces`` (or None) -> ``{interface: {peer public key: {"rx_bytes", "tx_bytes",
    "handshake_age_s"}}}`` (bytes since the entry was created; s, None when never); ``{}`` for None."""
    return {name: {peer["public_key"]: {"rx_bytes": peer.get("rx_bytes"), "tx_bytes": peer.get("tx_bytes"),
                                        "handshake_age_s": peer.get("handshake_age_s")}
                   for peer in iface.get("peers") or [] if peer.get("public_key")}
            for name, iface in sorted((interfaces or {}).items())}


class ActionModule(WgLiveReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.wireguard_counters`` action."""

    ARGUMENT_SPEC = {
        "phase": {"type": "str"},
    }

    def run_openwrt(self, args, task_vars):
        installed, interfaces, note, sampled_at = self.wg_live_dated()
        result = {"changed": False, "wg_installed": installed, "sampled_at_epoch": sampled_at, "note": note,
                  "interfaces": counters_of(interfaces)}
        if args["phase"] is not None:
            result["phase"] = args["phase"]
        return result
