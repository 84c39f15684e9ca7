# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Measurement slots (issue 19.1): no host in two flows at once, disjoint pairs together, groups one at a time,
a seeded order, and a flow past the bound not measured with the reason."""

import math
import random

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.slots import plan_slots


def star(hubs, peers, groups=None):
    """``peers`` peers spread over ``hubs`` hubs (peer i -> hub i mod hubs); ``groups`` {hub: group}."""
    groups = groups or {}
    return [{"peer": "peer-%02d" % i, "hub": "hub-%d" % (i % hubs), "hub_group": groups.get("hub-%d" % (i % hubs))}
            for i in range(peers)]


def slots_of(plan):
    """{slot index: [peers]} of the flows that got a slot."""
    out = {}
    for peer, entry in plan.items():
        if entry["index"] is not None:
            out.setdefault(entry["index"], []).append(peer)
    return out


def assert_no_end_in_two_flows_of_a_slot(flows, plan):
    held = {}
    for flow in flows:
        entry = plan[flow["peer"]]
        if entry["index"] is None:
            continue
        for end in entry["holds"]:
            assert (entry["index"], end) not in held, (flow, held.get((entry["index"], end)))
            held[(entry["index"], end)] = flow["peer"]


@pytest.mark.parametrize("hubs, peers, slots", [
    (4, 16, 4), (4, 17, 5), (4, 15, 4), (1, 5, 5), (8, 8, 1), (3, 1, 1), (5, 0, 0),
])
def test_peers_spread_over_hubs_take_ceil_n_over_h_slots(hubs, peers, slots):
    flows = star(hubs, peers)
    plan = plan_slots(flows, seed="run-1", flow_s=30, wait_max_s=86400)
    assert {entry["count"] for entry in plan.values()} <= {slots}
    assert len(slots_of(plan)) == slots == math.ceil(peers / hubs)
    assert_no_end_in_two_flows_of_a_slot(flows, plan)
    assert all(len(slots_of(plan)[entry["index"]]) == entry["flows_in_slot"] for entry in plan.values())


def test_hubs_in_one_bottleneck_group_measure_one_flow_at_a_time():
    flows = star(4, 16, groups={"hub-%d" % i: "dc1" for i in range(4)})
    plan = plan_slots(flows, seed="run-1", wait_max_s=86400)
    assert len(slots_of(plan)) == 16 and all(len(peers) == 1 for peers in slots_of(plan).values())
    assert {tuple(entry["holds"]) for entry in plan.values()} == {("group dc1", "peer-%02d" % i) for i in range(16)}


def test_a_group_serialises_only_its_own_hubs():
    # hub-0 and hub-1 behind one uplink, hub-2 and hub-3 alone: the group's 8 flows take 8 slots, the others run beside
    flows = star(4, 16, groups={"hub-0": "dc1", "hub-1": "dc1"})
    plan = plan_slots(flows, seed="s", wait_max_s=86400)
    assert len(slots_of(plan)) == 8
    assert_no_end_in_two_flows_of_a_slot(flows, plan)
    for peers in slots_of(plan).values():
        assert sum(1 for peer in peers if plan[peer]["holds"][0] == "group dc1") <= 1


def test_a_peer_that_is_also_a_hub_is_never_in_two_flows_at_once():
    # a router measures against the core hub and is the hub of two branch peers
    flows = [{"peer": "router", "hub": "core"}, {"peer": "branch-1", "hub": "router"}, {"peer": "branch-2", "hub": "router"},
             {"peer": "laptop", "hub": "core"}]
    for seed in ("a", "b", "c", "d"):
        plan = plan_slots(flows, seed=seed)
        assert_no_end_in_two_flows_of_a_slot(flows, plan)
        assert len(slots_of(plan)) == 3


def test_a_hubs_group_holds_it_when_it_is_a_peer_too():
    flows = [{"peer": "router", "hub": "core", "peer_group": "site-b"}, {"peer": "branch", "hub": "router", "hub_group": "site-b"},
             {"peer": "other", "hub": "hub-x", "hub_group": "site-b"}]
    plan = plan_slots(flows, seed="x")
    assert len(slots_of(plan)) == 3 and plan["router"]["holds"] == ["core", "group site-b"]


@pytest.mark.parametrize("seed", ["", "run-1", "2026-12-02T12:00:00Z"])
def test_random_fleets_never_put_an_end_in_two_flows_of_one_slot(seed):
    rng = random.Random(seed)
    for _fleet in range(50):
        hosts = ["h%d" % i for i in range(rng.randint(2, 12))]
        peers = rng.sample(hosts, rng.randint(1, len(hosts)))
        flows = [{"peer": p, "hub": rng.choice([h for h in hosts if h != p]),
                  "hub_group": rng.choice([None, "", "g1", "g2"])} for p in peers]
        plan = plan_slots(flows, seed=seed)
        assert_no_end_in_two_flows_of_a_slot(flows, plan)
        # greedy: each flow's slot is the first where its ends were free, so no slot is empty
        assert sorted(slots_of(plan)) == list(range(len(slots_of(plan))))


def test_the_same_seed_gives_the_same_slots_and_jitter_whatever_the_input_order():
    flows = star(4, 16)
    first = plan_slots(flows, seed="run-7", jitter_max_s=2)
    assert plan_slots(list(reversed(flows)), seed="run-7", jitter_max_s=2) == first
    other = plan_slots(flows, seed="run-8", jitter_max_s=2)
    assert {p: e["index"] for p, e in other.items()} != {p: e["index"] for p, e in first.items()}
    assert {p: e["start_jitter_s"] for p, e in other.items()} != {p: e["start_jitter_s"] for p, e in first.items()}


@pytest.mark.parametrize("jitter_max_s", [0, 0.5, 2, 60])
def test_the_jitter_is_in_tenths_within_the_maximum(jitter_max_s):
    plan = plan_slots(star(4, 40), seed="j", jitter_max_s=jitter_max_s)
    jitters = [entry["start_jitter_s"] for entry in plan.values()]
    assert all(0 <= j <= jitter_max_s and round(j * 10) == pytest.approx(j * 10) for j in jitters)
    assert (max(jitters) > 0) == (jitter_max_s > 0)


@pytest.mark.parametrize("wait_max_s, measured", [
    (90, 16),      # slot 4 starts at 3 x 30 = 90 s: just in time
    (89.9, 12),    # ... and just too late
    (0, 4),        # only the first slot
])
def test_a_flow_whose_slot_starts_past_the_bound_is_not_measured_with_the_reason(wait_max_s, measured):
    plan = plan_slots(star(4, 16), seed="b", flow_s=30, wait_max_s=wait_max_s, wait_option="tunnel_measure_slot_wait_max_s")
    late = {peer: entry for peer, entry in plan.items() if entry["index"] is None}
    assert len(plan) - len(late) == measured
    assert {entry["count"] for entry in plan.values()} == {math.ceil(measured / 4)}
    for peer, entry in late.items():
        assert entry["flows_in_slot"] == 0 and entry["wait_estimate_s"] > wait_max_s
        hub = next(end for end in entry["holds"] if end.startswith("hub-"))
        slot = entry["wait_estimate_s"] / 30 + 1
        assert entry["not_measured_reason"] == (
            "no measurement slot within %g s (tunnel_measure_slot_wait_max_s): its slot, %d of 4, would start about %g s "
            "after the first; %s takes part in 4 flows, one at a time" % (wait_max_s, slot, entry["wait_estimate_s"], hub))
    assert all(entry["not_measured_reason"] is None for entry in plan.values() if entry["index"] is not None)


@pytest.mark.parametrize("flows, message", [
    ([{"peer": "a", "hub": "a"}], "a names itself as its hub"),
    ([{"peer": "a", "hub": "b"}, {"peer": "a", "hub": "c"}], "a has two flows"),
    ([{"peer": "a"}], "each flow must be a dict with the host names peer and hub"),
    ([{"peer": "a", "hub": ""}], "each flow must be a dict"),
    ("a->b", "flows must be a list"),
    ([{"peer": "a", "hub": "b", "hub_group": 7}], "tunnelfix_bottleneck_group of b must be a name"),
    ([{"peer": "a", "hub": "b", "hub_group": "  "}], "tunnelfix_bottleneck_group of b must be a name"),
])
def test_bad_flows_fail_naming_what_is_wrong(flows, message):
    with pytest.raises(ValueError, match=message):
        plan_slots(flows)


@pytest.mark.parametrize("kwargs, message", [
    ({"flow_s": 0}, r"flow_s must be 0.001-86400 s, got 0"),
    ({"flow_s": "x"}, "flow_s must be a number of seconds, got 'x'"),
    ({"wait_max_s": -1}, "wait_max_s must be 0-86400 s, got -1"),
    ({"wait_max_s": True}, "wait_max_s must be a number of seconds, got True"),
    ({"jitter_max_s": 61}, "jitter_max_s must be 0-60 s, got 61"),
    ({"jitter_max_s": float("nan")}, "jitter_max_s must be 0-60 s"),
])
def test_bad_numbers_fail_naming_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        plan_slots(star(2, 2), **kwargs)
