#!/usr/bin/env python
"""The fleet-scale benchmark (issue 5): for each N, a fresh bench fleet, four timed phases, the
remote executions per host (counted on the hosts), the controller's peak memory, and
docs/performance.md with the goals; optionally the lab's before/after single-flow TCP.

    .venv/bin/python bench/run.py [--sizes 5,10,20,40] [--lab-effect | --no-lab-effect]
                                  [--lab-report FILE] [--keep] [--out-dir DIR] [--smoke]

Root is needed (podman, veths). --smoke: N=2, no lab effect, results into a temporary directory,
and it fails unless every phase completed and the floor cost exactly one execution per host.
"""

from __future__ import annotations

import argparse
import configparser
import datetime
import json
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
import performance_md  # noqa: E402  (bench/ is not a package)

FLEET = os.path.join(BENCH_DIR, "fleet.sh")
STATE = os.path.join(BENCH_DIR, "state")
COUNTS = os.path.join(STATE, "counts")
INVENTORY = os.path.join(STATE, "inventory.yml")
NOTES = os.path.join(BENCH_DIR, "performance_notes.md")
PHASE_TIMEOUT_S = 3600
TASK_TIME_RE = re.compile(r"^(.*?) -{2,} (\d+(?:\.\d+)?)s$")
RECAP_RE = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)")


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout.strip()


# --- the machine ---------------------------------------------------------------------------------
def machine():
    cpu = "?"
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo", encoding="utf-8") as f:
        ram_kb = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
    os_name = "?"
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release", encoding="utf-8") as f:
            rel = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        os_name = rel.get("PRETTY_NAME", "?").strip('"')
    if os.path.exists("/etc/debian_version"):
        with open("/etc/debian_version", encoding="utf-8") as f:
            os_name += f" (debian_version {f.read().strip()})"
    core = sh(["ansible", "--version"]).splitlines()[0]
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_bytes": ram_kb * 1024, "kernel": platform.release(),
            "os": os_name, "ansible_core": re.sub(r"^ansible \[core (.*)\]$", r"\1", core),
            "python": platform.python_version(), "podman": sh(["podman", "--version"]).split()[-1]}


def forks():
    cfg = configparser.ConfigParser()
    cfg.read(os.environ.get("ANSIBLE_CONFIG", os.path.join(REPO, "ansible.cfg")))
    return cfg.getint("defaults", "forks", fallback=5)


# --- controller memory ---------------------------------------------------------------------------
def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _children(pid):
    out = []
    tasks = f"/proc/{pid}/task"
    try:
        tids = os.listdir(tasks)
    except OSError:
        return out
    for tid in tids:
        text = _read(f"{tasks}/{tid}/children")
        if text:
            out += [int(p) for p in text.split()]
    return out


def _rollup(pid):
    """(pss_bytes, rss_bytes) of one process, or None when it is gone."""
    text = _read(f"/proc/{pid}/smaps_rollup")
    if not text:
        return None
    vals = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("Pss:", "Rss:"):
            vals[parts[0]] = int(parts[1]) * 1024
    return vals.get("Pss:", 0), vals.get("Rss:", 0)


class MemorySampler(threading.Thread):
    """Every 0.1 s: the sum of PSS over ROOT_PID and its descendants, plus the ssh control masters
    of this phase (they daemonize, so they leave the tree; found by their ControlPath directory)."""

    def __init__(self, root_pid, control_dir, interval=0.1):
        super().__init__(daemon=True)
        self.root_pid, self.control_dir, self.interval = root_pid, control_dir, interval
        self.peak_pss = 0
        self.max_rss = 0
        self.samples = 0
        self.masters = set()
        self._seen = {}
        self._halt = threading.Event()

    def scan_masters(self):
        for name in os.listdir("/proc"):
            if not name.isdigit() or name in self._seen:
                continue
            cmd = _read(f"/proc/{name}/cmdline") or ""
            self._seen[name] = True
            if self.control_dir in cmd and cmd.startswith("ssh"):
                self.masters.add(int(name))

    def run(self):
        tick = 0
        while not self._halt.is_set():
            if tick % 5 == 0:
                self.scan_masters()
            tick += 1
            pids, todo = set(), [self.root_pid]
            while todo:
                p = todo.pop()
                if p in pids:
                    continue
                pids.add(p)
                todo += _children(p)
            pids |= self.masters
            total = 0
            for p in pids:
                r = _rollup(p)
                if r:
                    total += r[0]
                    self.max_rss = max(self.max_rss, r[1])
            self.peak_pss = max(self.peak_pss, total)
            self.samples += 1
            self._halt.wait(self.interval)

    def stop(self):
        self._halt.set()
        self.join()


def cpu_times():
    """(busy, total) jiffies of the whole machine from /proc/stat."""
    fields = [int(x) for x in (_read("/proc/stat") or "cpu 0 0 0 0").splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields[:8]) - idle, sum(fields[:8])


def children_cpu_s():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# --- counters ------------------------------------------------------------------------------------
def reset_counts():
    for name in os.listdir(COUNTS):
        with open(os.path.join(COUNTS, name, "execs"), "w", encoding="utf-8"):
            pass


def read_counts(hosts):
    out = {}
    for h in hosts:
        text = _read(os.path.join(COUNTS, h, "execs")) or ""
        out[h] = len(text.splitlines())
    return out


def parse_task_times(text):
    """ansible.posix.profile_tasks' TASKS RECAP -> [[task, seconds], ...] (as printed, slowest first)."""
    out, in_recap = [], False
    for line in text.splitlines():
        if line.startswith("TASKS RECAP"):
            in_recap, out = True, []
            continue
        m = TASK_TIME_RE.match(line) if in_recap else None
        if m:
            out.append([m.group(1).strip(), float(m.group(2))])
    return out


def parse_recap(text):
    """PLAY RECAP lines -> {host: {"ok", "changed", "unreachable", "failed"}} (the last recap wins)."""
    out = {}
    in_recap = False
    for line in text.splitlines():
        if line.startswith("PLAY RECAP"):
            in_recap, out = True, {}
            continue
        m = RECAP_RE.match(line) if in_recap else None
        if m:
            out[m.group(1)] = dict(zip(("ok", "changed", "unreachable", "failed"), map(int, m.groups()[1:])))
    return out


# --- one phase -----------------------------------------------------------------------------------
# Phases in which a host may be absent from the play recap (no task ran for it) without failing.
HOSTS_MAY_BE_LEFT_OUT = frozenset({"remediate_converged"})


def run_phase(name, argv, hosts, log_dir):
    control_dir = tempfile.mkdtemp(prefix=f"tfb-cp-{name}-", dir="/tmp")
    env = dict(os.environ, ANSIBLE_SSH_CONTROL_PATH_DIR=control_dir, ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
               # Per-task wall time in the log (TASKS RECAP): where the controller's time goes.
               ANSIBLE_CALLBACKS_ENABLED="ansible.posix.profile_tasks,tunnelfix.fleet.fleet_summary",
               PROFILE_TASKS_TASK_OUTPUT_LIMIT="12", PROFILE_TASKS_SORT_ORDER="descending")
    log_path = os.path.join(log_dir, f"{name}.log")
    reset_counts()
    load_before = os.getloadavg()[0]  # includes the previous phase's own load (1-minute average)
    cpu0, child0 = cpu_times(), children_cpu_s()
    log(f"phase {name}: {' '.join(argv)}")
    start = time.monotonic()
    status = "ok"
    with open(log_path, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        sampler = MemorySampler(proc.pid, control_dir)
        sampler.start()
        try:
            rc = proc.wait(timeout=PHASE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            rc = proc.wait()
            status = "timeout"
        wall = time.monotonic() - start
        cpu1, child1 = cpu_times(), children_cpu_s()
        sampler.stop()
    # End this phase's ssh control masters (started by this phase's ansible-playbook), by pid.
    sampler.scan_masters()
    for pid in sampler.masters:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    shutil.rmtree(control_dir, ignore_errors=True)

    counts = read_counts(hosts)
    text = _read(log_path) or ""
    recap = parse_recap(text)
    fleet = {h: recap.get(h) for h in hosts}
    # remediate from findings leaves a converged host out of the fixing play: its absence is the point.
    missing = [h for h, r in fleet.items() if r is None] if name not in HOSTS_MAY_BE_LEFT_OUT else []
    totals = {k: sum(r[k] for r in fleet.values() if r) for k in ("changed", "failed", "unreachable")}
    totals["failed"] += sum(r["failed"] for h, r in recap.items() if h not in hosts)
    if status == "ok" and (rc != 0 or missing or totals["failed"] or totals["unreachable"]):
        status = "failed"
    res = {"status": status, "rc": rc, "wall_s": round(wall, 3),
           "execs": {"linux": [counts[h] for h in hosts if h.startswith("tfb-lnx-")],
                     "openwrt": [counts[h] for h in hosts if h.startswith("tfb-owrt-")]},
           "execs_by_host": counts,
           "peak_pss_bytes": sampler.peak_pss, "max_rss_bytes": sampler.max_rss,
           "memory_samples": sampler.samples, "loadavg_1m_before": round(load_before, 2),
           # CPU seconds of ansible-playbook and the workers it waited for (not the hosts' side), and how
           # busy the whole machine was during the phase (controller + containers + anything else).
           "controller_cpu_s": round(child1 - child0, 2),
           "machine_cpu_busy_percent": round(100.0 * (cpu1[0] - cpu0[0]) / max(1, cpu1[1] - cpu0[1]), 1), "hosts_missing_in_recap": missing,
           "slowest_tasks": parse_task_times(text), "log": os.path.relpath(log_path, REPO), **totals}
    log(f"phase {name}: {status} {wall:.1f}s execs linux={res['execs']['linux'][:3]}… "
        f"openwrt={res['execs']['openwrt'][:3]}… peak PSS {sampler.peak_pss / 1e6:.0f} MB "
        f"changed={totals['changed']} failed={totals['failed']} unreachable={totals['unreachable']}")
    return res


def phases(report_dir):
    pb = "ansible-playbook"
    inv = ["-i", INVENTORY]
    rep = ["-e", f"tunnel_measure_report_dir={report_dir}"]
    remediate = [pb, *inv, "playbooks/remediate.yml", "-e", "tunnelfix_remediate_all_roles=true", *rep]
    diagnose = [pb, *inv, "playbooks/diagnose.yml", "-e", "tunnelfix_measure=false", "-e", "tunnelfix_sweep=false", *rep]
    return [
        ("floor", [pb, *inv, "bench/floor.yml"]),
        ("diagnose", diagnose),
        ("remediate", remediate),
        ("remediate_idempotent", remediate),
        # The converged fleet the default way: diagnose's one facts execution per host, then remediate
        # from its findings (none: no role), against what an operator would write instead.
        ("diagnose_converged", diagnose),
        ("remediate_converged", [pb, *inv, "playbooks/remediate.yml", *rep]),
        ("handwritten", [pb, *inv, "bench/handwritten.yml"]),
    ]


def fleet_hosts(n):
    nl, no = (n + 1) // 2, n // 2
    return [f"tfb-lnx-{i:02d}" for i in range(1, nl + 1)] + [f"tfb-owrt-{i:02d}" for i in range(1, no + 1)]


def run_size(n, work_dir):
    log(f"=== N={n}: fresh fleet")
    hosts = fleet_hosts(n)
    log_dir = os.path.join(work_dir, f"n{n:03d}")
    report_dir = os.path.join(log_dir, "reports")
    os.makedirs(report_dir, exist_ok=True)
    run = {"n": n, "linux": sum(h.startswith("tfb-lnx-") for h in hosts),
           "openwrt": sum(h.startswith("tfb-owrt-") for h in hosts), "up_s": None, "phases": {}}
    subprocess.run([FLEET, "down"], check=False)
    t0 = time.monotonic()
    with open(os.path.join(log_dir, "fleet-up.log"), "w", encoding="utf-8") as out:
        up = subprocess.run([FLEET, "up", str(n)], stdout=out, stderr=subprocess.STDOUT, check=False)
    if up.returncode != 0:  # recorded; the benchmark goes on with the next size
        log(f"N={n}: bench/fleet.sh up failed (see {out.name})")
        run["phases"] = {name: {"status": "fleet-up-failed"} for name in performance_md.PHASES}
        return run
    run["up_s"] = round(time.monotonic() - t0, 1)
    for name, argv in phases(report_dir):
        try:
            run["phases"][name] = run_phase(name, argv, hosts, log_dir)
        except Exception as exc:  # a broken phase is recorded, the benchmark goes on
            log(f"phase {name}: error {exc!r}")
            run["phases"][name] = {"status": "error", "error": repr(exc)}
    run["fleet_memory_bytes"] = fleet_memory(hosts)
    return run


def fleet_memory(hosts):
    """Memory the fleet's containers use (their cgroups, page cache included): {"linux", "openwrt"}."""
    out = {"linux": 0, "openwrt": 0}
    try:
        paths = sh(["podman", "inspect", "-f", "{{.Name}} {{.State.CgroupPath}}", *hosts]).splitlines()
    except subprocess.CalledProcessError:
        return None
    for line in paths:
        name, _sep, path = line.partition(" ")
        for f in (f"/sys/fs/cgroup{path}/memory.current", f"/sys/fs/cgroup/memory{path}/memory.usage_in_bytes"):
            text = _read(f)
            if text:
                out["linux" if name.startswith("tfb-lnx-") else "openwrt"] += int(text)
                break
    return out


# --- where the executions go --------------------------------------------------------------------
def profile(work_dir):
    """Remote executions per task of diagnose and of an idempotent remediate, from -vvv, on a fleet
    of two (one Linux, one OpenWrt host). Untimed: -vvv slows the controller down."""
    import exec_by_task  # noqa: PLC0415  (bench/ is on sys.path)

    log("=== profile: per-task remote executions, N=2, -vvv")
    log_dir = os.path.join(work_dir, "profile")
    report_dir = os.path.join(log_dir, "reports")
    os.makedirs(report_dir, exist_ok=True)
    subprocess.run([FLEET, "down"], check=False)
    with open(os.path.join(log_dir, "fleet-up.log"), "w", encoding="utf-8") as out:
        subprocess.run([FLEET, "up", "2"], stdout=out, stderr=subprocess.STDOUT, check=True)
    hosts = fleet_hosts(2)
    address = {"172.31.250.10": "linux", "172.31.250.11": "openwrt"}  # bench/fleet.sh mgmt_ip
    steps = dict(phases(report_dir))
    out = {"fleet": "tfb-lnx-01 (Linux) and tfb-owrt-01 (OpenWrt)", "phases": {}}
    run_phase("profile_remediate_apply", steps["remediate"], hosts, log_dir)
    for name in ("diagnose", "remediate_idempotent"):
        argv = steps[name][:1] + ["-vvv"] + steps[name][1:]
        res = run_phase(f"profile_{name}", argv, hosts, log_dir)
        with open(os.path.join(REPO, res["log"]), encoding="utf-8", errors="replace") as f:
            counts = exec_by_task.count(f)
        tasks = {}
        for (addr, task), n in counts.items():
            row = tasks.setdefault(task, {"task": task, "linux": 0, "openwrt": 0})
            row[address.get(addr, "other")] = row.get(address.get(addr, "other"), 0) + n
        out["phases"][name] = {
            "status": res["status"], "changed": res["changed"],
            "counted": {"linux": sum(res["execs"]["linux"]), "openwrt": sum(res["execs"]["openwrt"])},
            "tasks": sorted(tasks.values(), key=lambda r: (-(r["linux"] + r["openwrt"]), r["task"]))}
    return out


# --- the lab's before/after ----------------------------------------------------------------------
SINGLE_FLOW = re.compile(r"^TCP (single flow|1 flow) ")


def lab_effect_from(path, note=""):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = [{k: r.get(k) for k in ("host", "test", "before_value", "after_value", "reference_value")}
            for r in doc.get("rows", [])
            if r.get("unit") == "bits_per_second" and SINGLE_FLOW.match(r.get("test", ""))]
    return {"source": os.path.relpath(os.path.abspath(path), REPO), "generated": doc.get("generated"),
            "command": (doc.get("meta") or {}).get("command"), "rows": rows, "note": note}


def run_lab_effect(log_dir):
    log("=== lab effect: lab/down.sh && lab/up.sh, then playbooks/site.yml (about 7 min)")
    with open(os.path.join(log_dir, "lab-site.log"), "w", encoding="utf-8") as out:
        subprocess.run(["lab/down.sh"], cwd=REPO, check=True, stdout=out, stderr=subprocess.STDOUT)
        subprocess.run(["lab/up.sh"], cwd=REPO, check=True, stdout=out, stderr=subprocess.STDOUT)
        rc = subprocess.run(["ansible-playbook", "-i", "lab/state/inventory.yml", "playbooks/site.yml"],
                            cwd=REPO, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    note = "" if rc == 0 else f"site.yml exited {rc}, see {os.path.relpath(out.name, REPO)}"
    return lab_effect_from(os.path.join(REPO, "reports", "report.json"), note)


# --- main ----------------------------------------------------------------------------------------
MAX_HOSTS = 200  # bench/fleet.sh's limit (addresses .10 upward on one /24)


def fleet_sizes(text: str) -> list:
    """``"5,10,20,40"`` → ``[5, 10, 20, 40]``; argparse's type for --sizes.

    Raises argparse.ArgumentTypeError naming the value for anything but whole numbers 1-200, so a
    bad size stops the run before any fleet is taken down or any document is written.
    """
    sizes = []
    for part in str(text).split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= MAX_HOSTS:
            raise argparse.ArgumentTypeError("%r is not a whole number of hosts from 1 to %d (in %r)"
                                             % (part, MAX_HOSTS, text))
        sizes.append(int(part))
    return sizes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--sizes", default=None, type=fleet_sizes,
                    help="comma-separated N, each 1-%d (default 5,10,20,40; --smoke: 2)" % MAX_HOSTS)
    ap.add_argument("--lab-effect", dest="lab_effect", action="store_true", default=None,
                    help="re-plant the lab and run site.yml at the end (default unless --smoke)")
    ap.add_argument("--no-lab-effect", dest="lab_effect", action="store_false")
    ap.add_argument("--lab-report", help="take the lab effect from this report.json instead of running the lab")
    ap.add_argument("--keep", action="store_true", help="leave the last fleet running")
    ap.add_argument("--out-dir", help="where performance.json and performance.md go (default docs/)")
    ap.add_argument("--smoke", action="store_true", help="N=2, no lab, temp output, assert the floor and phases")
    ap.add_argument("--no-profile", dest="profile", action="store_false",
                    help="skip the per-task -vvv profile on two hosts (default: on, except --smoke)")
    ap.add_argument("--profile-only", action="store_true",
                    help="only (re)do the profile into the existing performance.json of --out-dir")
    ap.add_argument("--render-only", action="store_true",
                    help="only render performance.md again from the existing performance.json of --out-dir")
    args = ap.parse_args(argv)

    if args.smoke:
        sizes = args.sizes or [2]
        lab_effect = False
        out_dir = args.out_dir or tempfile.mkdtemp(prefix="tfb-smoke-")
    else:
        sizes = args.sizes or [5, 10, 20, 40]
        lab_effect = True if args.lab_effect is None else args.lab_effect
        out_dir = args.out_dir or os.path.join(REPO, "docs")
    if os.geteuid() != 0:
        sys.exit("bench/run.py: must run as root (podman, veths, nsenter)")
    os.environ.setdefault("CONTAINERS_CONF", os.path.join(REPO, "lab", "containers.conf"))
    os.environ.setdefault("ANSIBLE_CONFIG", os.path.join(REPO, "ansible.cfg"))
    os.environ["PATH"] = os.path.join(REPO, ".venv", "bin") + os.pathsep + os.environ["PATH"]

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    work_dir = os.path.join(BENCH_DIR, "results", stamp) if not args.smoke else os.path.join(out_dir, "logs")
    if args.render_only or args.profile_only:
        with open(os.path.join(out_dir, "performance.json"), encoding="utf-8") as f:
            results = json.load(f)
        if args.lab_report:
            results["lab_effect"] = lab_effect_from(args.lab_report, "read from an existing report, not re-run")
        if args.profile_only:
            os.makedirs(work_dir, exist_ok=True)
            try:
                results["exec_profile"] = profile(work_dir)
            finally:
                if not args.keep:
                    subprocess.run([FLEET, "down"], check=False)
        write(results, out_dir)
        log(f"wrote {out_dir}/performance.md")
        return 0
    os.makedirs(work_dir, exist_ok=True)
    results = {"generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "command": "bench/run.py " + " ".join(argv if argv is not None else sys.argv[1:]),
               "machine": machine(), "forks": forks(), "sizes": sizes, "runs": []}
    t0 = time.monotonic()
    try:
        for n in sizes:
            results["runs"].append(run_size(n, work_dir))
            write(results, out_dir)  # partial results survive an interrupted run
        if args.profile and not args.smoke:
            results["exec_profile"] = profile(work_dir)
    finally:
        if not args.keep:
            subprocess.run([FLEET, "down"], check=False)
    if args.lab_report:
        results["lab_effect"] = lab_effect_from(args.lab_report, "read from an existing report, not re-run")
    elif lab_effect:
        results["lab_effect"] = run_lab_effect(work_dir)
    results["total_s"] = round(time.monotonic() - t0, 1)
    write(results, out_dir)
    log(f"wrote {out_dir}/performance.md and performance.json in {results['total_s']:.0f}s")
    for g in performance_md.goals(results):
        log(f"goal {'met   ' if g['met'] else 'MISSED'} {g['goal']}: {g['measured']} {g['note']}")
    if args.smoke:
        rc = smoke_check(results)
        if rc == 0 and not args.out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)  # a temporary directory of its own
        elif rc:
            log(f"smoke: results and logs kept in {out_dir}")
        return rc
    return 0


def write(results, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "performance.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    notes = _read(NOTES) or ""
    # The slots benchmark's results (bench/slots.py), kept in their own file: a section of the same page.
    slots_text = _read(os.path.join(out_dir, "performance-slots.json"))
    slots = json.loads(slots_text) if slots_text else None
    with open(os.path.join(out_dir, "performance.md"), "w", encoding="utf-8") as f:
        f.write(performance_md.render(results, notes, slots))


def smoke_check(results):
    problems = []
    for run in results["runs"]:
        for name in performance_md.PHASES:
            ph = run["phases"].get(name, {})
            if ph.get("status") != "ok":
                problems.append(f"N={run['n']} {name}: {ph.get('status', 'missing')}")
        floor = run["phases"].get("floor", {}).get("execs_by_host", {})
        wrong = {h: c for h, c in floor.items() if c != 1}
        if wrong or not floor:
            problems.append(f"N={run['n']} floor: executions per host {wrong or 'none counted'} (want exactly 1)")
    for p in problems:
        log(f"SMOKE FAIL {p}")
    if not problems:
        log("smoke: every phase completed, floor = 1 remote execution per host")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
