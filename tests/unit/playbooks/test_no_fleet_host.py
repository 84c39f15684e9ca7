"""diagnose, remediate and verify stop (rc 2) when no host of the inventory is in the collection's groups.

A run on no fleet host would otherwise end "no finding": a false all-clear for an inventory that did not
parse or whose hosts are in other groups. ansible-playbook on the controller; nothing reaches any machine.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
OTHER_GROUPS = "all:\n  children:\n    routers:\n      hosts:\n        myrouter: {ansible_host: 127.0.0.1, ansible_port: 1}\n"


def run(tmp_path, playbook, inventory):
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", inventory, str(REPO / "playbooks" / playbook)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


@pytest.mark.parametrize("playbook", ["diagnose.yml", "remediate.yml", "verify.yml"])
def test_hosts_in_other_groups_stop_the_run_naming_the_groups(tmp_path, playbook):
    (tmp_path / "inventory.yml").write_text(OTHER_GROUPS, encoding="utf-8")
    res = run(tmp_path, playbook, "inventory.yml")
    out = " ".join(res.stdout.split())
    assert res.returncode == 2, res.stdout[-2000:]
    assert "no host of the inventory is in tunnelfix_openwrt, tunnelfix_wireguard_hubs, tunnelfix_wireguard_peers" in out
    assert "0 finding(s)" not in out and "myrouter" not in res.stdout.split("PLAY RECAP", 1)[1]


def test_an_inventory_that_did_not_parse_stops_diagnose(tmp_path):
    res = run(tmp_path, "diagnose.yml", "missing.yml")
    assert res.returncode == 2, res.stdout[-2000:]
    assert "no host of the inventory is in" in " ".join(res.stdout.split())
    assert not (tmp_path / "reports" / "findings.json").exists()
