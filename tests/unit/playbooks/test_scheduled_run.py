# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shipped tunnelfix-verify.service, run as systemd would run it (docs/continuous.md), on a fleet without a hub.

The service's own ExecStart, Environment and WorkingDirectory are read from the unit; its paths are moved into
a temporary directory (/var/lib/tunnelfix -> work, /etc/tunnelfix -> etc) and its venv is the test's own. The
ansible.cfg is the one docs/continuous.md shows; the collection is this repository, linked where that file's
collections_path points. No other Ansible setting reaches the run: the environment is only what the unit sets,
plus HOME. The one host is the controller over the local connection, a peer with no tunnelfix_tunnel_hub; its
textfile goes to a temporary directory (the one -e the test adds).
"""

import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
UNIT = REPO / "roles" / "prometheus_textfile" / "files" / "tunnelfix-verify.service"
DOC = REPO / "docs" / "continuous.md"


def _unit():
    """``(exec_words, environment, working_directory)`` of the shipped service (continuation lines joined)."""
    text = re.sub(r"\\\n\s*", " ", UNIT.read_text(encoding="utf-8"))
    settings = re.findall(r"^(\w+)=(.*)$", text, re.M)
    env = dict(value.split("=", 1) for key, value in settings if key == "Environment")
    [exec_start] = [value for key, value in settings if key == "ExecStart"]
    [workdir] = [value for key, value in settings if key == "WorkingDirectory"]
    return shlex.split(exec_start), env, workdir


def _doc_ansible_cfg():
    [block] = re.findall(r"```ini\n# /etc/tunnelfix/ansible.cfg\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return block


def _moved(text, tmp_path):
    return text.replace("/var/lib/tunnelfix", str(tmp_path / "work")).replace("/etc/tunnelfix", str(tmp_path / "etc"))


def run_service(tmp_path, with_unit_env=True):
    words, env, workdir = _unit()
    for name in ("work", "etc", "home"):
        (tmp_path / name).mkdir(exist_ok=True)
    (tmp_path / "etc" / "ansible.cfg").write_text(_moved(_doc_ansible_cfg(), tmp_path), encoding="utf-8")
    (tmp_path / "etc" / "inventory.yml").write_text(
        "all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
        "        lnx-02: {ansible_connection: local, ansible_python_interpreter: %s}\n" % sys.executable, encoding="utf-8")
    link = tmp_path / "work" / "collections" / "ansible_collections" / "tunnelfix" / "fleet"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        link.symlink_to(REPO)
    run_env = {key: _moved(value, tmp_path) for key, value in env.items()} if with_unit_env else {}
    # the unit's venv is the test's own interpreter's
    run_env["PATH"] = "%s:/usr/bin:/bin" % Path(sys.executable).parent
    run_env["HOME"] = str(tmp_path / "home")
    assert words[0] == "/usr/bin/env"
    argv = [_moved(word, tmp_path) for word in words[1:]] + ["-e", "prometheus_textfile_dir=%s" % (tmp_path / "textfile")]
    return subprocess.run(argv, cwd=_moved(workdir, tmp_path), env=run_env, capture_output=True, text=True,
                          check=False, timeout=300)


def test_the_units_command_writes_the_textfile_on_a_hubless_fleet(tmp_path):
    res = run_service(tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    prom = tmp_path / "textfile" / "tunnelfix.prom"
    assert prom.read_text(encoding="utf-8").startswith("# tunnelfix.fleet prometheus_textfile")
    assert "TUNNELFIX SUMMARY" in res.stdout   # the summary callback came from the ansible.cfg the unit names
    assert (tmp_path / "work" / "reports" / "outcomes.json").is_file()


def test_without_the_units_ansible_config_the_run_finds_no_collection(tmp_path):
    res = run_service(tmp_path, with_unit_env=False)
    assert res.returncode != 0 and not (tmp_path / "textfile" / "tunnelfix.prom").exists()
    assert "tunnelfix.fleet.verify" in res.stdout + res.stderr
