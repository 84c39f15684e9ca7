# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 5: GSO/TSO/GRO on a bridge (or its ports) fed by a smaller-MTU tunnel.

A forwarding host, an up layer-3 tunnel whose MTU is below a bridge's, and segmentation or receive
offload still on for the bridge or a port: frames over the LAN MTU reach the clients and TCP
crawls (the field case: Tailscale's 1280-byte tunnel into br-lan, 0.2 Mbit/s). Reads the
``bridges`` subset of tunnel_facts (Linux) or openwrt_facts (routers).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import BRIDGES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import UP_OPERSTATES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Fault, Proof, does_not_apply, name_list, not_checked, role_setting)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int

# bridge_gso_off's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("bridge_gso_off")
# ethtool's short names (ethtool -K) -> the names ethtool -k prints
FEATURE_NAMES = {"gso": "generic-segmentation-offload", "tso": "tcp-segmentation-offload",
                 "gro": "generic-receive-offload", "lro": "large-receive-offload"}


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


def offload_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): its bridges, forwarding and every offload feature read."""
    facts = bridges_facts(view)
    if not facts:
        return not_checked("the bridges were not read")
    ip_forward = facts.get("ip_forward")
    if not is_int(ip_forward):
        return not_checked("IP forwarding could not be read")
    if ip_forward < 1:
        return does_not_apply("IP forwarding is off")
    bridges = facts.get("bridges") or {}
    if not bridges:
        return does_not_apply("no bridge")
    unread = sorted(device for name, bridge in bridges.items()
                    for device, device_facts in [(name, bridge)] + sorted((bridge.get("ports") or {}).items())
                    if not isinstance(device_facts.get("gso_tso_gro"), dict))
    if unread:
        return not_checked("the offload features of %s could not be read (%s)" % (", ".join(unread), facts.get("note") or "ethtool"))
    return None


def offload_plan(view, role_vars):
    """What bridge_gso_off would turn off live: each chosen feature that is on (and not [fixed]) on a chosen bridge or port.

    ``[]`` when all are off and persisting is off; None when all are off and persisting is on (the
    facts do not read the script, unit or hotplug files the role writes), without the bridges'
    offload facts, or for a bridge or feature the facts do not have (the role fails naming it).
    """
    bridges = bridges_facts(view).get("bridges")
    names = name_list(role_setting(role_vars, "bridge_gso_off_bridges", FIX_DEFAULTS))
    features = [FEATURE_NAMES.get(name) for name in name_list(role_setting(role_vars, "bridge_gso_off_features", FIX_DEFAULTS))]
    if not isinstance(bridges, dict) or not names or None in features or any(name not in bridges for name in names):
        return None
    changes = []
    for name in names:
        for device, facts in [(name, bridges[name])] + sorted((bridges[name].get("ports") or {}).items()):
            commands = features_off_commands(device, facts, features)
            if commands is None:
                return None
            changes.extend(commands)
    return converged_or_unknown(changes, role_vars)


def features_off_commands(device, facts, features):
    """``["ethtool -K DEVICE SHORT off", ...]`` for each of ``features`` (long names) on and changeable in
    ``facts["features"]``, in FEATURE_NAMES' order; None when the device's features were not read."""
    current = (facts or {}).get("features")
    if not isinstance(current, dict):
        return None
    return ["ethtool -K %s %s off" % (device, short) for short, long_name in FEATURE_NAMES.items()
            if long_name in features and current.get(long_name) == "on"]


def converged_or_unknown(changes, role_vars):
    """A bridge_gso_off plan's answer: ``changes``; with none, ``[]`` when persisting is off, else None (the
    facts do not read the files the role writes to persist)."""
    persist = role_setting(role_vars, "bridge_gso_off_persist", FIX_DEFAULTS) not in (False, "false", "no", "0")
    return changes or (None if persist else [])


BRIDGE_OFFLOAD_SMALL_MTU_TUNNEL = Fault(
    id="bridge_offload_small_mtu_tunnel",
    number=5,
    title="LAN clients behind the tunnel crawl",
    severity="high",
    hosts="any",
    reads=("tunnelfix.bridges", "openwrt.bridges"),
    facts=(BRIDGES,),
    rule=offload_on_small_mtu_bridge,
    coverage=offload_coverage,
    fires_when="IP forwarding on, an up tunnel with an MTU below a bridge's, and gso/tso/gro on for the bridge or a port",
    symptom="TCP through the tunnel to LAN clients runs at a fraction of a Mbit/s while the router itself is fast.",
    fix="gso, tso and gro off on the bridge and every port, live (ethtool -K) and persistent "
        "(networkd .link, ifupdown, or an OpenWrt hotplug script).",
    fix_role="tunnelfix.fleet.bridge_gso_off",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"),
    fix_vars=lambda evidence: {"bridge_gso_off_bridges": [evidence["bridge"]]},
    fix_needs="bridge_gso_off_bridges",
    fix_persist="bridge_gso_off_persist",
    fix_var_names=("bridge_gso_off_bridges",),
    subject=lambda evidence: evidence.get("bridge"),
    plan=offload_plan,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the offload features (the same ethtool reader) and the rule no longer fires."),
    files=("plugins/plugin_utils/faults/bridge_offload.py", "roles/bridge_gso_off/tasks/main.yml",
           "playbooks/verify.yml"),
    evidence=(
        ("bridge", "the bridge's name"),
        ("bridge_mtu_bytes", "its MTU, bytes"),
        ("tunnel", "the up tunnel with the smallest MTU below the bridge's"),
        ("tunnel_mtu_bytes", "that tunnel's MTU, bytes"),
        ("kind", "the tunnel's kind (`tun`, `wireguard`, ...)"),
        ("offloads_on", "`{device: [feature, ...]}`: the bridge and ports with gso/tso/gro on and changeable, ethtool's long names "
         "(`generic-segmentation-offload`, `tcp-segmentation-offload`, `generic-receive-offload`)"),
        ("ip_forward", "`net.ipv4.ip_forward`"),
    ),
)
