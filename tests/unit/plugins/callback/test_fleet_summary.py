"""The callback tunnelfix.fleet.fleet_summary on a real ansible-playbook run (controller only: every host is local).

Three hosts: each notes the same notice, a role changes something on two of them, one host fails for real, one
failure is ignored and one rescued; localhost publishes a diagnose stage summary. The summary after the recap must
say each of these once, and leave out what the recap does not count as a failure.
"""

import json
import os
import sys
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
INVENTORY = """all:
  hosts:
    localhost: {ansible_connection: local}
  children:
    fleet:
      hosts:
        lnx-01: {ansible_connection: local}
        lnx-02: {ansible_connection: local}
        lnx-03: {ansible_connection: local}
"""
PLAYBOOK = """
- name: Fleet
  hosts: fleet
  gather_facts: false
  tasks:
    - name: Note
      ansible.builtin.set_fact:
        some_role_notices: ["net.core.default_qdisc does not exist in this network namespace"]
        some_role_count_notices: 3
    - name: Fix
      ansible.builtin.include_role:
        name: demo_fix
      when: inventory_hostname != 'lnx-02'
    - name: Ignored
      ansible.builtin.fail:
        msg: ignored failure
      ignore_errors: true
    - name: Rescued
      when: inventory_hostname == 'lnx-01'
      block:
        - name: Fail in a block
          ansible.builtin.fail:
            msg: rescued failure
      rescue:
        - name: Rescue
          ansible.builtin.debug:
            msg: rescued
    - name: Break lnx-03
      ansible.builtin.fail:
        msg: "lnx-03 broke: the reason\\nand a second line"
      when: inventory_hostname == 'lnx-03'

- name: Controller
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Publish
      ansible.builtin.set_fact:
        tunnelfix_run_summary: "{{ document | tunnelfix.fleet.run_summary('diagnose') }}"
      vars:
        document:
          format: tunnelfix.findings/2
          hosts: [lnx-01, lnx-02, lnx-03]
          checks: {}
          findings:
            - {host: lnx-01, id: some_fault, severity: high, fix_role: tunnelfix.fleet.linux_bbr_fq, explanation: x}
            - {host: lnx-03, id: some_fault, severity: high, fix_role: tunnelfix.fleet.linux_bbr_fq, explanation: x}
"""


def run(tmp_path, *extra, **env_extra):
    (tmp_path / "inventory.yml").write_text(INVENTORY, encoding="utf-8")
    (tmp_path / "play.yml").write_text(PLAYBOOK, encoding="utf-8")
    role = tmp_path / "roles" / "demo_fix" / "tasks"
    role.mkdir(parents=True, exist_ok=True)
    (role / "main.yml").write_text("- name: Change something\n  ansible.builtin.debug:\n    msg: changed\n  changed_when: true\n",
                                   encoding="utf-8")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", **env_extra,
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", "play.yml", *extra], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=300)


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    return run(tmp_path_factory.mktemp("real"))


def _summary(res):
    assert "TUNNELFIX SUMMARY" in res.stdout, res.stdout[-3000:] + res.stderr[-2000:]
    return res.stdout.split("TUNNELFIX SUMMARY", 1)[1].splitlines()[1:]


def test_the_summary_comes_after_the_recap(real_run):
    assert real_run.returncode == 2
    assert real_run.stdout.index("PLAY RECAP") < real_run.stdout.index("TUNNELFIX SUMMARY")


def test_it_names_hosts_per_finding_id_and_changes_per_role(real_run):
    lines = _summary(real_run)
    assert "diagnose found (hosts per finding id):" in lines
    assert "  some_fault: 2 hosts: lnx-01, lnx-03" in lines
    assert "  demo_fix: 2 hosts: lnx-01, lnx-03" in lines


def test_it_names_the_failed_host_with_task_and_first_line_only(real_run):
    lines = _summary(real_run)
    assert "failed: 1 host: lnx-03" in lines
    assert "  lnx-03: [Break lnx-03] lnx-03 broke: the reason" in lines
    text = "\n".join(lines)
    assert "ignored failure" not in text and "rescued failure" not in text and "second line" not in text


def test_a_notice_of_many_hosts_is_printed_once_with_them(real_run):
    lines = _summary(real_run)
    notices = [line for line in lines if "default_qdisc" in line]
    assert notices == ["  net.core.default_qdisc does not exist in this network namespace (3 hosts: lnx-[01:03])"]


def test_the_next_commands_keep_the_inventory_and_the_playbook_form(real_run):
    lines = _summary(real_run)
    assert "next: fix what failed above, then run again on those hosts: " \
           "ansible-playbook -i inventory.yml --limit lnx-03,localhost play.yml" in lines
    assert any(line.startswith("next for the others: ansible-playbook -i inventory.yml remediate.yml --check --diff")
               for line in lines), lines


def test_check_mode_says_would_change(tmp_path):
    lines = _summary(run(tmp_path, "--check"))
    assert "would change (check mode), per role:" in lines


def test_a_json_stdout_stays_one_json_document(tmp_path):
    res = run(tmp_path, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json")
    assert "TUNNELFIX SUMMARY" not in res.stdout
    json.loads(res.stdout)


def test_without_the_callback_enabled_nothing_is_added(tmp_path):
    res = run(tmp_path, ANSIBLE_CALLBACKS_ENABLED="ansible.posix.profile_tasks")
    assert "PLAY RECAP" in res.stdout and "TUNNELFIX SUMMARY" not in res.stdout
