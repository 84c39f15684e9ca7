# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's rule: a tunnel whose MTU the measured path does not carry.

Reads the host's facts (``reads.tunnels``: each tunnel's MTU, whether IPv6 runs inside) and the measuring step's
record, ``view["path_mtu"]``::

    {"phase": "before",
     "tunnels": [reads.record_entry, ...]}   # one per tunnel and peer: the outer and the inner ladder (parse_ladder)

Per entry: the outer ladder (to the endpoint, outside the tunnel) finds the fault when it is valid and the tunnel's
MTU plus WireGuard's overhead for the endpoint's family (60 bytes IPv4, 80 IPv6: ``tunnel_mtu.WIREGUARD_OVERHEAD_BYTES``)
is more than the path MTU it measured; the inner ladder (to the far tunnel address) when it is valid and the tunnel
carries less than its MTU. The MTU to set is the smaller of ``tunnel_mtu.tunnel_mtu_for_path`` (outer) and the inner
path MTU, never below 1280 where IPv6 runs inside; one finding per tunnel, from its tightest peer. An inner edge that is
the outer fit rounded down to WireGuard's 16-byte padding (``tunnel_mtu.padded_inner_edge``: 1328 over a 1400-byte path)
is the padding measured over the same path, not a narrower hop: the outer fit (1340) is set.

A ladder that is invalid (nothing answered, ping could not run, probes that contradict each other) judges nothing:
coverage says so with the parser's reason. The ladder needs no hub (it probes the peers' own endpoints), so a
missing record is "not measured in this run", not ``fault.NO_HUB``.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import does_not_apply, not_checked, partly
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import host_facts, link_mtus, tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.tunnel_mtu import (
    IPV6_MIN_MTU_BYTES, MIN_MTU_BYTES, WIREGUARD_OVERHEAD_BYTES, padded_inner_edge, tunnel_mtu_for_path)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int

NOT_MEASURED = ("the PMTU ladder did not run on this host in this run (a path MTU is measured, never computed; "
                "tunnelfix_measure=false skips it)")


def valid(ladder):
    """Whether ``ladder`` (parse_ladder output or None) is a measurement: no ``invalid`` reason and a path MTU."""
    return isinstance(ladder, dict) and ladder.get("invalid") is None and is_int(ladder.get("path_mtu_bytes"))


def entries(view):
    """The record's entries (``view["path_mtu"]["tunnels"]``), [] when there is no record."""
    record = view.get("path_mtu")
    listed = record.get("tunnels") if isinstance(record, dict) else None
    return [entry for entry in listed or [] if isinstance(entry, dict)]


def judge(entry, tunnel_mtu, inside_v6) -> dict:
    """One entry (``reads.record_entry``) against the tunnel's MTU now (bytes) and whether IPv6 runs inside (None:
    unknown, ``reads.carries_ipv6``; kept at the 1280 floor like True, so the role never refuses the MTU named)::

        {"judged": True, "found": True, "outer_exceeds": True, "inner_short": False, "outer_family": 4, "overhead_bytes": 60,
         "outer_path_mtu_bytes": 1400, "inner_path_mtu_bytes": None, "set_mtu_bytes": 1340, "raised_to_ipv6_minimum": False}

    ``judged``: a ladder of the entry is valid. ``set_mtu_bytes``: the MTU the fix sets (None when nothing was found
    or no ladder is valid), never above the tunnel's, never below ``tunnel_mtu.MIN_MTU_BYTES`` (the role's floor).
    ``too_narrow``: found, but the path is too narrow for any MTU the fix sets (``set_mtu_bytes`` None: nothing to run).
    """
    outer, inner = entry.get("outer"), entry.get("inner")
    family = outer["family"] if valid(outer) else entry.get("outer_family")
    overhead = WIREGUARD_OVERHEAD_BYTES.get(family)
    out = {"judged": valid(outer) or valid(inner), "found": False, "outer_exceeds": False, "inner_short": False,
           "outer_family": family, "overhead_bytes": overhead,
           "outer_path_mtu_bytes": outer["path_mtu_bytes"] if valid(outer) else None,
           "inner_path_mtu_bytes": inner["path_mtu_bytes"] if valid(inner) else None,
           "set_mtu_bytes": None, "raised_to_ipv6_minimum": False, "too_narrow": False}
    candidates = []
    fit = None
    if valid(outer):
        out["outer_exceeds"] = tunnel_mtu + overhead > outer["path_mtu_bytes"]
        try:
            fit = tunnel_mtu_for_path(outer["path_mtu_bytes"], family, inside_v6 is not False)   # unknown: the floor holds
            candidates.append((fit["mtu_bytes"], fit["raised_to_ipv6_minimum"]))
        except ValueError:  # a path too small to leave 68 bytes inside: no MTU fits it (too narrow)
            pass
    if valid(inner):
        edge = inner["path_mtu_bytes"]
        out["inner_short"] = edge < tunnel_mtu
        # an inner edge at the padded size of the outer fit is WireGuard's padding over that same path (tunnel_mtu.py):
        # the outer ladder's MTU carries full-size packets there, so the inner one sets nothing smaller
        if fit is None or not (out["inner_short"] and edge == padded_inner_edge(fit["computed_bytes"])):
            raised = inside_v6 is not False and edge < IPV6_MIN_MTU_BYTES
            candidates.append((IPV6_MIN_MTU_BYTES if raised else edge, raised))
    out["found"] = out["outer_exceeds"] or out["inner_short"]
    candidates = [candidate for candidate in candidates if candidate[0] >= MIN_MTU_BYTES]   # the floor the role keeps
    out["too_narrow"] = out["found"] and not candidates
    if out["found"] and candidates:
        mtu, raised = min(candidates)
        out["set_mtu_bytes"], out["raised_to_ipv6_minimum"] = min(mtu, tunnel_mtu), raised
    return out


# how the sizes above the largest that passed failed (``larger_packets``), and what that means for the TCP inside
LARGER_PACKETS = {
    "lost silently": "Larger packets vanish without an ICMP answer (a black hole)",
    "refused with ICMP": "A hop answers the larger packets with ICMP (too big), but TCP inside the tunnel never gets that "
                         "answer (WireGuard passes no ICMP into the tunnel), so its full-size packets are still lost or "
                         "fragmented outside",
    "refused by this host": "This host already refuses the larger packets (it has learned the smaller path MTU), but TCP "
                            "inside the tunnel is not told, so its full-size packets are still lost or fragmented outside",
}


def larger_packets(ladders):
    """How the probes above the largest size that passed failed, over the ``ladders`` that found the fault (parse_ladder
    output): "refused with ICMP" when a hop answered one (``too-big-remote``, ``icmp-error``), else "lost silently" when
    one got no answer (``failed``: the black hole), else "refused by this host" (``too-big-local`` only: the host knew a
    smaller MTU); None when no probe above failed (the ladder reached its upper bound, the uplink's MTU).
    ``[{"largest_passing_payload_bytes": 1372, "probes": [{"payload_bytes": 1472, "result": "failed"}, ...]}]`` ->
    "lost silently".
    """
    results = set()
    for ladder in ladders:
        passed = ladder.get("largest_passing_payload_bytes") or 0
        results.update(probe.get("result") for probe in ladder.get("probes") or []
                       if probe.get("payload_bytes", 0) > passed and probe.get("result") != "passed")
    if results & {"too-big-remote", "icmp-error"}:
        return "refused with ICMP"
    if "failed" in results:
        return "lost silently"
    if "too-big-local" in results:
        return "refused by this host"
    return None


def smaller_mtu(set_mtu_bytes, tunnel_mtu_bytes):
    """``set_mtu_bytes`` when it is an MTU below the tunnel's (bytes; ``tunnel_mtu_bytes`` None: unknown, any counts),
    else None: what the fix sets, or nothing (too narrow a path, or a tunnel already at the MTU named)."""
    if not is_int(set_mtu_bytes) or (is_int(tunnel_mtu_bytes) and set_mtu_bytes >= tunnel_mtu_bytes):
        return None
    return set_mtu_bytes


def _probes(ladder):
    """``(probes, pings sent)`` of a ladder, ``(None, None)`` where it did not run."""
    if not isinstance(ladder, dict):
        return None, None
    return len(ladder.get("probes") or []), ladder.get("pings_sent")


def judgements(view) -> dict:
    """``{interface: [(entry, judge(...)), ...]}`` for the record's entries whose tunnel MTU the facts know."""
    known = tunnels(view)
    out = {}
    for entry in entries(view):
        tunnel = known.get(entry.get("interface"))
        if tunnel is None or not is_int(tunnel["tunnel_mtu_bytes"]):
            continue
        out.setdefault(entry["interface"], []).append((entry, judge(entry, tunnel["tunnel_mtu_bytes"], tunnel["ipv6_inside"])))
    return out


def black_holes(host, view, views):
    """One (evidence, explanation) per tunnel whose measured path does not carry its MTU (module doc): its tightest peer's."""
    known, (_facts, platform) = tunnels(view), host_facts(view)
    out = []
    for name, judged in sorted(judgements(view).items()):
        found = [(entry, verdict) for entry, verdict in judged if verdict["found"]]
        if not found:
            continue
        # the smallest MTU to set; of equals, the peer whose outer ladder saw the hole (its evidence names the path MTU)
        entry, verdict = min(found, key=lambda pair: (pair[1]["set_mtu_bytes"] is None, pair[1]["set_mtu_bytes"] or 0,
                                                      not pair[1]["outer_exceeds"]))
        tunnel = known[name]
        mtu = tunnel["tunnel_mtu_bytes"]
        outer_probes, outer_pings = _probes(entry.get("outer"))
        inner_probes, inner_pings = _probes(entry.get("inner"))
        # the sizes first: the console's line per host shows the evidence's first 100 characters (report/coverage.py)
        evidence = {
            "interface": name, "tunnel_mtu_bytes": mtu, "outer_path_mtu_bytes": verdict["outer_path_mtu_bytes"],
            "set_mtu_bytes": verdict["set_mtu_bytes"], "inner_path_mtu_bytes": verdict["inner_path_mtu_bytes"],
            "endpoint": entry.get("endpoint"), "inner_target": entry.get("inner_target"),
            "uplink_device": entry.get("uplink_device"), "uplink_mtu_bytes": entry.get("uplink_mtu_bytes"),
            "outer_family": verdict["outer_family"], "overhead_bytes": verdict["overhead_bytes"], "ipv6_inside": tunnel["ipv6_inside"],
            "larger_packets": larger_packets([entry[side] for side, seen in (("outer", "outer_exceeds"), ("inner", "inner_short"))
                                              if verdict[seen]]),
            "raised_to_ipv6_minimum": verdict["raised_to_ipv6_minimum"],
            "outer_probes": outer_probes, "outer_pings_sent": outer_pings, "inner_probes": inner_probes,
            "inner_pings_sent": inner_pings, "peers_found": len(found), "peers_measured": len(judged)}
        out.append((evidence, _explain(name, entry, verdict, mtu, tunnel["ipv6_inside"], platform == "openwrt",
                                       evidence["larger_packets"])))
    return out


def _explain(name, entry, verdict, mtu, inside_v6=True, clamp=False, larger=None):
    """The finding's paragraph (``clamp``: the fix also clamps TCP's MSS, OpenWrt only: plan.py; ``larger``: how the larger
    probes failed, ``larger_packets``)."""
    parts = ["%s has an MTU of %d bytes, but the path does not carry packets that large:" % (name, mtu)]
    if verdict["outer_exceeds"]:
        parts.append("toward its endpoint %s (IPv%s outside, %d bytes of WireGuard overhead) the largest packet that got "
                     "through with don't-fragment set was %d bytes, and a full-size tunnel packet leaves as %d."
                     % (entry.get("endpoint"), verdict["outer_family"], verdict["overhead_bytes"],
                        verdict["outer_path_mtu_bytes"], mtu + verdict["overhead_bytes"]))
    if verdict["inner_short"]:
        parts.append("Inside the tunnel, to %s, the largest packet that got through was %d bytes."
                     % (entry.get("inner_target"), verdict["inner_path_mtu_bytes"]))
    parts.append("%s: pings and small requests work while TLS handshakes, uploads and bulk transfers hang or crawl. "
                 "WireGuard does not repair this itself."
                 % LARGER_PACKETS.get(larger, "Full-size tunnel packets are larger than the path carries"))
    if smaller_mtu(verdict["set_mtu_bytes"], mtu) is not None:
        parts.append("Setting the tunnel's MTU to %d bytes%s makes every tunnel packet fit."
                     % (verdict["set_mtu_bytes"], " (and clamping the MSS of the TCP it forwards to it)" if clamp else ""))
    if verdict["too_narrow"]:
        parts.append("The path is too narrow for any MTU the fix sets (at least %d bytes, IPv4's minimum datagram; %d where "
                     "IPv6 runs inside), so nothing is changed: a wider path (another uplink, or the tunnel over a link "
                     "that is not itself a tunnel) is the only fix." % (MIN_MTU_BYTES, IPV6_MIN_MTU_BYTES))
    if verdict["raised_to_ipv6_minimum"]:
        why = ("IPv6 runs inside the tunnel" if inside_v6 else
               "IPv6 may run inside the tunnel (neither the host's address listing, ip -j addr show, nor a wg-quick file "
               "of it shows its addresses, and the kernel drops a device's IPv6 under 1280 bytes)")
        parts.append("%s, which needs at least %d bytes: the MTU stays at %d although the path "
                     "is narrower, so full-size packets still leave fragmented; a wider path (or a tunnel without IPv6) "
                     "is the only full fix." % (why, IPV6_MIN_MTU_BYTES, IPV6_MIN_MTU_BYTES))
    return " ".join(parts)


def _notes(entry):
    """Why each ladder of ``entry`` judges nothing (invalid, not run), one text each."""
    notes = []
    where = "%s to %s" % (entry.get("interface"), entry.get("endpoint"))
    for side, label in (("outer", "outside the tunnel"), ("inner", "inside the tunnel")):
        ladder = entry.get(side)
        if valid(ladder):
            continue
        if isinstance(ladder, dict) and ladder.get("invalid"):
            reason = ladder["invalid"]
        else:
            reason = entry.get("%s_note" % side) or "the ladder did not run"
        notes.append("%s, %s: %s" % (where, label, reason))
    return notes


def pmtu_coverage(host, view, views):
    """Whether the rule could judge this host (Fault.coverage): WireGuard tunnels, their MTUs, and valid ladders."""
    facts, _platform = host_facts(view)
    wireguard = facts.get("wireguard")
    if not isinstance(wireguard, dict):
        return not_checked("the facts read no WireGuard interfaces")
    known = tunnels(view)
    if not known:
        return does_not_apply("no WireGuard interface")
    if link_mtus(facts) is None:
        return not_checked("the tunnels' MTU is unknown: %s" % ((facts.get("link_mtu") or {}).get("note") or "link_mtu not read"))
    if view.get("path_mtu") is None:
        if not any(tunnel["peers"] for tunnel in known.values()):
            return does_not_apply("no WireGuard peer has an endpoint to probe")
        return not_checked(NOT_MEASURED)
    listed = entries(view)
    if not listed:
        return does_not_apply("no WireGuard peer has an endpoint to probe")
    notes, judged = [], False
    for entry in listed:
        tunnel = known.get(entry.get("interface"))
        if tunnel is None or not is_int(tunnel["tunnel_mtu_bytes"]):
            notes.append("%s: no MTU in the facts for this tunnel" % entry.get("interface"))
            continue
        judged = judged or judge(entry, tunnel["tunnel_mtu_bytes"], tunnel["ipv6_inside"])["judged"]
        notes.extend(_notes(entry))
    if not judged:
        return not_checked("; ".join(notes))
    return partly("; ".join(notes)) if notes else None
