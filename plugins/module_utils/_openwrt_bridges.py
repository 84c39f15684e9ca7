# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bridges, their ports and their offload features (OpenWrt facts).

Pure functions, no I/O. Bridges and ports come from ``ip -d -j link show`` (iproute2-6.1.0: a
bridge has ``linkinfo.info_kind == "bridge"``, a port ``master`` and
``linkinfo.info_slave_kind == "bridge"``), one command for every bridge. Offloads come from
``_ethtool.parse_ethtool_features`` (``ethtool -k DEV``); the gso/tso/gro split is
``_ethtool.offload_changes``'s, the same one ``bridge_offload`` acts on.
"""

from __future__ import annotations

import json

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._ethtool import DEFAULT_WANTED_OFF, offload_changes


def _linkinfo(link):
    info = link.get("linkinfo")
    return info if isinstance(info, dict) else {}


def parse_ip_link_bridges(text: str) -> dict:
    """Parse ``ip -d -j link show`` into the bridges and their ports.

    Input: the JSON list ``ip -d -j link show`` prints (see the module docstring). Output,
    bridges by name, ports sorted::

        {"br-lan": {"mtu": 1500, "operstate": "UP",
                    "stp": False,               # linkinfo.info_data.stp_state != 0; None if not printed
                    "vlan_filtering": False,    # None if not printed
                    "ports": {"lan1": {"kind": "veth",          # linkinfo.info_kind, None for plain NICs
                                       "mtu": 1500, "operstate": "UP",
                                       "port_state": "forwarding"}}}}   # STP state; None if not printed

    A bridge without ports has ``"ports": {}``; no bridge gives ``{}``.
    Raises ParseError for output that is not a JSON list of link objects (an ``ip`` without
    ``-j`` prints text or usage).
    """
    if not isinstance(text, str):
        raise ParseError("ip -d -j link show output must be text, got %s" % type(text).__name__)
    try:
        links = json.loads(text) if text.strip() else []
    except json.JSONDecodeError:
        raise ParseError("ip -d -j link show output is not JSON (is `-j` supported by this ip?): %r"
                         % text[:200]) from None
    if not isinstance(links, list) or not all(isinstance(link, dict) and link.get("ifname") for link in links):
        raise ParseError("ip -d -j link show output must be a JSON list of links with an 'ifname'")
    bridges = {}
    for link in links:
        info = _linkinfo(link)
        if info.get("info_kind") != "bridge":
            continue
        data = info.get("info_data") or {}
        bridges[link["ifname"]] = {
            "mtu": link.get("mtu"), "operstate": link.get("operstate"),
            "stp": None if "stp_state" not in data else bool(data["stp_state"]),
            "vlan_filtering": None if "vlan_filtering" not in data else bool(data["vlan_filtering"]),
            "ports": {},
        }
    for link in sorted(links, key=lambda item: item["ifname"]):
        info = _linkinfo(link)
        master = link.get("master")
        if master not in bridges or info.get("info_slave_kind", "bridge") != "bridge":
            continue
        bridges[master]["ports"][link["ifname"]] = {
            "kind": info.get("info_kind"), "mtu": link.get("mtu"), "operstate": link.get("operstate"),
            "port_state": (info.get("info_slave_data") or {}).get("state"),
        }
    return bridges


def device_offloads(parsed: dict) -> dict:
    """The offload facts of one device from ``parse_ethtool_features(text)``.

    For the veth port recorded on the OpenWrt-like image (gso/tso on, gro off)::

        {"features": {"rx-checksumming": "on", ..., "large-receive-offload": "off [fixed]", ...},
         "gso_tso_gro": {"on": ["generic-segmentation-offload", "tcp-segmentation-offload"],
                         "on_fixed": [],                        # on and [fixed]: cannot be turned off
                         "off": ["generic-receive-offload"]}}

    ``features`` holds every feature ``ethtool -k`` printed, as ``on``, ``off``, ``on [fixed]``
    or ``off [fixed]`` (the active state and ethtool's ``[fixed]`` mark; ``[requested …]`` tags
    are left out). ``gso_tso_gro`` covers the three a small-MTU tunnel into a bridge is sensitive to,
    in that order, leaving out those this ethtool does not print.
    """
    if not isinstance(parsed, dict) or not isinstance(parsed.get("features"), dict):
        raise ParseError("expected parse_ethtool_features output, got %r" % (parsed,))
    features = parsed["features"]
    split = offload_changes(features, [name for name in DEFAULT_WANTED_OFF if name in features])
    return {
        "features": {name: ("on" if value["enabled"] else "off") + (" [fixed]" if value["fixed"] else "")
                     for name, value in features.items()},
        "gso_tso_gro": {"on": split["to_change"], "on_fixed": split["skipped_fixed"], "off": split["already_off"]},
    }
