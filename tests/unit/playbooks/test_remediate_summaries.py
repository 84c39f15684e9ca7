# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""remediate.yml's summary under a --limit and after a failed canary (issue 30.3): it counts the hosts of this run, and
after a failure proposes the failed host again, never a real or wider run.

ansible-playbook on the controller against peers whose SSH port on 127.0.0.1 is closed (nothing is reached): each has
a finding a role fixes, so the fixing play tries them and they fail (unreachable), as a canary that breaks would.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PEERS = ["lnx-%02d" % n for n in range(1, 7)]
INVENTORY = "all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n" + "".join(
    "        %s: {ansible_host: 127.0.0.1, ansible_port: 1}\n" % host for host in PEERS)
FINDINGS = [{"host": host, "id": "buffer_below_bdp", "severity": "medium", "fix_role": "tunnelfix.fleet.linux_bbr_fq",
             "evidence": {}, "explanation": "x"} for host in PEERS]


def remediate(tmp_path, *extra):
    (tmp_path / "inventory.yml").write_text(INVENTORY, encoding="utf-8")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "findings.json").write_text(json.dumps(FINDINGS), encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / "remediate.yml"), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


def summary(res):
    assert "TUNNELFIX SUMMARY" in res.stdout, res.stdout[-3000:] + res.stderr[-2000:]
    return res.stdout.split("TUNNELFIX SUMMARY", 1)[1].splitlines()[1:]


def test_the_counts_are_of_the_hosts_in_this_run(tmp_path):
    res = remediate(tmp_path, "--check", "--limit", "lnx-01,lnx-02,localhost")
    lines = summary(res)
    assert "  buffer_below_bdp: 2 hosts: lnx-01, lnx-02" in lines, lines
    assert "note: findings.json also names 4 hosts with findings a role fixes, outside this run (--limit): not counted above" in lines
    assert not any("6 hosts" in line for line in lines)
    assert "roles from the findings: 2 host(s) get a role: lnx-01, lnx-02" in res.stdout


@pytest.mark.parametrize("extra", [("--check", "-e", "tunnelfix_canary=1"), ("--limit", "lnx-01,localhost")])
def test_a_failed_canary_gets_itself_again_never_a_real_or_wider_run(tmp_path, extra):
    res = remediate(tmp_path, *extra)
    check = "--check" in extra
    lines = summary(res)
    nexts = [line for line in lines if line.startswith("next")]
    assert nexts[0].startswith("next: fix what failed above, then run again on those hosts: ansible-playbook -i inventory.yml "
                               "--limit lnx-01,localhost "), nexts
    assert nexts[0].endswith("remediate.yml -e tunnelfix_canary=1 --check --diff" if check else "remediate.yml")
    # the canary run chose 6 hosts (the others never ran, so nothing is listed to apply); --limit lnx-01: no other host
    assert nexts[1:] == (["next for the others: nothing yet; once the failed hosts pass, run the same check on them "
                          "(nothing above lists a change for them yet)"] if check else []), nexts
    assert "lnx-02" not in res.stdout.split("PLAY [Apply the fixes]", 1)[1].split("PLAY RECAP", 1)[0]   # the canary stopped it
