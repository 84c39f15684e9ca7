# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fleet whose inventory names no hub (issue 30): diagnose and verify run to the end, and what needs a hub is not_checked.

One inventory host, lnx-02: the controller itself over the local connection (its facts are read, whatever they
are; no traffic leaves the machine). It is a peer with no tunnelfix_tunnel_hub, so nothing can be measured on its
tunnel. diagnose measures nothing there and says why; verify re-reads its facts, re-runs the rules and ends a
finding whose rule needs that measurement not_checked with the rule's reason, failing no host for it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
LOCAL = ("all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
         "        lnx-02: {ansible_connection: local, ansible_python_interpreter: %s}\n" % sys.executable)
NO_HUB = "no tunnelfix_tunnel_hub: a peer without a hub in the inventory has nothing to measure its tunnel against"
# A finding diagnose could have made with a hub (a socket buffer below the path's BDP at a measured RTT): the fix's
# proof needs a measured RTT again, which a hub-less peer cannot give.
PLANTED = {"id": "buffer_below_bdp", "severity": "medium", "host": "lnx-02", "fix_role": "tunnelfix.fleet.linux_bbr_fq",
           "evidence": {"sysctl": "net.ipv4.tcp_wmem", "max_bytes": 4194304, "bdp_bytes": 9000000,
                        "path_bits_per_second": 4e7, "rtt_ms": 1800},
           "explanation": "A planted finding."}


def run(tmp_path, playbook, *extra, inventory=LOCAL):
    (tmp_path / "inventory.yml").write_text(inventory, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / playbook),
                           "-e", "tunnelfix_path_bits_per_second=40M", *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


def test_diagnose_without_a_hub_measures_nothing_and_says_why(tmp_path):
    res = run(tmp_path, "diagnose.yml")
    assert res.returncode == 0, res.stdout[-3000:]
    assert "needs tunnelfix_tunnel_hub" not in res.stdout
    checks = json.loads((tmp_path / "reports" / "findings.json").read_text(encoding="utf-8"))["checks"]["lnx-02"]
    assert checks["loss_sensitive_congestion_control"] == {"status": "not_checked", "reason": NO_HUB}
    assert checks["buffer_below_bdp"] == {"status": "not_checked", "reason": NO_HUB}


@pytest.mark.parametrize("extra", [(), ("-e", "tunnelfix_measure=false")])
def test_verify_without_a_hub_ends_what_needs_one_not_checked(tmp_path, extra):
    assert run(tmp_path, "diagnose.yml", *extra).returncode == 0
    path = tmp_path / "reports" / "findings.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["findings"].append(PLANTED)
    path.write_text(json.dumps(document), encoding="utf-8")
    res = run(tmp_path, "verify.yml", *extra)
    assert "needs tunnelfix_tunnel_hub" not in res.stdout, res.stdout[-3000:]
    outcomes = json.loads((tmp_path / "reports" / "outcomes.json").read_text(encoding="utf-8"))
    [planted] = [o for o in outcomes if o["id"] == "buffer_below_bdp"]
    assert (planted["outcome"], planted["rechecked"], planted["reason"]) == ("not_checked", False, NO_HUB)
    # the host fails only for a fixable finding still found on its fresh facts, never for the one not checked
    failed = [o["id"] for o in outcomes if o["fix_role"] and o["outcome"] in ("still_present", "new") and not o.get("left_alone")]
    assert res.returncode == (2 if failed else 0), res.stdout[-3000:]
    assert "buffer_below_bdp" not in res.stdout.split("PLAY [Fail the hosts", 1)[1].split("PLAY RECAP")[0]
    assert "verify not checked: the rule could not judge the host (hosts per reason):" in res.stdout
    # one line per outcome, finding id and reason, not one per host and finding (issue 30.3)
    shown = " ".join(res.stdout.split("TASK [Show each finding's outcome]", 1)[1].split("TASK [", 1)[0].split())
    assert "NOT_CHECKED buffer_below_bdp on 1 host: lnx-02: " + NO_HUB in shown and "item=" not in shown, shown
    assert "PLAY [Verify every peer against the thresholds]" in res.stdout
    if extra:   # facts only: no measuring play has a host
        assert "Measure idle ping" not in res.stdout and "Measure bursty" not in res.stdout


def test_a_limited_verify_judges_its_hosts_only(tmp_path):
    """A canary's verify: diagnose's findings of a host outside --limit are not called still present, and a note
    says how many such hosts findings.json names."""
    assert run(tmp_path, "diagnose.yml", "-e", "tunnelfix_measure=false").returncode == 0
    path = tmp_path / "reports" / "findings.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["findings"].append(dict(PLANTED, host="lnx-09"))
    path.write_text(json.dumps(document), encoding="utf-8")
    res = run(tmp_path, "verify.yml", "-e", "tunnelfix_measure=false", "--limit", "lnx-02,localhost",
              inventory=LOCAL + "        lnx-09: {ansible_host: 127.0.0.1, ansible_port: 1}\n")
    outcomes = json.loads((tmp_path / "reports" / "outcomes.json").read_text(encoding="utf-8"))
    assert "lnx-09" not in {o["host"] for o in outcomes}, outcomes
    assert "lnx-09" not in res.stdout.split("TUNNELFIX SUMMARY", 1)[1]
    assert "note: findings.json also names 1 host with findings a role fixes, outside this run (--limit)" in res.stdout
