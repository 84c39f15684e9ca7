#!/usr/bin/env python3
"""Assert the lab's before/after figures (issue: 100 % -> 0 % loss, >= 3x and >= 80 % of bottleneck).

Usage: check_measurements.py REPORT_DIR BOTTLENECK_BITS_PER_SECOND
Reads REPORT_DIR/measurements-before.json and measurements-after.json written by the
tunnel_measure role; prints one line per check and exits 1 if any check fails.
"""
import json
import sys


def main(report_dir, bottleneck):
    with open("%s/measurements-before.json" % report_dir) as handle:
        before = json.load(handle)
    with open("%s/measurements-after.json" % report_dir) as handle:
        after = json.load(handle)
    failures = 0
    for host in sorted(before):
        b, a = before[host], after[host]
        b_bps, a_bps = b["iperf3"]["bits_per_second"], a["iperf3"]["bits_per_second"]
        checks = [
            ("ping loss before is 100 %", b["ping"]["loss_percent"] == 100.0, b["ping"]["loss_percent"]),
            ("ping loss after is 0 %", a["ping"]["loss_percent"] == 0.0, a["ping"]["loss_percent"]),
            ("single flow improved at least 3x", b_bps and a_bps and a_bps >= 3 * b_bps, "%s -> %s" % (b_bps, a_bps)),
            ("single flow after >= 80 % of bottleneck", a_bps and a_bps >= 0.8 * bottleneck,
             "%s of %s" % (a_bps, bottleneck)),
        ]
        for name, ok, value in checks:
            print("%s %s: %s (%s)" % ("PASS" if ok else "FAIL", host, name, value))
            failures += 0 if ok else 1
    print("%d passed, %d failed" % (4 * len(before) - failures, failures))
    return 1 if failures or not before else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2])))
