"""bench/performance_md.py (docs/performance.md renderer) and the pure helpers of bench/run.py."""

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import exec_by_task  # noqa: E402
import performance_md as pm  # noqa: E402
import run  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "results_small.json"


@pytest.fixture
def results():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def goal(results, prefix):
    return next(g for g in pm.goals(results) if g["goal"].startswith(prefix))


@pytest.mark.parametrize("points, slope, intercept, max_dev", [
    ([(5, 10.0), (10, 20.0)], 2.0, 0.0, 0.0),
    ([(5, 11.0), (10, 16.0), (20, 26.0)], 1.0, 6.0, 0.0),
    ([(1, 1.0), (2, 4.0), (3, 3.0)], 1.0, 0.6667, 50.0),
    ([(5, 10.0), (10, None), (20, 40.0)], 2.0, 0.0, 0.0),
])
def test_linear_fit(points, slope, intercept, max_dev):
    fit = pm.linear_fit(points)
    assert fit["slope"] == pytest.approx(slope)
    assert fit["intercept"] == pytest.approx(intercept, abs=1e-3)
    assert fit["max_deviation_percent"] == pytest.approx(max_dev, abs=0.1)


@pytest.mark.parametrize("points", [[], [(5, 1.0)], [(5, 1.0), (5, 2.0)]])
def test_linear_fit_needs_two_sizes(points):
    assert pm.linear_fit(points)["slope"] is None


def test_ratio_goal_missed_with_factor(results):
    # N=4: idempotent remediate 10 s over a 2 s floor = 5x, the goal is 4x: missed by 1.25 -> "1.2x".
    g = goal(results, "remediate_idempotent: wall time")
    assert not g["met"]
    assert g["measured"] == "5.00x (worst, N=4)"
    assert "missed by 1.2x" in g["note"]


def test_ratio_goal_met(results):
    g = goal(results, "diagnose: wall time")
    assert g["met"], g
    assert g["measured"] == "1.50x (worst, N=2)"


def test_one_execution_goal(results):
    assert goal(results, "diagnose: all facts in one remote execution per host, Linux")["met"]
    g = goal(results, "diagnose: all facts in one remote execution per host, OpenWrt")
    assert not g["met"] and g["measured"].startswith("2 per host") and "2x" in g["note"]


def test_linearity_goal(results):
    # idempotent: 3 s at N=2, 10 s at N=4: two points always lie on their line.
    assert goal(results, "remediate_idempotent: cost grows linearly")["met"]


def test_lab_effect_goal_missed_by_points(results):
    g = goal(results, "lab: single-flow TCP")
    assert not g["met"]
    assert g["measured"].startswith("89.0 % (worst: peer")
    assert "missed by 1.0 points" in g["note"]


def test_lab_effect_without_report(results):
    del results["lab_effect"]
    g = goal(results, "lab: single-flow TCP")
    assert not g["met"] and g["measured"] == "not measured"
    assert "Not measured in this run." in pm.render(results)


def test_idempotent_changed_goal(results):
    assert goal(results, "remediate_idempotent: changed=0")["met"]
    results["runs"][1]["phases"]["remediate_idempotent"]["changed"] = 3
    g = goal(results, "remediate_idempotent: changed=0")
    assert not g["met"] and g["measured"] == "not 0 at N=4"


def test_render_tables(results):
    md = pm.render(results, notes="Hand-written *note*.")
    assert "| 4 (2+2) | remediate | **failed** | 20.0 | – | 40 | 90 | 100 | 62 | 38 / 1 / 0 | – | – | – |" in md
    assert "| 4 (2+2) | remediate_idempotent | ok | 10.0 | 5.00x | 30 / 30.5 / 31 | 60 | 100 | 62 | 0 / 0 / 0 | – | – | – |" in md
    assert "| remediate_idempotent | 3.500 | -4.00 | 0.0 % | 2 |" in md
    assert "| peer | TCP single flow peer -> hub | 2.35 Mbit/s | 35.58 Mbit/s | 15.2x | 89.0 % | 40.00 Mbit/s |" in md
    assert "**missed** (missed by 1.2x (worst at N=4))" in md
    assert md.rstrip().endswith("Hand-written *note*.")
    assert "| CPU | Test CPU (2 cores) |" in md


def test_failed_floor_gives_no_ratio(results):
    results["runs"][0]["phases"]["floor"]["status"] = "failed"
    assert pm.ratio(results["runs"][0]["phases"]["diagnose"], results["runs"][0]["phases"]["floor"]) is None
    assert "| 2 (1+1) | diagnose | ok | 1.5 | – |" in pm.render(results)


RECAP = """\
PLAY RECAP *********************************************************************
localhost                  : ok=3    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
tfb-lnx-01                 : ok=61   changed=2    unreachable=0    failed=0    skipped=19   rescued=0    ignored=0
tfb-owrt-01                : ok=74   changed=0    unreachable=1    failed=1    skipped=25   rescued=0    ignored=0
"""


def test_parse_recap():
    recap = run.parse_recap("TASK [x]\nok: [tfb-lnx-01]\n" + RECAP)
    assert recap["tfb-lnx-01"] == {"ok": 61, "changed": 2, "unreachable": 0, "failed": 0}
    assert recap["tfb-owrt-01"] == {"ok": 74, "changed": 0, "unreachable": 1, "failed": 1}
    assert set(recap) == {"localhost", "tfb-lnx-01", "tfb-owrt-01"}


def test_parse_recap_none():
    assert run.parse_recap("ERROR! the playbook could not be found\n") == {}


def test_fleet_hosts():
    assert run.fleet_hosts(5) == ["tfb-lnx-01", "tfb-lnx-02", "tfb-lnx-03", "tfb-owrt-01", "tfb-owrt-02"]


def test_exec_by_task_count():
    log = [
        "TASK [tunnelfix.fleet.linux_bbr_fq : Read the TCP stack] ****",
        "<172.31.250.10> SSH: EXEC ssh -C -o ControlMaster=auto ...",
        "<172.31.250.11> SSH: EXEC ssh -C -o ControlMaster=auto ...",
        "<172.31.250.11> SSH: EXEC ssh -C -o ControlMaster=auto ...",
        "<172.31.250.11> ESTABLISH SSH CONNECTION FOR USER: root",
        "TASK [Show it] ****",
    ]
    counts = exec_by_task.count(log)
    assert counts[("172.31.250.11", "tunnelfix.fleet.linux_bbr_fq : Read the TCP stack")] == 2
    assert counts[("172.31.250.10", "tunnelfix.fleet.linux_bbr_fq : Read the TCP stack")] == 1
    assert sum(counts.values()) == 3


def test_render_profile(results):
    results["exec_profile"] = {"fleet": "tfb-lnx-01 (Linux) and tfb-owrt-01 (OpenWrt)", "phases": {
        "remediate_idempotent": {"status": "ok", "changed": 0, "counted": {"linux": 4, "openwrt": 16},
                                 "tasks": [{"task": "tunnelfix.fleet.linux_bbr_fq : Set the values", "linux": 1, "openwrt": 15},
                                           {"task": "tunnelfix.fleet.bridge_gso_off : Install the script", "linux": 3, "openwrt": 1}]}}}
    md = pm.render(results)
    assert "4 executions on the Linux host, 16 on the OpenWrt host" in md
    assert "| tunnelfix.fleet.linux_bbr_fq | 1 | 15 |" in md
    assert md.index("| tunnelfix.fleet.linux_bbr_fq | 1 | 15 |") < md.index("| tunnelfix.fleet.bridge_gso_off | 3 | 1 |")
    assert "| tunnelfix.fleet.bridge_gso_off : Install the script | 3 | 1 |" in md


TASKS_RECAP = """\
TASKS RECAP ********************************************************************
Monday 30 November 2026  17:27:56 +0000 (0:00:00.825)       0:00:35.338 *******
===============================================================================
tunnelfix.fleet.wireguard_keepalive : Set PersistentKeepalive on the chosen peers --- 2.52s
Choose the bridges ------------------------------------------------------ 0.50s
"""


def test_parse_task_times():
    assert run.parse_task_times("TASK [x] ***\n" + TASKS_RECAP) == [
        ["tunnelfix.fleet.wireguard_keepalive : Set PersistentKeepalive on the chosen peers", 2.52],
        ["Choose the bridges", 0.5]]
    assert run.parse_task_times("no recap\n") == []


def test_render_slowest_tasks(results):
    results["runs"][1]["phases"]["remediate_idempotent"]["slowest_tasks"] = [["Choose the bridges", 0.5]]
    md = pm.render(results)
    assert "The slowest tasks at N=4" in md
    assert "| Choose the bridges | 0.50 |" in md


def test_render_fleet_memory(results):
    results["runs"][1]["fleet_memory_bytes"] = {"linux": 46000000, "openwrt": 9000000}
    assert "N=4: 46 MB Linux + 9 MB OpenWrt" in pm.render(results)


def test_render_cpu_columns(results):
    ph = results["runs"][0]["phases"]["floor"]
    ph.update(controller_cpu_s=1.25, machine_cpu_busy_percent=87.0, loadavg_1m_before=0.5)
    assert "| 2 (1+1) | floor | ok | 1.0 | 1.00x | 1 | 1 | 70 | 60 | 0 / 0 / 0 | 1.2 | 87 % | 0.5 |" in pm.render(results)


def test_cpu_times_busy_below_total():
    busy, total = run.cpu_times()
    assert 0 <= busy <= total


@pytest.mark.parametrize("text, sizes", [("5,10,20,40", [5, 10, 20, 40]), ("2", [2]), (" 1, 200", [1, 200])])
def test_fleet_sizes(text, sizes):
    assert run.fleet_sizes(text) == sizes


@pytest.mark.parametrize("text", ["0", "-1", "201", "abc", "5,", "", "5,0"])
def test_bad_fleet_sizes_stop_before_anything_runs(text):
    """argparse's type: rejected while parsing, before any fleet goes down or a document is written."""
    with pytest.raises(SystemExit):
        run.main(["--sizes", text])
    with pytest.raises(run.argparse.ArgumentTypeError, match="not a whole number of hosts from 1 to 200"):
        run.fleet_sizes(text)


def converged(results, diagnose_s=1.0, remediate_s=0.5, hand_s=3.0, execs=(0,), changed=0):
    for run in results["runs"]:
        run["phases"]["diagnose_converged"] = {"status": "ok", "wall_s": diagnose_s, "execs": {"linux": [1], "openwrt": [1]},
                                               "changed": 0}
        run["phases"]["remediate_converged"] = {"status": "ok", "wall_s": remediate_s, "changed": changed,
                                                "execs": {"linux": list(execs), "openwrt": list(execs)}}
        run["phases"]["handwritten"] = {"status": "ok", "wall_s": hand_s, "execs": {"linux": [6], "openwrt": [3]}, "changed": 0}
    return results


def test_converged_goals_met(results):
    floor = min(run["phases"]["floor"]["wall_s"] for run in results["runs"])
    converged(results, diagnose_s=floor, remediate_s=floor, hand_s=floor * 10)
    assert goal(results, "converged host: remediate from diagnose's findings runs no role")["met"]
    assert goal(results, "converged host: diagnose (facts) + remediate")["met"]
    assert goal(results, "converged host: faster than the hand-written")["met"]


def test_converged_goals_missed_say_by_how_much(results):
    floor = max(run["phases"]["floor"]["wall_s"] for run in results["runs"])
    converged(results, diagnose_s=floor * 4, remediate_s=floor * 2, hand_s=floor * 3, execs=(0, 2))
    g = goal(results, "converged host: remediate from diagnose's findings runs no role")
    assert not g["met"] and g["measured"].startswith("not 0 at N=")
    g = goal(results, "converged host: diagnose (facts) + remediate")
    assert not g["met"] and "missed by" in g["note"]
    g = goal(results, "converged host: faster than the hand-written")
    assert not g["met"] and "2.00x the hand-written playbook" in g["note"]


def test_converged_goals_not_measured(results):
    for g in pm.converged_goals(results["runs"]):
        assert not g["met"]
    assert "`handwritten`" in pm.render(converged(results))
