# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role path_mtu_measure's filter: its task timeout from the pause the action really uses; errors name the filter."""

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.path_mtu import FilterModule, path_mtu_measure_timeout

TASKS = Path(__file__).resolve().parents[4] / "roles" / "path_mtu_measure" / "tasks" / "main.yml"


def router(limit):
    """An OpenWrt router with one tunnel and one peer (the outer ladder runs; no far address: no inner one)."""
    return {"groups": ["tunnelfix_openwrt"], "tunnelfix": None, "openwrt": {
        "banip": {"installed": True, "nft_table_loaded": True, "icmp_limit_rule": {"rate_per_second": limit, "burst_packets": 5}},
        "wireguard": {"interfaces": {"wg0": {"in_uci": True, "peers": [{"public_key": "H" * 43 + "=", "allowed_ips": ["0.0.0.0/0"]}]}}},
        "endpoint_routes": {"endpoints": [{"interface": "wg0", "public_key": "H" * 43 + "=", "address": "10.198.2.2", "dev": "eth1"}]},
        "link_mtu": {"devices": {"eth1": 1500, "wg0": 1420}, "note": None}}}


def test_the_filter_is_registered():
    assert set(FilterModule().filters()) == {"path_mtu_measure_timeout"}


@pytest.mark.parametrize("limit, seconds", [
    (25, 60 + 1 * 20 * 2 * (1 + 1 + 1)),   # banIP's default: the role's 200 ms, 1 s rounded up
    (1, 60 + 1 * 20 * 2 * (1 + 5 + 1)),    # 1/s: the action paces at 5000 ms (a fifth of the limit)
])
def test_the_timeout_follows_the_pace_the_action_uses(limit, seconds):
    assert path_mtu_measure_timeout(router(limit), "", "200", "1", "2") == seconds


@pytest.mark.parametrize("call, message", [
    (lambda: path_mtu_measure_timeout(None, "", 200, 1, 2), "path_mtu_measure_timeout: expected the host's view"),
    (lambda: path_mtu_measure_timeout(router(25), "", 200, 0, 2), "path_mtu_measure_timeout: timeout_s must be a whole number 1-60"),
    (lambda: path_mtu_measure_timeout(router(25), "", "x", 1, 2), "path_mtu_measure_timeout: interval_ms must be a whole number"),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


def test_the_roles_task_timeout_is_the_filters():
    (task,) = [task for task in yaml.safe_load(TASKS.read_text(encoding="utf-8")) if "tunnelfix.fleet.path_mtu_ladder" in task]
    assert "tunnelfix.fleet.path_mtu_measure_timeout(" in task["timeout"] and "20" not in task["timeout"]
