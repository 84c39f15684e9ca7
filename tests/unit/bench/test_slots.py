"""bench/slots_summary.py (the slots benchmark's arithmetic) and the pure helpers of bench/slots.py.

Fixtures: verify's measurements-after.json and the slots_timeline callback's file (its iperf3, iperf3_server
and pause runs) from a smoke run (H=2, N=4, 1 + 3 s flows) on the code before the slots.
"""

import json
import math
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import performance_md as pm  # noqa: E402
import slots  # noqa: E402
import slots_summary as ss  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "slots"


def fixture(name):
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def leg(name):
    return {"status": "ok", "rc": 0, "wall_s": 30.0, "timeline": fixture(f"timeline_{name}.json"),
            "measurements": fixture(f"measurements_after_{name}.json"), "sweep": None,
            "cpu": {"controller_cpu_s": 13.0, "load1_before": 1.0}, "samples": []}


def flow(hub, start, end, rate=9e6):
    return {"hub": hub, "start": start, "end": end, "bits_per_second": rate}


# --- parsing ----------------------------------------------------------------------------------------
def test_measure_flows_from_a_recorded_run():
    doc = fixture("measurements_after_serial.json")
    flows = ss.measure_flows(doc, omit_s=1)
    assert sorted(flows) == ["tfs-peer-01", "tfs-peer-02", "tfs-peer-03", "tfs-peer-04"]
    one = flows["tfs-peer-01"]
    rec = doc["tfs-peer-01"]["iperf3"]
    assert one["hub"] == "tfs-hub-01" and one["valid"] is True
    assert one["bits_per_second"] == pytest.approx(rec["bits_per_second"])
    assert one["start"] == rec["start_epoch_s"]
    assert one["end"] == pytest.approx(rec["start_epoch_s"] + 1 + rec["duration_s"])
    assert one["slot"] is None


def test_measure_flows_keeps_the_slot_and_leaves_an_invalid_flow_without_rate():
    doc = {"p1": {"hub": "h1", "iperf3": {"valid": False, "bits_per_second": None, "failed": True},
                  "slot": {"index": 2, "count": 4}},
           "p2": {"hub": "h2", "iperf3": {"valid": True, "bits_per_second": 9e6, "start_epoch_s": 100,
                                          "duration_s": 10.0}, "slot": {"index": 0, "count": 4}}}
    flows = ss.measure_flows(doc)
    assert flows["p1"] == {"hub": "h1", "bits_per_second": None, "valid": False, "start": None, "end": None,
                           "slot": {"index": 2, "count": 4}}
    assert flows["p2"]["end"] == 110.0 and flows["p2"]["slot"]["index"] == 0


@pytest.mark.parametrize("doc, message", [
    ([], "measurements must be an object of peers, got list"),
    ({"p1": {"hub": "h1"}}, "measurements['p1'] has no iperf3 object"),
    ({"p1": {"iperf3": {"valid": True, "bits_per_second": float("nan"), "start_epoch_s": 1, "duration_s": 1}}},
     "measurements['p1'].iperf3.bits_per_second must be a finite number, got nan"),
    ({"p1": {"iperf3": {"valid": True, "bits_per_second": 9e6, "start_epoch_s": True, "duration_s": 1}}},
     "measurements['p1'].iperf3.start_epoch_s must be a finite number, got True"),
    ({"p1": {"iperf3": {"valid": True, "bits_per_second": 9e6, "start_epoch_s": 1}}},
     "measurements['p1'].iperf3.duration_s must be a finite number, got None"),
])
def test_measure_flows_rejects_what_the_role_does_not_write(doc, message):
    with pytest.raises(ss.SummaryError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        ss.measure_flows(doc)


def test_sweep_rates():
    doc = {"p1": {"results": [{"name": "tcp_single_upload", "bits_per_second": 9e6, "valid": True},
                              {"name": "udp_5M_upload", "bits_per_second": 4.9e6, "valid": False}]}}
    assert ss.sweep_rates(doc) == {"p1": {"tcp_single_upload": 9e6, "udp_5M_upload": None}}
    assert ss.sweep_rates(None) == {}


@pytest.mark.parametrize("doc, message", [
    ("x", "sweep must be an object of peers, got str"),
    ({"p1": {"hub": "h"}}, "has no results list"),
    ({"p1": {"results": [{"valid": True}]}}, "has a result without a name"),
    ({"p1": {"results": [{"name": "t", "valid": True, "bits_per_second": "fast"}]}}, "must be a finite number"),
])
def test_sweep_rates_rejects(doc, message):
    with pytest.raises(ss.SummaryError, match=message):
        ss.sweep_rates(doc)


def test_play_walls_run_from_each_start_to_the_next():
    plays = [{"name": "a", "start": 1.0}, {"name": "b", "start": 5.0}, {"name": "a", "start": 20.0}]
    timeline = {"start": 0, "end": 30.0, "plays": plays}
    assert ss.play_walls(timeline) == {"a": pytest.approx(14.0), "b": pytest.approx(15.0)}
    assert ss.play_walls({"plays": [{"name": "a", "start": 1.0}], "end": None}) == {}


def test_flow_runs_pick_the_roles_iperf3_client_runs():
    timeline = fixture("timeline_serial.json")
    runs = ss.flow_runs(timeline, ss.MEASURE_ROLE)
    assert sorted(r["host"] for r in runs) == ["tfs-peer-01", "tfs-peer-02", "tfs-peer-03", "tfs-peer-04"]
    assert ss.flow_runs(timeline, ss.SWEEP_ROLE) == []
    skipped = {"runs": [{"action": ss.IPERF3_ACTION, "role": "tunnelfix.fleet.tunnel_sweep", "host": "p",
                         "start": 1.0, "end": 1.1, "status": "skipped", "task": "t"},
                        {"action": ss.IPERF3_ACTION, "role": "tunnelfix.fleet.tunnel_sweep", "host": "p",
                         "start": 1.0, "end": None, "status": None, "task": "t"}]}
    assert ss.flow_runs(skipped, ss.SWEEP_ROLE) == []


# --- arithmetic ---------------------------------------------------------------------------------------
def test_window():
    assert ss.window([{"start": 5.0, "end": 9.0}, {"start": 1.0, "end": 4.0}]) == 8.0
    assert ss.window([]) is None
    assert ss.window([{"start": None, "end": None}]) is None


@pytest.mark.parametrize("intervals, most", [
    ([], 0),
    ([{"start": 0, "end": 10}], 1),
    ([{"start": 0, "end": 10}, {"start": 10, "end": 20}], 1),      # back to back
    ([{"start": 0, "end": 10}, {"start": 9.0, "end": 20}], 1),     # 1 s apart: within the tolerance
    ([{"start": 0, "end": 10}, {"start": 8.9, "end": 20}], 2),     # 1.1 s: overlapping
    ([{"start": 0, "end": 10}, {"start": 0, "end": 10}, {"start": 0, "end": 10}, {"start": 10, "end": 20}], 3),
    ([{"start": 0, "end": 0.5}], 0),                               # shorter than the tolerance
])
def test_concurrency(intervals, most):
    assert ss.concurrency(intervals) == most


def test_shared_host_overlaps_only_on_the_same_hub_and_past_the_tolerance():
    flows = {"p1": flow("h1", 0, 10), "p2": flow("h2", 0, 10), "p3": flow("h1", 9.0, 20),
             "p4": flow("h1", 18.8, 30), "p5": flow("h2", None, None)}
    assert ss.shared_host_overlaps(flows) == [["p3", "p4", "h1", 1.2]]
    assert ss.shared_host_overlaps({"p1": flow("h1", 0, 10), "p2": flow("h2", 0, 10)}) == []


def test_stats():
    assert ss.stats([1.0, None, 3.0]) == {"n": 2, "mean": 2.0, "min": 1.0, "max": 3.0, "stdev": pytest.approx(math.sqrt(2))}
    assert ss.stats([5.0])["stdev"] is None
    assert ss.stats([None]) == {"n": 0, "mean": None, "min": None, "max": None, "stdev": None}


@pytest.mark.parametrize("serial, slotted, mean, same", [
    ({"a": 100.0, "b": 100.0}, {"a": 100.9, "b": 100.9}, 0.9, True),    # within 1 %, no noise
    ({"a": 100.0, "b": 100.0}, {"a": 101.1, "b": 101.1}, 1.1, False),   # past 1 %, no noise
    ({"a": 100.0, "b": 100.0, "c": 100.0}, {"a": 95.0, "b": 110.0, "c": 101.0}, 2.0, True),  # inside 2 SE
    ({"a": 100.0, "b": 100.0, "c": 100.0}, {"a": 90.0, "b": 91.0, "c": 92.0}, -9.0, False),
])
def test_paired_both_sides_of_the_noise(serial, slotted, mean, same):
    p = ss.paired(serial, slotted)
    assert p["mean_difference_percent"] == pytest.approx(mean)
    assert p["same"] is same


def test_paired_skips_peers_missing_or_invalid_in_a_leg_and_needs_two_pairs():
    p = ss.paired({"a": 100.0, "b": None, "c": 0.0, "d": 100.0}, {"a": 101.0, "b": 100.0, "c": 5.0, "e": 1.0})
    assert p["pairs"] == [["a", 100.0, 101.0, pytest.approx(1.0)]]
    assert p["same"] is None and p["noise_percent"] is None


@pytest.mark.parametrize("peers, hubs, rounds", [(16, 4, 4), (17, 4, 5), (3, 4, 1), (4, 1, 4)])
def test_expected(peers, hubs, rounds):
    e = ss.expected(peers, hubs, 10.0)
    assert e == {"rounds": rounds, "serial_s": peers * 10.0, "slotted_s": rounds * 10.0}


def test_cpu_summary_takes_the_samples_inside_the_window():
    samples = [[1.0, 10.0, 0.5], [2.0, 90.0, 1.5], [3.0, 50.0, 1.0], [4.0, 20.0, 0.7]]
    cpu = ss.cpu_summary({"controller_cpu_s": 3.0}, samples, 2.0, 3.0)
    assert cpu == {"controller_cpu_s": 3.0, "busy_percent_max": 90.0, "load1_max": 1.5, "busy_percent_measure": 70.0,
                   "other_cpu_s": None}
    cpu = ss.cpu_summary({"controller_cpu_s": 3.0, "fleet_cpu_s": 2.5, "busy_cpu_s": 10.0}, samples, 5.0, 6.0)
    assert cpu["other_cpu_s"] == 4.5 and cpu["busy_percent_measure"] is None
    cpu = ss.cpu_summary({"controller_cpu_s": 3.0, "fleet_cpu_s": 2.5, "busy_cpu_s": 10.0, "ssh_masters_cpu_s": 1.5}, [])
    assert cpu["other_cpu_s"] == 3.0


@pytest.mark.parametrize("text, ticks", [
    ("42 (ssh) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 0 0 20 0 1 0 5 0 0", 10),
    ("42 (ssh: /tmp/tfs-cp-serial-x/abc [mux]) S 1 42 42 0 -1 4194560 10 0 0 0 120 35 0 0 20 0 1 0 5", 155),
])
def test_proc_cpu_ticks(text, ticks):
    assert slots.proc_cpu_ticks(text) == ticks
    assert ss.cpu_summary(None, [], None, None)["busy_percent_measure"] is None


def test_summarize_a_recorded_pair_of_legs():
    s = ss.summarize({"serial": leg("serial"), "slotted": leg("slotted")}, hubs=2, peers=4, omit_s=1)
    serial, slotted = s["legs"]["serial"], s["legs"]["slotted"]
    runs = [r["end"] - r["start"] for r in ss.flow_runs(fixture("timeline_serial.json"), ss.MEASURE_ROLE)]
    assert s["peer_test_s"] == pytest.approx(sorted(runs)[1:3][0] / 2 + sorted(runs)[1:3][1] / 2)
    assert s["expected"]["rounds"] == 2
    assert s["expected"]["serial_s"] == pytest.approx(4 * s["peer_test_s"])
    # the code before the slots: one flow at a time in both legs, about N x t
    assert serial["measure_flows_at_once"] == slotted["measure_flows_at_once"] == 1
    assert serial["measure_shared_hub_overlaps"] == slotted["measure_shared_hub_overlaps"] == []
    assert 0.9 < s["serial_window_over_expected"] < 1.2
    assert s["slotted_window_over_expected"] > 1.8
    assert serial["bits_per_second"]["n"] == 4 and serial["invalid_flows"] == []
    assert s["paired_single_flow"]["n"] == 4 and s["paired_single_flow"]["same"] is True
    assert s["paired_sweep"] == {}
    assert s["measure_speedup"] == pytest.approx(serial["measure_window_s"] / slotted["measure_window_s"])


def test_render_the_section_and_performance_md_carries_it():
    s = ss.summarize({"serial": leg("serial"), "slotted": leg("slotted")}, hubs=2, peers=4, omit_s=1)
    doc = {"generated": "2026-12-02T12:30:52Z", "command": "bench/slots.py --smoke", "commit": "abc1234",
           "config": {"path_bits_per_second": 10000000, "idle_s": 2, "measure_duration_s": 3, "measure_omit_s": 1,
                      "sweep": False, "forks": 10}, "summary": s, "note": "A note."}
    lines = ss.render(doc)
    text = "\n".join(lines)
    assert lines[0] == "## Flows in parallel on disjoint hubs (slots)"
    assert "| single flows at once, most | 1 | 1 |" in text
    assert "A note." in text and "no sweep" in text
    assert "| single flow | 4 |" in text
    assert "| lab end-to-end run beside it | – | – |" in text
    page = pm.render({"runs": []}, "", doc)
    assert "## Flows in parallel on disjoint hubs (slots)" in page
    assert "## Flows in parallel" not in pm.render({"runs": []}, "", None)


def test_render_shows_the_serial_leg_before_the_slots_beside():
    s = ss.summarize({"serial": leg("serial"), "slotted": leg("slotted")}, hubs=2, peers=4, omit_s=1)
    before = ss.leg_summary(dict(leg("serial"), wall_s=40.0), 1)
    doc = {"config": {"sweep": False}, "summary": s,
           "before_slots": {"generated": "2026-12-02T12:54:35Z", "commit": "0905e92", "source": "x.json", "leg": before}}
    text = "\n".join(ss.render(doc))
    assert "|  | serial | slotted | before the slots |" in text
    assert "| verify wall s | 30.0 | 30.0 | 40.0 |" in text
    assert "on the code before the slots (`0905e92`" in text
    assert "| before the slots: single flow | 4 |" in text
    assert "|  | serial | slotted |\n" in "\n".join(ss.render(dict(doc, before_slots=None))) + "\n"


# --- bench/slots.py -------------------------------------------------------------------------------------
class Args:
    idle_s, duration_s, omit_s, sweep = 2, 10, 1, True
    sweep_duration_s, sweep_omit_s, sweep_udp = 2, 1, ["5M"]


def test_leg_extra_vars_set_both_report_directories():
    ev = slots.leg_extra_vars(Args(), "/r")
    assert ev["tunnel_measure_report_dir"] == ev["tunnel_sweep_report_dir"] == "/r"
    assert ev["tunnel_sweep_udp_bits_per_second"] == ["5M"] and ev["tunnelfix_sweep"] is True
    no_sweep = Args()
    no_sweep.sweep = False
    assert "tunnel_sweep_duration_s" not in slots.leg_extra_vars(no_sweep, "/r")


def test_serial_overlay_puts_every_hub_in_one_group():
    assert "tunnel" + "fix_wireguard_hubs:\n  vars:\n    tunnelfix_bottleneck_group: " + slots.SERIAL_GROUP in slots.SERIAL_OVERLAY


def test_smoke_check_both_sides():
    s = ss.summarize({"serial": leg("serial"), "slotted": leg("slotted")}, hubs=2, peers=4, omit_s=1)
    assert slots.smoke_check(s) == 0
    s["legs"]["slotted"]["measure_shared_hub_overlaps"] = [["p1", "p3", "h1", 2.0]]
    assert slots.smoke_check(s) == 1
    s = ss.summarize({"serial": leg("serial"), "slotted": dict(leg("slotted"), status="failed")}, 2, 4, 1)
    assert slots.smoke_check(s) == 1


@pytest.mark.parametrize("serial_at_once, slot_records, slotted_at_once, rc", [
    (1, False, 1, 0),    # the code before the slots: nothing to ask of the slotted leg
    (2, False, 1, 1),    # serial leg with two flows at once
    (1, True, 2, 0),     # slots: flows on the two hubs ran at once
    (1, True, 1, 1),     # slots recorded, yet one flow at a time
])
def test_smoke_check_flows_at_once(serial_at_once, slot_records, slotted_at_once, rc):
    s = ss.summarize({"serial": leg("serial"), "slotted": leg("slotted")}, hubs=2, peers=4, omit_s=1)
    s["legs"]["serial"]["measure_flows_at_once"] = serial_at_once
    s["legs"]["slotted"]["measure_flows_at_once"] = slotted_at_once
    s["legs"]["slotted"]["slots"] = {"tfs-peer-01": {"index": 0, "count": 2}} if slot_records else {}
    assert slots.smoke_check(s) == rc


def test_sweep_expectation_from_the_serial_legs_runs():
    def sweep_run(host, start, end):
        return {"play": 6, "task": "t", "action": ss.IPERF3_ACTION, "role": "tunnelfix.fleet.tunnel_sweep",
                "host": host, "start": start, "end": end, "status": "ok"}
    serial = leg("serial")
    serial["timeline"] = dict(serial["timeline"], runs=serial["timeline"]["runs"] + [
        sweep_run("tfs-peer-01", 100.0, 103.0), sweep_run("tfs-peer-01", 104.0, 107.0),
        sweep_run("tfs-peer-02", 108.0, 110.0), sweep_run("tfs-peer-02", 111.0, 113.0),
        sweep_run("tfs-peer-03", 114.0, 119.0)])
    s = ss.summarize({"serial": serial, "slotted": leg("slotted")}, hubs=2, peers=4, omit_s=1)
    assert s["peer_sweep_s"] == 5.0     # median of 6, 4 and 5 s
    assert s["expected_sweep"] == {"rounds": 2, "serial_s": 20.0, "slotted_s": 10.0}
    assert s["legs"]["serial"]["sweep_window_s"] == 19.0
    assert s["legs"]["serial"]["sweep_runs_at_once"] == 1


def test_others_running_finds_no_such_process():
    assert slots.others_running("no/such/script-" + "x" * 20) == []


@pytest.mark.parametrize("argv, message", [
    (["--legs", "serial,fast"], "--legs must name serial and/or slotted, got 'serial,fast'"),
    (["--legs", ","], "--legs must name serial and/or slotted, got ''"),
    (["--hubs", "0", "--peers", "4"], "--hubs must be 1-50 and --peers 1-150, got 0 and 4"),
    (["--hubs", "51"], "--hubs must be 1-50 and --peers 1-150, got 51 and 16"),
    (["--peers", "151"], "--hubs must be 1-50 and --peers 1-150, got 4 and 151"),
    (["--peers", "0"], "--hubs must be 1-50 and --peers 1-150, got 4 and 0"),
    (["--duration-s", "0"], "--duration-s must be at least 1, got 0"),
    (["--omit-s", "-1"], "--omit-s must be at least 0, got -1"),
    (["--forks", "0"], "--forks must be at least 1, got 0"),
])
def test_parse_args_refuses_bad_values_naming_them(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        slots.parse_args(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv, hubs, peers, duration, sweep", [
    ([], 4, 16, 10, True),
    (["--smoke"], 2, 4, 3, False),
    (["--smoke", "--sweep", "--hubs", "3"], 3, 4, 3, True),
    (["--hubs", "1", "--peers", "1", "--no-sweep"], 1, 1, 10, False),
    (["--hubs", "50", "--peers", "150"], 50, 150, 10, True),
])
def test_parse_args_defaults(argv, hubs, peers, duration, sweep):
    args = slots.parse_args(argv)
    assert (args.hubs, args.peers, args.duration_s, args.sweep) == (hubs, peers, duration, sweep)
    assert args.legs == ["serial", "slotted"]
