# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""path_mtu_measure records the phase diagnose and verify give every fault's measuring role (tunnelfix_measure_phase),
over its own path_mtu_measure_phase, which still sets it where a play runs the role directly; through ansible-playbook.

One inventory host, the controller itself over the local connection, with no facts gathered: the role finds no tunnel,
sends no ping and records an empty measurement of its phase (no traffic leaves the machine).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
# (the play's vars, the phase the record must have)
CASES = [
    ({}, "before"),
    ({"path_mtu_measure_phase": "after"}, "after"),
    ({"tunnelfix_measure_phase": "after", "path_mtu_measure_phase": "before"}, "after"),
    ({"tunnelfix_measure_phase": "before", "path_mtu_measure_phase": "after"}, "before"),
]
PLAY = """
- name: Case %(case)d
  hosts: lnx-02
  gather_facts: false
  tasks:
    - name: Run the registry's measuring roles as diagnose and verify do
      ansible.builtin.include_role:
        name: "{{ __role }}"
      vars: %(vars)s
      loop: "{{ query('tunnelfix.fleet.measuring_roles') | select('equalto', 'tunnelfix.fleet.path_mtu_measure') }}"
      loop_control:
        loop_var: __role
    - name: Show the phase
      ansible.builtin.debug:
        msg: "case %(case)d recorded {{ path_mtu_measure_record.phase }}"
"""


def test_the_common_phase_wins_and_the_roles_own_option_still_works(tmp_path):
    (tmp_path / "inventory.yml").write_text(
        "all:\n  hosts:\n    lnx-02: {ansible_connection: local, ansible_python_interpreter: %s}\n" % sys.executable, encoding="utf-8")
    plays = "".join(PLAY % {"case": case, "vars": repr(play_vars) if play_vars else "{}"} for case, (play_vars, _phase) in enumerate(CASES))
    (tmp_path / "phase.yml").write_text(plays, encoding="utf-8")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    done = subprocess.run(["ansible-playbook", "-i", "inventory.yml", "phase.yml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.findall(r"case (\d) recorded (\w+)", done.stdout) == [(str(case), phase) for case, (_vars, phase) in enumerate(CASES)]
