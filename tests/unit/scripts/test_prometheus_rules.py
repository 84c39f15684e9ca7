# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The alert rules and their promtool tests are what scripts/prometheus_rules.py makes of the registry now;
the scheduled run's systemd units are valid and agree with the rules' interval."""

import configparser
import dataclasses
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive import handshakes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import Alert
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report import prometheus

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location("prometheus_rules", REPO / "scripts" / "prometheus_rules.py")
rules = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(rules)
UNITS = REPO / "roles" / "prometheus_textfile" / "files"
STALE = handshakes.STALE_HANDSHAKE_S


def test_the_committed_files_are_current(capsys):
    assert rules.main(["--check"]) == 0, capsys.readouterr().out


def _rules(registry_like):
    return yaml.safe_load(rules.render_rules(registry_like, prometheus, STALE))["groups"][0]["rules"]


def test_every_id_in_the_rules_comes_from_the_registry():
    text = (REPO / rules.RULES).read_text(encoding="utf-8")
    ids = set(re.findall(r'id[!=]~?"([^"]+)"', text))
    assert ids and ids <= {fault.id for fault in registry.FAULTS}


class _Changed:
    """The registry with another fault given an alert of its own, or every alert taken away."""

    def __init__(self, extra_alert=True):
        plain = next(f for f in registry.FAULTS if f.alert is None)
        self.plain = plain
        faults = []
        for fault in registry.FAULTS:
            if fault is plain and extra_alert:
                fault = dataclasses.replace(fault, alert=Alert(name="TunnelfixPlain", expr="{finding} > 0", summary="s"))
            elif not extra_alert:
                fault = dataclasses.replace(fault, alert=None)
            faults.append(fault)
        self.FAULTS = tuple(faults)


def test_a_faults_alert_joins_the_rules_and_leaves_the_generic_one():
    changed = _Changed()
    by_name = {rule["alert"]: rule for rule in _rules(changed)}
    assert by_name["TunnelfixPlain"]["expr"] == 'tunnelfix_findings{id="%s"} > 0' % changed.plain.id
    assert changed.plain.id in by_name["TunnelfixFinding"]["expr"]
    assert "TunnelfixPlain" not in {rule["alert"] for rule in _rules(registry)}


def test_without_any_own_alert_every_finding_raises_the_generic_one():
    by_name = {rule["alert"]: rule for rule in _rules(_Changed(extra_alert=False))}
    assert by_name["TunnelfixFinding"]["expr"] == "tunnelfix_findings > 0"
    assert "TunnelfixKeepaliveOffOnNatedPeer" not in by_name


def test_the_handshake_threshold_is_rejection_time_plus_the_interval():
    stale = {rule["alert"]: rule for rule in _rules(registry)}["TunnelfixWireGuardHandshakeStale"]
    assert "> %d)" % (STALE + rules.INTERVAL_S) in stale["expr"]


def test_no_rule_waits_with_for():
    """The file changes once per run; the rules file explains why a 'for' would only delay (its header)."""
    assert all("for" not in rule for rule in _rules(registry))


def test_every_rule_has_a_promtool_case_that_fires_and_one_that_stays_quiet():
    tests = yaml.safe_load((REPO / rules.TESTS).read_text(encoding="utf-8"))["tests"]
    checks = [check for test in tests for check in test["alert_rule_test"]]
    for rule in _rules(registry):
        outcomes = {bool(check["exp_alerts"]) for check in checks if check["alertname"] == rule["alert"]}
        assert outcomes == {True, False}, rule["alert"]


def _seconds(text):
    number, unit = re.fullmatch(r"(\d+)\s*(s|min|h)", text.strip()).groups()
    return int(number) * {"s": 1, "min": 60, "h": 3600}[unit]


def test_the_timer_runs_at_the_interval_the_rules_count_on():
    timer = configparser.ConfigParser(strict=False)
    timer.read(UNITS / "tunnelfix-verify.timer")
    assert _seconds(timer["Timer"]["OnUnitActiveSec"]) == rules.INTERVAL_S
    service = (UNITS / "tunnelfix-verify.service").read_text(encoding="utf-8")
    timeout = re.search(r"^TimeoutStartSec=(\d+)$", service, re.M)
    assert timeout and int(timeout.group(1)) < rules.INTERVAL_S


def test_the_service_runs_verify_only_with_the_switches_verify_reads():
    service = (UNITS / "tunnelfix-verify.service").read_text(encoding="utf-8")
    verify = (REPO / "playbooks" / "verify.yml").read_text(encoding="utf-8")
    assert "tunnelfix.fleet.verify " in service and "remediate" not in service.split("ExecStart=", 1)[1]
    for switch in re.findall(r"-e (\w+)=", service):
        assert switch in verify, switch


def test_systemd_accepts_the_units(tmp_path):
    for name in ("tunnelfix-verify.service", "tunnelfix-verify.timer"):
        shutil.copy(UNITS / name, tmp_path / name)
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(tmp_path / "tunnelfix-verify.timer"),
                             str(tmp_path / "tunnelfix-verify.service")], capture_output=True, text=True, check=False)
    # verify exits 0 on an unknown key and only says so: any line about our files is a failure
    assert result.returncode == 0 and "tunnelfix-verify" not in result.stdout + result.stderr, result.stderr


def test_systemd_analyze_would_see_a_typo(tmp_path):
    """The check above can fail: the same units with a misspelt key draw a line naming the file."""
    shutil.copy(UNITS / "tunnelfix-verify.service", tmp_path / "tunnelfix-verify.service")
    timer = (UNITS / "tunnelfix-verify.timer").read_text(encoding="utf-8").replace("OnUnitActiveSec", "OnUnitActivSec")
    (tmp_path / "tunnelfix-verify.timer").write_text(timer, encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(tmp_path / "tunnelfix-verify.timer")],
                            capture_output=True, text=True, check=False)
    assert "tunnelfix-verify.timer" in result.stderr
