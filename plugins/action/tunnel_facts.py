# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather WireGuard, endpoint-route, TCP-stack, namespace and bridge facts in one remote execution.

Documentation: plugins/modules/tunnel_facts.py (``ansible-doc tunnelfix.fleet.tunnel_facts``).
Python-free, like the OpenWrt actions: every command of the requested subsets runs in ONE sh
script (``_remote_batch``, ``run_batch``) and is parsed on the controller by the pure parsers of
module_utils. The subsets are the readings the registry's faults declare for Linux (``registry.readings``:
their commands and gathers are in faults/, ``reading.py``), so a fault that needs a new reading changes
nothing here. A Python module would cost the target a Python start and an AnsiballZ unpacking
(about 0.3 s of CPU) per call; a fleet pays that once per host and play (docs/performance.md).
Only a result the batch lacks (an endpoint the shell did not list) is read with a command of its own.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import choose, public_names
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, foreach_name, step_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import ETHTOOL_K, NOT_FOUND
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.gather import batch_of, gather_readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import salt_environment, salted
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.subset import resolve_gather_subset
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import TcpReader
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tunnel_reader import TunnelReader
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.udp_gro_reader import UdpGroReader

PLATFORM = "linux"
# the gather_subset names (wireguard, routes, tcp, netns, bridges, udp_gro with today's registry)
SUBSETS = public_names(readings(PLATFORM))
BATCH_SHOWN = "sh -c '<tunnel_facts: %d commands in one script>'"


def batch_steps(subsets) -> list:
    """The batch for ``subsets`` (names from SUBSETS): every command their readings' gathers may read."""
    return batch_of(choose(readings(PLATFORM), PLATFORM, subsets)[0], PLATFORM)


class ActionModule(TcpReader, TunnelReader, UdpGroReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.tunnel_facts`` action."""

    ARGUMENT_SPEC = {
        "gather_subset": {"type": "list", "elements": "str", "default": ["all"]},
        "label": {"type": "str"},
        "fingerprint_salt": {"type": "str", "no_log": True},
    }

    def run_openwrt(self, args, task_vars):
        known = readings(PLATFORM)
        subsets = resolve_gather_subset(args["gather_subset"], public_names(known))
        chosen, shown = choose(known, PLATFORM, subsets)
        steps = batch_of(chosen, PLATFORM)
        args = salted(args)
        self.batch = self.run_batch(steps, shown=BATCH_SHOWN % len(steps), environment=salt_environment(args))
        gathered = gather_readings(self, chosen, PLATFORM, args)
        facts = {name: value for name, value in gathered.items() if name in shown}
        result = {"changed": False, "ansible_facts": {"tunnelfix": facts}}
        if "tcp" in facts and facts["tcp"]["sysctl_boot"]["warnings"]:
            # lines the boot rejects: said, never failed (the facts hold them too)
            result["warnings"] = [warning["message"] for warning in facts["tcp"]["sysctl_boot"]["warnings"]]
        if args["label"] is not None:
            result["label"] = args["label"]
        return result

    def ethtool_k(self, device):
        """``add_offloads``' reader: parsed ``ethtool -k DEVICE``, the error text, or None without ethtool."""
        argv = ETHTOOL_K + [device]
        got = self.batch_step(self.batch, foreach_name(ETHTOOL_K, device), argv, ok_rcs=ANY_EXIT_STATUS,
                              shown=step_name(argv))
        if got["rc"] == NOT_FOUND:
            return None
        if got["rc"] != 0:
            return (got["stderr"] or got["stdout"] or "no output").strip()[:200]
        return self.parse_output(got, parse_ethtool_features)
