# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tunnel_measure and tunnel_sweep measure in slots (issue 19.1), through ansible-playbook and real iperf3 flows.

Two hubs and four peers, every one the controller itself over the local connection; the hubs' and
peers' "tunnel addresses" are loopback addresses (127.0.0.0/8), so every flow stays on lo. The flows
of one slot start together, flows that share a hub one after the other; hubs in one bottleneck group
measure one flow at a time; a flow past the wait bound is recorded not measured, with no rate.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
# The host programs this file runs by name (scripts/check_host_packages.py): the roles run iperf3 and ping.
HOST_COMMANDS = ("iperf3", "ping")
DURATION_S = 3


def inventory(group=""):
    hub_vars = ", tunnelfix_bottleneck_group: %s" % group if group else ""
    lines = ["all:", "  vars:", "    ansible_connection: local", "    ansible_python_interpreter: %s" % sys.executable,
             "  children:", "    hubs:", "      hosts:"]
    lines += ["        hub-%s: {tunnelfix_tunnel_address: 127.0.0.%d%s}" % (name, 2 + i, hub_vars) for i, name in enumerate("ab")]
    lines += ["    peers:", "      hosts:"]
    lines += ["        peer-%d: {tunnelfix_tunnel_address: 127.0.0.%d, tunnelfix_tunnel_hub: hub-%s}" % (i, 10 + i, "ab"[i % 2])
              for i in range(4)]
    return "\n".join(lines) + "\n"


PLAYBOOK = """
- hosts: peers
  gather_facts: false
  roles:
    - role: tunnelfix.fleet.tunnel_measure
      vars:
        tunnel_measure_idle_s: 0
        tunnel_measure_ping_count: 1
        tunnel_measure_iperf3_duration_s: %(duration)d
        tunnel_measure_iperf3_omit_s: 0
        tunnel_measure_start_jitter_max_s: 0
        tunnel_measure_iperf3_port: 15201
        tunnel_measure_slot_seed: test-seed
        tunnel_measure_slot_wait_max_s: %(wait_max_s)d
        tunnel_measure_report_dir: "{{ playbook_dir }}/reports"
"""


def run(tmp_path, group="", wait_max_s=3600):
    (tmp_path / "inventory.yml").write_text(inventory(group), encoding="utf-8")
    (tmp_path / "measure.yml").write_text(PLAYBOOK % {"duration": DURATION_S, "wait_max_s": wait_max_s}, encoding="utf-8")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORKS="5",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    done = subprocess.run(["ansible-playbook", "-i", "inventory.yml", "measure.yml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    run.stdout = done.stdout
    return json.loads((tmp_path / "reports" / "measurements-before.json").read_text(encoding="utf-8"))


def starts(records):
    return {peer: record["iperf3"]["start_epoch_s"] for peer, record in records.items()}


def test_flows_on_disjoint_hubs_run_together_and_a_hubs_flows_one_after_the_other(tmp_path):
    records = run(tmp_path)
    assert {record["slot"]["count"] for record in records.values()} == {2}
    by_slot = {}
    for peer, record in records.items():
        assert record["iperf3"]["valid"] is True and record["iperf3"]["bits_per_second"] > 0, record
        assert record["slot"]["seed"] == "test-seed" and record["slot"]["holds"] == sorted([peer, record["hub"]])
        by_slot.setdefault(record["slot"]["index"], []).append(peer)
    assert sorted(by_slot) == [0, 1] and all(len(peers) == 2 for peers in by_slot.values())
    start = starts(records)
    for peers in by_slot.values():
        # one from each hub, started within a second of each other (iperf3 stamps whole seconds)
        assert {records[peer]["hub"] for peer in peers} == {"hub-a", "hub-b"}
        assert abs(start[peers[0]] - start[peers[1]]) <= 1, start
    for hub in ("hub-a", "hub-b"):
        first, second = sorted(start[peer] for peer, record in records.items() if record["hub"] == hub)
        assert second - first >= DURATION_S, start
    # slot 1 starts after slot 0 ended: the slots run in their order
    assert min(start[peer] for peer in by_slot[1]) >= max(start[peer] for peer in by_slot[0]) + DURATION_S - 1


def test_hubs_in_one_bottleneck_group_measure_one_flow_at_a_time(tmp_path):
    records = run(tmp_path, group="one-uplink")
    assert sorted(record["slot"]["index"] for record in records.values()) == [0, 1, 2, 3]
    ordered = sorted(starts(records).values())
    assert all(later - earlier >= DURATION_S for earlier, later in zip(ordered, ordered[1:])), ordered


def test_a_flow_past_the_wait_bound_is_not_measured_and_has_no_rate(tmp_path):
    records = run(tmp_path, wait_max_s=0)
    measured = {peer for peer, record in records.items() if record["slot"]["index"] == 0}
    assert len(measured) == 2
    for peer, record in records.items():
        iperf3 = record["iperf3"]
        if peer in measured:
            assert iperf3["valid"] is True and iperf3["not_measured"] is False
            continue
        assert (iperf3["bits_per_second"], iperf3["valid"], iperf3["failed"], iperf3["not_measured"]) == (None, False, False, True)
        assert iperf3["invalid_reason"].startswith("no measurement slot within 0 s (tunnel_measure_slot_wait_max_s): its slot, 2 of 2")
    # the run's summary names the hosts once (the callback tunnelfix.fleet.fleet_summary)
    late = sorted(set(records) - measured)
    notice = [line for line in run.stdout.splitlines() if "single flow not measured: no measurement slot within" in line]
    assert len(notice) == 1 and notice[0].endswith("(2 hosts: %s)" % ", ".join(late)), run.stdout[-3000:]


SWEEP = """
- hosts: peers
  gather_facts: false
  roles:
    - role: tunnelfix.fleet.tunnel_sweep
      vars:
        tunnel_sweep_duration_s: 1
        tunnel_sweep_omit_s: 0
        tunnel_sweep_udp_bits_per_second: [1M]
        tunnel_sweep_parallel_streams: 2
        tunnel_sweep_iperf3_port: 15301
        tunnel_sweep_slot_seed: test-seed
        tunnel_sweep_slot_wait_max_s: 0
        tunnel_sweep_report_dir: "{{ playbook_dir }}/reports"
"""


def test_sweeps_run_in_slots_and_one_past_the_bound_is_not_measured(tmp_path):
    (tmp_path / "inventory.yml").write_text(inventory(), encoding="utf-8")
    (tmp_path / "sweep.yml").write_text(SWEEP, encoding="utf-8")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORKS="5",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    done = subprocess.run(["ansible-playbook", "-i", "inventory.yml", "sweep.yml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    records = json.loads((tmp_path / "reports" / "sweep-before.json").read_text(encoding="utf-8"))
    first = {peer for peer, record in records.items() if record["slot"]["index"] == 0}
    assert len(first) == 2 and {records[peer]["hub"] for peer in first} == {"hub-a", "hub-b"}
    for peer, record in records.items():
        names = [entry["name"] for entry in record["results"]]
        assert names == ["tcp_single_upload", "tcp_single_download", "tcp_parallel2_upload", "tcp_parallel2_download",
                         "udp_1M_upload", "udp_1M_download"]
        if peer in first:
            assert record["not_measured_reason"] is None and all(entry["valid"] for entry in record["results"]), record
        else:
            assert record["not_measured_reason"].startswith("no measurement slot within 0 s (tunnel_sweep_slot_wait_max_s)")
            assert {entry["invalid_reason"] for entry in record["results"]} == {"not measured: " + record["not_measured_reason"]}
            assert all(entry["bits_per_second"] is None for entry in record["results"])
