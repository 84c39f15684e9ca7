"""docs/performance.md from the benchmark's results (bench/run.py): pure functions, no I/O.

Input: the results document bench/run.py writes (docs/performance.json), for example
    {"machine": {"cpu": "...", "cores": 2, ...}, "forks": 10, "generated": "2026-11-30T17:00:00Z",
     "command": "bench/run.py --sizes 5,10",
     "runs": [{"n": 5, "linux": 3, "openwrt": 2, "up_s": 21.0,
               "phases": {"floor": {"status": "ok", "wall_s": 1.2,
                                    "execs": {"linux": [1, 1, 1], "openwrt": [1, 1]},
                                    "peak_pss_bytes": 80000000, "max_rss_bytes": 70000000,
                                    "changed": 0, "failed": 0, "unreachable": 0, "rc": 0}, ...}}],
     "lab_effect": {"source": "reports/report.json", "generated": "...",
                    "rows": [{"host": "peer", "test": "TCP single flow peer -> hub",
                              "before_value": 2.3e6, "after_value": 3.56e7, "reference_value": 4e7}]}}
Output: Markdown (render) and the goal verdicts (goals), each {"goal", "target", "measured", "met", "note"}.
"""

from __future__ import annotations

import statistics

import slots_summary  # bench/ is on sys.path wherever this module is imported

PHASES = ("floor", "diagnose", "remediate", "remediate_idempotent", "diagnose_converged", "remediate_converged",
          "handwritten")
# A converged host the default way: diagnose's facts (one execution) + remediate from its findings (no role).
CONVERGED = ("diagnose_converged", "remediate_converged")
# Goals of issue 5. Ratios are wall time over the floor's wall time in the same run and fleet.
DIAGNOSE_MAX_RATIO = 2.0
IDEMPOTENT_MAX_RATIO = 4.0
FACTS_MAX_EXECS = 1
LINEAR_MAX_DEVIATION_PERCENT = 10.0
LAB_EFFECT_MIN_PERCENT = 90.0


def linear_fit(points):
    """Least squares y = a*x + b over [(x, y), ...] -> {"slope", "intercept", "max_deviation_percent"}.

    The deviation of a point is |y - fit(x)| / fit(x) in percent; None values are skipped.
    Fewer than two distinct x give slope None.
    >>> linear_fit([(5, 10.0), (10, 20.0)])["slope"]
    2.0
    """
    pts = [(float(x), float(y)) for x, y in points if y is not None]
    if len({x for x, _y in pts}) < 2:
        return {"slope": None, "intercept": None, "max_deviation_percent": None, "points": len(pts)}
    mx = sum(x for x, _y in pts) / len(pts)
    my = sum(y for _x, y in pts) / len(pts)
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _y in pts)
    intercept = my - slope * mx
    devs = [abs(y - (slope * x + intercept)) / abs(slope * x + intercept) * 100.0
            for x, y in pts if slope * x + intercept != 0]
    return {"slope": slope, "intercept": intercept,
            "max_deviation_percent": max(devs) if devs else None, "points": len(pts)}


def exec_stats(values):
    """[n, ...] -> {"min", "median", "max"} (None for an empty list)."""
    if not values:
        return {"min": None, "median": None, "max": None}
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def ratio(phase, floor):
    """Wall time of a phase over the floor's, or None when either did not complete."""
    if not phase or not floor or phase.get("status") != "ok" or floor.get("status") != "ok":
        return None
    if not floor.get("wall_s"):
        return None
    return phase["wall_s"] / floor["wall_s"]


def fits(results):
    """Per phase: linear fit of wall time against N over the completed runs."""
    out = {}
    for name in PHASES:
        pts = [(run["n"], run["phases"].get(name, {}).get("wall_s"))
               for run in results.get("runs", [])
               if run["phases"].get(name, {}).get("status") == "ok"]
        out[name] = linear_fit(pts)
    return out


def lab_effect_rows(lab_effect):
    """The lab's single-flow TCP rows with after/before and after as % of the bottleneck."""
    rows = []
    for row in (lab_effect or {}).get("rows", []):
        before, after, ref = row.get("before_value"), row.get("after_value"), row.get("reference_value")
        rows.append({
            "host": row.get("host"), "test": row.get("test"),
            "before_value": before, "after_value": after, "reference_value": ref,
            "gain": (after / before) if before and after is not None else None,
            "after_percent": (after / ref * 100.0) if ref and after is not None else None,
        })
    return rows


def _verdict(goal, target, measured, met, note=""):
    return {"goal": goal, "target": target, "measured": measured, "met": met, "note": note}


def _converged_wall(run):
    """Wall seconds of diagnose_converged + remediate_converged in ``run``, or None when either did not complete."""
    phases = [run["phases"].get(name) or {} for name in CONVERGED]
    if not all(ph.get("status") == "ok" and ph.get("wall_s") for ph in phases):
        return None
    return sum(ph["wall_s"] for ph in phases)


def converged_goals(runs):
    """The converged fleet, the default way: no role, at most IDEMPOTENT_MAX_RATIO x the floor, faster than handwritten."""
    out = []
    title = "converged host: remediate from diagnose's findings runs no role (0 remote executions, changed=0)"
    phases = [(run["n"], run["phases"].get("remediate_converged") or {}) for run in runs]
    bad = [n for n, ph in phases if ph.get("status") != "ok" or ph.get("changed") != 0
           or any(v for kind in ("linux", "openwrt") for v in (ph.get("execs") or {}).get(kind) or [])]
    out.append(_verdict(title, "0", "0" if phases and not bad else f"not 0 at N={','.join(map(str, bad))}",
                        bool(phases) and not bad, "" if phases else "not measured"))
    title = f"converged host: diagnose (facts) + remediate from its findings <= {IDEMPOTENT_MAX_RATIO:g}x the floor"
    ratios = []
    for run in runs:
        wall, floor = _converged_wall(run), (run["phases"].get("floor") or {}).get("wall_s")
        if wall is not None and floor and (run["phases"].get("floor") or {}).get("status") == "ok":
            ratios.append((run["n"], wall / floor))
    if not ratios:
        out.append(_verdict(title, f"<= {IDEMPOTENT_MAX_RATIO:g}x", "not measured", False, "phases did not complete"))
    else:
        n_worst, worst = max(ratios, key=lambda t: t[1])
        met = worst <= IDEMPOTENT_MAX_RATIO and len(ratios) == len(runs)
        out.append(_verdict(title, f"<= {IDEMPOTENT_MAX_RATIO:g}x", f"{worst:.2f}x (worst, N={n_worst})", met,
                            "" if met else (f"missed by {worst / IDEMPOTENT_MAX_RATIO:.1f}x (worst at N={n_worst})"
                                            if worst > IDEMPOTENT_MAX_RATIO else "some sizes did not complete")))
    title = "converged host: faster than the hand-written playbook (bench/handwritten.yml), same run"
    pairs = []
    for run in runs:
        wall, hand = _converged_wall(run), run["phases"].get("handwritten") or {}
        if wall is not None and hand.get("status") == "ok" and hand.get("wall_s"):
            pairs.append((run["n"], wall, hand["wall_s"]))
    if not pairs:
        out.append(_verdict(title, "< handwritten", "not measured", False, "phases did not complete"))
    else:
        n_worst, wall, hand = max(pairs, key=lambda t: t[1] / t[2])
        met = all(w < h for _n, w, h in pairs) and len(pairs) == len(runs)
        out.append(_verdict(title, "< handwritten", f"{wall:.1f} s vs {hand:.1f} s (worst, N={n_worst})", met,
                            "" if met else f"missed: {wall / hand:.2f}x the hand-written playbook at N={n_worst}"))
    return out


def goals(results):
    """The issue's goals, each met or missed, with the worst value and by how much."""
    out = []
    runs = results.get("runs", [])

    # One remote execution per host for all facts (diagnose, facts-only).
    for kind, label in (("linux", "Linux (tunnel_facts)"), ("openwrt", "OpenWrt (openwrt_facts)")):
        worst = None
        for run in runs:
            ph = run["phases"].get("diagnose", {})
            if ph.get("status") == "ok" and ph.get("execs", {}).get(kind):
                worst = max(worst or 0, *ph["execs"][kind])
        if worst is None:
            out.append(_verdict(f"diagnose: all facts in one remote execution per host, {label}",
                                f"<= {FACTS_MAX_EXECS}", "not measured", False, "no completed diagnose phase"))
            continue
        met = worst <= FACTS_MAX_EXECS
        out.append(_verdict(f"diagnose: all facts in one remote execution per host, {label}",
                            f"<= {FACTS_MAX_EXECS}", f"{worst} per host (worst run)", met,
                            "" if met else f"missed: {worst / FACTS_MAX_EXECS:.0f}x the goal"))

    for name, limit in (("diagnose", DIAGNOSE_MAX_RATIO), ("remediate_idempotent", IDEMPOTENT_MAX_RATIO)):
        ratios = [(run["n"], ratio(run["phases"].get(name), run["phases"].get("floor"))) for run in runs]
        done = [(n, r) for n, r in ratios if r is not None]
        title = f"{name}: wall time <= {limit:g}x the floor"
        if not done:
            out.append(_verdict(title, f"<= {limit:g}x", "not measured", False, "phase or floor did not complete"))
            continue
        n_worst, worst = max(done, key=lambda t: t[1])
        met = worst <= limit and len(done) == len(ratios)
        note = "" if met else (f"missed by {worst / limit:.1f}x (worst at N={n_worst})" if worst > limit
                               else "some sizes did not complete")
        out.append(_verdict(title, f"<= {limit:g}x", f"{worst:.2f}x (worst, N={n_worst})", met, note))

    out += converged_goals(runs)

    changed = [(run["n"], run["phases"].get("remediate_idempotent", {})) for run in runs]
    bad = [n for n, ph in changed if ph.get("status") != "ok" or ph.get("changed") != 0]
    out.append(_verdict("remediate_idempotent: changed=0 on every host", "0",
                        "0" if not bad and changed else f"not 0 at N={','.join(map(str, bad))}",
                        bool(changed) and not bad, ""))

    fit = fits(results)
    for name in ("diagnose", "remediate_idempotent"):
        f = fit[name]
        title = f"{name}: cost grows linearly with N"
        if f["max_deviation_percent"] is None:
            out.append(_verdict(title, f"every point within {LINEAR_MAX_DEVIATION_PERCENT:g} % of the fit",
                                "not measured", False, "fewer than two sizes completed"))
            continue
        met = f["max_deviation_percent"] <= LINEAR_MAX_DEVIATION_PERCENT
        out.append(_verdict(title, f"every point within {LINEAR_MAX_DEVIATION_PERCENT:g} % of the fit",
                            f"{f['max_deviation_percent']:.1f} % largest deviation", met,
                            "" if met else f"missed by {f['max_deviation_percent'] / LINEAR_MAX_DEVIATION_PERCENT:.1f}x"))

    rows = [r for r in lab_effect_rows(results.get("lab_effect")) if r["after_percent"] is not None]
    title = f"lab: single-flow TCP after the fix >= {LAB_EFFECT_MIN_PERCENT:g} % of the bottleneck"
    if not rows:
        out.append(_verdict(title, f">= {LAB_EFFECT_MIN_PERCENT:g} %", "not measured", False, "no lab report"))
    else:
        worst = min(rows, key=lambda r: r["after_percent"])
        met = worst["after_percent"] >= LAB_EFFECT_MIN_PERCENT
        out.append(_verdict(title, f">= {LAB_EFFECT_MIN_PERCENT:g} %",
                            f"{worst['after_percent']:.1f} % (worst: {worst['host']}, {worst['test']})", met,
                            "" if met else f"missed by {LAB_EFFECT_MIN_PERCENT - worst['after_percent']:.1f} points"))
    return out


def _num(value, fmt="{:.1f}", none="–"):
    return none if value is None else fmt.format(value)


def _execs(ph, kind):
    s = exec_stats(ph.get("execs", {}).get(kind, []))
    if s["max"] is None:
        return "–"
    if s["min"] == s["max"]:
        return f"{s['max']:g}"
    return f"{s['min']:g} / {s['median']:g} / {s['max']:g}"


def _mbit(value):
    return "–" if value is None else f"{value / 1e6:.2f} Mbit/s"


def table(header, rows):
    """Markdown table; cells are strings."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _column in header) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render(results, notes="", slots=None):
    """The whole docs/performance.md as a string. NOTES: hand-written Markdown kept between runs; SLOTS: the
    slots benchmark's document (bench/slots.py, docs/performance-slots.json), a section of its own, or None."""
    m = results.get("machine", {})
    out = ["# Performance: the fleet-scale benchmark", "",
           "<!-- Generated by bench/run.py from docs/performance.json; do not edit by hand "
           "(the notes section comes from bench/performance_notes.md). -->", "",
           f"Run of {results.get('generated', '?')}: `{results.get('command', '')}`.", "",
           "## Machine", "",
           table(["", ""], [
               ["CPU", f"{m.get('cpu', '?')} ({m.get('cores', '?')} cores)"],
               ["RAM", f"{_num(m.get('ram_bytes') and m['ram_bytes'] / 2**30)} GiB"],
               ["kernel", m.get("kernel", "?")],
               ["OS", m.get("os", "?")],
               ["ansible-core", m.get("ansible_core", "?")],
               ["Python", m.get("python", "?")],
               ["podman", m.get("podman", "?")],
               ["forks", str(results.get("forks", "?"))],
           ]), ""]

    out += ["## How to run it", "",
            "```sh",
            "make bench        # N = 5, 10, 20, 40, then the lab's before/after (lab/up.sh + site.yml, ~7 min)",
            "make bench-smoke  # N = 2, no lab, results in a temporary directory (asserts, ~1 min)",
            "make bench-slots  # H = 4 hubs, N = 16 peers: verify's flows serial, then in slots (~15 min; section below)",
            ".venv/bin/python bench/run.py --sizes 5,10 --no-lab-effect --keep   # by hand",
            "```", "",
            "Each size starts a fresh fleet (`bench/fleet.sh down`, `up N`), then runs seven phases, each a "
            "separate `ansible-playbook` with the repository's ansible.cfg and cold SSH connections "
            "(a new ControlPath directory per phase, its masters ended afterwards):", "",
            "* `floor`: `bench/floor.yml`, one `ansible.builtin.raw: /bin/true` per host;",
            "* `diagnose`: `playbooks/diagnose.yml -e tunnelfix_measure=false -e tunnelfix_sweep=false` (facts and findings);",
            "* `remediate`: `playbooks/remediate.yml -e tunnelfix_remediate_all_roles=true` (applies the fixes);",
            "* `remediate_idempotent`: the same again; must report changed=0 (every role runs: no plan skips one yet);",
            "* `diagnose_converged`: diagnose (facts only) on the converged fleet, the one facts execution per host;",
            "* `remediate_converged`: `playbooks/remediate.yml` from those findings (the default): no finding, no role;",
            "* `handwritten`: `bench/handwritten.yml`, what an operator would write instead (sysctl, modules-load, "
            "lineinfile, ethtool, raw uci get/set; no checks, no findings, no proof).", "",
            "Remote executions are counted on the hosts: root's login shell is a wrapper that appends a line "
            "to a bind-mounted file and execs the real shell (sshd and dropbear run each command as "
            "`$SHELL -c CMD`). Peak memory is the largest sum, sampled every 0.1 s, of PSS "
            "(`/proc/<pid>/smaps_rollup`) over `ansible-playbook` and all its descendants (workers, ssh).",
            ""]

    out += ["## Results", "",
            "Execs/host: remote executions per host, min / median / max (one number when all equal). "
            "Controller CPU s: user+system CPU of `ansible-playbook` and its workers. Machine CPU busy: "
            "all CPUs during the phase (controller, the hosts' sshd and modules, anything else). Load "
            "before: the 1-minute load average when the phase started; it still carries the previous "
            "phase's own load.", ""]
    rows = []
    for run in results.get("runs", []):
        floor = run["phases"].get("floor")
        for name in PHASES:
            ph = run["phases"].get(name)
            if ph is None:
                continue
            r = ratio(ph, floor)
            status = ph.get("status", "?")
            rows.append([
                f"{run['n']} ({run.get('linux', '?')}+{run.get('openwrt', '?')})", name,
                status if status == "ok" else f"**{status}**",
                _num(ph.get("wall_s")), _num(r, "{:.2f}x"),
                _execs(ph, "linux"), _execs(ph, "openwrt"),
                _num(ph.get("peak_pss_bytes") and ph["peak_pss_bytes"] / 1e6, "{:.0f}"),
                _num(ph.get("max_rss_bytes") and ph["max_rss_bytes"] / 1e6, "{:.0f}"),
                f"{ph.get('changed', '–')} / {ph.get('failed', '–')} / {ph.get('unreachable', '–')}",
                _num(ph.get("controller_cpu_s"), "{:.1f}"),
                _num(ph.get("machine_cpu_busy_percent"), "{:.0f} %"),
                _num(ph.get("loadavg_1m_before"), "{:.1f}"),
            ])
    out += [table(["N (Linux+OpenWrt)", "phase", "status", "wall s", "ratio to floor", "execs/host Linux",
                   "execs/host OpenWrt", "peak PSS MB", "max RSS MB", "changed / failed / unreachable", "controller CPU s", "machine CPU busy", "load before"],
                  rows), ""]
    ups = [f"N={run['n']}: {run['up_s']:.0f} s" for run in results.get("runs", []) if run.get("up_s") is not None]
    if ups:
        out += ["Fleet start (`bench/fleet.sh up N`, fresh containers): " + ", ".join(ups) + ".", ""]
    mems = [f"N={run['n']}: {run['fleet_memory_bytes']['linux'] / 1e6:.0f} MB Linux + "
            f"{run['fleet_memory_bytes']['openwrt'] / 1e6:.0f} MB OpenWrt"
            for run in results.get("runs", []) if run.get("fleet_memory_bytes")]
    if mems:
        out += ["Fleet memory after the phases (the containers' cgroups, page cache included): "
                + ", ".join(mems) + ".", ""]

    out += ["## Linear fit", "",
            "Least squares of wall time against N over the completed sizes; deviation = the largest "
            "|measured - fit| / fit of any size.", ""]
    fit_rows = []
    for name, f in fits(results).items():
        fit_rows.append([name, _num(f["slope"], "{:.3f}"), _num(f["intercept"], "{:.2f}"),
                         _num(f["max_deviation_percent"], "{:.1f} %"), str(f["points"])])
    out += [table(["phase", "s per host", "intercept s", "largest deviation", "sizes"], fit_rows), ""]

    out += ["## Goals", ""]
    out += [table(["goal", "target", "measured", "verdict"],
                  [[g["goal"], g["target"], g["measured"],
                    "met" if g["met"] else "**missed**" + (f" ({g['note']})" if g["note"] else "")]
                   for g in goals(results)]), ""]

    le = results.get("lab_effect")
    out += ["## The lab's remediation effect", ""]
    if not le or not le.get("rows"):
        out += ["Not measured in this run" + (f": {le['note']}" if le and le.get("note") else "") + ".", ""]
    else:
        out += [f"Single-flow TCP rows of `{le.get('source', '?')}` (generated {le.get('generated', '?')}"
                + (f", {le['note']}" if le.get("note") else "") + "); the reference is the emulated bottleneck.", ""]
        out += [table(["host", "test", "before", "after", "after / before", "after % of bottleneck", "bottleneck"],
                      [[r["host"], r["test"], _mbit(r["before_value"]), _mbit(r["after_value"]),
                        _num(r["gain"], "{:.1f}x"), _num(r["after_percent"], "{:.1f} %"),
                        _mbit(r["reference_value"])] for r in lab_effect_rows(le)]), ""]

    done = [run for run in results.get("runs", [])
            if any(run["phases"].get(n, {}).get("slowest_tasks") for n in ("diagnose", "remediate_idempotent"))]
    if done:
        big = max(done, key=lambda r: r["n"])
        out += ["## Where the controller's time goes", "",
                f"The slowest tasks at N={big['n']} (`ansible.posix.profile_tasks`: wall time of each task "
                "over the whole fleet, skipped hosts included; the phase's log has the full list).", ""]
        for name in ("diagnose", "remediate_idempotent"):
            ph = big["phases"].get(name, {})
            if ph.get("slowest_tasks"):
                total = sum(t for _task, t in ph["slowest_tasks"])
                out += [f"{name} (wall {_num(ph.get('wall_s'))} s; these {len(ph['slowest_tasks'])} tasks: "
                        f"{total:.1f} s):", "",
                        table(["task", "s"], [[task, f"{sec:.2f}"] for task, sec in ph["slowest_tasks"]]), ""]

    prof = results.get("exec_profile")
    if prof and prof.get("phases"):
        out += ["## Where the remote executions go", "",
                f"Per task, from `ansible-playbook -vvv` (one `SSH: EXEC` line per remote execution) on a fleet "
                f"of two: {prof.get('fleet', '?')}; the fixes applied once before, so remediate is idempotent "
                "here. `bench/exec_by_task.py LOG` prints the same from any -vvv log.", ""]
        for name, ph in prof["phases"].items():
            tasks = ph.get("tasks", [])
            tot_l = sum(t["linux"] for t in tasks)
            tot_o = sum(t["openwrt"] for t in tasks)
            counted = ph.get("counted", {})
            out += [f"### {name}", "",
                    f"{tot_l} executions on the Linux host, {tot_o} on the OpenWrt host "
                    f"(the counting shell saw {counted.get('linux', '?')} and {counted.get('openwrt', '?')}; "
                    f"status {ph.get('status', '?')}, changed={ph.get('changed', '?')}).", ""]
            roles = {}
            for t in tasks:
                role = t["task"].split(" : ")[0] if " : " in t["task"] else "(playbook task)"
                r = roles.setdefault(role, [0, 0])
                r[0] += t["linux"]
                r[1] += t["openwrt"]
            out += [table(["role", "Linux", "OpenWrt"],
                          [[k, str(v[0]), str(v[1])] for k, v in
                           sorted(roles.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))]), ""]
            out += [table(["task", "Linux", "OpenWrt"],
                          [[t["task"], str(t["linux"]), str(t["openwrt"])] for t in tasks]), ""]

    if slots:
        out += slots_summary.render(slots) + [""]

    if notes.strip():
        out += ["## Notes", "", notes.strip(), ""]
    return "\n".join(out)
