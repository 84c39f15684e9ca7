# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""diagnose.yml on fleets without a hub, and limited runs: no warnings about empty groups, only the run's hosts judged.

Runs ansible-playbook on the controller against two inventory hosts: lnx-01, whose SSH port on 127.0.0.1
is closed (unreachable: diagnose must report it not_checked with the reason), and lnx-02, the controller
itself over the local connection (its facts are read, whatever they are; no traffic leaves the machine).
Ansible stops a run whose batch is all unreachable, so one host must answer.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PEERS_ONLY = ("all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
              "        lnx-01: {ansible_host: 127.0.0.1, ansible_port: 1}\n        lnx-02: {ansible_connection: local}\n")


def diagnose(tmp_path, inventory, *extra):
    (tmp_path / "inventory.yml").write_text(inventory, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / "diagnose.yml"), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


def test_no_hub_and_no_router_group_gives_no_pattern_warning(tmp_path):
    res = diagnose(tmp_path, PEERS_ONLY, "-e", "tunnelfix_measure=false")
    assert "Could not match supplied host pattern" not in res.stdout + res.stderr, res.stderr[-2000:]
    doc = json.loads((tmp_path / "reports" / "findings.json").read_text(encoding="utf-8"))
    assert doc["hosts"] == ["lnx-01", "lnx-02"] and not [f for f in doc["findings"] if f["host"] == "lnx-01"]
    reasons = {entry["reason"] for entry in doc["checks"]["lnx-01"].values()}
    assert len(reasons) == 1 and reasons.pop().startswith("no facts were read from this host in this run: ")
    assert {entry["status"] for entry in doc["checks"]["lnx-01"].values()} == {"not_checked"}
    assert "of the 2 host(s) of this run (lnx-01, lnx-02)" in res.stdout
    # facts only, no hub: the faults that need a measurement or the hub say so on the host that was read
    lnx02 = doc["checks"]["lnx-02"]
    assert lnx02["nat_peer_without_keepalive"] == {
        "status": "not_checked", "reason": "no tunnelfix_tunnel_hub: the hub's public key tells which peer entry is the hub's"}


def test_a_limited_run_judges_exactly_its_hosts(tmp_path):
    res = diagnose(tmp_path, PEERS_ONLY, "-e", "tunnelfix_measure=false", "--limit", "lnx-02,localhost")
    doc = json.loads((tmp_path / "reports" / "findings.json").read_text(encoding="utf-8"))
    assert doc["hosts"] == ["lnx-02"] and list(doc["checks"]) == ["lnx-02"]
    assert "lnx-01" not in res.stdout.split("PLAY [Findings]", 1)[1]


def test_a_hub_that_is_no_inventory_host_is_named(tmp_path):
    inventory = PEERS_ONLY.replace("ansible_port: 1}", "ansible_port: 1, tunnelfix_tunnel_address: 10.0.0.9, tunnelfix_tunnel_hub: hbu-01}")
    res = diagnose(tmp_path, inventory, "-e", "tunnelfix_facts_skip=true")
    assert res.returncode != 0, res.stdout[-3000:]
    assert 'needs tunnelfix_tunnel_hub' in res.stdout and 'got tunnelfix_tunnel_hub="hbu-01"' in res.stdout, res.stdout[-3000:]
    assert "Could not match supplied host pattern" not in res.stdout + res.stderr
