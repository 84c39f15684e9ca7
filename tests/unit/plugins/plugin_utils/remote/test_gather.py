# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts batch built from readings (remote/gather.py): each step once, one ethtool loop for every reading."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import readings as shared
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import LoopLines, Read, Reading, choose
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import FORWARD_AND_LINKS_ARGV
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ForEachLine, Step, step_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    DEFAULT_ROUTE_DEVICE_LINES, ETHTOOL_K, OFFLOAD_DEVICE_LINES)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.gather import batch_of, gather_readings

LINKS = step_name(FORWARD_AND_LINKS_ARGV)  # ip_forward and ip -d -j link show, one step


def _batch(platform, names):
    return batch_of(choose(readings(platform), platform, set(names))[0], platform)


@pytest.mark.parametrize("platform, routes", [
    ("linux", ("ip -j route show table all",)),
    ("openwrt", ("ip -j route show table all", "ip route show table all")),
])
def test_bridges_and_udp_gro_share_one_ethtool_loop_and_their_steps(platform, routes):
    steps = _batch(platform, ["bridges", "udp_gro"])
    names = [step.name for step in steps if isinstance(step, Step)]
    assert len(names) == len(set(names))  # ip -d -j link show and the route listing: once each
    loops = [step for step in steps if isinstance(step, ForEachLine) and step.commands == (ETHTOOL_K,)]
    assert loops == [ForEachLine(OFFLOAD_DEVICE_LINES + "\nshift\n" + DEFAULT_ROUTE_DEVICE_LINES, (LINKS,) + routes, (ETHTOOL_K,))]
    assert steps[-1] == loops[0]  # after every step whose output it reads


@pytest.mark.parametrize("names, lines", [
    (["bridges"], OFFLOAD_DEVICE_LINES),
    (["udp_gro"], DEFAULT_ROUTE_DEVICE_LINES),
])
def test_one_reading_alone_has_the_loop_to_itself(names, lines):
    loops = [step for step in _batch("linux", names) if isinstance(step, ForEachLine) and step.commands == (ETHTOOL_K,)]
    assert [loop.lines for loop in loops] == [lines]


def test_no_loop_without_a_reading_that_shares_it():
    assert not [step for step in _batch("linux", ["tcp", "netns", "wireguard"]) if isinstance(step, ForEachLine)]


def _reading(name, steps=(), loops=()):
    return Reading(name, {"linux": Read(steps=steps, loops=loops)})


def test_loop_shares_shift_past_the_inputs_before_and_put_the_one_reading_all_last():
    every = LoopLines('cat "$@"', ("a", "b"), (["echo"],))
    two = LoopLines('cat "$1" "$2"', ("c", "d"), (["echo"],))
    one = LoopLines('cat "$1"', ("e",), (["echo"],))
    steps = batch_of([_reading("x", loops=(every,)), _reading("y", loops=(two,)), _reading("z", loops=(one,))], "linux")
    assert steps == [ForEachLine('cat "$1" "$2"\nshift 2\ncat "$1"\nshift\ncat "$@"', ("c", "d", "e", "a", "b"), (["echo"],))]


def test_two_loop_shares_reading_all_their_inputs_are_refused():
    every = LoopLines('cat "$@"', ("a",), (["echo"],))
    with pytest.raises(ValueError, match="two snippets"):
        batch_of([_reading("x", loops=(every,)), _reading("y", loops=(every._replace(inputs=("b",)),))], "linux")


def test_two_different_steps_of_one_name_are_refused():
    with pytest.raises(ValueError, match="two different steps are named 'x'"):
        batch_of([_reading("a", (Step("x", ["true"]),)), _reading("b", (Step("x", ["false"]),))], "linux")


def test_gathers_run_in_order_each_seeing_what_came_before():
    seen = []
    first = Reading("first", {"linux": Read(gather=lambda action, facts, args: (action, args["n"]))})
    second = Reading("second", {"linux": Read(gather=lambda action, facts, args: seen.append(dict(facts)) or "2")})
    assert gather_readings("the action", [first, second], "linux", {"n": 1}) == {"first": ("the action", 1), "second": "2"}
    assert seen == [{"first": ("the action", 1)}]


def test_the_shared_readings_list_steps_that_fit_the_batch():
    """Every shared reading's ForEachLine reads only steps listed before it (its own, or what it needs/uses)."""
    for platform in ("linux", "openwrt"):
        chosen, _shown = choose(readings(platform), platform, {reading.name for reading in shared.ORDER})
        seen = set()
        for step in batch_of(chosen, platform):
            if isinstance(step, Step):
                seen.add(step.name)
            else:
                assert set(step.inputs) <= seen, (platform, step.inputs)
