"""scripts/matrix_venv.sh: a matrix leg whose Python is missing fails at once, naming what it looked for; never skipped.

Runs the script with a PATH, HOME and PYENV_ROOT in which no Python 3.12/3.13 exists (nothing is installed:
the script stops before making a venv), and with an override that is not the wanted version.
"""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "matrix_venv.sh"
# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("bash",)


def run(tmp_path, core, **extra):
    (tmp_path / "bin").mkdir(exist_ok=True)
    env = {"PATH": "%s:/usr/bin:/bin" % (tmp_path / "bin"), "HOME": str(tmp_path), "PYENV_ROOT": str(tmp_path / "pyenv")}
    env.update(extra)
    return subprocess.run(["bash", str(SCRIPT), core], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False, timeout=60)


@pytest.mark.skipif(any(os.path.exists("/usr/local/bin/python%s" % v) or os.path.exists("/usr/bin/python%s" % v)
                        for v in ("3.12", "3.13")), reason="this machine has a system-wide Python 3.12/3.13")
@pytest.mark.parametrize("core, version", [("2.20", "3.12"), ("2.21", "3.13")])
def test_a_missing_interpreter_fails_the_leg_naming_what_was_looked_for(tmp_path, core, version):
    res = run(tmp_path, core)
    assert res.returncode == 1
    assert "the ansible-core %s leg needs Python %s on the controller, and none was found" % (core, version) in res.stderr
    assert "TUNNELFIX_PYTHON_%s" % version.replace(".", "_") in res.stderr and "pyenv install %s" % version in res.stderr


def test_an_override_that_is_not_the_wanted_version_is_refused_naming_it(tmp_path):
    res = run(tmp_path, "2.21", TUNNELFIX_PYTHON_3_13="/usr/bin/python3")
    assert res.returncode == 1
    assert "TUNNELFIX_PYTHON_3_13=/usr/bin/python3 is not a working Python 3.13" in res.stderr


def test_an_unknown_release_is_refused(tmp_path):
    res = run(tmp_path, "2.18")
    assert res.returncode == 2 and "no matrix leg for ansible-core '2.18'" in res.stderr
