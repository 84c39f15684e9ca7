# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/faults/view: one host's view for the findings, from its variables."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import host_view


def test_recorded_lab_view_round_trip(load_fixture):
    """Rebuild each recorded view from the variables diagnose.yml registers: the same view comes out."""
    for host, view in json.loads(load_fixture("host_views", "lab_before.json")).items():
        host_vars = {
            "group_names": view["groups"], "tunnelfix_tunnel_hub": view["tunnel_hub"],
            "tunnel_measure_record": view["measurement"], "health_check_measure_record": view["health_checks"],
            "tunnel_sweep_record": view["sweep"], "tunnelfix_lab_bottleneck_bits_per_second": 40000000,
            "path_mtu_measure_record": view.get("path_mtu"),   # recorded before the PMTU ladder existed: absent
        }
        view = dict(view, path_mtu=view.get("path_mtu"))
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
                        "preferred_uplink_device": None, "facts_error": None}


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
