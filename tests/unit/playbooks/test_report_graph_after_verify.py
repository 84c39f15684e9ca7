# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report draws the tunnel graph as verify leaves it when verify ran (reports/tunnel-graph-after.json, written by
verify.yml from its own facts and findings), and diagnose's (findings.json's tunnel_graph) after diagnose alone, which
removes an older verify's. report.yml runs on the controller over files written here: a peer whose handshake never
completed before the fix (dead) and works after it (healthy)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.filter.tunnel_graph import FilterModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import graph_export
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import build_graph

REPO = Path(__file__).resolve().parents[3]
AFTER_FILE = "tunnel-graph-after.json"
EXPORT = FilterModule().filters()["tunnel_graph_export"]


HUB = "H" * 43 + "="     # fake keys
PEER = "P" * 43 + "="


def _linux(key, peer, endpoint, counters, age):
    """A Linux host's wireguard facts: wg0 with key ``key``, one running peer ``peer`` kept in its wg-quick file."""
    return {"tunnelfix": {"wireguard": {"available": True, "config_dirs": {}, "interfaces": {"wg0": {
        "public_key": key, "listen_port": 51820, "peers": [{
            "public_key": peer, "allowed_ips": ["10.77.0.0/24"], "endpoint_host": endpoint and endpoint.split(":")[0],
            "endpoint_port": endpoint and 51820, "handshake_age_s": age, "tx_bytes": counters[0], "rx_bytes": counters[1],
            "has_preshared_key": False, "persistent_keepalive_s": None}]}},
        "configs": [{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True, "addresses": None,
                     "peers": [{"public_key": peer, "endpoint": endpoint, "allowed_ips": ["10.77.0.0/24"]}]}]}}}


def _views(working):
    """hub and peer: the peer knocks and nothing comes back (before), or a handshake 10 s ago (after the fix)."""
    peer_counters, hub_counters, age = ((2000, 3000), (3000, 2000), 10) if working else ((1480, 0), (0, 0), None)
    return {"hub": _linux(HUB, PEER, None, hub_counters, age), "peer": _linux(PEER, HUB, "203.0.113.10:51820", peer_counters, age)}


def _states(graph):
    return sorted((edge["from"], edge["state"]) for edge in graph["edges"])


def test_the_export_filter_draws_the_views_it_is_given_with_their_findings():
    before, after = _views(False), _views(True)
    drawn = EXPORT(before, find_findings(before))
    assert _states(drawn) == [("hub/wg0", "dead"), ("peer/wg0", "dead")] and "phase" not in drawn
    assert "handshake_never_completes" in drawn["edges"][0]["findings"]
    drawn = EXPORT(after, find_findings(after), "after")
    assert _states(drawn) == [("hub/wg0", "healthy"), ("peer/wg0", "healthy")] and drawn["phase"] == "after"
    assert dict(drawn, phase=None) == dict(graph_export(build_graph(after), find_findings(after)), phase=None)


def plays(playbook):
    return yaml.safe_load((REPO / "playbooks" / playbook).read_text(encoding="utf-8"))


def test_verify_writes_its_graph_and_diagnose_removes_an_older_one():
    tasks = [task for play in plays("verify.yml") for task in play.get("tasks") or []]
    [write] = [task for task in tasks if AFTER_FILE in str(task.get("tunnelfix.fleet.plain_file", {}).get("path"))]
    assert "__verify_views | tunnelfix.fleet.tunnel_graph_export(tunnelfix_verify_after_findings, 'after')" in (
        write["tunnelfix.fleet.plain_file"]["content"])
    tasks = [task for play in plays("diagnose.yml") for task in play.get("tasks") or []]
    [remove] = [task for task in tasks if "rm -f" in str(task.get("ansible.builtin.raw"))]
    assert "__diagnose_report_dir ~ '/%s'" % AFTER_FILE in remove["ansible.builtin.raw"]


def _report(tmp_path, with_after):
    reports = tmp_path / "reports"
    reports.mkdir()
    before = _views(False)
    findings = find_findings(before)
    (reports / "findings.json").write_text(json.dumps({"findings": findings, "tunnel_graph": graph_export(build_graph(before), findings)}),
                                           encoding="utf-8")
    if with_after:
        after = _views(True)
        (reports / AFTER_FILE).write_text(json.dumps(EXPORT(after, find_findings(after), "after")), encoding="utf-8")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    res = subprocess.run(["ansible-playbook", str(REPO / "playbooks" / "report.yml"), "-e", "tunnel_measure_report_dir=%s" % reports],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:]
    return (json.loads((reports / "report.json").read_text(encoding="utf-8")), (reports / "report.html").read_text(encoding="utf-8"),
            (reports / "before-after.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize("with_after", [True, False])
def test_the_report_draws_verifys_graph_when_verify_ran_else_diagnoses(tmp_path, with_after):
    document, page, markdown = _report(tmp_path, with_after)
    graph = document["tunnel_graph"]
    if with_after:
        assert _states(graph) == [("hub/wg0", "healthy"), ("peer/wg0", "healthy")] and graph["phase"] == "after"
        assert 'class="tunnel healthy"' in page and 'class="tunnel dead"' not in page
        assert "As verify.yml read the hosts after the fix" in page
        assert "with a problem, as verify.yml read them after the fix (report.html draws the graph; reports/tunnel-graph-after.json" in (
            " ".join(markdown.split()))
    else:
        assert _states(graph) == [("hub/wg0", "dead"), ("peer/wg0", "dead")] and "phase" not in graph
        assert 'class="tunnel dead"' in page and "As verify.yml read" not in page
        assert "with a problem (report.html draws the graph; reports/findings.json's tunnel_graph has every entry)" in (
            " ".join(markdown.split()))
