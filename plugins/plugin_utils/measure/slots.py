# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Measurement slots: which iperf3 flows of a run may go at the same time, and in what order.

A flow runs from a peer (the iperf3 client) to its hub (the server) and holds both ends for its
whole test: no host is in two flows at once, so a peer never shares its uplink and a hub never
splits its path between two of its peers. Flows on disjoint pairs run in the same slot. Hubs
behind one bottleneck (one uplink, one shaper) declare the same ``tunnelfix_bottleneck_group``;
a host with a group is held as that group, so the group's flows go one at a time.

The same model as perfSONAR's pScheduler, which marks throughput tests exclusive per participant
and runs non-overlapping ones side by side (with a random slip in their start), and OpenWISP's
iperf3 check, which locks each server: the numbers a fleet gets from parallel slots are the ones
it would get one flow at a time, because no flow shares an end with another.

The order is seeded: flows are taken by ``sha256(seed, peer)``, then each goes into the first slot
where both of its ends are free (greedy colouring). Where every flow has a different peer and no
peer is also a hub, this uses as many slots as the busiest end has flows (``ceil(N/H)`` for N
peers spread evenly over H hubs), the least possible. The same seed and flows give the same
slots and jitter whatever the input order; another seed gives another order, so the flows that
miss a bound are not the same ones every run.

A flow whose slot would start later than ``wait_max_s`` after the first (estimated as slot index x
``flow_s``) gets no slot: ``not_measured`` with the reason, never a rate of 0.

Pure functions, no I/O. Bad arguments raise ValueError naming the argument and the value.
"""

from __future__ import annotations

import hashlib
import math

# the jitter's resolution: a tenth of a second
_JITTER_STEPS = 10
_HASH_SPAN = float(0xFFFFFFFF)


def _digest(*parts) -> str:
    return hashlib.sha256("\0".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _number(value, name, low, high):
    """``value`` as a float within [low, high]; ValueError naming ``name`` otherwise."""
    if isinstance(value, bool):
        raise ValueError("%s must be a number of seconds, got %r" % (name, value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number of seconds, got %r" % (name, value)) from None
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError("%s must be %s-%s s, got %r" % (name, low, high, value))
    return number


def _group(value, name):
    """A bottleneck group name, or None for none (None or "")."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError("%s must be a name (a string) or empty for none, got %r" % (name, value))
    return value.strip()


def _flows(flows):
    """Validated flows: a list of dicts peer, hub, peer_group, hub_group (groups None when not set)."""
    if not isinstance(flows, (list, tuple)):
        raise ValueError("flows must be a list of {peer, hub, peer_group, hub_group}, got %r" % (flows,))
    seen, out = set(), []
    for flow in flows:
        if not isinstance(flow, dict) or not isinstance(flow.get("peer"), str) or not isinstance(flow.get("hub"), str) \
                or not flow["peer"] or not flow["hub"]:
            raise ValueError("each flow must be a dict with the host names peer and hub, got %r" % (flow,))
        peer, hub = flow["peer"], flow["hub"]
        if peer == hub:
            raise ValueError("%s names itself as its hub (tunnelfix_tunnel_hub=%r): a flow needs two hosts" % (peer, hub))
        if peer in seen:
            raise ValueError("%s has two flows: each peer measures against one hub" % peer)
        seen.add(peer)
        out.append({"peer": peer, "hub": hub,
                    "peer_group": _group(flow.get("peer_group"), "tunnelfix_bottleneck_group of %s" % peer),
                    "hub_group": _group(flow.get("hub_group"), "tunnelfix_bottleneck_group of %s" % hub)})
    return out


def _held(host, group):
    """What a flow holds for one of its ends: the host's bottleneck group when it has one, else the host."""
    return "group %s" % group if group else host


def plan_slots(flows, seed="", flow_s=30, wait_max_s=3600, jitter_max_s=2, wait_option="wait_max_s"):
    """Give each flow a slot.

    Args:
        flows: list of ``{"peer": str, "hub": str, "peer_group": str|None, "hub_group": str|None}``,
            one per peer (the groups are each host's ``tunnelfix_bottleneck_group``; "" or None for none).
        seed: any string; the same seed gives the same order and jitter.
        flow_s: seconds one slot takes at most (the test, its omitted start, the connects and the jitter), > 0.
        wait_max_s: the latest a slot may start after the first, seconds (0-86400).
        jitter_max_s: each flow starts up to this many seconds into its slot (0-60), in tenths.
        wait_option: the name the reason gives the bound (the role option that set ``wait_max_s``).

    Returns:
        ``{peer: {"index": int|None, "count": int, "flows_in_slot": int, "start_jitter_s": float,
        "holds": [str, ...], "wait_estimate_s": float, "not_measured_reason": str|None}}``. ``index`` is the
        slot (0 is the first), None when the flow gets none within ``wait_max_s`` (then
        ``not_measured_reason`` says why); ``count`` is how many slots the run uses; ``flows_in_slot`` how
        many flows share the flow's slot (itself included; 0 without a slot); ``holds`` names what the flow holds (hosts, or
        ``group <name>``); ``wait_estimate_s`` is ``index x flow_s`` (or what it would have been).

    Raises:
        ValueError: a bad argument, named with its value.
    """
    flows = _flows(flows)
    flow_s = _number(flow_s, "flow_s", 0.001, 86400)
    wait_max_s = _number(wait_max_s, "wait_max_s", 0, 86400)
    jitter_max_s = _number(jitter_max_s, "jitter_max_s", 0, 60)
    seed = "" if seed is None else str(seed)

    # a host that is a hub with a group holds the group when it is a peer too
    group_of = {}
    for flow in flows:
        for host, group in ((flow["peer"], flow["peer_group"]), (flow["hub"], flow["hub_group"])):
            if group:
                group_of[host] = group
    ordered = sorted(flows, key=lambda flow: (_digest(seed, "order", flow["peer"]), flow["peer"]))
    holds = {flow["peer"]: sorted({_held(flow["peer"], group_of.get(flow["peer"])), _held(flow["hub"], group_of.get(flow["hub"]))})
             for flow in ordered}
    flows_holding = {}
    for held in (held for peer in holds for held in holds[peer]):
        flows_holding[held] = flows_holding.get(held, 0) + 1

    busy = []       # per slot, what its flows hold
    index_of = {}
    for flow in ordered:
        peer = flow["peer"]
        index = next((i for i, taken in enumerate(busy) if not taken.intersection(holds[peer])), len(busy))
        if index == len(busy):
            busy.append(set())
        busy[index].update(holds[peer])
        index_of[peer] = index
    in_time = [index for index in index_of.values() if index * flow_s <= wait_max_s]
    count = max(in_time) + 1 if in_time else 0

    plan = {}
    for flow in ordered:
        peer, index = flow["peer"], index_of[flow["peer"]]
        wait_s = round(index * flow_s, 3)
        jitter = int(_digest(seed, "jitter", peer)[:8], 16) / _HASH_SPAN * jitter_max_s
        reason = None
        if index >= count:
            busiest = max(holds[peer], key=lambda held: (flows_holding[held], held))
            reason = ("no measurement slot within %g s (%s): its slot, %d of %d, would start about %g s after the first; "
                      "%s takes part in %d flows, one at a time" % (
                          wait_max_s, wait_option, index + 1, len(busy), wait_s, busiest, flows_holding[busiest]))
        plan[peer] = {"index": None if reason else index, "count": count, "holds": holds[peer], "wait_estimate_s": wait_s,
                      "flows_in_slot": 0 if reason else sum(1 for other in index_of.values() if other == index),
                      "start_jitter_s": math.floor(jitter * _JITTER_STEPS) / _JITTER_STEPS, "not_measured_reason": reason}
    return plan
