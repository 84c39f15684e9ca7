"""Inventories and verdicts for tests/rollout/run.sh (rollout control on the lab, docs/rollout.md).

    rollout_lab.py inventory KIND LAB_INVENTORY OUT     write a test inventory (KIND: tarpit, canary, many)
    rollout_lab.py check CASE LOG RC WALL_S [ARG]        judge one ansible-playbook run, exit 1 on a miss

Each test inventory is a copy of lab/state/inventory.yml (written by lab/up.sh) with hosts added:
a tarpit that accepts TCP on port 22 and never speaks SSH, aliases of owrt (one with a
preferred uplink openwrt_facts refuses, so its play fails), or aliases of peer and owrt sharing
the hub. Verdicts read the default callback's output: the ``PLAY [...]`` headers (one per serial
batch) and the PLAY RECAP lines.
"""
import copy
import json
import re
import sys

import yaml

TARPIT_ADDRESS = "172.31.249.2"     # tests/rollout/run.sh's namespace (172.31.249.0/24)
# one play reads every host, routers first (playbooks/facts.yml): owrt-bad is the first host of the canary inventory
FACTS_PLAY = "Gather tunnel facts on routers, hubs and peers (no Python needed)"
FINDINGS_PLAY = "Findings"
MANY_PLAY = "Measure every peer against its hub"
MANY_PEERS = ["peer", "peer-2", "peer-3", "owrt", "owrt-2"]

_RECAP_LINE = re.compile(r"^(\S+)\s+:\s+((?:\w+=\d+\s*)+)$")


def build_inventory(kind, lab):
    """Return the test inventory (a dict for YAML) of ``kind`` from the lab's inventory ``lab``.

    ``tarpit``: host ``tarpit`` first among the hubs, at TARPIT_ADDRESS. ``canary``: ``owrt-bad``
    (an alias of owrt whose preferred uplink is not an interface name) first among the OpenWrt
    routers, ``owrt-b`` (a plain alias) last. ``many``: the aliases in MANY_PEERS (``peer-2``, ...),
    each with the same address, tunnel address and hub as the host its name starts with.
    Raises KeyError when the lab inventory lacks a group or host this needs.
    """
    inv = copy.deepcopy(lab)
    groups = inv["all"]["children"]
    owrt_vars = groups["tunnelfix_wireguard_peers"]["hosts"]["owrt"]
    if kind == "tarpit":
        hubs = groups["tunnelfix_wireguard_hubs"]["hosts"]
        groups["tunnelfix_wireguard_hubs"]["hosts"] = {
            "tarpit": {"ansible_host": TARPIT_ADDRESS, "tunnelfix_tunnel_address": "10.44.0.250"}, **hubs}
    elif kind == "canary":
        routers = groups["tunnelfix_openwrt"]["hosts"]
        groups["tunnelfix_openwrt"]["hosts"] = {
            "owrt-bad": {"ansible_host": owrt_vars["ansible_host"],
                         "openwrt_mwan3_wg_preferred_uplink": "not an uplink!"},
            **routers,
            "owrt-b": {"ansible_host": owrt_vars["ansible_host"]}}
    elif kind == "many":
        peers = groups["tunnelfix_wireguard_peers"]["hosts"]
        for alias in MANY_PEERS:
            base = alias.rsplit("-", 1)[0]
            if alias == base:
                continue
            peers[alias] = dict(peers[base])
            if base == "owrt":
                groups["tunnelfix_openwrt"]["hosts"][alias] = {}
    else:
        raise ValueError("inventory kind must be tarpit, canary or many, got %r" % kind)
    return inv


def parse_recap(text):
    """PLAY RECAP of a default-callback log -> ``{host: {"ok": 1, "failed": 0, "unreachable": 0, ...}}``.

    Only lines after the last ``PLAY RECAP`` header count; a log without one gives ``{}``.
    """
    recap = {}
    if "PLAY RECAP" not in text:
        return recap
    for line in text.rsplit("PLAY RECAP", 1)[1].splitlines()[1:]:
        match = _RECAP_LINE.match(line.strip())
        if match:
            recap[match.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", match.group(2))}
    return recap


def play_batches(text, play_name):
    """How many times the play ``play_name`` started: one ``PLAY [name]`` header per serial batch."""
    return sum(1 for line in text.splitlines() if line.startswith("PLAY [%s]" % play_name))


class Verdict:
    """Collects failed expectations; ``ok(cond, what)`` records ``what`` when ``cond`` is false."""

    def __init__(self, case):
        self.case = case
        self.misses = []

    def ok(self, cond, what):
        """Record ``what`` (a sentence saying what was expected and what was seen) unless ``cond``."""
        if not cond:
            self.misses.append(what)

    def finish(self):
        """Print PASS or every miss; return the exit status (0 or 1)."""
        if self.misses:
            for miss in self.misses:
                print("FAIL %s: %s" % (self.case, miss))
            return 1
        print("PASS %s" % self.case)
        return 0


def _ran(recap, host):
    """Whether ``host`` ran any task (it is in the recap with a nonzero count)."""
    return sum(recap.get(host, {}).values()) > 0


def _clean(recap, host):
    """Whether ``host`` ran tasks and none failed or was unreachable."""
    counts = recap.get(host, {})
    return _ran(recap, host) and counts.get("failed", 0) == 0 and counts.get("unreachable", 0) == 0


def check(case, text, rc, wall_s, arg=None):
    """Judge one run of ``case``; ``arg``: the tarpit's connect timeout, the hang's task timeout
    (seconds) or the many-peers report directory. Returns a Verdict (call ``finish``)."""
    recap = parse_recap(text)
    v = Verdict(case)
    v.ok(bool(recap), "no PLAY RECAP in the log")
    if case == "tarpit":
        connect_timeout_s = float(arg)
        v.ok(recap.get("tarpit", {}).get("unreachable") == 1,
             "tarpit should be UNREACHABLE once, recap %s" % recap.get("tarpit"))
        for host in ("hub", "peer", "owrt", "localhost"):
            v.ok(_clean(recap, host), "%s should finish without failure, recap %s" % (host, recap.get(host)))
        v.ok(play_batches(text, FINDINGS_PLAY) == 1, "the Findings play should run once")
        v.ok(rc == 4, "ansible-playbook should exit 4 (a host unreachable), got %d" % rc)
        v.ok(connect_timeout_s - 1 <= wall_s <= connect_timeout_s + 25,
             "wall time %.1f s should be the connect timeout %.0f s plus at most 25 s" % (wall_s, connect_timeout_s))
    elif case == "hang":
        task_timeout_s = float(arg)
        for host in ("hub", "peer"):
            v.ok(recap.get(host, {}).get("failed") == 1, "%s should fail once, recap %s" % (host, recap.get(host)))
        v.ok(text.count("Timed out after %d second(s)" % task_timeout_s) >= 2,
             "each host should fail with 'Timed out after %d second(s)'" % task_timeout_s)
        v.ok(rc == 2, "ansible-playbook should exit 2 (failed hosts), got %d" % rc)
        v.ok(wall_s <= task_timeout_s + 30, "wall time %.1f s should be the task timeout %.0f s plus at most 30 s"
             % (wall_s, task_timeout_s))
    elif case == "canary_stops":
        v.ok(recap.get("owrt-bad", {}).get("failed") == 1, "owrt-bad (the canary) should fail, recap %s" % recap.get("owrt-bad"))
        for host in ("owrt", "owrt-b", "hub", "peer"):
            v.ok(not _ran(recap, host), "%s should never run after the canary failed, recap %s" % (host, recap.get(host)))
        v.ok(play_batches(text, FACTS_PLAY) == 1, "the facts play should stop after its canary batch, saw %d batches"
             % play_batches(text, FACTS_PLAY))
        v.ok(play_batches(text, FINDINGS_PLAY) == 0, "no play should run after the failed canary batch")
        v.ok(rc == 2, "ansible-playbook should exit 2, got %d" % rc)
    elif case == "serial_continues":
        v.ok(play_batches(text, FACTS_PLAY) == 3, "the facts play should run its 5 hosts in batches of 2, 2 and 1, saw %d"
             % play_batches(text, FACTS_PLAY))
        v.ok(recap.get("owrt-bad", {}).get("failed") == 1, "owrt-bad should fail, recap %s" % recap.get("owrt-bad"))
        for host in ("hub", "peer", "owrt", "owrt-b", "localhost"):
            v.ok(_clean(recap, host), "%s should finish without failure, recap %s" % (host, recap.get(host)))
        v.ok(play_batches(text, FINDINGS_PLAY) == 1, "the Findings play should run")
        v.ok(rc == 2, "ansible-playbook should exit 2, got %d" % rc)
    elif case == "max_fail_stops":
        v.ok(play_batches(text, FACTS_PLAY) == 1, "the facts play should stop after its first batch")
        v.ok(recap.get("owrt-bad", {}).get("failed") == 1, "owrt-bad should fail, recap %s" % recap.get("owrt-bad"))
        v.ok(not _ran(recap, "owrt-b"), "owrt-b (second batch) should never run, recap %s" % recap.get("owrt-b"))
        v.ok(play_batches(text, FINDINGS_PLAY) == 0, "no play should run after the threshold was passed")
        v.ok(rc == 2, "ansible-playbook should exit 2, got %d" % rc)
    elif case == "bad_serial":
        v.ok("tunnelfix_serial must be" in text and '"two"' in text,
             "the failure should name tunnelfix_serial and its value \"two\"")
        v.ok(set(recap) == {"localhost"}, "only localhost should run, recap hosts %s" % sorted(recap))
        v.ok(rc == 2, "ansible-playbook should exit 2, got %d" % rc)
    elif case == "many":
        _check_many(v, recap, rc, arg, play_batches(text, MANY_PLAY))
    elif case == "busy_port":
        flat = " ".join(text.split())
        v.ok("port %s on the hub is taken by python3 (pid" % arg in flat,
             "the failure should name port %s and the process holding it (python3)" % arg)
        v.ok(recap.get("peer", {}).get("failed") == 1, "peer should fail once, recap %s" % recap.get("peer"))
        v.ok(rc == 2, "ansible-playbook should exit 2, got %d" % rc)
        v.ok(wall_s <= 60, "wall time %.1f s: the failure should come at once, not after iperf3's 120 s timeout" % wall_s)
    else:
        raise ValueError("unknown case %r" % case)
    return v


def _check_many(v, recap, rc, report_dir, batches):
    """Every alias measured for real against the one hub, each iperf3 test in a single run, and
    the report files of the two batches holding all five (``batches``: PLAY headers seen)."""
    for host in MANY_PEERS + ["hub"]:
        v.ok(recap.get(host, {}).get("failed", 0) == 0 and recap.get(host, {}).get("unreachable", 0) == 0,
             "%s should not fail, recap %s" % (host, recap.get(host)))
    v.ok(rc == 0, "ansible-playbook should exit 0, got %d" % rc)
    v.ok(batches == 2, "the play should run as a canary batch of 1, then the other 4 (2 headers), saw %d" % batches)
    try:
        with open("%s/measurements-rollout.json" % report_dir) as f:
            measured = json.load(f)
        with open("%s/sweep-rollout.json" % report_dir) as f:
            swept = json.load(f)
        with open("%s/attempts.json" % report_dir) as f:
            attempts = json.load(f)
    except (OSError, ValueError) as exc:
        v.ok(False, "cannot read the result files in %s: %s" % (report_dir, exc))
        return
    v.ok(sorted(measured) == sorted(MANY_PEERS) and sorted(swept) == sorted(MANY_PEERS),
         "the report files should hold all of %s, hold %s and %s" % (MANY_PEERS, sorted(measured), sorted(swept)))
    for host in MANY_PEERS:
        flow = measured.get(host, {}).get("iperf3", {})
        v.ok((flow.get("bits_per_second") or 0) > 0 and flow.get("valid") is True and not flow.get("failed"),
             "%s single flow should be a valid measurement above 0 bit/s, got %s" % (host, flow))
        runs = attempts.get(host, {})
        v.ok(runs.get("single_flow") == 1, "%s single flow should take 1 iperf3 run, took %s" % (host, runs.get("single_flow")))
        results = swept.get(host, {}).get("results", [])
        v.ok(len(results) >= 6, "%s should have at least 6 sweep results, has %d" % (host, len(results)))
        for res in results:
            v.ok(res.get("valid") is True and (res.get("bits_per_second") or 0) > 0,
                 "%s sweep %s should be valid above 0 bit/s, got %s" % (host, res.get("name"), res.get("invalid_reason")))
            v.ok(runs.get("sweep", {}).get(res.get("name")) == 1, "%s sweep %s should take 1 iperf3 run, took %s"
                 % (host, res.get("name"), runs.get("sweep", {}).get(res.get("name"))))


def main(argv):
    """Command line: see the module docstring. Returns the exit status."""
    if len(argv) >= 5 and argv[1] == "inventory":
        with open(argv[3]) as f:
            lab = yaml.safe_load(f)
        with open(argv[4], "w") as f:
            yaml.safe_dump(build_inventory(argv[2], lab), f, sort_keys=False)
        return 0
    if len(argv) >= 6 and argv[1] == "check":
        with open(argv[3], errors="replace") as f:
            text = f.read()
        verdict = check(argv[2], text, int(argv[4]), float(argv[5]), argv[6] if len(argv) > 6 else None)
        status = verdict.finish()
        if status:
            print("(log: %s)" % argv[3])
        return status
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
