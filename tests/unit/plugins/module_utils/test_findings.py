# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Findings on host views recorded in the lab: exactly the planted faults before, none after.

lab_before.json / lab_after.json: facts (tunnel_facts, openwrt_facts) and measurements
(tunnel_measure, health_check_measure) of the lab's hub, peer and owrt, recorded right after
diagnose.yml on a fresh lab and after remediate.yml + verify.yml (see fixtures/README.md).
Variants change one recorded field, named in each test, to reach the other rules.
"""

import copy
import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._findings import find_findings


@pytest.fixture
def before(load_fixture):
    return json.loads(load_fixture("host_views", "lab_before.json"))


@pytest.fixture
def after(load_fixture):
    return json.loads(load_fixture("host_views", "lab_after.json"))


def ids(findings):
    return sorted((f["host"], f["id"]) for f in findings)


def test_the_planted_faults_and_nothing_else(before):
    assert ids(find_findings(before)) == [
        ("owrt", "banip_icmp_limit_drops_health_checks"),
        ("owrt", "endpoint_route_pinned"),
        ("peer", "loss_sensitive_congestion_control"),
        ("peer", "nat_peer_without_keepalive"),
    ]


def test_a_fixed_lab_has_no_finding(after):
    assert find_findings(after) == []


def test_every_finding_names_its_fix_and_explains(before):
    for finding in find_findings(before):
        assert finding["severity"] in ("critical", "high", "medium", "low", "info")
        assert finding["fix_role"].startswith("tunnelfix.fleet.")
        assert len(finding["explanation"]) > 100 and "\n" not in finding["explanation"]


def test_evidence_carries_the_numbers(before):
    by_id = {f["id"]: f["evidence"] for f in find_findings(before)}
    assert by_id["endpoint_route_pinned"]["dev"] == "wwan0" and by_id["endpoint_route_pinned"]["preferred_uplink_device"] == "eth1"
    banip = by_id["banip_icmp_limit_drops_health_checks"]
    assert banip["icmplimit_per_second"] == 25 and banip["health_check_pings_failed"] > 0
    assert banip["mwan3_ping_budget_per_second"] == 2.0   # 2 uplinks x 1 track_ip x count 1 / 1 s
    cc = by_id["loss_sensitive_congestion_control"]
    assert cc["congestion_control"] == "cubic" and 40 < cc["rtt_ms"] < 70
    assert cc["mathis_bits_per_second"] < 0.5 * cc["path_bits_per_second"]
    assert cc["measured_bits_per_second"] < 1.5 * cc["mathis_bits_per_second"]
    assert by_id["nat_peer_without_keepalive"]["idle_ping_loss_percent"] == 100.0


def test_sorted_by_host_then_severity(before):
    found = find_findings(before)
    assert [f["host"] for f in found] == sorted(f["host"] for f in found)
    peer = [f["id"] for f in found if f["host"] == "peer"]
    assert peer == ["nat_peer_without_keepalive", "loss_sensitive_congestion_control"]  # critical first


def test_owrt_slow_because_of_its_uplink_is_not_blamed_on_cubic(before):
    """owrt ran cubic at 1.8 Mbit/s of 40 with retransmits, but its RTT rose from 0.6 ms idle to 70 ms under
    load: the flow filled the 5G uplink's queue; its losses are that queue, not random loss."""
    owrt = before["owrt"]["measurement"]
    assert owrt["ping"]["rtt_avg_ms"] < 1 and owrt["iperf3"]["mean_rtt_ms"] > 50 and owrt["iperf3"]["retransmits"] > 0
    assert ("owrt", "loss_sensitive_congestion_control") not in ids(find_findings(before))


def test_without_the_idle_rtt_a_queue_cannot_be_told_apart(before):
    views = copy.deepcopy(before)
    views["owrt"]["measurement"]["ping"]["rtt_avg_ms"] = None
    assert ("owrt", "loss_sensitive_congestion_control") in ids(find_findings(views))


def test_stale_despite_keepalive(after):
    """after, with the peer's handshakes set 400 s old: keepalive is on, yet no session."""
    views = copy.deepcopy(after)
    for host in ("peer", "hub"):
        for iface in views[host]["tunnelfix"]["wireguard"]["interfaces"].values():
            for peer in iface["peers"]:
                peer["handshake_age_s"] = 400
    found = [f for f in find_findings(views) if f["id"] == "stale_despite_keepalive"]
    assert [f["host"] for f in found] == ["peer"] and "400 s old" in found[0]["explanation"]


def test_buffer_below_bdp(after):
    """after, with the peer's path raised to 1 Gbit/s: 32 MiB tcp_rmem is not enough at 50 ms? it is; 1 MiB is not."""
    views = copy.deepcopy(after)
    views["peer"]["tunnelfix"]["tcp"]["tcp_wmem"] = "4096 16384 1048576"
    views["peer"]["path_bits_per_second"] = 1e9
    found = [f for f in find_findings(views) if f["id"] == "buffer_below_bdp"]
    assert len(found) == 1 and found[0]["evidence"]["sysctl"] == "net.ipv4.tcp_wmem"
    assert found[0]["evidence"]["max_bytes"] == 1048576 and found[0]["evidence"]["bdp_bytes"] > 1048576


def test_container_without_bbr_allowed_and_kernel_without_bbr(after):
    views = copy.deepcopy(after)
    views["peer"]["tunnelfix"]["tcp"]["congestion_control_allowed"] = ["reno", "cubic"]
    views["hub"]["tunnelfix"]["tcp"].update(congestion_control_available=["reno", "cubic"], tcp_bbr_available=False,
                                           tcp_bbr_loadable_module=False)
    assert ids(find_findings(views)) == [("hub", "kernel_without_bbr"), ("peer", "congestion_control_restricted_in_container")]


def test_banip_absent_or_generous_limit_gives_no_finding(before):
    views = copy.deepcopy(before)
    views["owrt"]["openwrt"]["banip"]["installed"] = False
    assert ("owrt", "banip_icmp_limit_drops_health_checks") not in ids(find_findings(views))


def test_full_tunnel_pinned_route_is_not_a_nohostroute_finding(before):
    views = copy.deepcopy(before)
    views["owrt"]["openwrt"]["wireguard"]["interfaces"]["wg0"]["tunnel"] = "full"
    assert ("owrt", "endpoint_route_pinned") not in ids(find_findings(views))


def test_missing_facts_give_no_guess():
    assert find_findings({"h": {}}) == []
    assert find_findings({"h": {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "nowhere"}}) == []


@pytest.mark.parametrize("views", [None, [], {"h": "x"}])
def test_bad_input_is_refused(views):
    with pytest.raises(ValueError, match="views must be"):
        find_findings(views)


def test_fix_roles_by_host_from_the_planted_faults(before):
    from ansible_collections.tunnelfix.fleet.plugins.module_utils._findings import fix_roles_by_host
    assert fix_roles_by_host(find_findings(before)) == {
        "owrt": ["tunnelfix.fleet.banip_icmp", "tunnelfix.fleet.openwrt_mwan3_wg"],
        "peer": ["tunnelfix.fleet.linux_bbr_fq", "tunnelfix.fleet.wireguard_keepalive"]}
    assert fix_roles_by_host([]) == {}
    assert fix_roles_by_host([{"host": "h", "fix_role": None, "id": "kernel_without_bbr"}]) == {}
    with pytest.raises(ValueError, match="findings must be"):
        fix_roles_by_host({"h": []})
