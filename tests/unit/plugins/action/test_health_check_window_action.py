# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The health_check_window action against a fake router that runs its one script (dash, bash, BusyBox sh).

Stubs print recorded output (conftest.py's shell_router): ``date``, ``nft``, ``sleep`` (no real wait) and
``logread``. Both ends of the window run the same commands, so the end's clock and counters are given by
step name (fake_action's overrides).
"""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.health_check_window import ActionModule

START = 1772442840
COUNTERS = "nft -j list counters table inet banIP"
COUNTERS_TEXT = "nft list counters table inet banIP"
LOG = "logread -t -e mwan3track"


def router(load_fixture, **changes):
    return dict({"date +%s": (0, "%d\n" % START, ""), "sleep 30": (0, "", ""),
                 COUNTERS: (0, load_fixture("nft_j_list", "netns_banip_counters_410.txt"), ""),
                 LOG: (0, load_fixture("logread", "case05_mwan3_t.txt"), "")}, **changes)


def the_end(load_fixture, seconds=30, counters="netns_banip_counters_468.txt"):
    return {"clock at the end": (0, "%d\n" % (START + seconds), ""),
            "banIP's counters at the end": (0, load_fixture("nft_j_list", counters), "")}


def test_one_execution_growth_and_failures_never_changed(batch_action, load_fixture):
    action = batch_action(ActionModule, {"window_s": 30}, router(load_fixture), overrides=the_end(load_fixture))
    result = action.run(task_vars={})
    assert not result.get("failed"), result
    assert result["changed"] is False and len(action.ran) == 1
    assert result["cmd"] == "sh -c '<health_check_window: 30 s passive window>'"
    assert (result["measured_s"], result["icmp_flood_growth_packets"], result["mwan3_failed_checks"],
            result["mwan3_lost_pings"], result["mwan3_failed_interfaces"]) == (30, 58, 3, 4, ["wan", "wanb"])
    # nothing but reading: the clock twice, the counters twice, the sleep, the log; no ping, no write
    assert action.router.calls() == ["date +%s", COUNTERS, "sleep 30", "date +%s", COUNTERS, LOG]
    assert action.router.leftovers() == []


def test_without_banips_table_the_growth_is_null_and_said(batch_action, load_fixture):
    no_table = (1, "", load_fixture("nft_stderr", "netns_no_banip_table.txt"))
    action = batch_action(ActionModule, {"window_s": 30}, router(load_fixture, **{COUNTERS: no_table, COUNTERS_TEXT: no_table}),
                          overrides={"clock at the end": (0, "%d\n" % (START + 30), "")})
    result = action.run(task_vars={})
    assert not result.get("failed"), result
    assert result["icmp_flood_growth_packets"] is None and result["icmp_counter_note"] == "banIP's nft table inet banIP is not loaded"
    # the text listing ran after the failed JSON one, at both ends
    assert action.router.calls().count(COUNTERS_TEXT) == 2


def test_busybox_logread_leaves_the_mwan3_counts_null(batch_action, load_fixture):
    busybox = (1, "", load_fixture("logread_stderr", "busybox_1.35_t_e.txt"))
    action = batch_action(ActionModule, {"window_s": 30}, router(load_fixture, **{LOG: busybox}), overrides=the_end(load_fixture))
    result = action.run(task_vars={})
    assert not result.get("failed"), result
    assert result["mwan3_failed_checks"] is None and "invalid option -- 't'" in result["mwan3_log_note"]
    assert result["icmp_flood_growth_packets"] == 58


def test_a_clock_going_back_fails_naming_it(batch_action, load_fixture):
    action = batch_action(ActionModule, {"window_s": 30}, router(load_fixture),
                          overrides=dict(the_end(load_fixture), **{"clock at the end": (0, "%d\n" % (START - 5), "")}))
    result = action.run(task_vars={})
    assert result["failed"] is True and result["cmd"] == "sh -c '<health_check_window: 30 s passive window>'"
    assert "the router's clock went back during the window (1772442840 at the start, 1772442835 at the end)" in result["msg"]


@pytest.mark.parametrize("args, named", [
    ({"window_s": 0}, "window_s must be a whole number 1-600 seconds, got 0"),
    ({"window_s": 601}, "window_s must be a whole number 1-600 seconds, got 601"),
    ({"window_s": "soon"}, "window_s"),
])
def test_bad_input_fails_naming_the_option_and_runs_nothing(batch_action, load_fixture, args, named):
    action = batch_action(ActionModule, args, router(load_fixture))
    result = action.run(task_vars={})
    assert result["failed"] is True and named in result["msg"] and action.ran == []
