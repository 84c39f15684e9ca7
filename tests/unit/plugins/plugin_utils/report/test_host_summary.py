# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/report/host_summary: diagnose's one-task overview, from the recorded lab views."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.host_summary import host_summary_lines


@pytest.fixture
def lab_before(load_fixture):
    return json.loads(load_fixture("host_views", "lab_before.json"))


def test_lab_before_overview(lab_before):
    lines = host_summary_lines(lab_before)
    assert lines == sorted(lines, key=lambda line: line.split()[0])  # grouped by host
    peer = [line for line in lines if line.startswith("peer wg0 peer ")]
    assert len(peer) == 1 and peer[0].endswith("persistent_keepalive_s off")  # fault 4 visible
    assert any(line.startswith("peer tcp congestion_control cubic ") for line in lines)
    route = [line for line in lines if line.startswith("owrt wg0 endpoint ")]
    assert any(line.startswith("owrt wg0 peer AAAAAAAA… endpoint 198.51.100.1:51820 handshake_age_s 75 (fresh)")
               for line in lines)  # openwrt_facts' live state
    assert len(route) == 1 and " via wwan0 " in route[0] and " preferred uplink eth1 " in route[0] and route[0].endswith("pinned host routes 1")  # fault 1
    banip = [line for line in lines if line.startswith("owrt banIP ")]
    assert banip and "ban_icmplimit unset" in banip[0]  # fault 2
    assert all(len(word) <= 9 or "…" not in word for line in lines for word in line.split())


@pytest.mark.parametrize("changes, shown", [
    ({}, "owrt banIP ban_icmplimit unset, in force 25/s (nft rule), cnt_icmpflood 10 packets dropped"),
    ({"enabled": False, "nft_table_loaded": False, "icmp_limit_rule": None, "icmp_counter": None},
     "owrt banIP disabled (ban_enabled 0), nft table not loaded, ban_icmplimit unset, in force unknown, no ICMP flood counter"),
])
def test_banip_says_when_it_is_switched_off(lab_before, changes, shown):
    lab_before["owrt"]["openwrt"]["banip"].update(changes)
    assert [line for line in host_summary_lines(lab_before) if line.startswith("owrt banIP ")] == [shown]


def test_keys_are_shortened(lab_before):
    keys = [peer["public_key"] for view in lab_before.values() if isinstance(view.get("tunnelfix"), dict)
            for iface in view["tunnelfix"].get("wireguard", {}).get("interfaces", {}).values() for peer in iface["peers"]]
    assert keys
    text = "\n".join(host_summary_lines(lab_before))
    assert not any(key in text for key in keys)


@pytest.mark.parametrize("views", [{}, {"h": None},
                                   {"h": {"tunnelfix": {"wireguard": {"interfaces": {"wg0": {"peers": []}, 1: {}}}}}},
                                   {"h": {"tunnelfix": {"wireguard": {"interfaces": {"wg0": {"peers": "x"}}}}}},
                                   {"h": {"openwrt": {"endpoint_routes": {"endpoints": [None, 3]}, "banip": {"installed": False}}}}])
def test_odd_views_give_fewer_lines_not_errors(views):
    lines = host_summary_lines(views)
    assert all(isinstance(line, str) for line in lines)


def test_views_must_be_a_dict():
    with pytest.raises(ValueError, match="views must be a dict"):
        host_summary_lines([])
