# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The findings filter over a router whose config route keeps a WireGuard endpoint on the backup uplink, netaddr or not."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.findings import FilterModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet

# the user's 203.0.113.0/24 route through wwan0 carries the endpoint: comparing prefix lengths needs netaddr
USER_ROUTE = {"section": "dc_net", "target": "203.0.113.0/24", "interface": "wanb", "gateway": None, "metric": 20,
              "table": None, "installed": {"dst": "203.0.113.0/24", "gateway": "198.51.100.1", "dev": "wwan0",
                                           "table": "main", "protocol": "static", "metric": 20}}
VIEWS = {"owrt": {"preferred_uplink_device": "eth1", "openwrt": {
    "wireguard": {"interfaces": {"wg0": {"tunnel": "split", "in_uci": True, "nohostroute": True}}},
    "endpoint_routes": {"endpoints": [{"interface": "wg0", "address": "203.0.113.7", "dev": "wwan0",
                                       "gateway": "198.51.100.1", "pinned_routes": [], "user_routes": [USER_ROUTE]}]}}}}


def test_a_users_route_on_the_backup_is_found():
    [found] = FilterModule().filters()["findings"](VIEWS)
    assert found["evidence"]["user_route_conflict"]["target"] == "203.0.113.0/24"


def test_without_netaddr_the_filter_fails_naming_the_package_and_the_fix(monkeypatch):
    monkeypatch.setattr(ipnet, "netaddr", None)
    with pytest.raises(AnsibleFilterError, match=r"^findings: tunnelfix\.fleet needs the Python package netaddr on the "
                                                 r"controller: pip install netaddr==1\.3\.0$"):
        FilterModule().filters()["findings"](VIEWS)
