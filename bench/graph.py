# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph's benchmark (issue 32): build the graph and run every graph rule on every host, on the controller,
for synthetic fleets (bench/graph_fleet.py) of growing size; a benchmark, not a timed test.

    .venv/bin/python bench/graph.py                 # 250, 500, 1000 and 2000 hosts, 10 peers each
    .venv/bin/python bench/graph.py --hosts 1000 --repeat 5

For each size: the hosts, the entries (edges), the seconds to build the graph (``build_graph``), the seconds of the
graph rules over every host (the registry's entries of faults/tunnel_graph/, each ``rule(host, view, views)`` as
diagnose calls it, the graph built once and cached), their sum, the microseconds per edge (constant when the cost is
linear in the edges) and the findings (the fleet carries one of each seed, so a rule that stopped finding shows).
The best of ``--repeat`` runs (the least disturbed by other work on the machine). Prints a Markdown table; ``--json``
writes the rows too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / ".cache" / "collections"))

import graph_fleet as gf  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import graph  # noqa: E402  pylint: disable=wrong-import-position

SITE_SIZE = 11   # every host of a site lists the 10 others
GRAPH_FAULTS = [fault for fault in registry.FAULTS if "faults/tunnel_graph/" in " ".join(fault.files)]


def measure(hosts, repeat) -> dict:
    """One row: the best of ``repeat`` runs on a fleet of about ``hosts`` hosts (whole sites of SITE_SIZE)."""
    sites = max(len(gf.SEEDS), -(-hosts // SITE_SIZE))
    views, expected = gf.fleet(sites, SITE_SIZE, seeds=list(gf.SEEDS))
    best_build = best_rules = None
    found = 0
    edges = 0
    for _run in range(repeat):
        fresh = gf.copy_views(views)          # graph_of caches per views object
        start = time.perf_counter()
        built = graph.build_graph(fresh)
        build_s = time.perf_counter() - start
        edges = len(built["edges"])
        start = time.perf_counter()
        found = sum(len(fault.rule(host, fresh[host], fresh)) for fault in GRAPH_FAULTS for host in sorted(fresh))
        rules_s = time.perf_counter() - start   # includes graph_of's one build for ``fresh``
        best_build = build_s if best_build is None else min(best_build, build_s)
        best_rules = rules_s if best_rules is None else min(best_rules, rules_s)
    total = best_build + best_rules
    return {"hosts": len(views), "edges": edges, "build_s": round(best_build, 3), "rules_s": round(best_rules, 3),
            "total_s": round(total, 3), "us_per_edge": round(1e6 * total / edges, 1), "findings": found,
            "expected_findings": len(expected)}


def table(rows) -> str:
    lines = ["| hosts | edges | build s | rules s | total s | µs per edge | findings (seeded) |",
             "|---|---|---|---|---|---|---|"]
    lines += ["| %(hosts)d | %(edges)d | %(build_s).3f | %(rules_s).3f | %(total_s).3f | %(us_per_edge).1f | "
              "%(findings)d (%(expected_findings)d) |" % row for row in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--hosts", type=int, nargs="+", default=[250, 500, 1000, 2000], help="fleet sizes (hosts)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size, the best kept (default 3)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    rows = [measure(hosts, args.repeat) for hosts in args.hosts]
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    missed = [row for row in rows if row["findings"] != row["expected_findings"]]
    if missed:
        print("graph bench: the seeded findings were not all found: %s" % missed, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
