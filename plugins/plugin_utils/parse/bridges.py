# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bridges, their ports and their offload features (the ``bridges`` facts of openwrt_facts and tunnel_facts).

Pure functions, no I/O. Bridges and ports come from ``ip -d -j link show`` (iproute2-6.1.0: a
bridge has ``linkinfo.info_kind == "bridge"``, a port ``master`` and
``linkinfo.info_slave_kind == "bridge"``), one command for every bridge; ``load_ip_links`` reads
that output for _tunnel_links too. Offloads come from ``_ethtool.parse_ethtool_features``
(``ethtool -k DEV``); the gso/tso/gro split is ``_ethtool.offload_changes``'s, the same one
``bridge_offload`` acts on. ``add_offloads`` and ``bridges_subset`` put one shape together for the
python-free OpenWrt action and the Linux module alike.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import DEFAULT_WANTED_OFF, offload_changes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.target_json import NotJSON, load_target_json


def _linkinfo(link):
    info = link.get("linkinfo")
    return info if isinstance(info, dict) else {}


def load_ip_links(text: str, command: str = "ip -d -j link show") -> list:
    """The link objects of ``ip -d -j link show`` (or ``ip -j link show``), checked.

    ``'[{"ifindex": 1, "ifname": "lo", "mtu": 65536, ...}]'`` → the list of dicts as printed;
    empty text or ``[]`` → ``[]``. Format: iproute2's JSON output (``-j``, iproute2 >= 4.13),
    one object per device, each with ``ifname``.

    Raises ParseError, naming ``command`` (the listing it came from, ``ip -s -j link show`` for
    faults/endpoint_route/link_counters.py), for text that is not a JSON list of objects with an ``ifname`` (an ``ip``
    without ``-j``, BusyBox's for one, prints text or usage), and for hostile JSON (nesting too deep, a
    number of thousands of digits: ``_target_json.load_target_json``).
    """
    if not isinstance(text, str):
        raise ParseError("%s output must be text, got %s" % (command, type(text).__name__))
    try:
        links = load_target_json(text, command) if text.strip() else []
    except NotJSON:
        raise ParseError("%s output is not JSON (is `-j` supported by this ip?): %r" % (command, text[:200])) from None
    if not isinstance(links, list) or not all(isinstance(link, dict) and link.get("ifname") for link in links):
        raise ParseError("%s output must be a JSON list of links with an 'ifname'" % command)
    return links


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
    Raises ParseError for output that is not a JSON list of link objects (see load_ip_links).
    """
    links = load_ip_links(text)
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


def add_offloads(bridges: dict, read_features) -> bool | None:
    """Add the offload facts to every bridge and port of ``parse_ip_link_bridges`` output, in place.

    ``read_features(device)`` runs ``ethtool -k DEVICE`` for the caller and returns
    ``parse_ethtool_features``'s dict, a string saying why it failed for this device (stderr,
    shortened), or None when there is no ethtool at all (then nothing more is asked). Ports are
    read before their bridge, as ``bridge_offload`` reads them: the bridge's features follow its
    ports'.

    Every bridge and port gains ``features`` and ``gso_tso_gro`` (``device_offloads``; both None
    when not read) and ``ethtool_error`` (the string, else None). Returns ``ethtool_installed``:
    True, False (``read_features`` returned None), or None when there is no bridge.
    Raises ParseError (from ``device_offloads``) when ``read_features`` returns a dict that is not
    ``parse_ethtool_features`` output; errors of the reader itself pass through.
    """
    installed = True if bridges else None
    for name, bridge in bridges.items():
        for device, where in [(port, bridge["ports"][port]) for port in bridge["ports"]] + [(name, bridge)]:
            installed = _add_device_offloads(where, device, read_features, installed)
    return installed


def _add_device_offloads(where, device, read_features, installed):
    """Set ``features``, ``gso_tso_gro``, ``ethtool_error`` of one device's facts ``where`` (in place) from
    ``read_features(device)``, unless ethtool is known missing (``installed`` False: nothing asked). Returns
    ``installed`` updated: False when the reader found no ethtool, True once a device was read."""
    where.update(features=None, gso_tso_gro=None, ethtool_error=None)
    if installed is False:
        return False
    got = read_features(device)
    if got is None:
        return False
    if isinstance(got, str):
        where["ethtool_error"] = got
    else:
        where.update(device_offloads(got))
    return True


def add_tunnel_offloads(tunnels: dict, read_features, ethtool_installed) -> bool | None:
    """Add the offload facts to every tunnel of ``_tunnel_links.parse_ip_link_tunnels`` output, in place.

    The same reader and keys as ``add_offloads`` (``features``, ``gso_tso_gro``, ``ethtool_error``);
    ``ethtool_installed`` is what ``add_offloads`` returned for the bridges: False means no ethtool,
    so nothing is asked. Returns it updated: True once a device was read, False when the reader found
    no ethtool, None when there was neither a bridge nor a tunnel.
    """
    installed = ethtool_installed
    for name, tunnel in tunnels.items():
        installed = _add_device_offloads(tunnel, name, read_features, installed)
    return installed


def bridges_subset(bridges, tunnels, ip_forward, ethtool_installed, ip_error=None) -> dict:
    """The ``bridges`` facts, one shape for openwrt_facts (OpenWrt) and tunnel_facts (Linux).

    ``bridges`` is ``parse_ip_link_bridges`` output after ``add_offloads``, ``tunnels``
    ``_tunnel_links.parse_ip_link_tunnels`` output, ``ip_forward`` the int (or None) of
    ``_tunnel_links.parse_ip_forward``. ``ip_error`` says why ``ip -d -j link show`` gave no
    link list (then bridges and tunnels are ``{}``). Builds the dict only, raises nothing. Output::

        {"ip_json": True,                 # False: ip -d -j link show failed, nothing known
         "ethtool_installed": True,       # None without a bridge
         "ip_forward": 1,                 # net.ipv4.ip_forward; None: unknown
         "note": None,                    # why something is unknown, else None
         "bridges": {...}, "tunnels": {...}}
    """
    notes = []
    if ip_error:
        notes.append("ip -d -j link show gave no link list (%s): bridges and tunnels unknown" % ip_error)
    if ethtool_installed is False:
        notes.append("ethtool is not installed: offload features unknown")
    if ip_forward is None:
        notes.append("net.ipv4.ip_forward could not be read: forwarding unknown")
    return {"ip_json": not ip_error, "ethtool_installed": None if ip_error else ethtool_installed,
            "ip_forward": ip_forward, "note": "; ".join(notes) or None,
            "bridges": {} if ip_error else bridges, "tunnels": {} if ip_error else tunnels}
