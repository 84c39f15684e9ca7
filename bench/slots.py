#!/usr/bin/env python
"""The slots benchmark (issue 19): verify's iperf3 flows one at a time against flows in parallel on
disjoint hubs, on one fleet of H hubs and N peers (bench/slots_fleet.sh), with the same code.

    .venv/bin/python bench/slots.py [--hubs 4] [--peers 16] [--no-sweep] [--keep] [--out-dir DIR] [--smoke]

Two legs, each a whole ``playbooks/verify.yml`` with a fresh report directory:
  serial   every hub in one tunnelfix_bottleneck_group (an inventory overlay): one flow at a time
  slotted  no group: a flow holds its peer and its hub, flows on disjoint hubs run at once
Writes DIR/performance-slots.json (default docs/) and renders DIR/performance.md again (bench/run.py's
writer, which adds the slots section); the raw results and logs go to bench/results/slots-<stamp>/.
--smoke: H=2, N=4, short flows, no sweep, results in a temporary directory; fails unless both legs
completed with a valid flow per peer and no two flows shared a hub at once. Root is needed.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
import run  # noqa: E402  (bench/ is not a package)
import slots_summary  # noqa: E402

FLEET = os.path.join(BENCH_DIR, "slots_fleet.sh")
INVENTORY = os.path.join(BENCH_DIR, "state", "slots", "inventory.yml")
LOCK = os.path.join(BENCH_DIR, "state", "slots.lock")
LEG_TIMEOUT_S = 3600
LEGS = ("serial", "slotted")
# Every hub in this group reproduces the schedule before the slots (one flow at a time across the play).
SERIAL_GROUP = "bench-one-bottleneck"
SEED = "tunnelfix-slots-bench"


def log(msg):
    print(f"[slots] {msg}", file=sys.stderr, flush=True)


def leg_extra_vars(args, report_dir):
    """The extra vars of one leg (both legs alike but for the report directory)."""
    out = {"tunnel_measure_report_dir": report_dir, "tunnel_sweep_report_dir": report_dir,
           "tunnel_measure_idle_s": args.idle_s, "tunnel_measure_iperf3_duration_s": args.duration_s,
           "tunnel_measure_iperf3_omit_s": args.omit_s, "tunnelfix_sweep": args.sweep,
           "tunnelfix_measure_seed": SEED}
    if args.sweep:
        out.update({"tunnel_sweep_duration_s": args.sweep_duration_s, "tunnel_sweep_omit_s": args.sweep_omit_s,
                    "tunnel_sweep_udp_bits_per_second": args.sweep_udp})
    return out


SERIAL_OVERLAY = f"""---
# Written by bench/slots.py: the serial leg's inventory overlay, every hub in one bottleneck group.
tunnelfix_wireguard_hubs:
  vars:
    tunnelfix_bottleneck_group: {SERIAL_GROUP}
"""


def proc_cpu_ticks(stat_text):
    """``/proc/PID/stat`` -> utime + stime in clock ticks (fields 14 and 15; the name may hold spaces).

    >>> proc_cpu_ticks("42 (ssh: /tmp/x [mux]) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 0 0 20 0 1 0 5 0 0")
    10
    """
    fields = stat_text.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class Sampler(threading.Thread):
    """Every second: [epoch, machine CPU busy percent over the last second, 1-minute load]; and the CPU ticks of
    this leg's ssh control masters (found by their ControlPath directory; they daemonize, so getrusage of the
    children never counts them), the last value seen per master."""

    def __init__(self, control_dir):
        super().__init__(daemon=True)
        self.samples = []
        self.control_dir = control_dir
        self.master_ticks = {}
        self._halt = threading.Event()

    def scan_masters(self):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            cmd = run._read(f"/proc/{pid}/cmdline") or ""
            if cmd.startswith("ssh") and self.control_dir in cmd:
                stat = run._read(f"/proc/{pid}/stat")
                if stat:
                    self.master_ticks[pid] = proc_cpu_ticks(stat)

    def run(self):
        prev = run.cpu_times()
        while not self._halt.wait(1.0):
            now = run.cpu_times()
            busy = 100.0 * (now[0] - prev[0]) / max(1, now[1] - prev[1])
            self.samples.append([round(time.time(), 2), round(busy, 1), round(os.getloadavg()[0], 2)])
            prev = now
            self.scan_masters()

    def stop(self):
        self._halt.set()
        self.join()


def cgroup_cpu_s(names):
    """CPU seconds the named containers have used, summed; None when a container's cgroup is not found.

    cgroup v2: ``/sys/fs/cgroup<CgroupPath>/cpu.stat`` usage_usec; cgroup v1 (this machine: podman's cgroupfs
    manager puts each container in ``libpod_parent/libpod-<id>``): ``cpuacct.usage`` in nanoseconds.
    """
    try:
        rows = run.sh(["podman", "inspect", "-f", "{{.Id}} {{.State.CgroupPath}}", *names]).splitlines()
    except subprocess.CalledProcessError:
        return None
    total = 0.0
    for row in rows:
        cid, _sep, path = row.partition(" ")
        text = run._read(f"/sys/fs/cgroup{path}/cpu.stat") if path else None
        if text:
            total += next(int(line.split()[1]) for line in text.splitlines() if line.startswith("usage_usec")) / 1e6
            continue
        for v1 in glob.glob(f"/sys/fs/cgroup/cpuacct/*/libpod-{cid}/cpuacct.usage") + glob.glob(
                f"/sys/fs/cgroup/cpuacct/libpod-{cid}/cpuacct.usage"):
            total += int(run._read(v1) or 0) / 1e9
            break
        else:
            return None
    return total


def fleet_names(hubs, peers):
    return [f"tfs-hub-{i:02d}" for i in range(1, hubs + 1)] + [f"tfs-peer-{j:02d}" for j in range(1, peers + 1)]


def run_leg(name, args, work_dir):
    leg_dir = os.path.join(work_dir, name)
    report_dir = os.path.join(leg_dir, "reports")
    os.makedirs(report_dir, exist_ok=True)
    with open(os.path.join(leg_dir, "extra-vars.json"), "w", encoding="utf-8") as f:
        json.dump(leg_extra_vars(args, report_dir), f, indent=1)
    argv = ["ansible-playbook", "-i", INVENTORY]
    if name == "serial":
        overlay = os.path.join(leg_dir, "serial-groups.yml")
        with open(overlay, "w", encoding="utf-8") as f:
            f.write(SERIAL_OVERLAY)
        argv += ["-i", overlay]
    argv += ["playbooks/verify.yml", "-e", "@" + os.path.join(leg_dir, "extra-vars.json")]
    control_dir = tempfile.mkdtemp(prefix=f"tfs-cp-{name}-", dir="/tmp")
    timeline_path = os.path.join(leg_dir, "timeline.json")
    env = dict(os.environ, ANSIBLE_SSH_CONTROL_PATH_DIR=control_dir, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
               ANSIBLE_CALLBACK_PLUGINS=os.path.join(BENCH_DIR, "callback_plugins"),
               ANSIBLE_CALLBACKS_ENABLED="tunnelfix.fleet.fleet_summary,ansible.posix.profile_tasks,slots_timeline",
               PROFILE_TASKS_TASK_OUTPUT_LIMIT="15", PROFILE_TASKS_SORT_ORDER="descending", TFS_TIMELINE=timeline_path)
    if args.forks:
        env["ANSIBLE_FORKS"] = str(args.forks)
    names = fleet_names(args.hubs, args.peers)
    log_path = os.path.join(leg_dir, "verify.log")
    log(f"leg {name}: {' '.join(argv)}")
    load_before = os.getloadavg()[0]
    e2e_before = others_running()
    cpu0, child0, fleet0 = run.cpu_times(), run.children_cpu_s(), cgroup_cpu_s(names)
    sampler = Sampler(control_dir)
    sampler.start()
    start = time.monotonic()
    status = "ok"
    with open(log_path, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=LEG_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 15)
            rc, status = proc.wait(), "timeout"
    wall = time.monotonic() - start
    sampler.stop()
    sampler.scan_masters()
    cpu1, child1, fleet1 = run.cpu_times(), run.children_cpu_s(), cgroup_cpu_s(names)
    # This leg's ssh control masters (they daemonize): end them by pid, found by their ControlPath directory.
    masters = run.MemorySampler(proc.pid, control_dir)
    masters.scan_masters()
    for pid in masters.masters:
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            pass
    shutil.rmtree(control_dir, ignore_errors=True)
    if status == "ok" and rc != 0:
        status = "failed"
    leg = {"status": status, "rc": rc, "wall_s": round(wall, 2), "log": log_path,
           "cpu": {"controller_cpu_s": round(child1 - child0, 2),
                   "fleet_cpu_s": round(fleet1 - fleet0, 2) if fleet0 is not None and fleet1 is not None else None,
                   "ssh_masters_cpu_s": round(sum(sampler.master_ticks.values()) / os.sysconf("SC_CLK_TCK"), 2),
                   "busy_percent": round(100.0 * (cpu1[0] - cpu0[0]) / max(1, cpu1[1] - cpu0[1]), 1),
                   "busy_cpu_s": round((cpu1[0] - cpu0[0]) / os.sysconf("SC_CLK_TCK"), 1),
                   "load1_before": round(load_before, 2),
                   # the lab's end-to-end run at the leg's start or end (it shares the two cores)
                   "e2e_running": bool(e2e_before or others_running())},
           "samples": sampler.samples}
    for key, fname in (("timeline", timeline_path), ("measurements", os.path.join(report_dir, "measurements-after.json")),
                       ("sweep", os.path.join(report_dir, "sweep-after.json"))):
        text = run._read(fname)
        leg[key] = json.loads(text) if text else None
    log(f"leg {name}: {status} (rc {rc}) in {wall:.1f}s, log {log_path}")
    return leg


def settle(busy_below=50.0, quiet_s=5, max_s=90):
    """After the fleet's start (20 systemd boots): wait until the machine's CPU was below ``busy_below`` percent
    busy for ``quiet_s`` seconds in a row, at most ``max_s``; returns the seconds waited."""
    t0, quiet = time.monotonic(), 0
    prev = run.cpu_times()
    while quiet < quiet_s and time.monotonic() - t0 < max_s:
        time.sleep(1.0)
        now = run.cpu_times()
        quiet = quiet + 1 if 100.0 * (now[0] - prev[0]) / max(1, now[1] - prev[1]) < busy_below else 0
        prev = now
    return round(time.monotonic() - t0, 1)


def git_commit():
    try:
        return run.sh(["git", "-C", REPO, "describe", "--always", "--dirty"])
    except subprocess.CalledProcessError:
        return "?"


def others_running(marker="tests/e2e/run.sh"):
    """Pids of the lab engineer's end-to-end run, if one is going (it shares the machine's two cores)."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and marker in (run._read(f"/proc/{pid}/cmdline") or "").replace("\0", " "):
            out.append(pid)
    return out


def smoke_check(summary):
    problems = []
    for name in LEGS:
        leg = summary["legs"].get(name) or {}
        if leg.get("status") != "ok":
            problems.append(f"{name}: status {leg.get('status')}")
        if leg.get("invalid_flows") or leg.get("bits_per_second", {}).get("n") != summary["peers"]:
            problems.append(f"{name}: valid flows {leg.get('bits_per_second', {}).get('n')} of {summary['peers']} "
                            f"(invalid: {leg.get('invalid_flows')})")
        if leg.get("measure_shared_hub_overlaps"):
            problems.append(f"{name}: flows sharing a hub at once {leg['measure_shared_hub_overlaps']}")
    serial, slotted = summary["legs"].get("serial") or {}, summary["legs"].get("slotted") or {}
    if serial.get("measure_flows_at_once", 1) > 1:
        problems.append(f"serial: {serial['measure_flows_at_once']} flows at once with every hub in one group")
    # With the slots (their record in the measurements) flows on disjoint hubs must have run at once.
    if slotted.get("slots") and min(summary["hubs"], summary["peers"]) >= 2 and slotted.get("measure_flows_at_once", 0) < 2:
        problems.append(f"slotted: {slotted.get('measure_flows_at_once')} flow(s) at once on {summary['hubs']} hubs")
    for p in problems:
        log(f"SMOKE FAIL {p}")
    if not problems:
        log("smoke: both legs completed, a valid flow per peer, no hub in two flows at once, serial one at a time"
            + (", slotted several at once" if slotted.get("slots") else " (no slot records: the code before the slots)"))
    return 1 if problems else 0


def parse_args(argv=None):
    """The command line -> validated options (argparse exits with status 2 naming a bad one)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--hubs", type=int, default=None, help="H, 1-50 (default 4; --smoke 2)")
    ap.add_argument("--peers", type=int, default=None, help="N, 1-150 (default 16; --smoke 4)")
    ap.add_argument("--idle-s", type=int, default=2, help="tunnel_measure_idle_s (default 2)")
    ap.add_argument("--duration-s", type=int, default=None, help="single flow's seconds (default 10; --smoke 3)")
    ap.add_argument("--omit-s", type=int, default=1, help="single flow's omitted seconds (default 1)")
    ap.add_argument("--sweep", dest="sweep", action="store_true", default=None, help="run the sweep too (default)")
    ap.add_argument("--no-sweep", dest="sweep", action="store_false")
    ap.add_argument("--sweep-duration-s", type=int, default=2)
    ap.add_argument("--sweep-omit-s", type=int, default=1)
    ap.add_argument("--sweep-udp", default="5M", help="comma-separated offered UDP rates of the sweep (default 5M)")
    ap.add_argument("--forks", type=int, default=None, help="ANSIBLE_FORKS for both legs (default: ansible.cfg's)")
    ap.add_argument("--legs", default=",".join(LEGS), help="which legs, in order (default serial,slotted)")
    ap.add_argument("--keep", action="store_true", help="leave the fleet up")
    ap.add_argument("--out-dir", help="where performance-slots.json goes, performance.md is re-rendered (default docs/)")
    ap.add_argument("--note", default="", help="a sentence for the document (e.g. what else ran)")
    ap.add_argument("--smoke", action="store_true", help="H=2, N=4, 3 s flows, no sweep, temp output, assert")
    ap.add_argument("--before-slots", metavar="FILE",
                    help="performance-slots.json of a run on the code before the slots: its serial leg is shown beside")
    args = ap.parse_args(argv)
    for key, smoke, full in (("hubs", 2, 4), ("peers", 4, 16), ("duration_s", 3, 10)):
        if getattr(args, key) is None:
            setattr(args, key, smoke if args.smoke else full)
    args.sweep = (not args.smoke) if args.sweep is None else args.sweep
    args.sweep_udp = [r.strip() for r in args.sweep_udp.split(",") if r.strip()]
    args.legs = [x.strip() for x in args.legs.split(",") if x.strip()]
    if not args.legs or not set(args.legs) <= set(LEGS):
        ap.error(f"--legs must name serial and/or slotted, got {','.join(args.legs)!r}")
    if not 1 <= args.hubs <= 50 or not 1 <= args.peers <= 150:
        ap.error(f"--hubs must be 1-50 and --peers 1-150, got {args.hubs} and {args.peers}")
    for key, low in (("idle_s", 0), ("duration_s", 1), ("omit_s", 0), ("sweep_duration_s", 1), ("sweep_omit_s", 0)):
        if getattr(args, key) < low:
            ap.error(f"--{key.replace('_', '-')} must be at least {low}, got {getattr(args, key)}")
    if args.forks is not None and args.forks < 1:
        ap.error(f"--forks must be at least 1, got {args.forks}")
    return args


def before_slots(path):
    """The serial leg of an earlier run (its performance-slots.json; summarised again from its raw results when
    they are still there), to show beside this run's legs: ``{"source", "generated", "commit", "note", "leg"}``."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    raw_text = run._read(os.path.join(REPO, doc.get("raw") or "")) if doc.get("raw") else None
    if raw_text:
        leg = slots_summary.leg_summary(json.loads(raw_text)["serial"], doc["config"]["measure_omit_s"])
    else:
        leg = doc["summary"]["legs"]["serial"]
    return {"source": os.path.relpath(os.path.abspath(path), REPO), "generated": doc.get("generated"),
            "commit": doc.get("commit"), "config": doc.get("config"), "note": doc.get("note", ""), "leg": leg}


def main(argv=None):
    args = parse_args(argv)
    legs = args.legs
    if os.geteuid() != 0:
        sys.exit("bench/slots.py: must run as root (podman, veths, nsenter, tc)")
    # One run at a time: a second one would take the fleet down under the first.
    os.makedirs(os.path.dirname(LOCK), exist_ok=True)
    lock = open(LOCK, "w", encoding="utf-8")  # noqa: SIM115  (held until the process ends)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"bench/slots.py: another run holds {LOCK}; wait for it to end")
    os.environ.setdefault("CONTAINERS_CONF", os.path.join(REPO, "lab", "containers.conf"))
    os.environ.setdefault("ANSIBLE_CONFIG", os.path.join(REPO, "ansible.cfg"))
    os.environ["PATH"] = os.path.join(REPO, ".venv", "bin") + os.pathsep + os.environ["PATH"]
    out_dir = args.out_dir or (tempfile.mkdtemp(prefix="tfs-smoke-") if args.smoke else os.path.join(REPO, "docs"))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    work_dir = os.path.join(out_dir, "logs") if args.smoke else os.path.join(BENCH_DIR, "results", f"slots-{stamp}")
    os.makedirs(work_dir, exist_ok=True)

    others = others_running()
    note = args.note
    if others:
        note = (note + " " if note else "") + "The lab's end-to-end run (tests/e2e/run.sh) was running beside this one."
        log(f"tests/e2e/run.sh is running (pids {' '.join(others)}): noted in the results")
    doc = {"generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "command": "bench/slots.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "commit": git_commit(), "machine": run.machine(), "note": note,
           "loadavg_before": list(os.getloadavg()),
           "config": {"hubs": args.hubs, "peers": args.peers, "path_bits_per_second": int(os.environ.get("TFS_PATH_BPS", "10000000")),
                      "idle_s": args.idle_s, "measure_duration_s": args.duration_s, "measure_omit_s": args.omit_s,
                      "sweep": args.sweep, "sweep_duration_s": args.sweep_duration_s, "sweep_omit_s": args.sweep_omit_s,
                      "sweep_udp_bits_per_second": args.sweep_udp,
                      "sweep_tests": 4 + 2 * len(args.sweep_udp) if args.sweep else 0,
                      "forks": args.forks or run.forks(), "legs": legs}}
    t0 = time.monotonic()
    raw = {}
    try:
        subprocess.run([FLEET, "down"], check=False)
        with open(os.path.join(work_dir, "fleet-up.log"), "w", encoding="utf-8") as out:
            subprocess.run([FLEET, "up", str(args.hubs), str(args.peers)], stdout=out, stderr=subprocess.STDOUT, check=True)
        doc["fleet_up_s"] = round(time.monotonic() - t0, 1)
        doc["settle_s"] = settle()
        for name in legs:
            raw[name] = run_leg(name, args, work_dir)
    finally:
        if not args.keep:
            subprocess.run([FLEET, "down"], check=False)
    with open(os.path.join(work_dir, "raw.json"), "w", encoding="utf-8") as f:
        json.dump(raw, f, indent=1)
    doc["summary"] = slots_summary.summarize(raw, args.hubs, args.peers, args.omit_s)
    if args.before_slots:
        doc["before_slots"] = before_slots(args.before_slots)
    doc["total_s"] = round(time.monotonic() - t0, 1)
    doc["raw"] = os.path.relpath(os.path.join(work_dir, "raw.json"), REPO)
    path = os.path.join(out_dir, "performance-slots.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    perf = os.path.join(out_dir, "performance.json")
    if os.path.exists(perf):
        with open(perf, encoding="utf-8") as f:
            run.write(json.load(f), out_dir)
    s = doc["summary"]
    for name in legs:
        leg = s["legs"][name]
        log(f"{name}: {leg['status']} verify {leg['wall_s']} s, single-flow window {leg['measure_window_s']} s, "
            f"{leg['measure_flows_at_once']} at once, mean {leg['bits_per_second']['mean']} bit/s")
    log(f"t = {s.get('peer_test_s')} s, expected {s.get('expected')}, wrote {path} in {doc['total_s']:.0f}s")
    if args.smoke:
        rc = smoke_check(s)
        if rc == 0 and not args.out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)
        elif rc:
            log(f"smoke: results and logs kept in {out_dir}")
        return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
