"""playbooks/remediate.yml without a findings file stops before any host is touched, unless asked to run all.

Runs ansible-playbook on the controller against one inventory host whose SSH port on 127.0.0.1 is
closed (nothing reaches any machine): the choice play on localhost decides before any fleet play.
"""

import os
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[3]
INVENTORY = "all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n        nohost: {ansible_host: 127.0.0.1, ansible_port: 1}\n"


def remediate(tmp_path, *extra, inventory=INVENTORY):
    (tmp_path / "inventory.yml").write_text(inventory, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / "remediate.yml"), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


def test_no_findings_file_stops_with_rc_2_naming_the_way_out(tmp_path):
    res = remediate(tmp_path)
    assert res.returncode == 2, res.stdout[-2000:]
    assert "no findings file %s/reports/findings.json" % tmp_path in res.stdout.replace("\n        ", " ")
    assert "tunnelfix_remediate_all_roles=true" in res.stdout
    assert "nohost" not in res.stdout.split("PLAY RECAP", 1)[1]      # no fleet host was even tried


def test_without_findings_the_next_command_is_diagnose_with_the_same_inventory_and_limit(tmp_path):
    """remediate again would fail the same way (issue 30.3)."""
    res = remediate(tmp_path, "--limit", "nohost,localhost")
    assert res.returncode == 2, res.stdout[-2000:]
    nexts = [line for line in res.stdout.split("TUNNELFIX SUMMARY", 1)[1].splitlines() if line.startswith("next")]
    assert nexts == ["next: ansible-playbook -i inventory.yml --limit nohost,localhost %s   # remediate needs diagnose's findings "
                     "(%s/reports/findings.json); then remediate with the same inventory" % (REPO / "playbooks" / "diagnose.yml", tmp_path)], nexts


def test_findings_let_it_go_on_without_reading_any_host(tmp_path):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "findings.json").write_text("[]", encoding="utf-8")
    res = remediate(tmp_path, "--check")
    assert "no finding names a role: nothing to change" in res.stdout
    facts_play = res.stdout.split("PLAY [Gather tunnel facts on routers, hubs and peers", 1)[1].split("PLAY [", 1)[0]
    assert "skipping: no hosts matched" in facts_play and "nohost" not in facts_play   # the default mode reads no facts


def test_the_every_role_opt_in_reads_each_hosts_facts_first(tmp_path):
    """Every-role mode: the facts the faults' plans read come first (here the host is unreachable: nothing further)."""
    res = remediate(tmp_path, "--check", "-e", "tunnelfix_remediate_all_roles=true")
    facts_play = res.stdout.split("PLAY [Gather tunnel facts on routers, hubs and peers", 1)[1].split("PLAY RECAP", 1)[0]
    assert "nohost" in facts_play and "UNREACHABLE" in facts_play
    assert "no findings file /" not in res.stdout


def test_a_host_without_a_finding_is_not_in_the_fixing_play(tmp_path):
    """Two hosts, a finding on one: the fixing play names only that one (the other costs nothing)."""
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "findings.json").write_text(
        '[{"host": "nohost", "id": "buffer_below_bdp", "severity": "medium", "fix_role": "tunnelfix.fleet.linux_bbr_fq",'
        ' "evidence": {}, "explanation": "x"}]', encoding="utf-8")
    inventory = INVENTORY + "        clean: {ansible_host: 127.0.0.1, ansible_port: 1}\n"
    res = remediate(tmp_path, "--check", inventory=inventory)
    fixing = res.stdout.split("PLAY [Apply the fixes]", 1)[1].split("PLAY RECAP", 1)[0]
    assert "nohost" in fixing and "clean" not in fixing, res.stdout[-3000:]
    assert "roles from the findings: 1 host(s) get a role: nohost" in res.stdout
    assert "tunnelfix.fleet.linux_bbr_fq: runs on 1: nohost" in res.stdout
    # The end summary (callback fleet_summary, enabled in ansible.cfg): per finding id, the unreachable host, next steps.
    summary = res.stdout.split("TUNNELFIX SUMMARY", 1)[1].splitlines()
    assert "  buffer_below_bdp: 1 host: nohost" in summary
    assert "unreachable: 1 host: nohost" in summary
    # after a failure in check mode: the failed host again in check mode, never the real run for the others (issue 30.3)
    assert any(line.startswith("next: fix what failed above, then run again on those hosts: ansible-playbook -i inventory.yml "
                               "--limit nohost,localhost ") and line.endswith("playbooks/remediate.yml --check --diff")
               for line in summary), summary
    assert not [line for line in summary if "others" in line], summary      # the run had no other host (issue 30.3)
    assert not [line for line in summary if "remediate.yml" in line and "--check" not in line], summary
