# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: uci_wireguard_keepalive_targets (docs in the .yml twin)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.uci_peers import uci_wireguard_keepalive_targets


def _list_or_none(name, value):
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise AnsibleFilterError("uci_wireguard_keepalive_targets: %s must be a list of strings, got %r" % (name, value))
    return list(value)


def uci_keepalive_targets(text, interfaces=None, public_keys=None):
    """``uci -q show network`` text → the peer sections to change (see faults/nat_peer_keepalive/uci_peers.py)."""
    if not isinstance(text, str):
        raise AnsibleFilterError("uci_wireguard_keepalive_targets expects the text of uci show, got %s"
                                 % type(text).__name__)
    interfaces = _list_or_none("interfaces", interfaces)
    public_keys = _list_or_none("public_keys", public_keys)
    text = text.replace("\r\n", "\n")  # raw over ssh -tt gives CRLF line ends
    try:
        return uci_wireguard_keepalive_targets(parse_uci_show(text), interfaces, public_keys)
    except ParseError as exc:
        raise AnsibleFilterError("uci_wireguard_keepalive_targets: %s" % exc) from exc


class FilterModule:
    """tunnelfix.fleet WireGuard filters."""

    def filters(self):
        return {"uci_wireguard_keepalive_targets": uci_keepalive_targets}
