# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 5, on the tunnel itself: TSO/GSO on a layer-3 tunnel device with an MTU below Ethernet's.

A forwarding host, an up TUN/GRE... device with an MTU below 1500 bytes, and tcp segmentation
offload on (and changeable) for it: forwarded TCP from LAN clients, whose MSS is 1460, is built into
super-packets sized for the LAN and handed to the tunnel whole; what does not fit the tunnel's MTU is
dropped or bounced with an ICMP error, and TCP stalls on retransmits. TSO decides: a TUN shows it
only where its owner asked for super-packets (wireguard-go and tailscaled with virtio-net headers,
``TUNSETOFFLOAD``). Generic segmentation offload alone is the kernel's default on every device and
cuts in software before the device sees the packet, so it is listed in the evidence but is no
finding; nor is in-kernel WireGuard (kind ``wireguard``), which cuts its super-packets to its own
MTU before encrypting them (drivers/net/wireguard/send.c). No
bridge is needed (a bridge in the path is the bridge fault, bridge_offload.py). The evidence says
whether an MSS clamp covers the tunnel in each direction (nftables ``maxseg``, iptables ``TCPMSS``);
the fix turns tso and gso off on the tunnel only and leaves the clamp alone. Reads the ``bridges``
subset of tunnel_facts (Linux) or openwrt_facts (routers): its ``tunnels``, their offloads and clamps.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload import (
    FEATURE_NAMES, bridges_facts, converged_or_unknown, features_off_commands)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Fault, Proof, does_not_apply, name_list, not_checked, role_setting)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import BRIDGES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import UP_OPERSTATES

# bridge_gso_off's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("bridge_gso_off")
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
    facts = bridges_facts(view)
    if not facts:
        return not_checked("the links were not read")
    ip_forward = facts.get("ip_forward")
    if not is_int(ip_forward):
        return not_checked("IP forwarding could not be read")
    if ip_forward < 1:
        return does_not_apply("IP forwarding is off")
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


def tunnel_plan(view, role_vars):
    """What bridge_gso_off would turn off live on the chosen tunnels: each chosen feature that is on (not [fixed]).

    ``[]`` when no tunnel is chosen (the bridges' plan speaks for them), or when all are off and
    persisting is off; None when all are off and persisting is on (the facts do not read the udev
    rule or hotplug script the role writes), without the tunnels' facts, or for a tunnel or feature
    the facts do not have (the role fails naming it).
    """
    tunnels = bridges_facts(view).get("tunnels")
    if not isinstance(tunnels, dict):
        return None
    names = name_list(role_setting(role_vars, "bridge_gso_off_tunnels", FIX_DEFAULTS))
    if not names:
        return []
    chosen = name_list(role_setting(role_vars, "bridge_gso_off_tunnel_features", FIX_DEFAULTS))
    features = [FEATURE_NAMES.get(name) for name in chosen]
    if None in features or any(not isinstance(tunnels.get(name), dict) for name in names):
        return None
    changes = []
    for name in names:
        commands = features_off_commands(name, tunnels[name], features)
        if commands is None:
            return None
        changes.extend(commands)
    return converged_or_unknown(changes, role_vars)


TUNNEL_OFFLOAD_SMALL_MTU = Fault(
    id="tunnel_offload_small_mtu",
    number=5,
    title="Segmentation offload on a small-MTU tunnel",
    severity="medium",
    hosts="any",
    reads=("tunnelfix.bridges", "openwrt.bridges"),
    facts=(BRIDGES,),
    rule=offload_on_small_mtu_tunnel,
    coverage=offload_coverage,
    fires_when="IP forwarding on, an up layer-3 tunnel with an MTU below 1500 bytes, and tso on (not [fixed]) for it; "
               "gso alone (every device's default) and in-kernel WireGuard (it segments itself) are not",
    symptom="Forwarded TCP through the tunnel stalls or crawls with retransmits while ping and the router's own traffic are fine.",
    fix="tso and gso off on the tunnel device only, live (ethtool -K) and again each time the tunnel is created "
        "(a udev rule, or an OpenWrt hotplug script); a device that is not a tunnel is refused.",
    fix_role="tunnelfix.fleet.bridge_gso_off",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"),
    fix_vars=lambda evidence: {"bridge_gso_off_tunnels": [evidence["tunnel"]]},
    fix_needs="bridge_gso_off_tunnels",
    fix_persist="bridge_gso_off_persist",
    fix_var_names=("bridge_gso_off_tunnels",),
    subject=lambda evidence: evidence.get("tunnel"),
    plan=tunnel_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the tunnel's offload features (the same ethtool reader) and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/tunnel_offload.py", "roles/bridge_gso_off/tasks/tunnels.yml",
           "playbooks/verify.yml"),
    evidence=(
        ("tunnel", "the tunnel device"),
        ("kind", "its kind (`tun`, `wireguard`, `gre`, ...)"),
        ("tunnel_mtu_bytes", "its MTU, bytes"),
        ("offloads_on", "the segmentation offloads on and changeable, ethtool's long names"),
        ("mss_clamp", "`{\"to_tunnel\": ..., \"from_tunnel\": ...}`, see below"),
        ("ip_forward", "`net.ipv4.ip_forward`"),
    ),
)
