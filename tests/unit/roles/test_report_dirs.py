# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the measuring roles write their reports: one directory with diagnose, verify and report.yml.

diagnose, verify and report.yml read measurements-*.json, health-checks-*.json and sweep-*.json from
tunnel_measure_report_dir (default reports/ under the run directory). The health-check and sweep roles write theirs
to their own *_report_dir; set only tunnel_measure_report_dir (docs/report.md's "-e tunnel_measure_report_dir=/path")
and they must follow it, or verify reads no health-checks-before.json (its allowance falls to 0 pings) and the
report has no health-check or sweep rows. Rendered by ansible-playbook on localhost (the roles' tasks skipped).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PLAY = """
- hosts: localhost
  gather_facts: false
  roles:
    - {role: tunnelfix.fleet.tunnel_measure, when: false}
    - {role: tunnelfix.fleet.health_check_measure, when: false}
    - {role: tunnelfix.fleet.tunnel_sweep, when: false}
  post_tasks:
    - ansible.builtin.copy:
        dest: "{{ playbook_dir }}/dirs.json"
        content: "{{ {'tunnel_measure': tunnel_measure_report_dir, 'health_check_measure': health_check_measure_report_dir,
                      'tunnel_sweep': tunnel_sweep_report_dir} | to_json }}"
        mode: "0644"
"""


def report_dirs(tmp_path, *extra):
    (tmp_path / "play.yml").write_text(PLAY, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    res = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=" + sys.executable,
                          "play.yml", *extra], cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=120)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    return json.loads((tmp_path / "dirs.json").read_text(encoding="utf-8"))


def test_every_measuring_role_writes_where_tunnel_measure_report_dir_says(tmp_path):
    assert report_dirs(tmp_path) == dict.fromkeys(("tunnel_measure", "health_check_measure", "tunnel_sweep"), str(tmp_path / "reports"))
    assert set(report_dirs(tmp_path, "-e", "tunnel_measure_report_dir=/srv/tunnelfix").values()) == {"/srv/tunnelfix"}
    # a role's own variable still wins
    assert report_dirs(tmp_path, "-e", "tunnel_measure_report_dir=/srv/tunnelfix", "-e", "tunnel_sweep_report_dir=/elsewhere") == {
        "tunnel_measure": "/srv/tunnelfix", "health_check_measure": "/srv/tunnelfix", "tunnel_sweep": "/elsewhere"}
