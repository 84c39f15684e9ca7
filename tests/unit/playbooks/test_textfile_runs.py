# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The textfile switches of diagnose.yml and verify.yml, on the controller alone (docs/continuous.md).

diagnose with -e tunnelfix_prometheus_textfile=true writes the node_exporter textfile on every host of the
run, with diagnose's findings; without it, none. A switch the bool filter cannot read stops the run naming
it. Hosts as in test_diagnose_small_fleets.py: lnx-02 is the controller over the local connection (its facts
are read, whatever they are; no traffic leaves the machine); the textfile goes to a temporary directory.
verify.yml's floor and enforce expressions are rendered as Ansible renders them, on both sides.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

REPO = Path(__file__).resolve().parents[3]
# the modules run by the test's own interpreter (interpreter discovery may find a shim that does not work)
LOCAL = ("all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
         "        lnx-02: {ansible_connection: local, ansible_python_interpreter: %s}\n" % sys.executable)


def run(tmp_path, playbook, *extra):
    (tmp_path / "inventory.yml").write_text(LOCAL, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / playbook), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


@pytest.mark.parametrize("switch, written", [("true", True), ("false", False)])
def test_diagnose_writes_the_textfile_only_when_asked(tmp_path, switch, written):
    textdir = tmp_path / "node-exporter"
    res = run(tmp_path, "diagnose.yml", "-e", "tunnelfix_measure=false", "-e", "tunnelfix_prometheus_textfile=%s" % switch,
              "-e", "prometheus_textfile_dir=%s" % textdir)
    assert res.returncode == 0, res.stdout[-3000:]
    prom = textdir / "tunnelfix.prom"
    assert prom.is_file() is written
    if written:
        assert prom.read_text(encoding="utf-8").startswith("# tunnelfix.fleet prometheus_textfile")


@pytest.mark.parametrize("playbook, switch", [("diagnose.yml", "tunnelfix_prometheus_textfile"),
                                              ("verify.yml", "tunnelfix_prometheus_textfile"),
                                              ("verify.yml", "tunnelfix_verify_enforce")])
def test_a_switch_that_is_not_a_boolean_is_named(tmp_path, playbook, switch):
    res = run(tmp_path, playbook, "-e", "%s=maybe" % switch)
    assert res.returncode != 0 and '%s must be true or false, got "maybe"' % switch in res.stdout, res.stdout[-3000:]


def _verify_vars(name):
    """The expressions verify.yml passes to its roles as ``name``, read from the playbook."""
    plays = yaml.safe_load((REPO / "playbooks" / "verify.yml").read_text(encoding="utf-8"))
    found = [step.get("vars", {}).get(name) for play in plays for key in ("tasks", "roles") for step in play.get(key) or []
             if isinstance(step, dict) and name in (step.get("vars") or {})]
    assert found, name
    return found


def _render(expression, variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


@pytest.mark.parametrize("variables, floor", [
    ({"tunnel_measure_min_bits_per_second": "32M", "__verify_floor": {"min_bits_per_second": 2.5e7}}, "32M"),  # the inventory's wins
    ({"tunnel_measure_min_bits_per_second": "", "__verify_floor": {"min_bits_per_second": 2.5e7}}, 2.5e7),      # else the derived one
    ({"__verify_floor": {"min_bits_per_second": None}}, ""),                                                    # none derived
    ({}, ""),                                                                                                   # not a peer
])
def test_verify_writes_the_floor_tunnel_measure_held_the_peer_to(variables, floor):
    assert [_render(expr, variables) for expr in _verify_vars("prometheus_textfile_floor_bits_per_second")] == [floor]


@pytest.mark.parametrize("variables, enforce", [({}, True), ({"tunnelfix_verify_enforce": "false"}, False),
                                                ({"tunnelfix_verify_enforce": True}, True)])
def test_verify_enforces_unless_told_not_to(variables, enforce):
    expressions = _verify_vars("tunnel_measure_enforce") + _verify_vars("health_check_measure_enforce")
    assert [_render(expr, variables) for expr in expressions] == [enforce, enforce]
