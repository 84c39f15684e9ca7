# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel fault's rule (tunnel_offload_small_mtu): the finding, and whether the host could be judged.

Reads the ``bridges`` facts (faults/bridge_offload/reads.py: ``BRIDGES``, the reading both offload faults share):
forwarding, and each tunnel's MTU, kind, offloads and MSS clamps (remote/tunnel_reader.py). TSO decides, not GSO
(the folder's module doc says why); the evidence says whether an MSS clamp covers each direction.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.rule import bridges_facts, forwarding_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import UP_OPERSTATES

# Ethernet's MTU: what LAN clients size their segments for (MSS 1460); a tunnel below it cannot carry them whole
LAN_MTU_BYTES = 1500
# the offloads this fault reads, in the order its evidence lists them
SEGMENTATION = ("tcp-segmentation-offload", "generic-segmentation-offload")
# ip -d link's kind of the kernel's WireGuard device (it segments to its own MTU itself)
IN_KERNEL_WIREGUARD = "wireguard"


def small_mtu_tunnels(facts):
    """``[(name, tunnel facts)]``: the up tunnels with an MTU below LAN_MTU_BYTES, by name."""
    return [(name, tunnel) for name, tunnel in sorted((facts.get("tunnels") or {}).items())
            if isinstance(tunnel, dict) and is_int(tunnel.get("mtu")) and tunnel["mtu"] < LAN_MTU_BYTES
            and tunnel.get("operstate") in UP_OPERSTATES]


def segmentation_on(tunnel):
    """The long names of tso and gso that are on and changeable (not ``[fixed]``) for one tunnel; [] when unread."""
    features = tunnel.get("features")
    if not isinstance(features, dict):
        return []
    return [name for name in SEGMENTATION if features.get(name) == "on"]


def hands_super_packets(tunnel):
    """Whether the tunnel takes TCP super-packets whole: tso on and changeable, and not in-kernel WireGuard (module doc)."""
    return tunnel.get("kind") != IN_KERNEL_WIREGUARD and SEGMENTATION[0] in segmentation_on(tunnel)


def clamp_sentence(clamp, tunnel, mtu):
    """What the MSS clamp (``{"to_tunnel", "from_tunnel"}``: True, False, None) means for ``tunnel``, in one sentence."""
    missing = []
    if clamp["to_tunnel"] is not True:
        missing.append("%s the TCP SYNs forwarded into %s, so LAN clients keep announcing their 1460-byte MSS and the far "
                       "end sends segments that do not fit its %s-byte MTU"
                       % ("no rule clamps" if clamp["to_tunnel"] is False else "it is unknown whether a rule clamps", tunnel, mtu))
    if clamp["from_tunnel"] is not True:
        missing.append("%s the SYNs coming out of %s, so LAN hosts answer with segments sized for 1500 bytes"
                       % ("no rule clamps" if clamp["from_tunnel"] is False else "it is unknown whether a rule clamps", tunnel))
    if not missing:
        return ("An MSS clamp covers both directions and keeps new connections' segments small, but the super-packets "
                "that segmentation offload builds still reach the tunnel whole.")
    text = "; and ".join(missing)
    return text[0].upper() + text[1:] + "."


def offload_on_small_mtu_tunnel(host, view, views):
    """One (evidence, explanation) per up tunnel below LAN_MTU_BYTES that takes super-packets (``hands_super_packets``).

    Nothing when IP forwarding is off or unknown (None: no guess), or the tunnel's features were not read.
    """
    facts = bridges_facts(view)
    ip_forward = facts.get("ip_forward")
    if not is_int(ip_forward) or ip_forward < 1:
        return []
    out = []
    for name, tunnel in small_mtu_tunnels(facts):
        if not hands_super_packets(tunnel):
            continue
        offloads = segmentation_on(tunnel)
        raw = tunnel.get("mss_clamp") if isinstance(tunnel.get("mss_clamp"), dict) else {}
        clamp = {direction: raw.get(direction) if isinstance(raw.get(direction), bool) else None
                 for direction in ("to_tunnel", "from_tunnel")}
        out.append(({
            "tunnel": name, "kind": tunnel.get("kind"), "tunnel_mtu_bytes": tunnel["mtu"], "offloads_on": offloads,
            "mss_clamp": clamp, "ip_forward": ip_forward}, """
            IP forwarding is on and the %s tunnel %s is up with an MTU of %s bytes, below Ethernet's %s, while %s
            %s on for it. The kernel then hands the tunnel TCP super-packets built for the LAN's segment size and
            leaves the cutting to the tunnel: segments that do not fit %s bytes are dropped or bounced, and forwarded
            TCP stalls on retransmits while ping and small packets pass. %s Turning tso and gso off on %s makes the
            kernel cut each packet to the tunnel's MTU before the tunnel sees it; the MSS clamp is left as it is."""
            % (tunnel.get("kind"), name, tunnel["mtu"], LAN_MTU_BYTES, " and ".join(offloads),
               "are" if len(offloads) > 1 else "is", tunnel["mtu"],
               clamp_sentence(clamp, name, tunnel["mtu"]), name)))
    return out


def offload_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): forwarding, and the offloads of every small-MTU tunnel."""
    facts, cover = forwarding_facts(view, "the links were not read")
    if cover:
        return cover
    tunnels = small_mtu_tunnels(facts)
    if not tunnels:
        return does_not_apply("no up tunnel with an MTU below %d bytes" % LAN_MTU_BYTES)
    unread = [(name, tunnel) for name, tunnel in tunnels if not isinstance(tunnel.get("features"), dict)]
    if unread:
        reasons = sorted({"facts of an older collection" if "features" not in tunnel
                          else tunnel.get("ethtool_error") or facts.get("note") or "ethtool" for _name, tunnel in unread})
        return not_checked("the offload features of %s could not be read (%s)"
                           % (", ".join(name for name, _tunnel in unread), "; ".join(reasons)))
    return None
