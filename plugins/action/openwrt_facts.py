# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather banIP, mwan3, WireGuard, bridge and endpoint-route facts on OpenWrt, with no Python on the router.

Documentation: plugins/modules/openwrt_facts.py (``ansible-doc tunnelfix.fleet.openwrt_facts``).
Which commands to run and how their output becomes facts is in the readings the registry's faults
declare for OpenWrt (``registry.readings``; faults/readings.py, ``reading.py``), parsed by the pure parsers of
parse/; this file validates the options and runs them. Every command of the requested subsets runs in ONE
remote execution (``_remote_batch``: a framed sh script, ``run_batch``); the readings' gathers then read
the steps' results, and only a result the batch lacks (an endpoint address or a device the shell did not
list) is read with a command of its own. A missing tool is reported, never a failure.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import uplink_option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import choose, public_names
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, foreach_name, step_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import ETHTOOL_K, NOT_FOUND
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.gather import batch_of, gather_readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.route_reader import RouteReader
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import salt_environment, salted
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.subset import resolve_gather_subset
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tunnel_reader import TunnelReader
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.udp_gro_reader import UdpGroReader
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.wg_live_reader import WgLiveReader

PLATFORM = "openwrt"
# the gather_subset names (banip, mwan3, wireguard, bridges, endpoint_routes, udp_gro with today's registry)
SUBSETS = public_names(readings(PLATFORM))
BATCH_SHOWN = "sh -c '<openwrt_facts: %d commands in one script>'"


def batch_steps(subsets) -> list:
    """The batch for ``subsets`` (names from SUBSETS): every command their readings' gathers may read.

    The script cannot ask the controller, so it runs every command a subset may need: banIP's
    version and table are listed even when banIP turns out to be absent, and ``ip route show``
    and ``ip route get`` run next to their ``-j`` forms. A command nobody reads costs less than a
    second round trip.
    """
    return batch_of(choose(readings(PLATFORM), PLATFORM, subsets)[0], PLATFORM)


class ActionModule(RouteReader, WgLiveReader, TunnelReader, UdpGroReader, OpenWrtActionBase):
    """The ``tunnelfix.fleet.openwrt_facts`` action."""

    ARGUMENT_SPEC = {
        "gather_subset": {"type": "list", "elements": "str", "default": ["all"]},
        "label": {"type": "str"},
        "preferred_uplink": {"type": "str"},
        "metered_uplinks": {"type": "list", "elements": "str", "default": []},
        "fingerprint_salt": {"type": "str", "no_log": True},
    }

    def run_openwrt(self, args, task_vars):
        known = readings(PLATFORM)
        subsets = resolve_gather_subset(args["gather_subset"], public_names(known))
        errors = uplink_option_errors(self._task.args.get("preferred_uplink"), args["metered_uplinks"])  # as given: 5 is no name
        if errors:
            raise AnsibleActionFail("; ".join(errors))
        chosen, shown = choose(known, PLATFORM, subsets)
        steps = batch_of(chosen, PLATFORM)
        args = salted(args)
        self.batch = self.run_batch(steps, shown=BATCH_SHOWN % len(steps), environment=salt_environment(args)) if steps else {}
        gathered = gather_readings(self, chosen, PLATFORM, args)
        facts = {name: value for name, value in gathered.items() if name in shown}
        result = {"changed": False, "ansible_facts": {"tunnelfix_openwrt": facts}}
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
