"""playbooks/remediate.yml with a finding whose fix is opt-in (udp_gro_forwarding_off, issue 17.9): left alone and said,
unless the host opts in. Runs ansible-playbook against one host whose SSH port on 127.0.0.1 is closed (nothing is reached)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
INVENTORY = "all:\n  children:\n    tunnelfix_wireguard_hubs:\n      hosts:\n        nohost: {ansible_host: 127.0.0.1, ansible_port: 1}\n"
FINDING = ('[{"host": "nohost", "id": "udp_gro_forwarding_off", "severity": "low", "fix_role": "tunnelfix.fleet.udp_gro_forwarding",'
           ' "fix_vars": {"udp_gro_forwarding_device": "eth0"}, "evidence": {"nic": "eth0"}, "explanation": "x"}]')


def remediate(tmp_path, *extra):
    (tmp_path / "inventory.yml").write_text(INVENTORY, encoding="utf-8")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "findings.json").write_text(FINDING, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / "remediate.yml"), "--check", *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


@pytest.mark.parametrize("extra, runs", [((), False), (("-e", "udp_gro_forwarding_enable=true"), True)])
def test_an_opt_in_fix_runs_only_where_the_host_opts_in(tmp_path, extra, runs):
    res = remediate(tmp_path, *extra)
    out = res.stdout.replace("\n        ", " ")
    fixing = res.stdout.split("PLAY [Apply the fixes]", 1)[1].split("PLAY RECAP", 1)[0]
    if runs:
        assert "tunnelfix.fleet.udp_gro_forwarding: runs on 1: nohost" in out, res.stdout[-3000:]
        assert "nohost" in fixing
    else:
        assert ("tunnelfix.fleet.udp_gro_forwarding: skipped on 1 (left alone: udp_gro_forwarding_enable is not true for this "
                "host (an opt-in fix: set it in the inventory or with -e udp_gro_forwarding_enable=true to apply it)): nohost") in out, \
            res.stdout[-3000:]
        assert "nohost" not in fixing and res.returncode == 0
        summary = res.stdout.split("TUNNELFIX SUMMARY", 1)[1]
        assert "findings left alone" in summary and "udp_gro_forwarding_off: 1 host: nohost" in summary


@pytest.mark.parametrize("persist, said", [("false", True), ("true", False), (None, False)])
def test_a_change_without_its_hook_is_said_to_be_runtime_only(tmp_path, persist, said):
    """Issue 30.4: udp_gro_forwarding_persist=false keeps the change until reboot; remediate's role choice says so, per host."""
    extra = ("-e", "udp_gro_forwarding_enable=true") + (("-e", "udp_gro_forwarding_persist=%s" % persist) if persist else ())
    out = remediate(tmp_path, *extra).stdout.replace("\n        ", " ")
    line = "  runtime only: lost at reboot (udp_gro_forwarding_persist=false) on 1: nohost"
    assert (line in out) is said and "tunnelfix.fleet.udp_gro_forwarding: runs on 1: nohost" in out, out[-3000:]


def test_a_failed_opt_in_check_on_the_only_host_names_no_others_and_no_empty_list(tmp_path):
    """remediate --check --diff -e udp_gro_forwarding_enable=true --limit one-host,localhost failing on that host: no
    'next for the others' (the run had none) and no 'apply the changes listed above' under 'nothing' (issue 30.3)."""
    res = remediate(tmp_path, "--diff", "-e", "udp_gro_forwarding_enable=true", "--limit", "nohost,localhost")
    lines = res.stdout.split("TUNNELFIX SUMMARY", 1)[1].splitlines()
    assert "unreachable: 1 host: nohost" in lines and "would change (check mode): nothing" in lines, lines
    assert not [line for line in lines if "others" in line or "listed above" in line], lines
    assert [line for line in lines if line.startswith("next")] == [
        "next: fix what failed above, then run again on those hosts: ansible-playbook -i inventory.yml --limit nohost,localhost "
        "%s -e udp_gro_forwarding_enable=true --check --diff" % (REPO / "playbooks" / "remediate.yml")]
