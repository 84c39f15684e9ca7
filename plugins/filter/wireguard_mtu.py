# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: wireguard_mtu_read_command, wireguard_mtu_plan (docs in the .yml twins).

The role wireguard_mtu's read and decision; both are the PMTU fault's own (plugin_utils/faults/path_mtu/fix.py).
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import fix_plan, parse_reading, read_command


def wireguard_mtu_read_command(tunnels, platform, config_dir="/etc/wireguard", networkd_dir="/etc/systemd/network"):
    """``{interface: MTU}`` and the platform -> the one python-free sh command that reads what the fix needs."""
    try:
        return read_command(tunnels, platform, config_dir, networkd_dir)
    except ValueError as exc:
        raise AnsibleFilterError("wireguard_mtu_read_command: %s" % exc) from None


def wireguard_mtu_plan(text, tunnels, platform, config_dir="/etc/wireguard", networkd_dir="/etc/systemd/network", tcp_mtu_probing=False):
    """The read command's output -> what the role changes (fix.fix_plan): per tunnel, apply/restore, files, errors, and
    net.ipv4.tcp_mtu_probing (``tcp_mtu_probing``: the role's wireguard_mtu_tcp_mtu_probing)."""
    if not isinstance(text, str):
        raise AnsibleFilterError("wireguard_mtu_plan: expected the read command's output (text), got %s" % type(text).__name__)
    try:
        return fix_plan(tunnels, platform, parse_reading(text), config_dir, networkd_dir, tcp_mtu_probing=tcp_mtu_probing)
    except (ValueError, ParseError) as exc:
        raise AnsibleFilterError("wireguard_mtu_plan: %s" % exc) from None


class FilterModule:
    """tunnelfix.fleet filters of the role wireguard_mtu."""

    def filters(self):
        return {"wireguard_mtu_read_command": wireguard_mtu_read_command, "wireguard_mtu_plan": wireguard_mtu_plan}
