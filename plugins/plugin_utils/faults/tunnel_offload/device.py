# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a device the role's action is asked to change is a layer-3 tunnel: the action's refusal of anything else.

Pure, no I/O: the action ``bridge_offload`` (plugins/action/bridge_offload.py) reads ``ip -d -j link show dev DEVICE``
and the device's sysfs ``tun_flags`` and ``uevent`` and hands them here before it changes a ``tunnel``'s offloads
(moved from fix/bridge_offload.py with the tunnel fault's folder).
"""

from __future__ import annotations

import json

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import load_ip_links
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import parse_ip_link_tunnels

# include/uapi/linux/if_tun.h: /sys/class/net/DEV/tun_flags (hex) has IFF_TUN for a layer-3 TUN, IFF_TAP for a TAP
IFF_TUN = 0x0001


def _what_link_is(link) -> str:
    """``"a veth"``, ``"a bridge"``, ``"a TAP (layer 2)"``, ``"a device without a link kind (a physical NIC)"``..."""
    info = link.get("linkinfo") if isinstance(link.get("linkinfo"), dict) else {}
    kind = info.get("info_kind")
    if not kind:
        return "a device without a link kind (a physical NIC)"
    if kind == "tun":
        return "a TAP (layer 2)"
    return "a %s" % kind


def classify_tunnel_device(device: str, ip_json, tun_flags, uevent) -> dict:
    """Whether ``device`` is a layer-3 tunnel, from the same reader the facts use, else from sysfs.

    ``ip_json``: the stdout of ``ip -d -j link show dev DEVICE`` when it exited 0, else None;
    ``tun_flags`` and ``uevent``: the text of ``/sys/class/net/DEVICE/tun_flags`` and ``.../uevent``,
    None when unreadable. When ``ip_json`` holds the link, ``_tunnel_links.parse_ip_link_tunnels``
    decides (what tunnel_facts and openwrt_facts report as ``tunnels``); otherwise (an ``ip`` without
    ``-j``) sysfs does: ``tun_flags`` with IFF_TUN set (a TUN in tun mode: wireguard-go, tailscaled,
    OpenVPN) or ``DEVTYPE=wireguard`` in ``uevent`` (in-kernel WireGuard). Output::

        {"tunnel": True, "kind": "tun", "what": "a tun tunnel", "source": "ip -d -j link show"}
        {"tunnel": False, "kind": "veth", "what": "a veth", "source": "ip -d -j link show"}

    ``what`` says what the device is, for a refusal. Raises ParseError for ``tun_flags`` that is
    not a hex number.
    """
    try:
        links = [link for link in load_ip_links(ip_json) if link.get("ifname") == device] if ip_json is not None else []
    except ParseError:
        links = []
    if links:
        tunnels = parse_ip_link_tunnels(json.dumps(links))
        if device in tunnels:
            kind = tunnels[device]["kind"]
            return {"tunnel": True, "kind": kind, "what": "a %s tunnel" % kind, "source": "ip -d -j link show"}
        info = links[0].get("linkinfo") if isinstance(links[0].get("linkinfo"), dict) else {}
        return {"tunnel": False, "kind": info.get("info_kind"), "what": _what_link_is(links[0]), "source": "ip -d -j link show"}
    if tun_flags is not None and tun_flags.strip():
        try:
            flags = int(tun_flags.strip(), 16)
        except ValueError:
            raise ParseError("/sys/class/net/%s/tun_flags: expected a hex number such as 0x1001, got %r"
                             % (device, tun_flags.strip()[:50])) from None
        if flags & IFF_TUN:
            return {"tunnel": True, "kind": "tun", "what": "a tun tunnel", "source": "sysfs"}
        return {"tunnel": False, "kind": "tun", "what": "a TAP (layer 2)", "source": "sysfs"}
    devtype = None
    for line in (uevent or "").splitlines():
        if line.startswith("DEVTYPE="):
            devtype = line.split("=", 1)[1].strip()
    if devtype == "wireguard":
        return {"tunnel": True, "kind": "wireguard", "what": "a wireguard tunnel", "source": "sysfs"}
    return {"tunnel": False, "kind": devtype, "source": "sysfs",
            "what": "a %s" % devtype if devtype else "neither a TUN (no tun_flags) nor WireGuard (no DEVTYPE=wireguard)"}
