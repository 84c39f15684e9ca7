# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""UDP GRO forwarding off on the default-route NIC of an exit node or subnet router (issue 17.9).

A host that forwards (IP forwarding on) for a WireGuard or TUN tunnel (Tailscale, wireguard-go) on
Linux 6.2 or later, whose default-route NIC has ``rx-udp-gro-forwarding`` off, or ``rx-gro-list``
on (fraglist GRO takes precedence over plain UDP GRO): the UDP it forwards into the tunnel is
handled one packet at a time instead of as one aggregated buffer. Tailscale's performance guide
recommends ``ethtool -K <NIC> rx-udp-gro-forwarding on rx-gro-list off`` there; a throughput gain,
not a break, so the fix is opt-in (``udp_gro_forwarding_enable``). Reads the ``udp_gro`` subset of
tunnel_facts (Linux) or openwrt_facts (routers); the decision is ``fix/udp_gro_plan.py``'s, shared
with the role.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import (
    Fault, Proof, does_not_apply, not_checked, partly, role_setting)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import UDP_GRO
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.udp_gro_plan import (
    feature_changes, gro_off, left_alone, udp_gro_plan, up_tunnels)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.udp_gro import GRO, GRO_LIST, UDP_GRO_FORWARDING

# udp_gro_forwarding's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("udp_gro_forwarding")


def udp_gro_facts(view):
    """The ``udp_gro`` subset of tunnel_facts (view["tunnelfix"]) or openwrt_facts (view["openwrt"]), or {}."""
    for key in ("tunnelfix", "openwrt"):
        facts = (view.get(key) or {}).get("udp_gro")
        if isinstance(facts, dict):
            return facts
    return {}


def slow_udp_forwarding(host, view, views):
    """One (evidence, explanation) per default-route NIC with rx-udp-gro-forwarding off or rx-gro-list on, changeable,
    on a forwarding host with a WireGuard or TUN tunnel up and Linux 6.2 or later; nothing where a fact is unknown."""
    facts = udp_gro_facts(view)
    if not facts or left_alone(facts) is not None:
        return []
    tunnel, kind = up_tunnels(facts)[0]
    out = []
    for nic in facts.get("nics") or []:
        features = nic.get("features")
        if not isinstance(features, dict) or gro_off(features) or not feature_changes(features):
            continue
        out.append(({
            "nic": nic["device"], "kernel_release": facts.get("kernel_release"),
            "rx_udp_gro_forwarding": features.get(UDP_GRO_FORWARDING), "rx_gro_list": features.get(GRO_LIST),
            "ip_forward": facts.get("ip_forward"), "tunnel": tunnel, "tunnel_kind": kind,
            "families": nic.get("families"), "through_tunnel": nic.get("through_tunnel")}, """
            This host forwards (ip_forward=%s) for the %s tunnel %s on kernel %s, and its default-route NIC %s has
            rx-udp-gro-forwarding %s and rx-gro-list %s. Since Linux 6.2 a TUN device takes UDP in segmentation-offload
            batches, so with UDP GRO forwarding on the NIC the UDP an exit node or subnet router forwards (QUIC, video
            calls, DNS, other tunnels) is aggregated on receive and crosses the forwarding path and the tunnel as a few
            large buffers instead of one packet at a time; fraglist GRO (rx-gro-list) takes precedence over it when both
            are on. A throughput gain, not a break: Tailscale's guide recommends ethtool -K %s rx-udp-gro-forwarding on
            rx-gro-list off on exit nodes and subnet routers, and the role applies it only where udp_gro_forwarding_enable
            is set."""
            % (facts.get("ip_forward"), kind, tunnel, facts.get("kernel_release"), nic["device"],
               features.get(UDP_GRO_FORWARDING), features.get(GRO_LIST) or "(not shown)", nic["device"])))
    return out


def udp_gro_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): forwarding, tunnels, kernel, NIC and its features read."""
    facts = udp_gro_facts(view)
    if not facts:
        return not_checked("the udp_gro facts were not read (gather_subset without udp_gro, or an older collection)")
    reason = left_alone(facts)
    if reason:
        return does_not_apply(reason)
    if reason == "":
        return not_checked("forwarding, the tunnels or the kernel release could not be read (%s)" % (facts.get("note") or "?"))
    nics = facts.get("nics") or []
    if not nics:
        return not_checked("the default-route NIC is unknown (%s)" % (facts.get("note") or "no default route"))
    unread = ["%s (%s)" % (nic["device"], nic.get("ethtool_error") or facts.get("note") or "not read")
              for nic in nics if not isinstance(nic.get("features"), dict)]
    unread += ["%s (ethtool -k does not show %s)" % (nic["device"], UDP_GRO_FORWARDING) for nic in nics
               if isinstance(nic.get("features"), dict) and UDP_GRO_FORWARDING not in nic["features"]]
    if unread:
        what = "the offload features of %s" % ", ".join(unread)
        return partly(what) if len(unread) < len(nics) else not_checked("%s could not be read" % what)
    if all(gro_off(nic["features"]) for nic in nics):
        return does_not_apply("GRO is off on %s (%s): UDP GRO forwarding works inside GRO" % (
            ", ".join(nic["device"] for nic in nics), GRO))
    return None


def udp_gro_plan_lines(view, role_vars):
    """What udp_gro_forwarding would change live: ``ethtool -K NIC FEATURE on|off`` for each feature the NIC shows
    otherwise and can change. ``[]`` where the host does not forward, has no WireGuard or TUN tunnel up or runs a
    kernel before 6.2 (the role leaves it alone), or where nothing is to change and persisting is off; None when
    nothing is to change and persisting is on (the facts do not read the hook the role writes), without the facts, or
    when the role would fail (udp_gro_forwarding_device not a default-route NIC, features not read). Whether the role
    runs at all is the opt-in's (udp_gro_forwarding_enable), not the plan's."""
    facts = udp_gro_facts(view)
    if not facts:
        return None
    try:
        plan = udp_gro_plan(facts, role_setting(role_vars, "udp_gro_forwarding_device", FIX_DEFAULTS) or "")
    except ValueError:
        return None
    if plan["state"] == "left_alone":
        return []
    lines = ["ethtool -K %s %s %s" % (plan["device"], name, state) for name, state in plan["changes"].items()]
    persist = role_setting(role_vars, "udp_gro_forwarding_persist", FIX_DEFAULTS) not in (False, "false", "no", "0")
    return lines or (None if persist else [])


UDP_GRO_FORWARDING_OFF = Fault(
    id="udp_gro_forwarding_off",
    number=None,
    title="Forwarded UDP through the tunnel is slower than it could be",
    severity="low",
    hosts="exit node or subnet router (IP forwarding, a WireGuard or TUN tunnel), Linux 6.2 or later",
    reads=("tunnelfix.udp_gro", "openwrt.udp_gro"),
    facts=(UDP_GRO,),
    rule=slow_udp_forwarding,
    coverage=udp_gro_coverage,
    fires_when="IP forwarding on, a WireGuard or TUN tunnel up, kernel 6.2 or later, and on the default-route NIC "
               "(the underlay of a full tunnel) rx-udp-gro-forwarding off or rx-gro-list on, and changeable (not [fixed]), "
               "with GRO on",
    symptom="UDP through an exit node or subnet router (QUIC, calls, a tunnel in the tunnel) stays well below TCP; "
            "tailscaled warns 'UDP GRO forwarding is suboptimally configured on eth0'.",
    fix="Opt-in (udp_gro_forwarding_enable: true): ethtool -K NIC rx-udp-gro-forwarding on rx-gro-list off, applied "
        "through guarded_apply (the gateway must answer through the NIC again within 30 s, and Ansible must reach the "
        "host, or the change is reverted), re-applied by an interface hook (OpenWrt hotplug; networkd-dispatcher, "
        "ifupdown or NetworkManager on Linux). Never a uci gro option.",
    fix_role="tunnelfix.fleet.udp_gro_forwarding",
    fix_groups=("tunnelfix_wireguard_hubs", "tunnelfix_wireguard_peers", "tunnelfix_openwrt"),
    fix_vars=lambda evidence: {"udp_gro_forwarding_device": evidence["nic"]},
    fix_var_names=("udp_gro_forwarding_device",),
    fix_opt_in="udp_gro_forwarding_enable",
    fix_persist="udp_gro_forwarding_persist",
    subject=lambda evidence: evidence.get("nic"),
    plan=udp_gro_plan_lines,
    fix_defaults=FIX_DEFAULTS,
    proof=Proof(how="verify re-reads the NIC's features (the same udp_gro reader) and the rule no longer fires; a "
                    "finding left alone because udp_gro_forwarding_enable is not set stays still_present, and does not "
                    "fail verify."),
    files=("plugins/plugin_utils/faults/udp_gro_forwarding.py", "roles/udp_gro_forwarding/tasks/apply.yml",
           "playbooks/verify.yml"),
    evidence=(
        ("nic", "the default-route NIC (the finding's subject)"),
        ("kernel_release", "`uname -r`"),
        (("rx_udp_gro_forwarding", "rx_gro_list"), "the two features as `ethtool -k` shows them (`off`, `on`, `off [fixed]`)"),
        ("ip_forward", "`net.ipv4.ip_forward`"),
        (("tunnel", "tunnel_kind"), "the first up WireGuard or TUN tunnel, by name"),
        ("families", "the default routes (`inet`, `inet6`) that leave through the NIC"),
        ("through_tunnel", "null, or the tunnel of a full-tunnel default whose endpoint route carries it"),
    ),
)
