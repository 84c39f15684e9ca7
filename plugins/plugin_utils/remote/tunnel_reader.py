# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``bridges`` subset's devices, offloads and MSS clamps, put together alike by tunnel_facts and openwrt_facts.

``mss_clamp_steps()`` are the batch steps of the clamping rules (``nft list ruleset``,
``iptables-save``); the tunnels' ``ethtool -k`` runs in the batch's offload loop
(fact_commands.OFFLOAD_DEVICE_LINES). ``TunnelReader.bridges_and_tunnels`` reads both back for an
OpenWrtActionBase action that defines ``ethtool_k(device)`` (add_offloads' reader). A tool that is
missing or refuses (not root) is reported in ``mss_clamp_sources``, never a failure.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import (
    add_offloads, add_tunnel_offloads, bridges_subset)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.mss_clamp import clamp_sources, tunnel_mss_clamp
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import IPTABLES_SAVE, NFT_RULESET, NOT_FOUND


def mss_clamp_steps() -> list:
    """The batch steps whose output ``TunnelReader`` reads for the clamps."""
    return [step_of(NFT_RULESET), step_of(IPTABLES_SAVE)]


class TunnelReader:
    """Mixin: the bridges subset from parsed links (see the module doc)."""

    def clamp_source(self, argv):
        """``(status, stdout)`` of one clamp source: ``read``, ``not installed``, or ``rc=N: first stderr line``."""
        res = self.step(argv, ok_rcs=ANY_EXIT_STATUS)
        if res["rc"] == NOT_FOUND:
            return "not installed", ""
        if res["rc"] != 0:
            why = ((res["stderr"] or res["stdout"] or "").strip() or "no output").splitlines()[0]
            return "rc=%s: %s" % (res["rc"], why[:200]), ""
        return "read", res["stdout"]

    def bridges_and_tunnels(self, bridges, tunnels, ip_forward) -> dict:
        """``bridges_subset`` with the offloads of every bridge, port and tunnel, and the tunnels' MSS clamps.

        Adds ``mss_clamp_rules`` and ``mss_clamp_sources`` (``_mss_clamp.clamp_sources``) to the
        subset and ``mss_clamp`` (``tunnel_mss_clamp``) to each tunnel.
        """
        installed = add_tunnel_offloads(tunnels, self.ethtool_k, add_offloads(bridges, self.ethtool_k))
        subset = bridges_subset(bridges, tunnels, ip_forward, installed)
        read = clamp_sources({"nft": self.clamp_source(NFT_RULESET), "iptables": self.clamp_source(IPTABLES_SAVE)})
        for name, tunnel in tunnels.items():
            tunnel["mss_clamp"] = tunnel_mss_clamp(read["rules"], name, tunnel.get("mtu"), read["complete"])
        subset.update(mss_clamp_rules=read["rules"], mss_clamp_sources=read["sources"])
        return subset
