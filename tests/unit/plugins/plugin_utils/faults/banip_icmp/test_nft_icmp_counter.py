# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""icmp_flood_counter over parse_nft_counters' result: either counter name, or none."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import icmp_flood_counter, parse_nft_counters


@pytest.mark.parametrize("command, case, expected", [
    ("nft_j_list", "netns_banip_table.txt", {"name": "cnt_icmpflood", "packets": 152, "bytes": 12748}),
    ("nft_j_list", "netns_banip_old_table.txt", {"name": "cnt-icmpflood", "packets": 27, "bytes": 2268}),
    ("nft_list", "case05_counters_old.txt", {"name": "cnt-icmpflood", "packets": 220417, "bytes": 18515028}),
    # both tables: the current name wins
    ("nft_j_list", "netns_counters.txt", {"name": "cnt_icmpflood", "packets": 152, "bytes": 12748}),
    ("nft_list", "case05_prerouting_1.8.txt", None),  # rules only, no counter objects
])
def test_icmp_flood_counter(load_fixture, command, case, expected):
    assert icmp_flood_counter(parse_nft_counters(load_fixture(command, case))) == expected


@pytest.mark.parametrize("counters, expected", [
    ({}, None),
    ({"cnt_udpflood": {"packets": 1, "bytes": 2}}, None),
])
def test_icmp_flood_counter_absent(counters, expected):
    assert icmp_flood_counter(counters) is expected


def test_icmp_flood_counter_not_a_dict():
    with pytest.raises(ParseError, match="counters must be a dict from parse_nft_counters, got list"):
        icmp_flood_counter([])
