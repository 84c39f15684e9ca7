# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/faults/view: one host's view for the findings, from its variables."""

import json
import re
from dataclasses import replace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.filter.findings import FilterModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import FIXED_KEYS, MEASUREMENT, Record, records_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import host_view as bare_view


def host_view(host_vars, phase=None):
    """The view as the filter builds it: with the records the registry's faults declare."""
    return bare_view(host_vars, phase, registry.view_records())


def test_recorded_lab_view_round_trip(load_fixture):
    """Rebuild each recorded view from the variables diagnose.yml registers: the same view comes out."""
    for host, view in json.loads(load_fixture("host_views", "lab_before.json")).items():
        host_vars = {
            "group_names": view["groups"], "tunnelfix_tunnel_hub": view["tunnel_hub"],
            "tunnel_measure_record": view["measurement"], "health_check_measure_record": view["health_checks"],
            "tunnel_sweep_record": view["sweep"], "tunnelfix_lab_bottleneck_bits_per_second": 40000000,
            "path_mtu_measure_record": view.get("path_mtu"),   # recorded before the PMTU ladder existed: absent
        }
        view = dict(view, path_mtu=view.get("path_mtu"), wireguard_second_sample=None)   # no second reading in the lab run
        if view["tunnelfix"] is not None:
            host_vars["tunnelfix_gathered_facts"] = {"ansible_facts": {"tunnelfix": view["tunnelfix"]}}
        if view["openwrt"] is not None:
            host_vars["tunnelfix_gathered_facts"] = {"ansible_facts": {"tunnelfix_openwrt": view["openwrt"]}}
        got = host_view(host_vars)
        assert got.pop("facts_error") is None
        assert {k: v for k, v in got.items() if k not in ("path_bits_per_second", "preferred_uplink_device")} == {
            k: v for k, v in view.items() if k not in ("path_bits_per_second", "preferred_uplink_device")}, host
        assert got["path_bits_per_second"] == 40000000


def test_the_path_of_the_host_wins_over_the_lab_bottleneck():
    assert host_view({"tunnelfix_path_bits_per_second": 10, "tunnelfix_lab_bottleneck_bits_per_second": 40})[
        "path_bits_per_second"] == 10


def test_missing_and_odd_values_become_none():
    for gathered in ("skipped", {"ansible_facts": None}, {"ansible_facts": {"tunnelfix": "odd"}}):
        view = host_view({"tunnelfix_gathered_facts": gathered, "group_names": "peers"})
        assert view == {"groups": [], "tunnel_hub": None, "tunnelfix": "odd" if "odd" in str(gathered) else None, "openwrt": None,
                        "measurement": None, "health_checks": None, "sweep": None, "path_mtu": None, "path_bits_per_second": None,
                        "preferred_uplink_device": None, "facts_error": None, "wireguard_second_sample": None}


def test_preferred_uplink_device_from_openwrt_facts():
    facts = {"ansible_facts": {"tunnelfix_openwrt": {"endpoint_routes": {"preferred_uplink_device": "eth1"}}}}
    assert host_view({"tunnelfix_gathered_facts": facts})["preferred_uplink_device"] == "eth1"


def test_a_record_of_another_phase_counts_as_missing():
    host_vars = {"tunnel_measure_record": {"phase": "before", "ping": {}}, "tunnel_sweep_record": {"phase": "after"},
                 "health_check_measure_record": {"phase": "before"}, "path_mtu_measure_record": {"phase": "before"}}
    view = host_view(host_vars, "after")
    assert (view["measurement"], view["sweep"], view["health_checks"], view["path_mtu"]) == (None, {"phase": "after"}, None, None)
    assert host_view(host_vars, "before")["path_mtu"] == {"phase": "before"}
    assert host_view(host_vars, "before")["measurement"] == {"phase": "before", "ping": {}}
    assert host_view(host_vars)["health_checks"] == {"phase": "before"}


@pytest.mark.parametrize("gathered, error", [
    ({"failed": True, "msg": "uci: not found"}, "uci: not found"),
    ({"unreachable": True, "msg": "ssh: connect to host 192.0.2.9 port 22: Connection timed out"},
     "ssh: connect to host 192.0.2.9 port 22: Connection timed out"),
    ({"failed": True}, "the facts task failed"),
    ({"changed": False, "ansible_facts": {"tunnelfix": {}}}, None),
    ("skipped", None),
])
def test_why_the_facts_failed_is_in_the_view(gathered, error):
    assert host_view({"tunnelfix_gathered_facts": gathered})["facts_error"] == error


def test_the_records_are_the_ones_the_faults_declare():
    assert {record.key: record.host_var for record in registry.view_records()} == {
        "measurement": "tunnel_measure_record", "health_checks": "health_check_measure_record", "sweep": "tunnel_sweep_record",
        "path_mtu": "path_mtu_measure_record", "wireguard_second_sample": "tunnelfix_wireguard_second_sample"}


@pytest.mark.parametrize("fault", registry.FAULTS, ids=lambda fault: fault.id)
def test_a_fault_declares_the_records_its_rule_reads_and_no_other(fault):
    """Every measurement key of ``reads`` ("sweep", "measurement.ping") is a record the fault declares, and back."""
    read = {entry.split(".")[0] for entry in fault.reads if re.fullmatch(r"[a-z_]+(\.[a-z_0-9]+)*", entry)} - set(FIXED_KEYS)
    assert read - {"tunnelfix", "openwrt"} == {record.key for record in fault.records}


def test_a_fault_registered_with_its_own_record_gets_it_into_the_filters_view(monkeypatch):
    """A new fault's measuring step: registering the fault is all it takes (no edit of view.py)."""
    made_up = replace(registry.FAULTS[0], id="made_up_fault", records=(MEASUREMENT, Record("made_up", "made_up_measure_record")))
    host_vars = {"made_up_measure_record": {"phase": "after", "loss": 1}, "tunnel_measure_record": {"phase": "after"}}
    view = FilterModule().filters()["host_view"]
    assert "made_up" not in view(host_vars, "after")
    monkeypatch.setattr(registry, "FAULTS", registry.FAULTS + (made_up,))
    assert view(host_vars, "after")["made_up"] == {"phase": "after", "loss": 1}
    assert view(host_vars, "before")["made_up"] is None
    assert view(host_vars)["measurement"] == {"phase": "after"}


@pytest.mark.parametrize("records, message", [
    ((Record("sweep", "other_sweep_record"),), "declares Record(key='sweep', host_var='other_sweep_record'), which another fault "
                                               "declares as Record(key='sweep', host_var='tunnel_sweep_record')"),
    ((Record("other", "tunnel_sweep_record"),), "declares Record(key='other', host_var='tunnel_sweep_record'), which another "
                                                "fault declares as Record(key='sweep', host_var='tunnel_sweep_record')"),
    ((Record("groups", "made_up_record"),), "declares the record 'groups', a key every view has already"),
])
def test_records_that_disagree_are_refused(records, message):
    made_up = replace(registry.FAULTS[0], id="made_up_fault", records=records)
    with pytest.raises(ValueError, match=re.escape("made_up_fault " + message)):
        records_of(registry.FAULTS + (made_up,))


def test_a_record_declared_twice_alike_is_held_once():
    assert records_of(registry.FAULTS + registry.FAULTS) == registry.view_records()
    assert bare_view({"tunnel_measure_record": {"phase": "before"}}, "before").keys() == set(FIXED_KEYS)
