# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""diagnose.yml reads WireGuard's counters a second time only where a tunnel's handshake never completes and one
sample cannot settle why (playbooks/second_sample.yml): right after the facts, both ends of such a tunnel, after the
wait, with the python-free wireguard_counters, registered as the record the handshake fault declares. A converged
fleet matches no host (no wait, one facts execution per host). Two runs over the local connection with the facts
given in the inventory (the recorded wireguard-go dumps): no wg is needed, the second reading then says so."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.samples import SECOND_SAMPLE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import split_dated_output

REPO = Path(__file__).resolve().parents[3]
INITIATOR = "I" * 43 + "="
RESPONDER = "R" * 43 + "="


def plays(playbook):
    return yaml.safe_load((REPO / "playbooks" / playbook).read_text(encoding="utf-8"))


def test_diagnose_reads_the_second_sample_right_after_the_facts():
    imported = [play.get("ansible.builtin.import_playbook") for play in plays("diagnose.yml")]
    assert imported.index("second_sample.yml") == imported.index("facts.yml") + 1
    assert "second_sample.yml" not in [play.get("ansible.builtin.import_playbook") for play in plays("verify.yml")]


def test_the_read_play_reads_the_chosen_hosts_into_the_record_the_rule_declares():
    choose, read = plays("second_sample.yml")
    assert choose["hosts"] == "localhost"
    [add] = [task for task in choose["tasks"] if "ansible.builtin.add_host" in task]
    assert add["ansible.builtin.add_host"]["groups"] == "tunnelfix_second_sample"
    assert add["loop"] == "{{ __second_sample_hosts | default([]) }}"
    [pick] = [task for task in choose["tasks"] if "__second_sample_hosts" in task.get("ansible.builtin.set_fact", {})]
    assert "tunnelfix.fleet.second_sample_hosts" in pick["ansible.builtin.set_fact"]["__second_sample_hosts"]
    assert read["hosts"] == "{{ 'tunnelfix_second_sample' if 'tunnelfix_second_sample' in groups else '!all' }}"
    assert "serial" not in read   # one batch: both ends read within the same seconds, after one wait
    pause, counters = read["tasks"]
    assert pause["ansible.builtin.pause"] == {"seconds": "{{ tunnelfix_second_sample_wait_s | default(8) | int }}"}
    assert counters["register"] == SECOND_SAMPLE.host_var
    assert counters["tunnelfix.fleet.wireguard_counters"] == {"phase": "{{ tunnelfix_facts_phase | default('before') }}"}
    assert counters["ignore_errors"] is True and counters["ignore_unreachable"] is True


def _gathered(load_fixture, name):
    now, dump = split_dated_output(load_fixture("wg_dump_redacted", name))
    interfaces = parse_wg_dump(dump, now)["interfaces"]
    return {"changed": False, "label": "before", "ansible_facts": {"tunnelfix": {"wireguard": {
        "available": True, "interfaces": interfaces, "configs": [], "config_dirs": {}, "sampled_at_epoch": now}}}}


def _inventory(load_fixture, case):
    host = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    return {"all": {"children": {"tunnelfix_wireguard_peers": {"hosts": {
        "i": dict(host, tunnelfix_gathered_facts=_gathered(load_fixture, "%s_a_1.txt" % case)),
        "r": dict(host, tunnelfix_gathered_facts=_gathered(load_fixture, "%s_b_1.txt" % case))}}}}}


# second_sample.yml, then what each host registered (the record the rule reads), as one JSON line per host
WRAPPER = """
- ansible.builtin.import_playbook: %s
- hosts: i:r
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "RECORD {{ {'phase': %s.phase | default(none), 'keys': %s.keys() | sort} | to_json }}"
      when: %s is defined
"""


def _run(tmp_path, inventory, *extra):
    (tmp_path / "inventory.json").write_text(json.dumps(inventory), encoding="utf-8")
    var = SECOND_SAMPLE.host_var
    (tmp_path / "run.yml").write_text(WRAPPER % (REPO / "playbooks" / "second_sample.yml", var, var, var), encoding="utf-8")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    res = subprocess.run(["ansible-playbook", "-i", str(tmp_path / "inventory.json"), str(tmp_path / "run.yml"), *extra],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300)
    return res.returncode, " ".join(res.stdout.split())


@pytest.mark.parametrize("case, read", [("3_psk_differs", True), ("1_control", False), ("2_psk_initiator_only", False)])
def test_only_the_ends_of_a_tunnel_that_needs_it_are_read_again(tmp_path, load_fixture, case, read):
    rc, said = _run(tmp_path, _inventory(load_fixture, case), "-e", "tunnelfix_second_sample_wait_s=6")
    assert rc == 0, said[-3000:]
    records = [json.loads(record) for record in re.findall(r"RECORD (\{.*?\})'", said)]
    if read:
        assert "Pausing for 6 seconds" in said
        assert re.search(r"TASK \[Read the counters again \(one command, no Python\)\] \**\s*ok: \[[ir]\] ok: \[[ir]\] PLAY", said), said[-2500:]
        # this machine's wg (or none): whatever it holds, each end's record has the phase and the counters' keys
        assert len(records) == 2 and all(record["phase"] == "before" for record in records), said[-2500:]
        assert all({"interfaces", "note", "sampled_at_epoch", "wg_installed"} <= set(record["keys"]) for record in records)
    else:   # works, or certain from one sample: no wait, no second execution
        assert "skipping: no hosts matched" in said and "Pausing" not in said and "Read the counters again" not in said
        assert records == []


@pytest.mark.parametrize("wait", ["3", "soon"])
def test_a_wait_under_one_retry_period_is_refused(tmp_path, load_fixture, wait):
    rc, said = _run(tmp_path, _inventory(load_fixture, "3_psk_differs"), "-e", "tunnelfix_second_sample_wait_s=" + wait)
    assert rc != 0 and "Pausing" not in said
    assert 'tunnelfix_second_sample_wait_s must be 0 (no second reading) or at least 6 seconds, got "%s"' % wait in said, said[-2000:]


def test_a_wait_of_0_reads_nothing_again(tmp_path, load_fixture):
    rc, said = _run(tmp_path, _inventory(load_fixture, "3_psk_differs"), "-e", "tunnelfix_second_sample_wait_s=0")
    assert rc == 0 and "skipping: no hosts matched" in said and "Pausing" not in said
