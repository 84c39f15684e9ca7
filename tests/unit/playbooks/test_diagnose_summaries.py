# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""diagnose.yml's console output and end-of-run summary say what the next command will really do (issue 30.3).

ansible-playbook on the controller; nothing reaches any machine. Hosts whose facts a test needs carry them in the
inventory as ``tunnelfix_gathered_facts`` (what playbooks/facts.yml registers), with ``-e tunnelfix_facts_skip=true``
(the facts play then runs on no host) and ``-e tunnelfix_measure=false``; their SSH port on 127.0.0.1 is closed.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PEERS_ONLY = ("all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n"
              "        lnx-01: {ansible_host: 127.0.0.1, ansible_port: 1}\n        lnx-02: {ansible_connection: local}\n")
# A Tailscale exit node on 6.12 with rx-udp-gro-forwarding off on its default-route NIC: udp_gro_forwarding_off,
# whose fix is opt-in (udp_gro_forwarding_enable).
UDP_GRO = {"kernel_release": "6.12.48+deb13-amd64", "kernel_version": [6, 12, 48], "ip_forward": 1,
           "tunnels": {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UNKNOWN"}},
           "nics": [{"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"}, "through_tunnel": None,
                     "features": {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"},
                     "ethtool_error": None}],
           "ethtool_installed": True, "note": None}
FACTS = json.dumps({"ansible_facts": {"tunnelfix": {"udp_gro": UDP_GRO}}})
FACTS_ONLY = ("-e", "tunnelfix_facts_skip=true", "-e", "tunnelfix_measure=false")


def exit_nodes(count):
    hosts = "".join("        exit-%02d: {ansible_host: 127.0.0.1, ansible_port: 1, tunnelfix_gathered_facts: %s}\n" % (n, FACTS)
                    for n in range(1, count + 1))
    return "all:\n  children:\n    tunnelfix_wireguard_hubs:\n      hosts:\n" + hosts


def diagnose(tmp_path, inventory, *extra, callbacks=None):
    (tmp_path / "inventory.yml").write_text(inventory, encoding="utf-8")
    env = dict(os.environ, PWD=str(tmp_path), ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    if callbacks is not None:     # ansible.cfg enables tunnelfix.fleet.fleet_summary; this overrides it
        env["ANSIBLE_CALLBACKS_ENABLED"] = callbacks
    return subprocess.run(["ansible-playbook", "-i", "inventory.yml", str(REPO / "playbooks" / "diagnose.yml"), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)


def summary(res):
    assert "TUNNELFIX SUMMARY" in res.stdout, res.stdout[-3000:] + res.stderr[-2000:]
    return res.stdout.split("TUNNELFIX SUMMARY", 1)[1].splitlines()[1:]


def task_output(res, task):
    """The unwrapped text of one task's output (the yaml callback folds long lines)."""
    return " ".join(res.stdout.split("TASK [%s" % task, 1)[1].split("TASK [", 1)[0].split())


def test_an_opt_in_fix_not_opted_into_gets_no_remediate_proposal_but_its_variable(tmp_path):
    res = diagnose(tmp_path, exit_nodes(1), *FACTS_ONLY)
    doc = json.loads((tmp_path / "reports" / "findings.json").read_text(encoding="utf-8"))
    assert [f["id"] for f in doc["findings"]] == ["udp_gro_forwarding_off"], res.stdout[-3000:]
    advice = ("udp_gro_forwarding is opt-in: set udp_gro_forwarding_enable=true (in the inventory, or -e "
              "udp_gro_forwarding_enable=true) for 1 host: exit-01 to let remediate fix udp_gro_forwarding_off")
    lines = summary(res)
    assert lines[-2] == "next: nothing for remediate to run: " + advice, lines
    assert not any("remediate" in line and "ansible-playbook" in line for line in lines)
    console = task_output(res, "Summary (per fault")
    # one next step: the callback's (issue 30.3); the task points at it
    assert "next:" not in console and "next step and report: in the TUNNELFIX SUMMARY after the play recap" in console


def test_the_opt_in_given_with_e_is_proposed_and_carried(tmp_path):
    res = diagnose(tmp_path, exit_nodes(1), *FACTS_ONLY, "-e", "udp_gro_forwarding_enable=true")
    lines = summary(res)
    assert lines[-2] == ("next: ansible-playbook -i inventory.yml %s -e tunnelfix_facts_skip=true -e tunnelfix_measure=false "
                         "-e udp_gro_forwarding_enable=true --check --diff   # see what the fixes would change, then run it "
                         "without --check" % (REPO / "playbooks" / "remediate.yml")), lines
    # one next step in the run (issue 30.3): diagnose's Summary task prints none of its own, nor the report line
    console = task_output(res, "Summary (per fault")
    assert "next:" not in console and "for report.html" not in console and "note:" not in console, console
    assert [line for line in res.stdout.splitlines() if "next:" in line] == [lines[-2]]
    assert "report: %s/reports/findings.json; for report.html and before-after.md now: ansible-playbook %s (verify writes them " \
           "with the after side)" % (tmp_path, REPO / "playbooks" / "report.yml") in lines


def test_without_the_callback_the_task_prints_the_next_step_and_report_line(tmp_path):
    res = diagnose(tmp_path, exit_nodes(1), *FACTS_ONLY, "-e", "udp_gro_forwarding_enable=true", callbacks="ansible.posix.timer")
    assert "TUNNELFIX SUMMARY" not in res.stdout
    console = task_output(res, "Summary (per fault")
    assert "next: remediate.yml with the same inventory runs tunnelfix.fleet.udp_gro_forwarding" in console
    assert "for report.html and before-after.md now: ansible-playbook %s" % (REPO / "playbooks" / "report.yml") in console


def test_each_explanation_is_printed_once_per_finding_id_with_a_short_line_per_host(tmp_path):
    res = diagnose(tmp_path, exit_nodes(12), *FACTS_ONLY)
    shown = task_output(res, "Show the findings")
    assert "LOW udp_gro_forwarding_off (fix: tunnelfix.fleet.udp_gro_forwarding) on 12 hosts: exit-[01:12]" in shown
    assert shown.count("This host forwards") == 1 and shown.count("(as on exit-01)") == 1, shown
    assert "exit-12: nic=eth0 kernel_release=6.12.48+deb13-amd64 rx_udp_gro_forwarding=off rx_gro_list=off" in shown
    assert "full explanation and evidence: reports/findings.json" in shown


def test_a_limit_without_localhost_stops_diagnose_naming_the_limit_that_works(tmp_path):
    res = diagnose(tmp_path, PEERS_ONLY, "-e", "tunnelfix_measure=false", "--limit", "lnx-02")
    assert res.returncode == 2, res.stdout[-3000:]
    assert not (tmp_path / "reports" / "findings.json").exists()
    out = " ".join(res.stdout.split())
    assert "this run's --limit \"lnx-02\" leaves localhost out" in out and "Run with localhost in --limit: --limit lnx-02,localhost" in out
    assert "PLAY [Gather tunnel facts" not in res.stdout                     # stopped before any host was read
    assert summary(res)[-2] == ("next: localhost is not in --limit, so the controller's plays did not run; run again with it: "
                                "ansible-playbook -i inventory.yml --limit lnx-02,localhost %s -e tunnelfix_measure=false"
                                % (REPO / "playbooks" / "diagnose.yml"))


@pytest.mark.parametrize("limit", ["lnx-02,localhost", "localhost,lnx-02,localhost"])
def test_a_rejected_value_is_not_repeated_and_localhost_comes_once(tmp_path, limit):
    res = diagnose(tmp_path, PEERS_ONLY, "-e", "tunnelfix_measure=flase", "-e", "tunnelfix_sweep=false", "--limit", limit)
    assert res.returncode == 2
    nexts = [line for line in summary(res) if line.startswith("next")]
    # no runnable command: without the -e it would be a full measuring diagnose, not the facts-only pass meant (30.3)
    assert nexts == ["next: correct -e tunnelfix_measure (rejected above: must be true or false) and run the same command again"], nexts


def test_an_unreachable_hosts_reason_is_printed_once_not_once_per_fault(tmp_path):
    res = diagnose(tmp_path, PEERS_ONLY, "-e", "tunnelfix_measure=false")
    lines = summary(res)
    refused = [line for line in lines if "Connection refused" in line]
    assert len(refused) == 2, lines                                         # not checked: every fault; unreachable
    assert refused[0].startswith("  every fault (no facts were read from this host in this run: ")
    assert task_output(res, "Summary (per fault").count("Connection refused") == 1
