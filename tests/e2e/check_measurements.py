#!/usr/bin/env python
"""Assert the lab's before/after figures for every planted fault.

Usage: check_measurements.py REPORT_DIR INVENTORY_JSON
REPORT_DIR holds measurements-{before,after}.json (role tunnel_measure) and
health-checks-{before,after}.json (role health_check_measure); INVENTORY_JSON is the output of
`ansible-inventory --list` for the lab. What each host must show depends on its groups:
  - a WireGuard peer behind the lab NAT (faults 3 and 4): hub -> peer ping loss after the idle
    period 100 % -> 0 %, single TCP flow >= 3x and >= 80 % of its path bottleneck;
  - an OpenWrt router (tunnelfix_openwrt; faults 1 and 2): no ping loss after the fix, single
    flow >= 10x (endpoint route moved from the 2 Mbit/s backup to the fibre) and >= 80 % of its
    path; health checks (fault 2): before, in the passive window (nothing sent by diagnose) banIP's
    flood counter grew and mwan3 logged failed checks (the lab's monitoring pinger beside mwan3's
    tracking), and the probe ran inside a fifth of banIP's limit; after, the counter did not grow in
    the window and no probe ping was lost.
And from the load sweeps (role tunnel_sweep, sweep-{before,after}.json), for every peer: every
TCP test valid after the fix, one flow in each direction >= 80 % of the path after, and the verdict
path_limit after; for a peer behind the lab NAT also the verdict single_flow_limit before (cubic
at 1 % loss: parallel flows get more than one). The download direction is sent by the hub, so its
80 % proves the hub's own fix (diagnose found it from the sweep).
Prints one line per check; exits 1 if any fails or a host has no measurement.
"""
import json
import sys


def load(path):
    with open(path) as handle:
        return json.load(handle)


def path_bits_per_second(hostvars):
    return float(hostvars.get("tunnelfix_path_bits_per_second") or hostvars["tunnelfix_lab_bottleneck_bits_per_second"])


def tunnel_checks(host, b, a, path_bps, nat_peer):
    b_bps, a_bps = b["iperf3"]["bits_per_second"], a["iperf3"]["bits_per_second"]
    factor = 3 if nat_peer else 10
    checks = [
        ("ping loss after is 0 %", a["ping"]["loss_percent"] == 0.0, a["ping"]["loss_percent"]),
        ("single flow improved at least %dx" % factor, bool(b_bps and a_bps and a_bps >= factor * b_bps),
         "%s -> %s" % (b_bps, a_bps)),
        ("single flow after >= 80 % of the path", bool(a_bps and a_bps >= 0.8 * path_bps), "%s of %s" % (a_bps, path_bps)),
    ]
    if nat_peer:
        checks.insert(0, ("ping loss before is 100 %", b["ping"]["loss_percent"] == 100.0, b["ping"]["loss_percent"]))
    return checks


def _inside_a_fifth(record):
    """The probe's rate against banIP's limit: at most a fifth of it (PROBE_SHARE_OF_LIMIT, plugins/plugin_utils/measure/icmp_pacing.py)."""
    rate, limit = record.get("rate_per_second"), record.get("banip_icmplimit_per_second")
    return bool(rate and limit and float(rate) <= float(limit) / 5 + 1e-9), "%s/s of %s/s" % (rate, limit)


def health_checks(b, a):
    failed_before = (b.get("mwan3_failed_checks") or 0) + (b.get("mwan3_lost_pings") or 0)
    return [
        ("banIP's flood counter grew in the passive window before", (b.get("window_icmp_flood_growth_packets") or 0) > 0,
         "+%s in %s s" % (b.get("window_icmp_flood_growth_packets"), b.get("window_s"))),
        ("mwan3 logged failed checks in that window before", failed_before > 0,
         "%s failed checks, %s lost pings %s" % (b.get("mwan3_failed_checks"), b.get("mwan3_lost_pings"),
                                                 b.get("mwan3_failed_interfaces"))),
        ("the probe ran inside a fifth of banIP's limit before",) + _inside_a_fifth(b),
        ("banIP's flood counter did not grow in the passive window after", a.get("window_icmp_flood_growth_packets") == 0,
         "+%s in %s s" % (a.get("window_icmp_flood_growth_packets"), a.get("window_s"))),
        ("no probe ping lost after", a["failed_pings"] == 0, "%s of %s" % (a["failed_pings"], a["sent"])),
    ]


def _sweep_entry(record, name):
    return next((entry for entry in record.get("results", []) if entry.get("name") == name), {})


def sweep_checks(b, a, path_bps, nat_peer):
    tcp_after = [entry for entry in a.get("results", []) if entry.get("protocol") == "tcp"]
    checks = [("every TCP sweep test valid after", bool(tcp_after) and all(e.get("valid") for e in tcp_after),
               [e.get("name") for e in tcp_after if not e.get("valid")])]
    for direction in ("upload", "download"):
        bps = _sweep_entry(a, "tcp_single_%s" % direction).get("bits_per_second")
        checks.append(("sweep: one flow %s after >= 80 %% of the path" % direction,
                       bool(bps and bps >= 0.8 * path_bps), "%s of %s" % (bps, path_bps)))
    after_verdict = (a.get("conclusion") or {}).get("verdict")
    checks.append(("sweep verdict after is path_limit", after_verdict == "path_limit", after_verdict))
    if nat_peer:
        before_verdict = (b.get("conclusion") or {}).get("verdict")
        checks.append(("sweep verdict before is single_flow_limit", before_verdict == "single_flow_limit", before_verdict))
    return checks


def main(report_dir, inventory_json):
    inventory = load(inventory_json)
    hostvars = inventory["_meta"]["hostvars"]
    peers = set(inventory.get("tunnelfix_wireguard_peers", {}).get("hosts", []))
    routers = set(inventory.get("tunnelfix_openwrt", {}).get("hosts", []))
    before, after = load(report_dir + "/measurements-before.json"), load(report_dir + "/measurements-after.json")
    hc_before, hc_after = load(report_dir + "/health-checks-before.json"), load(report_dir + "/health-checks-after.json")
    sweep_before, sweep_after = load(report_dir + "/sweep-before.json"), load(report_dir + "/sweep-after.json")
    results = []
    for host in sorted(peers):
        if host not in sweep_before or host not in sweep_after:
            results.append((host, "tunnel swept before and after", False, "missing"))
            continue
        for check in sweep_checks(sweep_before[host], sweep_after[host], path_bits_per_second(hostvars[host]),
                                  nat_peer=host not in routers):
            results.append((host,) + check)
    for host in sorted(peers):
        if host not in before or host not in after:
            results.append((host, "tunnel measured before and after", False, "missing"))
            continue
        for check in tunnel_checks(host, before[host], after[host], path_bits_per_second(hostvars[host]),
                                   nat_peer=host not in routers):
            results.append((host,) + check)
    for host in sorted(routers):
        if host not in hc_before or host not in hc_after:
            results.append((host, "health checks measured before and after", False, "missing"))
            continue
        for check in health_checks(hc_before[host], hc_after[host]):
            results.append((host,) + check)
    failures = 0
    for host, name, ok, value in results:
        print("%s %s: %s (%s)" % ("PASS" if ok else "FAIL", host, name, value))
        failures += 0 if ok else 1
    print("%d passed, %d failed" % (len(results) - failures, failures))
    return 1 if failures or not results else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
