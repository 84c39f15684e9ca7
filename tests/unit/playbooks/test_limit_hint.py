# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify and remediate stop on a --limit without localhost and name the --limit that works: pasted, that text must be
the operator's own pattern with localhost added, never shell (a quote or $(...) in a host pattern must not run).

One inventory host, lnx-02 (the controller over the local connection); --limit adds a pattern that matches no host and
carries a single quote and a command substitution. diagnose already quotes its hint (limit_with_localhost | quote).
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
LOCAL = ("all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
         "        lnx-02: {ansible_connection: local, ansible_python_interpreter: %s}\n" % sys.executable)
HOSTILE = "lnx-02,x'$(touch PWNED)'"


@pytest.mark.parametrize("playbook", ["diagnose.yml", "verify.yml", "remediate.yml"])
def test_the_limit_hint_pastes_as_the_pattern_with_localhost(tmp_path, playbook):
    (tmp_path / "inventory.yml").write_text(LOCAL, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    res = subprocess.run(["ansible-playbook", "-i", "inventory.yml", "--limit", HOSTILE, str(REPO / "playbooks" / playbook),
                          "-e", "tunnelfix_measure=false"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)
    assert res.returncode != 0
    [error] = [line for line in res.stdout.splitlines() if line.startswith("[ERROR]: Task failed")]
    hint = error.split("Run with localhost in --limit", 1)[1].split("--limit ", 1)[1]
    assert shlex.split(hint) == [HOSTILE + ",localhost"], error
    assert not (tmp_path / "PWNED").exists()
