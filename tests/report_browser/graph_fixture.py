# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write fixtures/findings.json: the committed findings plus diagnose's tunnel graph of a small fleet (fake keys).

Usage (from the repository root): PYTHONPATH=.cache/collections .venv/bin/python tests/report_browser/graph_fixture.py

Seven hosts, every state of an entry: hub <-> peer healthy, hub <-> site-stale stale (handshake 900 s ago),
hub <-> site-dead dead (nothing received), owrt -> hub one-sided (the hub has no entry for it), clone-a and clone-b
share a key (the hub's entry for it in conflict). The graph's findings join the list; the other findings are kept.
"""

import importlib.util
import json
from pathlib import Path

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FINDINGS_FORMAT, diagnosis
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import FINDING_STATES

HERE = Path(__file__).parent
_SPEC = importlib.util.spec_from_file_location("tg", HERE.parent / "unit/plugins/plugin_utils/faults/tunnel_graph/conftest.py")
tg = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tg)
STALE, DEAD, DUP = ("STALESTALESTALESTALESTALESTALESTALESTALESTA=", "DEADDEADDEADDEADDEADDEADDEADDEADDEADDEADDEA=",
                    "DUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPDUPD=")


def views():
    ep = {tg.HUB: "203.0.113.1:51820"}
    return {
        "hub": tg.linux(tg.HUB, [tg.PEER, STALE, DEAD, DUP], ages={tg.PEER: 10, STALE: 900, DUP: 5},
                        counters={tg.PEER: (10, 20), STALE: (10, 20), DEAD: (148, 0), DUP: (1, 1)}),
        "peer": tg.linux(tg.PEER, [tg.HUB], endpoints=ep, ages={tg.HUB: 10}, counters={tg.HUB: (20, 10)}),
        "site-stale": tg.linux(STALE, [tg.HUB], endpoints=ep, ages={tg.HUB: 900}, counters={tg.HUB: (20, 10)}),
        "site-dead": tg.linux(DEAD, [tg.HUB], endpoints=ep, counters={tg.HUB: (148, 0)}),
        "owrt": tg.owrt(tg.OWRT, [tg.HUB], endpoints=ep, counters={tg.HUB: (148, 0)}),
        "clone-a": tg.linux(DUP, [tg.HUB], endpoints=ep, ages={tg.HUB: 5}, counters={tg.HUB: (1, 1)}),
        "clone-b": tg.linux(DUP, [tg.HUB], endpoints=ep, listen_port=51821, ages={tg.HUB: 5}, counters={tg.HUB: (1, 1)}),
    }


def main():
    path = HERE / "fixtures/findings.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    kept = [f for f in (old["findings"] if isinstance(old, dict) else old) if f["id"] not in FINDING_STATES]
    document = diagnosis(views())
    graph_findings = [f for f in document["findings"] if f["id"] in FINDING_STATES]
    out = {"format": FINDINGS_FORMAT, "findings": kept + graph_findings, "tunnel_graph": document["tunnel_graph"]}
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
