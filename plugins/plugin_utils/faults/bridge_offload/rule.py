# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge fault's rule (bridge_offload_small_mtu_tunnel): the finding, and whether the host could be judged.

Reads the ``bridges`` facts (``reads.py``): IP forwarding, the up tunnels with their MTUs, every bridge and port with
its gso/tso/gro (``parse/bridges.py``'s shape). ``bridges_facts`` is the one accessor both offload faults use.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import UP_OPERSTATES


def bridges_facts(view):
    """The ``bridges`` subset of tunnel_facts (view["tunnelfix"]) or openwrt_facts (view["openwrt"]), or {}."""
    for key in ("tunnelfix", "openwrt"):
        facts = (view.get(key) or {}).get("bridges")
        if isinstance(facts, dict) and facts.get("ip_json"):
            return facts
    return {}


def offloads_on(name, bridge):
    """``{device: [gso/tso/gro names on and changeable]}`` for the bridge and its ports; devices with none left out."""
    devices = [(name, bridge)] + sorted((bridge.get("ports") or {}).items())
    on = {device: (facts.get("gso_tso_gro") or {}).get("on") for device, facts in devices}
    on = {device: [str(n) for n in names] if isinstance(names, list) else [] for device, names in on.items()}
    return {device: names for device, names in on.items() if names}


def offload_on_small_mtu_bridge(host, view, views):
    """One (evidence, explanation) per bridge with offloads on while an up tunnel with a smaller MTU feeds the host.

    Nothing when IP forwarding is off or unknown (None: no guess).
    """
    facts = bridges_facts(view)
    ip_forward = facts.get("ip_forward")
    if not is_int(ip_forward) or ip_forward < 1:
        return []
    tunnels = sorted((t["mtu"], name, t.get("kind")) for name, t in (facts.get("tunnels") or {}).items()
                     if isinstance(t, dict) and is_int(t.get("mtu")) and t.get("operstate") in UP_OPERSTATES)
    out = []
    for name, bridge in sorted((facts.get("bridges") or {}).items()):
        bridge_mtu = bridge.get("mtu")
        smaller = [t for t in tunnels if is_int(bridge_mtu) and t[0] < bridge_mtu]
        offloads = offloads_on(name, bridge)
        if not smaller or not offloads:
            continue
        tunnel_mtu, tunnel, kind = smaller[0]
        out.append(({
            "bridge": name, "bridge_mtu_bytes": bridge_mtu, "tunnel": tunnel, "tunnel_mtu_bytes": tunnel_mtu,
            "kind": kind, "offloads_on": offloads, "ip_forward": ip_forward}, """
            IP forwarding is on, the %s tunnel %s is up with an MTU of %s bytes, below the %s bytes of bridge %s,
            and segmentation or receive offload is still on for %s. Receive offload glues the tunnel's small
            packets into one large buffer, and segmentation offload is trusted to cut that buffer back into
            frames that fit the LAN; on a bridge fed from a smaller-MTU tunnel that cut can come out wrong, so
            LAN clients get frames above their MTU, drop them, and TCP crawls along on retransmits (in a field case,
            Tailscale's 1280-byte tunnel into a LAN bridge, TCP fell to 0.2 Mbit/s). Turning gso, tso and gro off on
            the bridge and every port makes the kernel forward packets at the size they arrived."""
            % (kind, tunnel, tunnel_mtu, bridge_mtu, name, ", ".join(sorted(offloads)))))
    return out


def forwarding_facts(view, unread):
    """``(bridges facts, None)`` when the ``bridges`` reading was read and the host forwards, else ``(None, coverage)``:
    ``not_checked(unread)`` without the facts, not_checked when IP forwarding could not be read, does_not_apply when it is
    off. The start of both offload faults' coverage (this one's and tunnel_offload/rule.py's)."""
    facts = bridges_facts(view)
    if not facts:
        return None, not_checked(unread)
    ip_forward = facts.get("ip_forward")
    if not is_int(ip_forward):
        return None, not_checked("IP forwarding could not be read")
    if ip_forward < 1:
        return None, does_not_apply("IP forwarding is off")
    return facts, None


def offload_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): its bridges, forwarding and every offload feature read."""
    facts, cover = forwarding_facts(view, "the bridges were not read")
    if cover:
        return cover
    bridges = facts.get("bridges") or {}
    if not bridges:
        return does_not_apply("no bridge")
    unread = sorted(device for name, bridge in bridges.items()
                    for device, device_facts in [(name, bridge)] + sorted((bridge.get("ports") or {}).items())
                    if not isinstance(device_facts.get("gso_tso_gro"), dict))
    if unread:
        return not_checked("the offload features of %s could not be read (%s)" % (", ".join(unread), facts.get("note") or "ethtool"))
    return None
