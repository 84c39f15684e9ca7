# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The peer sections wireguard_keepalive changes on OpenWrt (``config wireguard_<iface>``), from parsed ``uci show network``.

Format: OpenWrt package/network/utils/wireguard-tools/files/wireguard.sh: an interface section
``network.<iface>=interface`` with ``proto='wireguard'``; each peer is a section of type
``wireguard_<iface>``, anonymous (``@wireguard_wg0[N]``) or named (``network.dc=wireguard_wg0``),
with ``public_key``, ``endpoint_host``, ``persistent_keepalive``, ``disabled``.

Pure, no I/O; works on the output of ``parse/uci.parse_uci_show`` (secrets already redacted). The
uci_wireguard_keepalive_targets filter (plugins/filter/wireguard.py) calls it for the role; which interfaces
and peers is the plan's choice (``plan.choose_interfaces``, ``plan.choose_peers``), the fault's too.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.plan import choose_interfaces, choose_peers
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_int


def uci_wireguard_keepalive_targets(parsed: dict, interfaces=None, public_keys=None) -> list:
    """Choose the peer sections to get ``persistent_keepalive``, as ``uci`` references.

    ``parsed`` is ``parse_uci_show(text)`` of ``uci -q show network``. ``interfaces`` None or
    empty means every interface with ``proto='wireguard'``; named ones must be such interfaces.
    ``public_keys`` None or empty selects peers with an ``endpoint_host``; a list selects the
    peers with those keys on the chosen interfaces (a key may belong to another host: not an
    error here, the caller checks the union).

    Case 11 with ``interfaces=["wg0"]``, ``public_keys=None`` →
    ``[{"interface": "wg0", "section": "dc", "ref": "dc", "public_key": "EEEE…E=",
    "endpoint_host": "dc.example.net", "persistent_keepalive_s": None}]``; with
    ``public_keys=["DDDD…D="]`` the anonymous section is referenced as ``@wireguard_wg0[0]``.

    ``ref`` is what ``uci`` accepts (the name, or ``@wireguard_<iface>[N]`` for anonymous
    sections). Sections with ``disabled='1'`` count as peers too (the value is persisted).
    Raises ParseError for a named interface that is missing or not ``proto='wireguard'``, a
    peer section without ``public_key``, a bad ``persistent_keepalive``.
    """
    if not isinstance(parsed, dict):
        raise ParseError("expected parsed uci show output (a dict), got %s" % type(parsed).__name__)
    sections = parsed.get("network", {})
    wireguard = sorted(name for name, sec in sections.items()
                       if sec.get("type") == "interface" and sec["options"].get("proto") == "wireguard")
    chosen, missing = choose_interfaces(wireguard, interfaces)
    if missing:
        raise ParseError("no uci interface with proto 'wireguard' named %s in network (found: %s)"
                         % (", ".join(missing), ", ".join(wireguard) or "none"))
    targets = []
    for iface in chosen:
        stype = "wireguard_%s" % iface
        peers = sorted((sec["index"], name, sec) for name, sec in sections.items() if sec.get("type") == stype)
        for index, name, sec in peers:
            opts = sec["options"]
            key = opts.get("public_key")
            ref = "@%s[%d]" % (stype, index) if sec["anonymous"] else name
            if not isinstance(key, str) or not key:
                raise ParseError("network.%s (%s) has no public_key" % (ref, stype))
            endpoint = opts.get("endpoint_host")
            if not choose_peers([(ref, {"public_key": key, "endpoint_host": endpoint})], public_keys, "endpoint_host"):
                continue
            targets.append({"interface": iface, "section": name, "ref": ref, "public_key": key,
                            "endpoint_host": endpoint or None,
                            "persistent_keepalive_s": parse_uci_int(opts.get("persistent_keepalive"),
                                                                    "network.%s.persistent_keepalive" % ref)
                            or None})
    return targets
