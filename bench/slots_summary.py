"""The slots benchmark's arithmetic (bench/slots.py): pure functions, no I/O.

Inputs, per leg (one ``ansible-playbook playbooks/verify.yml`` run):

* verify's ``measurements-after.json`` (roles/tunnel_measure), ``{peer: record}``, each record with ``hub`` and
  ``iperf3: {"bits_per_second": 9.15e6, "start_epoch_s": 1796214485, "duration_s": 10.0, "valid": true, ...}``
  and, with the slots, ``slot: {"index": 0, "count": 4, ...}``;
* verify's ``sweep-after.json`` (roles/tunnel_sweep), ``{peer: {"hub": ..., "results": [{"name":
  "tcp_single_upload", "bits_per_second": 9.1e6, "valid": true, ...}, ...]}}``, absent without the sweep;
* the timeline bench/callback_plugins/slots_timeline.py wrote: ``{"start", "end", "plays": [{"name",
  "start"}], "runs": [{"play", "task", "action", "role", "host", "start", "end", "status"}]}``;
* the run's own figures (wall time, CPU, load), measured by bench/slots.py.

Output: ``summarize(legs, hubs, peers)``, the comparison docs/performance-slots.json holds, and
``render(doc)``, the Markdown section bench/performance_md.py puts into docs/performance.md. A document
that is not what the roles write raises ``SummaryError`` naming the peer and the key.
"""

from __future__ import annotations

import math
import statistics

IPERF3_ACTION = "tunnelfix.fleet.iperf3"
MEASURE_ROLE = "tunnel_measure"
SWEEP_ROLE = "tunnel_sweep"
# iperf3 reports its start in whole seconds: two flows closer than this are not called overlapping.
OVERLAP_TOLERANCE_S = 1.0
# Parallel flows give "the same per-flow rate as serial ones" when the mean paired difference is inside
# two standard errors of the paired differences (noise), or within this share of the serial rate.
SAME_RATE_PERCENT = 1.0


class SummaryError(ValueError):
    """A results document that is not what the roles or the timeline callback write."""


def _number(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SummaryError("%s must be a finite number, got %r" % (where, value))
    return float(value)


# --- parsing ---------------------------------------------------------------------------------------
def measure_flows(doc, omit_s=0):
    """verify's measurements-after.json -> ``{peer: flow}``, one single TCP flow per peer.

    ``{"p1": {"hub": "h1", "iperf3": {"bits_per_second": 9e6, "start_epoch_s": 100, "duration_s": 10.0,
    "valid": True}, "slot": {"index": 1, "count": 4}}}`` with ``omit_s=1`` ->
    ``{"p1": {"hub": "h1", "bits_per_second": 9e6, "valid": True, "start": 100.0, "end": 111.0, "slot": {...}}}``.
    ``end`` = start + omitted seconds + measured seconds (iperf3 starts its clock before the omitted part).
    A flow that failed or is invalid keeps ``bits_per_second`` None and no interval.
    """
    if not isinstance(doc, dict):
        raise SummaryError("measurements must be an object of peers, got %s" % type(doc).__name__)
    out = {}
    for peer, rec in sorted(doc.items()):
        if not isinstance(rec, dict) or not isinstance(rec.get("iperf3"), dict):
            raise SummaryError("measurements[%r] has no iperf3 object" % peer)
        ip = rec["iperf3"]
        flow = {"hub": rec.get("hub"), "bits_per_second": None, "valid": bool(ip.get("valid")),
                "start": None, "end": None, "slot": rec.get("slot")}
        if flow["valid"]:
            flow["bits_per_second"] = _number(ip.get("bits_per_second"), "measurements[%r].iperf3.bits_per_second" % peer)
            start = _number(ip.get("start_epoch_s"), "measurements[%r].iperf3.start_epoch_s" % peer)
            duration = _number(ip.get("duration_s"), "measurements[%r].iperf3.duration_s" % peer)
            flow["start"], flow["end"] = start, start + float(omit_s) + duration
        out[peer] = flow
    return out


def sweep_rates(doc):
    """verify's sweep-after.json -> ``{peer: {test name: bits_per_second or None}}`` (None: not valid)."""
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise SummaryError("sweep must be an object of peers, got %s" % type(doc).__name__)
    out = {}
    for peer, rec in sorted(doc.items()):
        results = rec.get("results") if isinstance(rec, dict) else None
        if not isinstance(results, list):
            raise SummaryError("sweep[%r] has no results list" % peer)
        rates = {}
        for res in results:
            if not isinstance(res, dict) or "name" not in res:
                raise SummaryError("sweep[%r] has a result without a name: %r" % (peer, res))
            rate = res.get("bits_per_second")
            rates[res["name"]] = (_number(rate, "sweep[%r] %s bits_per_second" % (peer, res["name"]))
                                  if res.get("valid") else None)
        out[peer] = rates
    return out


def play_walls(timeline):
    """``{play name: seconds}``: each play from its start to the next play's start (the last to the run's end)."""
    plays = timeline.get("plays") or []
    end = timeline.get("end")
    out = {}
    for i, play in enumerate(plays):
        stop = plays[i + 1]["start"] if i + 1 < len(plays) else end
        if stop is not None:
            out[play["name"]] = out.get(play["name"], 0.0) + (stop - play["start"])
    return out


def flow_runs(timeline, role):
    """The timeline's finished runs of the iperf3 action in ``role`` (``tunnel_measure`` matches the timeline's
    ``tunnelfix.fleet.tunnel_measure``): ``[{"host", "start", "end", "task"}]``."""
    return [{"host": r["host"], "start": r["start"], "end": r["end"], "task": r["task"]}
            for r in timeline.get("runs") or []
            if r.get("action") == IPERF3_ACTION and str(r.get("role")).rsplit(".", maxsplit=1)[-1] == role and r.get("end") is not None
            and r.get("status") != "skipped"]


def window(intervals):
    """Seconds from the first start to the last end of ``[{"start", "end"}]``; None for none."""
    spans = [(i["start"], i["end"]) for i in intervals if i.get("start") is not None and i.get("end") is not None]
    if not spans:
        return None
    return max(e for _s, e in spans) - min(s for s, _e in spans)


def concurrency(intervals, tolerance_s=OVERLAP_TOLERANCE_S):
    """Most intervals in progress at one time, each shortened by ``tolerance_s`` / 2 at both ends.

    >>> concurrency([{"start": 0, "end": 10}, {"start": 9.5, "end": 20}, {"start": 5, "end": 6}])
    2
    """
    events = []
    for i in intervals:
        if i.get("start") is None or i.get("end") is None:
            continue
        s, e = i["start"] + tolerance_s / 2, i["end"] - tolerance_s / 2
        if e > s:
            events += [(s, 1), (e, -1)]
    most = now = 0
    for _t, step in sorted(events, key=lambda ev: (ev[0], ev[1])):
        now += step
        most = max(most, now)
    return most


def shared_host_overlaps(flows, tolerance_s=OVERLAP_TOLERANCE_S):
    """Pairs of flows that overlapped by more than ``tolerance_s`` and share a host (the same hub).

    ``flows``: ``{peer: {"hub", "start", "end"}}``. Returns ``[[peer_a, peer_b, "hub", seconds], ...]``: the
    slots promise none (a peer takes part in one flow of its own, so only the hub can be shared).
    """
    items = sorted((p, f) for p, f in flows.items() if f.get("start") is not None and f.get("end") is not None)
    out = []
    for i, (pa, fa) in enumerate(items):
        for pb, fb in items[i + 1:]:
            if fa.get("hub") != fb.get("hub"):
                continue
            overlap = min(fa["end"], fb["end"]) - max(fa["start"], fb["start"])
            if overlap > tolerance_s:
                out.append([pa, pb, fa["hub"], round(overlap, 1)])
    return out


# --- arithmetic ------------------------------------------------------------------------------------
def stats(values):
    """``[x, ...]`` -> ``{"n", "mean", "min", "max", "stdev"}`` over the numbers (None skipped); stdev None below 2."""
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return {"n": 0, "mean": None, "min": None, "max": None, "stdev": None}
    return {"n": len(xs), "mean": statistics.fmean(xs), "min": min(xs), "max": max(xs),
            "stdev": statistics.stdev(xs) if len(xs) > 1 else None}


def paired(serial, slotted, same_percent=SAME_RATE_PERCENT):
    """Per-peer rates of both legs (``{peer: bit/s or None}``) -> the paired comparison.

    ``{"pairs": [[peer, serial, slotted, percent difference], ...], "mean_difference_percent",
    "min_difference_percent", "max_difference_percent", "stdev_difference_percent",
    "noise_percent": two standard errors of the mean difference, "same": bool or None}``. Differences are
    (slotted - serial) / serial in percent, over the peers valid in both legs. ``same``: the mean difference
    lies within the noise or within ``same_percent``; None with fewer than two pairs.

    >>> paired({"a": 100.0, "b": 100.0}, {"a": 101.0, "b": 99.0})["mean_difference_percent"]
    0.0
    """
    pairs = []
    for peer in sorted(set(serial) & set(slotted)):
        a, b = serial[peer], slotted[peer]
        if a and b is not None:
            pairs.append([peer, a, b, (b - a) / a * 100.0])
    d = stats([p[3] for p in pairs])
    noise = 2.0 * d["stdev"] / math.sqrt(d["n"]) if d["stdev"] is not None else None
    same = None
    if d["n"] >= 2:
        same = abs(d["mean"]) <= max(noise, same_percent)
    return {"pairs": pairs, "n": d["n"], "mean_difference_percent": d["mean"], "min_difference_percent": d["min"],
            "max_difference_percent": d["max"], "stdev_difference_percent": d["stdev"], "noise_percent": noise,
            "same": same}


def expected(peers, hubs, peer_test_s):
    """Wall time of the flows one at a time (N x t) and on disjoint hubs at once (ceil(N/H) x t).

    >>> expected(16, 4, 12.0)
    {'rounds': 4, 'serial_s': 192.0, 'slotted_s': 48.0}
    """
    rounds = math.ceil(peers / hubs)
    return {"rounds": rounds, "serial_s": peers * peer_test_s, "slotted_s": rounds * peer_test_s}


def cpu_summary(cpu, samples, start=None, end=None):
    """The leg's CPU figures plus what its 1-s samples ``[[epoch, busy percent, load1], ...]`` show.

    Adds ``busy_percent_max`` and ``load1_max`` (all samples), ``busy_percent_measure``, the mean busy
    percent of the samples taken between ``start`` and ``end`` (the single flows' window; None outside it),
    and ``other_cpu_s``: the machine's busy CPU seconds less the controller's and the fleet's.
    """
    out = dict(cpu or {})
    rows = [r for r in samples or [] if isinstance(r, (list, tuple)) and len(r) == 3]
    out["busy_percent_max"] = max((r[1] for r in rows), default=None)
    out["load1_max"] = max((r[2] for r in rows), default=None)
    inside = [r[1] for r in rows if start is not None and end is not None and start <= r[0] <= end]
    out["busy_percent_measure"] = statistics.fmean(inside) if inside else None
    parts = [out.get(k) for k in ("busy_cpu_s", "controller_cpu_s", "fleet_cpu_s")]
    out["other_cpu_s"] = parts[0] - parts[1] - parts[2] - (out.get("ssh_masters_cpu_s") or 0) if None not in parts else None
    return out


def leg_summary(leg, omit_s):
    """One leg's figures from its raw results (see the module docstring) -> the summary of the leg."""
    timeline = leg.get("timeline") or {}
    flows = measure_flows(leg.get("measurements") or {}, omit_s)
    runs = flow_runs(timeline, MEASURE_ROLE)
    sweep_runs = flow_runs(timeline, SWEEP_ROLE)
    sweeps = sweep_rates(leg.get("sweep"))
    tests = sorted({name for rates in sweeps.values() for name in rates})
    return {
        "status": leg.get("status"), "rc": leg.get("rc"), "wall_s": leg.get("wall_s"),
        "plays_s": play_walls(timeline),
        # The flows as the controller ran them (the iperf3 task's runs) and as iperf3 timed them.
        "measure_window_s": window(runs), "measure_flow_window_s": window(list(flows.values())),
        "measure_task_s": stats([r["end"] - r["start"] for r in runs]),
        "measure_flows_at_once": concurrency(list(flows.values())),
        "measure_shared_hub_overlaps": shared_host_overlaps(flows),
        "sweep_window_s": window(sweep_runs), "sweep_task_s": stats([r["end"] - r["start"] for r in sweep_runs]),
        "sweep_runs_at_once": concurrency(sweep_runs),
        "bits_per_second": stats([f["bits_per_second"] for f in flows.values()]),
        "per_peer_bits_per_second": {p: f["bits_per_second"] for p, f in flows.items()},
        "invalid_flows": sorted(p for p, f in flows.items() if not f["valid"]),
        "slots": {p: f["slot"] for p, f in flows.items() if f.get("slot") is not None},
        "sweep_bits_per_second": {t: stats([r.get(t) for r in sweeps.values()]) for t in tests},
        "per_peer_sweep_bits_per_second": sweeps,
        "cpu": cpu_summary(leg.get("cpu"), leg.get("samples"), min((r["start"] for r in runs), default=None),
                           max((r["end"] for r in runs), default=None)),
    }


def summarize(legs, hubs, peers, omit_s=0):
    """``{"serial": raw leg, "slotted": raw leg}`` -> the comparison (legs' summaries, expectation, pairing).

    One peer's test time ``t`` is the median run of the measuring iperf3 task in the serial leg (the flow as
    the controller runs it: connect, omitted seconds, the test, the result); the expectation is N x t
    serial and ceil(N/H) x t slotted, and each leg's measuring window is set against it.
    """
    out = {"hubs": hubs, "peers": peers, "legs": {name: leg_summary(leg, omit_s) for name, leg in legs.items()}}
    serial, slotted = out["legs"].get("serial"), out["legs"].get("slotted")
    runs = [r["end"] - r["start"] for r in flow_runs((legs.get("serial") or {}).get("timeline") or {}, MEASURE_ROLE)]
    t = statistics.median(runs) if runs else None
    out["peer_test_s"] = t
    out["expected"] = expected(peers, hubs, t) if t else None
    # The sweep: one peer's tests one after the other (the sum of its runs), the median peer of the serial leg.
    per_peer = {}
    for r in flow_runs((legs.get("serial") or {}).get("timeline") or {}, SWEEP_ROLE):
        per_peer[r["host"]] = per_peer.get(r["host"], 0.0) + (r["end"] - r["start"])
    ts = statistics.median(per_peer.values()) if per_peer else None
    out["peer_sweep_s"] = ts
    out["expected_sweep"] = expected(peers, hubs, ts) if ts else None
    if t and serial and serial["measure_window_s"] is not None:
        out["serial_window_over_expected"] = serial["measure_window_s"] / out["expected"]["serial_s"]
    if t and slotted and slotted["measure_window_s"] is not None:
        out["slotted_window_over_expected"] = slotted["measure_window_s"] / out["expected"]["slotted_s"]
    if serial and slotted:
        if serial["measure_window_s"] and slotted["measure_window_s"]:
            out["measure_speedup"] = serial["measure_window_s"] / slotted["measure_window_s"]
        if serial["wall_s"] and slotted["wall_s"]:
            out["verify_speedup"] = serial["wall_s"] / slotted["wall_s"]
        out["paired_single_flow"] = paired(serial["per_peer_bits_per_second"], slotted["per_peer_bits_per_second"])
        out["paired_sweep"] = {}
        for test in sorted(set(serial["sweep_bits_per_second"]) & set(slotted["sweep_bits_per_second"])):
            a = {p: r.get(test) for p, r in serial["per_peer_sweep_bits_per_second"].items()}
            b = {p: r.get(test) for p, r in slotted["per_peer_sweep_bits_per_second"].items()}
            out["paired_sweep"][test] = paired(a, b)
    return out


# --- Markdown --------------------------------------------------------------------------------------
def _f(value, fmt="{:.1f}"):
    return "–" if value is None else fmt.format(value)


def _mbit(value):
    return _f(None if value is None else value / 1e6, "{:.2f}")


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _h in header) + "|"]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def render(doc):
    """docs/performance-slots.json -> the lines of docs/performance.md's slots section (no trailing blank)."""
    s = doc.get("summary") or {}
    legs = s.get("legs") or {}
    cfg = doc.get("config") or {}
    out = ["## Flows in parallel on disjoint hubs (slots)", "",
           f"Run of {doc.get('generated', '?')}: `{doc.get('command', '')}`, code at {doc.get('commit', '?')}. "
           f"H = {s.get('hubs')} hubs, N = {s.get('peers')} peers (peer j on hub (j-1) mod H + 1), real WireGuard "
           f"(wireguard-go) over a bench bridge, each hub's path shaped by tbf to {_mbit(cfg.get('path_bits_per_second'))} "
           "Mbit/s both ways (bench/slots_fleet.sh). Each leg runs the whole `playbooks/verify.yml` "
           f"(idle {cfg.get('idle_s')} s, single flow {cfg.get('measure_omit_s')} + {cfg.get('measure_duration_s')} s"
           + (f", sweep of {cfg.get('sweep_tests')} tests of {cfg.get('sweep_omit_s')} + {cfg.get('sweep_duration_s')} s"
              if cfg.get("sweep") else ", no sweep")
           + f", forks {cfg.get('forks')}) on the same fleet: **serial** with every hub in one "
           "`tunnelfix_bottleneck_group` (one flow at a time, the schedule before the slots), **slotted** with no "
           "group (a flow holds its peer and its hub; flows on disjoint hubs run at once).", ""]
    if doc.get("note"):
        out += [doc["note"], ""]
    before = doc.get("before_slots")
    if before and before.get("leg"):
        # shown as a third column: the serial leg of a run on the code before the slots (same fleet and settings)
        legs = dict(legs, **{"before the slots": before["leg"]})
        out += [f"Column *before the slots*: the serial leg of a run of {before.get('generated', '?')} on the code "
                f"before the slots (`{before.get('commit', '?')}`, `throttle: 1`; {before.get('source', '?')}), same "
                "fleet size and settings." + (f" {before['note']}" if before.get("note") else ""), ""]
    names = [n for n in ("serial", "slotted", "before the slots") if n in legs]
    rows = []
    for label, key, fmt in (
            ("status", "status", "{}"), ("verify wall s", "wall_s", "{:.1f}"),
            ("single-flow window s (first flow start to last end)", "measure_window_s", "{:.1f}"),
            ("single-flow task per peer s, mean", None, None),
            ("single flows at once, most", "measure_flows_at_once", "{}"),
            ("flows sharing a hub at once", None, None),
            ("sweep window s", "sweep_window_s", "{:.1f}"),
            ("sweep tests at once, most", "sweep_runs_at_once", "{}")):
        if key is None and label.startswith("single-flow task"):
            rows.append([label] + [_f(legs[n]["measure_task_s"]["mean"]) for n in names])
        elif key is None:
            rows.append([label] + [str(len(legs[n]["measure_shared_hub_overlaps"])) for n in names])
        else:
            rows.append([label] + [_f(legs[n].get(key), fmt) for n in names])
    for n_play in sorted({p for n in names for p in legs[n]["plays_s"]}, key=lambda p: -max(
            legs[n]["plays_s"].get(p, 0) for n in names))[:4]:
        rows.append([f"play: {n_play} s"] + [_f(legs[n]["plays_s"].get(n_play)) for n in names])
    cpu_rows = [("controller CPU s (ansible-playbook, workers, ssh)", "controller_cpu_s", "{:.1f}"),
                ("fleet containers' CPU s (wireguard-go, iperf3, sshd, modules)", "fleet_cpu_s", "{:.1f}"),
                ("ssh control masters' CPU s (not counted in the controller's)", "ssh_masters_cpu_s", "{:.1f}"),
                ("rest of the machine's busy CPU s (kernel, podman, other sessions; ssh masters where not counted)",
                 "other_cpu_s", "{:.1f}"),
                ("machine CPU busy, whole leg", "busy_percent", "{:.0f} %"),
                ("machine CPU busy, during the single flows", "busy_percent_measure", "{:.0f} %"),
                ("machine CPU busy, highest 1-s sample", "busy_percent_max", "{:.0f} %"),
                ("load average 1 min, before / highest", None, None),
                ("lab end-to-end run beside it", "e2e_running", "{}")]
    for label, key, fmt in cpu_rows:
        if key is None:
            rows.append([label] + [f"{_f((legs[n].get('cpu') or {}).get('load1_before'), '{:.2f}')} / "
                                   f"{_f((legs[n].get('cpu') or {}).get('load1_max'), '{:.2f}')}" for n in names])
        elif key == "e2e_running":
            rows.append([label] + [{True: "yes", False: "no"}.get((legs[n].get("cpu") or {}).get(key), "–") for n in names])
        else:
            rows.append([label] + [_f((legs[n].get("cpu") or {}).get(key), fmt) for n in names])
    out += _table(["", *names], rows) + [""]

    t, exp = s.get("peer_test_s"), s.get("expected")
    if t and exp:
        out += [f"One peer's test time t = {t:.1f} s (median run of the single-flow iperf3 task in the serial leg: "
                "connect, the omitted seconds, the test, the result). Expected single-flow window: "
                f"N x t = {exp['serial_s']:.0f} s one at a time, ceil(N/H) x t = {exp['rounds']} x t = "
                f"{exp['slotted_s']:.0f} s in slots. Measured: serial {_f(legs.get('serial', {}).get('measure_window_s'), '{:.0f}')} s "
                f"({_f(s.get('serial_window_over_expected'), '{:.2f}')} x N x t), slotted "
                f"{_f(legs.get('slotted', {}).get('measure_window_s'), '{:.0f}')} s "
                f"({_f(s.get('slotted_window_over_expected'), '{:.2f}')} x ceil(N/H) x t); the single flows "
                f"{_f(s.get('measure_speedup'), '{:.2f}')}x faster, verify as a whole "
                f"{_f(s.get('verify_speedup'), '{:.2f}')}x.", ""]

    ts, exps = s.get("peer_sweep_s"), s.get("expected_sweep")
    if ts and exps:
        out += [f"The sweep: one peer's tests take {ts:.1f} s (the sum of its iperf3 runs, median peer of the serial "
                f"leg); expected window N x that = {exps['serial_s']:.0f} s, ceil(N/H) x that = {exps['slotted_s']:.0f} s; "
                f"measured serial {_f(legs.get('serial', {}).get('sweep_window_s'), '{:.0f}')} s, slotted "
                f"{_f(legs.get('slotted', {}).get('sweep_window_s'), '{:.0f}')} s.", ""]

    rate_rows = []
    for n in names:
        b = legs[n]["bits_per_second"]
        rate_rows.append([f"{n}: single flow", str(b["n"]), _mbit(b["mean"]), _mbit(b["min"]), _mbit(b["max"]),
                          _mbit(b["stdev"])])
        for test, st in sorted(legs[n]["sweep_bits_per_second"].items()):
            rate_rows.append([f"{n}: sweep {test}", str(st["n"]), _mbit(st["mean"]), _mbit(st["min"]),
                              _mbit(st["max"]), _mbit(st["stdev"])])
    if rate_rows:
        out += ["Per-flow rates (Mbit/s, receiver side; the sweep's parallel tests are all their streams together):", ""]
        out += _table(["leg: test", "flows", "mean", "min", "max", "stdev"], rate_rows) + [""]

    pairs = [("single flow", s.get("paired_single_flow"))] + sorted((s.get("paired_sweep") or {}).items())
    pair_rows = [[name, str(p["n"]), _f(p["mean_difference_percent"], "{:+.2f} %"),
                  f"{_f(p['min_difference_percent'], '{:+.2f}')} / {_f(p['max_difference_percent'], '{:+.2f}')} %",
                  _f(p["noise_percent"], "±{:.2f} %"),
                  "–" if p["same"] is None else ("same" if p["same"] else "**differs**")]
                 for name, p in pairs if p]
    if pair_rows:
        out += ["Paired per peer, slotted against serial ((slotted - serial) / serial): the same within the "
                f"run's noise when the mean difference lies within two standard errors of the differences or "
                f"within {SAME_RATE_PERCENT:g} %.", ""]
        out += _table(["test", "peers", "mean difference", "min / max", "noise (2 SE)", "verdict"], pair_rows) + [""]
    return out
