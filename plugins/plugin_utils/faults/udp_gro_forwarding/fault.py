# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The UDP GRO fault as the registry lists it: its texts, the reading it reads, its rule and its plan (this folder).

``UDP_GRO`` is built in faults/readings.py from this folder's ``reads.udp_gro_reading`` (it needs the shared
``wireguard``, ``routes`` and ``endpoint_routes`` readings; reads.py says why it is built there).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Fault, Proof
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import UDP_GRO
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.evidence import EVIDENCE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.plan import FIX_DEFAULTS, udp_gro_plan_lines
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.rule import slow_udp_forwarding, udp_gro_coverage


UDP_GRO_FORWARDING_OFF = Fault(
    id="udp_gro_forwarding_off",
    number=None,
    title="Forwarded UDP through the tunnel is slower than it could be",
    severity="low",
    hosts="exit node or subnet router (IP forwarding, a WireGuard or TUN tunnel), Linux 6.2 or later",
    reads=("tunnelfix.udp_gro", "openwrt.udp_gro"),
    facts=(UDP_GRO,),
    rule=slow_udp_forwarding,
    coverage=udp_gro_coverage,
    fires_when="IP forwarding on, a WireGuard or TUN tunnel up, kernel 6.2 or later, and on the default-route NIC "
               "(the underlay of a full tunnel) rx-udp-gro-forwarding off or rx-gro-list on, and changeable (not [fixed]), "
               "with GRO on",
    symptom="UDP through an exit node or subnet router (QUIC, calls, a tunnel in the tunnel) stays well below TCP; "
            "tailscaled warns 'UDP GRO forwarding is suboptimally configured on eth0'.",
    fix="Opt-in (udp_gro_forwarding_enable: true): ethtool -K NIC rx-udp-gro-forwarding on rx-gro-list off, applied "
        "through guarded_apply (the gateway must answer through the NIC again within 30 s, and Ansible must reach the "
        "host, or the change is reverted), re-applied by an interface hook (OpenWrt hotplug; networkd-dispatcher, "
        "ifupdown or NetworkManager on Linux). Never a uci gro option.",
    fix_role="tunnelfix.fleet.udp_gro_forwarding",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"),
    fix_vars=lambda evidence: {"udp_gro_forwarding_device": evidence["nic"]},
    fix_var_names=("udp_gro_forwarding_device",),
    fix_opt_in="udp_gro_forwarding_enable",
    fix_persist="udp_gro_forwarding_persist",
    subject=lambda evidence: evidence.get("nic"),
    plan=udp_gro_plan_lines,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the NIC's features (the same udp_gro reader) and the rule no longer fires; a "
                    "finding left alone because udp_gro_forwarding_enable is not set stays still_present, and does not "
                    "fail verify."),
    files=("plugins/plugin_utils/faults/udp_gro_forwarding/__init__.py", "roles/udp_gro_forwarding/tasks/apply.yml",
           "playbooks/verify.yml"),
    evidence=EVIDENCE,
)
