# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's arithmetic: WireGuard's overhead per outer family and the IPv6 floor, on both sides of each boundary."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.tunnel_mtu import (
    IPV6_MIN_MTU_BYTES, WIREGUARD_OVERHEAD_BYTES, padded_inner_edge, tunnel_mtu_for_path)


def test_the_overheads_are_wireguards_60_and_80():
    assert WIREGUARD_OVERHEAD_BYTES == {4: 60, 6: 80} and IPV6_MIN_MTU_BYTES == 1280


@pytest.mark.parametrize("path_mtu, family, ipv6_inside, mtu, computed, raised, exceeds", [
    (1500, 4, False, 1440, 1440, False, False),
    (1500, 6, True, 1420, 1420, False, False),     # wg-quick's default on a 1500 link
    (1492, 4, True, 1432, 1432, False, False),     # PPPoE
    (1452, 6, True, 1372, 1372, False, False),     # DS-Lite
    (1400, 4, False, 1340, 1340, False, False),    # the lab's black hole
    (1340, 4, True, 1280, 1280, False, False),     # exactly the IPv6 floor: not raised
    (1339, 4, True, 1280, 1279, True, True),       # one under it: raised, the outer packet is 1 byte too big
    (1339, 4, False, 1279, 1279, False, False),    # no IPv6 inside: no floor
    (1360, 6, True, 1280, 1280, False, False),
    (1359, 6, True, 1280, 1279, True, True),
    (1280, 6, True, 1280, 1200, True, True),       # a 1280 path (some 5G and hotel paths) with IPv6 inside
    (1280, 6, False, 1200, 1200, False, False),
    (128, 4, False, 68, 68, False, False),         # the smallest IPv4 tunnel
    (65535, 4, True, 65475, 65475, False, False),
])
def test_tunnel_mtu_is_path_minus_overhead_with_the_ipv6_floor(path_mtu, family, ipv6_inside, mtu, computed, raised, exceeds):
    got = tunnel_mtu_for_path(path_mtu, family, ipv6_inside)
    assert got == {"mtu_bytes": mtu, "computed_bytes": computed, "overhead_bytes": WIREGUARD_OVERHEAD_BYTES[family],
                   "raised_to_ipv6_minimum": raised, "outer_exceeds_path": exceeds}


@pytest.mark.parametrize("path_mtu, family, ipv6_inside, named", [
    (1500, 5, False, "outer_family must be 4 or 6, got 5"),
    (1500, True, False, "outer_family must be 4 or 6, got True"),
    (1500, "4", False, "outer_family must be 4 or 6, got '4'"),
    (127, 4, False, "outer_path_mtu_bytes must be a whole number 128-65535 for an IPv4 outer path, got 127"),
    (147, 6, False, "outer_path_mtu_bytes must be a whole number 148-65535 for an IPv6 outer path, got 147"),
    (65536, 4, False, "outer_path_mtu_bytes must be a whole number 128-65535 for an IPv4 outer path, got 65536"),
    (1400.0, 4, False, "outer_path_mtu_bytes must be a whole number 128-65535 for an IPv4 outer path, got 1400.0"),
    ("1400", 4, False, "outer_path_mtu_bytes must be a whole number 128-65535 for an IPv4 outer path, got '1400'"),
    (True, 4, False, "outer_path_mtu_bytes must be a whole number 128-65535 for an IPv4 outer path, got True"),
    (None, 4, False, "outer_path_mtu_bytes must be a whole number 128-65535 for an IPv4 outer path, got None"),
    (1400, 4, "yes", "ipv6_inside must be true or false, got 'yes'"),
    (1400, 4, None, "ipv6_inside must be true or false, got None"),
])
def test_bad_arguments_are_refused_naming_them(path_mtu, family, ipv6_inside, named):
    with pytest.raises(ValueError) as err:
        tunnel_mtu_for_path(path_mtu, family, ipv6_inside)
    assert str(err.value) == named


@pytest.mark.parametrize("fit, edge", [(1340, 1328), (1344, 1344), (1343, 1328), (1345, 1344), (1320, 1312), (1280, 1280)])
def test_the_padded_inner_edge_is_the_fit_rounded_down_to_16_bytes(fit, edge):
    assert padded_inner_edge(fit) == edge
