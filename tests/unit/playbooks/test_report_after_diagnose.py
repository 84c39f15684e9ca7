# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 30.4: diagnose.yml alone writes JSON only, says how to get the report, and report.yml then writes it, saying
why its before/after table is empty. One host, the controller over the local connection (its facts are read, nothing
leaves the machine), diagnose without measuring (-e tunnelfix_measure=false, as on a fleet without a hub)."""

import os
import subprocess
import sys
from pathlib import Path

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import NO_MEASUREMENT

REPO = Path(__file__).resolve().parents[3]
LOCAL = ("all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
         "        lnx-02: {ansible_connection: local, ansible_python_interpreter: %s}\n" % sys.executable)


def run(tmp_path, *args):
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", *args], cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
                          timeout=300)


def test_the_report_after_diagnose_alone(tmp_path):
    (tmp_path / "inventory.yml").write_text(LOCAL, encoding="utf-8")
    res = run(tmp_path, "-i", "inventory.yml", str(REPO / "playbooks" / "diagnose.yml"), "-e", "tunnelfix_measure=false")
    assert res.returncode == 0, res.stdout[-3000:]
    reports = tmp_path / "reports"
    assert sorted(path.name for path in reports.iterdir()) == ["findings.json"]        # JSON only: no page yet
    said = " ".join(res.stdout.split())
    assert "report: %s/findings.json; for report.html and before-after.md now: ansible-playbook %s" % (
        reports, REPO / "playbooks" / "report.yml") in said

    res = run(tmp_path, str(REPO / "playbooks" / "report.yml"))                        # the command it names
    assert res.returncode == 0, res.stdout[-3000:]
    markdown = (reports / "before-after.md").read_text(encoding="utf-8")
    assert markdown.startswith(NO_MEASUREMENT + "\n\nWhat diagnose.yml found") and "| host | test |" not in markdown
    assert '<p class="measurement-note">No measurement yet' in (reports / "report.html").read_text(encoding="utf-8")
