# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The UDP GRO fault's rule (udp_gro_forwarding_off): the finding, and whether the host could be judged.

Reads the ``udp_gro`` facts (``reads.py``); the decisions are the plan's (``plan.py``: ``left_alone``,
``feature_changes``, ``gro_off``), so the rule fires exactly where the role's plan has a change.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked, partly
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.plan import feature_changes, gro_off, left_alone, up_tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.reads import udp_gro_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.udp_gro import GRO, GRO_LIST, UDP_GRO_FORWARDING


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
