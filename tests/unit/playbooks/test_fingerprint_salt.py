# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/facts.yml makes the run's salt of the preshared key fingerprints once, on localhost, and gives it to every
host's facts task: one salt for every batch and every facts play of a run (both ends of a tunnel comparable), a new one
each run. Checked by running the salt task as facts.yml has it, in a scratch playbook over the local connection: three
hosts in batches of one, two plays, two runs."""

import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]


def _facts_play():
    (play,) = [play for play in yaml.safe_load((REPO / "playbooks" / "facts.yml").read_text(encoding="utf-8")) if "tasks" in play]
    return play


def test_the_facts_task_is_given_the_runs_salt():
    (task,) = _facts_play()["tasks"]
    assert task["tunnelfix.fleet.host_facts"]["fingerprint_salt"] == "{{ hostvars['localhost']['__tunnelfix_fingerprint_salt'] | default(omit) }}"


def test_one_salt_per_run_for_every_batch_and_play_and_a_new_one_next_run(tmp_path):
    (salt,) = [task for task in _facts_play()["pre_tasks"] if "__tunnelfix_fingerprint_salt" in task.get("ansible.builtin.set_fact", {})]
    assert salt["no_log"] is True and salt["run_once"] is True and salt["delegate_facts"] is True
    show = {"ansible.builtin.debug": {"msg": "salt={{ hostvars['localhost']['__tunnelfix_fingerprint_salt'] }}"}}
    playbook = [{"hosts": "fleet", "gather_facts": False, "serial": 1, "pre_tasks": [salt], "tasks": [show]},
                {"hosts": "fleet", "gather_facts": False, "pre_tasks": [salt], "tasks": [show]}]
    (tmp_path / "pb.yml").write_text(yaml.safe_dump(playbook), encoding="utf-8")
    (tmp_path / "inv.ini").write_text("[fleet]\n" + "".join("h%d ansible_connection=local\n" % n for n in range(3)), encoding="utf-8")
    runs = []
    for _run in range(2):
        done = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "-i", "inv.ini", "pb.yml"], cwd=tmp_path,
                              capture_output=True, text=True, check=False, timeout=120,
                              env={"PATH": "/usr/bin:/bin", "ANSIBLE_STDOUT_CALLBACK": "default", "HOME": str(tmp_path)})
        assert done.returncode == 0, done.stdout + done.stderr
        runs.append(re.findall(r"salt=([0-9a-f]*)", done.stdout))
    assert [len(run) for run in runs] == [6, 6]
    assert all(len(set(run)) == 1 and len(run[0]) == 32 for run in runs)
    assert runs[0][0] != runs[1][0]
