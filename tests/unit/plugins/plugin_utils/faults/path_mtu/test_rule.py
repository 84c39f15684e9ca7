# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's rule: found on both sides of tunnel MTU + overhead = path MTU, the inner ladder's shortfall, the 1280
floor, the recorded ladders, and what the host's check says when a ladder judges nothing."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import parse_ladder
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import (
    NOT_MEASURED, black_holes, judge, larger_packets, pmtu_coverage, smaller_mtu)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID, diagnosis, find_findings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import parse_ip_route_get

PMTU = BY_ID["path_mtu_black_hole"]
V6_ENDPOINT = "2001:db8::10"
OVERHEAD = {4: 60, 6: 80}


def _endpoint(pmtu, family):
    return pmtu.ENDPOINT if family == 4 else V6_ENDPOINT


def _view(pmtu, tunnel_mtu, family=4, allowed=("10.77.0.0/24",)):
    return pmtu.linux_view(tunnel_mtu=tunnel_mtu, endpoint=_endpoint(pmtu, family), allowed_ips=allowed)


def _found(view, host="peer"):
    return black_holes(host, view, {host: view})


@pytest.mark.parametrize("family, path_mtu, tunnel_mtu, set_mtu", [
    # IPv4 outside: 60 bytes of overhead
    (4, 1400, 1340, None),    # exactly tunnel MTU + 60 = path MTU: fits
    (4, 1400, 1339, None),
    (4, 1400, 1341, 1340),    # one byte over
    (4, 1400, 1420, 1340),    # wg-quick's default over the lab's black hole
    (4, 1492, 1432, None),    # PPPoE, sized right
    (4, 1492, 1433, 1432),
    # IPv6 outside: 80 bytes
    (6, 1400, 1320, None),
    (6, 1400, 1319, None),
    (6, 1400, 1321, 1320),
    (6, 1500, 1420, None),    # wg-quick's default on a 1500 link
    (6, 1500, 1421, 1420),
])
def test_the_outer_ladder_finds_a_tunnel_mtu_over_the_path(pmtu, family, path_mtu, tunnel_mtu, set_mtu):
    view = pmtu.measured(_view(pmtu, tunnel_mtu, family), outer=pmtu.path_ladder(family, _endpoint(pmtu, family), path_mtu, 1500))
    got = _found(view)
    assert len(got) == (0 if set_mtu is None else 1)
    if got:
        evidence = got[0][0]
        assert (evidence["tunnel_mtu_bytes"], evidence["outer_path_mtu_bytes"], evidence["outer_family"],
                evidence["overhead_bytes"], evidence["set_mtu_bytes"], evidence["inner_path_mtu_bytes"]) == (
            tunnel_mtu, path_mtu, family, OVERHEAD[family], set_mtu, None)


@pytest.mark.parametrize("tunnel_mtu, inner_mtu, set_mtu", [
    (1420, 1420, None),     # the tunnel carries its whole MTU (the ladder reached its high bound)
    (1420, 1419, 1419),     # one byte short
    (1420, 1340, 1340),     # the lab's hole seen from inside
    (1280, 1279, 1279),     # IPv4 only inside: no floor
])
def test_the_inner_ladder_finds_a_tunnel_that_carries_less_than_its_mtu(pmtu, tunnel_mtu, inner_mtu, set_mtu):
    view = pmtu.measured(_view(pmtu, tunnel_mtu), inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, inner_mtu, tunnel_mtu))
    got = _found(view)
    assert [evidence["set_mtu_bytes"] for evidence, _text in got] == ([] if set_mtu is None else [set_mtu])
    if got:
        assert got[0][0]["inner_path_mtu_bytes"] == inner_mtu and got[0][0]["outer_path_mtu_bytes"] is None
        assert "Inside the tunnel, to 10.77.0.1, the largest packet that got through was %d bytes." % inner_mtu in got[0][1]


def test_the_smaller_of_the_two_ladders_sets_the_mtu(pmtu):
    outer = pmtu.path_ladder(4, pmtu.ENDPOINT, 1400, 1500)       # 1340 fits outside
    for inner_mtu, set_mtu in ((1330, 1330), (1339, 1339), (1340, 1340), (1360, 1340)):
        view = pmtu.measured(_view(pmtu, 1420), outer=outer, inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, inner_mtu, 1420))
        assert _found(view)[0][0]["set_mtu_bytes"] == set_mtu, inner_mtu


@pytest.mark.parametrize("family, path_mtu, inner_mtu, set_mtu", [
    (4, 1400, 1328, 1340),    # the lab's hole at MTU 1420: 1329 leaves padded to 1344 + 60 = 1404; the outer fit is set
    (4, 1400, 1327, 1327),    # not the padded edge: a narrower hop inside
    (4, 1400, 1312, 1312),    # a whole padding step lower: narrower too
    (4, 1404, 1344, 1344),    # 1344 is a multiple of 16: edge and fit agree
    (4, 1410, 1344, 1350),
    (6, 1400, 1312, 1320),    # IPv6 outside: 80 bytes, 1320 rounds down to 1312
    (6, 1400, 1304, 1304),
])
def test_an_inner_edge_at_wireguards_padding_over_the_same_path_sets_the_outer_fit(pmtu, family, path_mtu, inner_mtu, set_mtu):
    view = pmtu.measured(_view(pmtu, 1420, family), outer=pmtu.path_ladder(family, _endpoint(pmtu, family), path_mtu, 1500),
                         inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, inner_mtu, 1420))
    evidence = _found(view)[0][0]
    assert (evidence["set_mtu_bytes"], evidence["inner_path_mtu_bytes"], evidence["outer_path_mtu_bytes"]) == (
        set_mtu, inner_mtu, path_mtu)


def test_the_padded_edge_alone_sets_itself(pmtu):
    """Without a valid outer ladder nothing says the edge is padding: the inner edge is what is known to pass."""
    view = pmtu.measured(_view(pmtu, 1420), inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1328, 1420))
    assert _found(view)[0][0]["set_mtu_bytes"] == 1328


@pytest.mark.parametrize("family, path_mtu, tunnel_mtu, set_mtu, raised", [
    # IPv6 inside: never below 1280
    (4, 1340, 1420, 1280, False),    # exactly the floor: 1340 - 60
    (4, 1341, 1420, 1281, False),
    (4, 1339, 1420, 1280, True),     # one under it: raised
    (6, 1360, 1420, 1280, False),
    (6, 1359, 1420, 1280, True),
    (6, 1300, 1281, 1280, True),
])
def test_ipv6_inside_never_sets_less_than_1280(pmtu, family, path_mtu, tunnel_mtu, set_mtu, raised):
    view = _view(pmtu, tunnel_mtu, family, allowed=("10.77.0.0/24", "fd77::/64"))
    view = pmtu.measured(view, outer=pmtu.path_ladder(family, _endpoint(pmtu, family), path_mtu, 1500))
    evidence, text = _found(view)[0]
    assert (evidence["set_mtu_bytes"], evidence["raised_to_ipv6_minimum"], evidence["ipv6_inside"]) == (set_mtu, raised, True)
    assert ("IPv6 runs inside the tunnel, which needs at least 1280 bytes" in text) is raised


def test_an_inner_shortfall_below_1280_with_ipv6_inside_is_raised(pmtu):
    view = pmtu.measured(_view(pmtu, 1420, allowed=("10.77.0.0/24", "::/0")), inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1279, 1420))
    assert (_found(view)[0][0]["set_mtu_bytes"], _found(view)[0][0]["raised_to_ipv6_minimum"]) == (1280, True)
    view = pmtu.measured(_view(pmtu, 1420, allowed=("10.77.0.0/24", "::/0")), inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1280, 1420))
    assert (_found(view)[0][0]["set_mtu_bytes"], _found(view)[0][0]["raised_to_ipv6_minimum"]) == (1280, False)


@pytest.mark.parametrize("path_mtu, set_mtu", [(636, 576), (637, 577), (635, None), (600, None), (576, None)])
def test_the_rule_never_names_an_mtu_under_the_roles_floor(pmtu, path_mtu, set_mtu):
    """IPv4 outside: a path under 576 + 60 bytes is found, with no MTU to set (the role refuses under 576), and says so."""
    view = pmtu.measured(_view(pmtu, 1420), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, path_mtu, 1500))
    (evidence, text), = _found(view)
    assert evidence["set_mtu_bytes"] == set_mtu
    assert (PMTU.fix_vars(evidence) is None) == (set_mtu is None)
    assert ("too narrow for any MTU the fix sets (at least 576 bytes" in text) == (set_mtu is None)
    assert ("Setting the tunnel's MTU" in text) == (set_mtu is not None)


def test_an_inner_edge_under_the_floor_names_no_mtu(pmtu):
    view = pmtu.measured(_view(pmtu, 1420), inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 576, 1420))
    assert _found(view)[0][0]["set_mtu_bytes"] == 576
    view["path_mtu"]["tunnels"][0]["inner"]["path_mtu_bytes"] = 575   # under any ladder's low bound: judge's own guard
    assert judge(view["path_mtu"]["tunnels"][0], 1420, False)["set_mtu_bytes"] is None


NETDEV = {"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True,
          "addresses": None, "peers": []}


@pytest.mark.parametrize("live_ipv6", [None, {"lo": ["::1/128"], "eth0": ["fd00::2/64"]}, {"wg0": ["fd77::2/64"]}])
def test_a_tunnel_whose_addresses_the_facts_do_not_show_keeps_the_ipv6_floor(pmtu, live_ipv6):
    """A Linux tunnel no wg-quick file configures (systemd-networkd), its device not in the facts' address listing
    (link_ipv6 not read, or the device not listed): IPv6 may run inside (the role reads its addresses and refuses under
    1280 where one is IPv6), so the rule never names less, and says why. Listed with a ULA: IPv6 runs inside."""
    view = pmtu.linux_view(configs=[NETDEV], live_ipv6=live_ipv6)
    (evidence, text), = _found(pmtu.measured(view, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1300, 1500)))
    listed = live_ipv6 is not None and "wg0" in live_ipv6
    assert (evidence["ipv6_inside"], evidence["set_mtu_bytes"], evidence["raised_to_ipv6_minimum"]) == (listed or None, 1280, True)
    assert ("IPv6 may run inside the tunnel (neither the host's address listing, ip -j addr show, nor a wg-quick file" in text) is not listed
    assert ("IPv6 runs inside the tunnel, which needs at least 1280 bytes" in text) is listed


@pytest.mark.parametrize("configs", [[NETDEV], []], ids=["networkd", "wg set"])
@pytest.mark.parametrize("live, path_mtu, set_mtu", [
    ([], 1300, 1240),                                 # IPv4 only inside: the path's MTU, under 1280
    (["fe80::4de0:d847:b76f:62b0/64"], 1300, 1240),   # the kernel's link-local is no IPv6 traffic
    ([], 1340, 1280), ([], 1339, 1279),               # the old floor's edge: nothing holds the MTU there any more
])
def test_a_tunnel_the_live_listing_shows_without_ipv6_gets_the_paths_mtu(pmtu, configs, live, path_mtu, set_mtu):
    """Issue 31's newcomer: a networkd (or ``wg set``) tunnel with IPv4 only inside, its device listed by link_ipv6: IPv6
    is known absent, so a 1300-byte path gets 1240, not the 1280 floor that stays too big (still_present forever)."""
    view = pmtu.linux_view(configs=configs, live_ipv6={"eth0": ["fd00::2/64"], "wg0": live})
    (evidence, text), = _found(pmtu.measured(view, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, path_mtu, 1500)))
    assert (evidence["ipv6_inside"], evidence["set_mtu_bytes"], evidence["raised_to_ipv6_minimum"]) == (False, set_mtu, False)
    assert "IPv6" not in text and "Setting the tunnel's MTU to %d bytes" % set_mtu in text
    assert PMTU.fix_vars(evidence) == {"wireguard_mtu_tunnels": {"wg0": set_mtu}}


def test_the_fixed_tunnel_is_fixed_on_verify(pmtu):
    """After remediate set 1240 (the facts read again: wg0 at 1240), the same 1300-byte path carries every tunnel packet."""
    view = pmtu.linux_view(tunnel_mtu=1240, configs=[NETDEV], live_ipv6={"wg0": []})
    assert _found(pmtu.measured(view, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1300, 1500), phase="after")) == []
    stuck = pmtu.linux_view(tunnel_mtu=1280, configs=[NETDEV])   # what the floor left: 1280 + 60 > 1300, found again
    assert _found(pmtu.measured(stuck, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1300, 1500), phase="after"))[0][0]["set_mtu_bytes"] == 1280


def test_only_openwrt_names_the_mss_clamp(pmtu):
    """The role clamps TCP's MSS on OpenWrt only (a fw4 include); on Linux it sets the MTU alone."""
    outer = pmtu.path_ladder(4, pmtu.ENDPOINT, 1400, 1500)
    (_evidence, linux), = _found(pmtu.measured(pmtu.linux_view(), outer=outer))
    (_evidence, router), = _found(pmtu.measured(pmtu.openwrt_view(), outer=outer))
    assert "Setting the tunnel's MTU to 1340 bytes makes every tunnel packet fit." in linux and "MSS" not in linux
    assert "Setting the tunnel's MTU to 1340 bytes (and clamping the MSS of the TCP it forwards to it) makes" in router


def test_a_tunnel_already_at_the_floor_is_found_but_given_no_smaller_mtu(pmtu):
    view = _view(pmtu, 1280, 6, allowed=("fd77::1/128",))
    view = pmtu.measured(view, outer=pmtu.path_ladder(6, V6_ENDPOINT, 1300, 1500))
    evidence, text = _found(view)[0]
    assert (evidence["set_mtu_bytes"], evidence["raised_to_ipv6_minimum"]) == (1280, True)
    assert "Setting the tunnel's MTU" not in text and "a wider path (or a tunnel without IPv6) is the only full fix" in text


@pytest.mark.parametrize("case, family, probes, pings", [
    ("iputils_v4_black_hole_1400.txt", 4, 11, 18),
    ("busybox_v4_black_hole_1400.txt", 4, None, 18),
    ("iputils_v4_frag_needed_1400.txt", 4, None, 10),
    ("iputils_v6_black_hole_1400.txt", 6, None, 17),
    ("busybox_v6_packet_too_big_1400.txt", 6, None, 10),
])
def test_the_recorded_ladders_find_wg_quicks_default_over_the_1400_byte_hole(pmtu, load_fixture, case, family, probes, pings):
    """The lab's hole (1400 bytes) under wg-quick's default 1420: 1480 / 1500 bytes leave, the MTU to set is 1340 / 1320."""
    text = load_fixture("pmtu_ladder", case)
    view = pmtu.linux_view(endpoint=text.split("target=")[1].split()[0])
    view = pmtu.measured(view, outer=text)
    evidence, explanation = _found(view)[0]
    assert (evidence["outer_path_mtu_bytes"], evidence["set_mtu_bytes"], evidence["outer_pings_sent"]) == (
        1400, 1400 - OVERHEAD[family], pings)
    assert probes is None or evidence["outer_probes"] == probes
    assert (evidence["inner_probes"], evidence["inner_pings_sent"]) == (None, None)
    assert "a full-size tunnel packet leaves as %d" % (1420 + OVERHEAD[family]) in explanation


def test_the_finding_through_the_registry(pmtu, load_fixture):
    view = pmtu.measured(pmtu.linux_view(), outer=load_fixture("pmtu_ladder", "iputils_v4_black_hole_1400.txt"),
                         inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1340, 1420))
    finding = find_findings({"peer": view})
    assert [(f["id"], f["severity"], f["fix_role"]) for f in finding] == [
        ("path_mtu_black_hole", "high", "tunnelfix.fleet.wireguard_mtu")]
    assert finding[0]["fix_vars"] == {"wireguard_mtu_tunnels": {"wg0": 1340}}   # remediate hands the role the MTU to set
    evidence = finding[0]["evidence"]
    assert evidence == {
        "interface": "wg0", "endpoint": pmtu.ENDPOINT, "inner_target": pmtu.HUB_ADDRESS, "uplink_device": "eth0",
        "uplink_mtu_bytes": 1500, "tunnel_mtu_bytes": 1420, "outer_family": 4, "overhead_bytes": 60,
        "outer_path_mtu_bytes": 1400, "inner_path_mtu_bytes": 1340, "set_mtu_bytes": 1340, "ipv6_inside": False,
        "larger_packets": "lost silently",
        "raised_to_ipv6_minimum": False, "outer_probes": 11, "outer_pings_sent": 18, "inner_probes": 3,
        "inner_pings_sent": 4, "peers_found": 1, "peers_measured": 1}
    assert PMTU.subject(evidence) == "wg0"
    assert diagnosis({"peer": view})["checks"]["peer"]["path_mtu_black_hole"] == {"status": "found", "reason": None}


def _two_peers_measured(pmtu):
    """wg0 with a second peer (endpoint 10.198.3.3 via eth0), measured: the view and its two tunnel entries."""
    view = pmtu.linux_view()
    wireguard = view["tunnelfix"]["wireguard"]["interfaces"]["wg0"]
    wireguard["peers"].append({"public_key": pmtu.OTHER_KEY, "endpoint_host": "10.198.3.3", "allowed_ips": ["10.77.0.3/32"]})
    view["tunnelfix"]["routes"]["endpoints"]["10.198.3.3"] = {"dev": "eth0"}
    view = pmtu.measured(view)
    first, second = view["path_mtu"]["tunnels"]
    return view, first, second


def test_the_tightest_peer_names_the_finding(pmtu):
    view, first, second = _two_peers_measured(pmtu)
    first["outer"] = judge_ready(pmtu, 4, pmtu.ENDPOINT, 1400)
    second["outer"] = judge_ready(pmtu, 4, "10.198.3.3", 1380)
    evidence = _found(view)[0][0]
    assert (evidence["endpoint"], evidence["set_mtu_bytes"], evidence["peers_found"], evidence["peers_measured"]) == (
        "10.198.3.3", 1320, 2, 2)
    second["outer"] = judge_ready(pmtu, 4, "10.198.3.3", 1500)    # the other peer's path is wide: one of two found
    evidence = _found(view)[0][0]
    assert (evidence["endpoint"], evidence["set_mtu_bytes"], evidence["peers_found"]) == (pmtu.ENDPOINT, 1340, 1)


def test_of_two_peers_given_the_same_mtu_the_one_whose_outer_ladder_saw_the_hole_names_it(pmtu):
    """The lab's hub: toward the relay its outer path is wide and the inner ladder finds 1340; toward owrt the outer ladder
    finds 1400 (1340 fits): both set 1340, and the finding names the peer whose outer ladder measured the hole."""
    view = pmtu.linux_view()
    wireguard = view["tunnelfix"]["wireguard"]["interfaces"]["wg0"]
    wireguard["peers"].append({"public_key": pmtu.OTHER_KEY, "endpoint_host": "10.198.3.3", "allowed_ips": ["10.77.0.3/32"]})
    view["tunnelfix"]["routes"]["endpoints"]["10.198.3.3"] = {"dev": "eth0"}
    view = pmtu.measured(view)
    for first_wide in (True, False):
        first, second = view["path_mtu"]["tunnels"]
        wide, narrow = (first, second) if first_wide else (second, first)
        wide["outer"] = judge_ready(pmtu, 4, wide["endpoint"], 1500)
        wide["inner"] = parse_ladder(pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1340, 1420))
        narrow["outer"] = judge_ready(pmtu, 4, narrow["endpoint"], 1400)
        evidence = _found(view)[0][0]
        assert (evidence["endpoint"], evidence["set_mtu_bytes"], evidence["outer_path_mtu_bytes"]) == (narrow["endpoint"], 1340, 1400)


def judge_ready(pmtu, family, target, path_mtu):
    """A parsed valid ladder measuring ``path_mtu`` to ``target``."""
    return parse_ladder(pmtu.path_ladder(family, target, path_mtu, 1500))


def test_what_judges_nothing_finds_nothing(pmtu, load_fixture):
    unreachable = load_fixture("pmtu_ladder", "iputils_v4_unreachable_peer.txt")
    assert _found(pmtu.measured(pmtu.linux_view(), outer=unreachable, inner=unreachable)) == []
    # a record of a tunnel the facts do not know, or whose MTU they do not know
    view = pmtu.measured(pmtu.linux_view(), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1400, 1500))
    view["path_mtu"]["tunnels"][0]["interface"] = "wg9"
    assert _found(view) == []
    view = pmtu.measured(pmtu.linux_view(), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1400, 1500))
    del view["tunnelfix"]["link_mtu"]["devices"]["wg0"]
    assert _found(view) == []
    assert _found(pmtu.linux_view()) == []    # no record at all


def test_judge_without_a_valid_ladder(pmtu):
    got = judge({"outer": None, "inner": None, "outer_family": 4}, 1420, False)
    assert (got["judged"], got["found"], got["set_mtu_bytes"], got["overhead_bytes"]) == (False, False, None, 60)


CONTRADICTION = ("ladder tool=iputils family=4 target=10.198.2.2 low=548 high=1472 interval_ms=200 attempts=2\n"
                 "probe 548 passed attempts=1\nprobe 1472 failed attempts=2\nprobe 1010 failed attempts=2\nprobe 779 passed attempts=1\n"
                 "probe 894 passed attempts=1\nprobe 952 passed attempts=1\nprobe 981 passed attempts=1\nprobe 995 passed attempts=1\n"
                 "probe 1002 passed attempts=1\nprobe 1006 passed attempts=1\nprobe 1008 passed attempts=1\nprobe 1009 passed attempts=1\n"
                 "probe 1010 passed attempts=1\nresult largest=1010\n")


@pytest.mark.parametrize("outer, inner, status, reason", [
    # both ladders valid: judged on everything
    ("path:1500", "inner:1420", "clear", None),
    # the outer one alone: judged without the inside
    ("path:1500", None, "clear", "judged without wg0 to 10.198.2.2, inside the tunnel: the ladder did not run"),
    # an invalid ladder judges nothing: the parser's reason
    ("unreachable", "unreachable", "not_checked",
     "wg0 to 10.198.2.2, outside the tunnel: no probe to 10.198.2.9 was answered, not even the smallest (1200 payload bytes, "
     "a 1228-byte packet): the peer is unreachable or drops ICMP echo, which is not a PMTU finding; wg0 to 10.198.2.2, inside "
     "the tunnel: no probe to 10.198.2.9 was answered, not even the smallest (1200 payload bytes, a 1228-byte packet): the "
     "peer is unreachable or drops ICMP echo, which is not a PMTU finding"),
    ("contradiction", "inner:1420", "clear",
     "judged without wg0 to 10.198.2.2, outside the tunnel: the probes to 10.198.2.2 contradict each other: 1010 payload "
     "bytes passed but 1010 were lost without an answer, so the losses are not about size (loss on the path: measure again)"),
])
def test_the_check_says_what_the_ladders_could_judge(pmtu, load_fixture, outer, inner, status, reason):
    def output(spec):
        if spec is None:
            return None
        if spec == "unreachable":
            return load_fixture("pmtu_ladder", "iputils_v4_unreachable_peer.txt")
        if spec == "contradiction":
            return CONTRADICTION
        kind, size = spec.split(":")
        return pmtu.path_ladder(4, pmtu.ENDPOINT if kind == "path" else pmtu.HUB_ADDRESS, int(size), int(size) if kind == "inner" else 1500)
    view = pmtu.measured(pmtu.linux_view(), outer=output(outer), inner=output(inner))
    assert diagnosis({"peer": view})["checks"]["peer"]["path_mtu_black_hole"] == {"status": status, "reason": reason}


def test_no_far_address_is_judged_on_the_outer_ladder_alone(pmtu):
    view = pmtu.measured(pmtu.linux_view(allowed_ips=("0.0.0.0/0",)), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1500, 1500),
                         hub_address=None)
    status, reason = pmtu_coverage("peer", view, {"peer": view})
    assert status == "clear" and reason.startswith("judged without wg0 to 10.198.2.2, inside the tunnel: its AllowedIPs (0.0.0.0/0)")


def test_a_full_tunnel_whose_endpoint_route_leads_into_it_is_not_probed_through_itself(pmtu, load_fixture):
    """wg-quick's full tunnel (AllowedIPs 0.0.0.0/0): an unmarked lookup of the endpoint goes to table 51820, into wg0
    (recorded). Fails before: the outer ladder pinged the endpoint through the tunnel, read at most the tunnel's own MTU,
    and MTU + 60 > MTU found a black hole on every such tunnel, lowering its MTU by 60 bytes on every remediate."""
    used = parse_ip_route_get(load_fixture("ip_j_route_get", "wg_quick_full_tunnel_unmarked.txt"))
    base = pmtu.linux_view(allowed_ips=("0.0.0.0/0",))
    base["tunnelfix"]["routes"]["endpoints"][pmtu.ENDPOINT] = {"dev": used["dev"], "table": used["table"], "gateway": None}
    view = pmtu.measured(base, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1420, 1420), hub_address=None)
    assert black_holes("peer", view, {"peer": view}) == []
    status, reason = pmtu_coverage("peer", view, {"peer": view})
    assert status == "not_checked" and "the route toward the endpoint 10.198.2.2 leads into wg0 itself" in reason


@pytest.mark.parametrize("change, cover", [
    (lambda v: v.update(tunnelfix={"link_mtu": {}}), ("not_checked", "the facts read no WireGuard interfaces")),
    (lambda v: v["tunnelfix"]["wireguard"].update(interfaces={}), ("clear", "does not apply: no WireGuard interface")),
    (lambda v: v["tunnelfix"]["link_mtu"].update(devices=None, note="ip -d -j link show failed (rc=255: x): link MTUs unknown"),
     ("not_checked", "the tunnels' MTU is unknown: ip -d -j link show failed (rc=255: x): link MTUs unknown")),
    (lambda v: v["tunnelfix"].pop("link_mtu"), ("not_checked", "the tunnels' MTU is unknown: link_mtu not read")),
    (lambda v: None, ("not_checked", NOT_MEASURED)),
    (lambda v: v["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0].update(endpoint_host=None),
     ("clear", "does not apply: no WireGuard peer has an endpoint to probe")),
    (lambda v: v.update(path_mtu={"phase": "before", "tunnels": []}),
     ("clear", "does not apply: no WireGuard peer has an endpoint to probe")),
])
def test_coverage_without_what_the_rule_reads(pmtu, change, cover):
    view = pmtu.linux_view()
    change(view)
    assert pmtu_coverage("peer", view, {"peer": view}) == cover


def test_a_record_entry_of_a_tunnel_without_an_mtu_is_named(pmtu):
    view = pmtu.measured(pmtu.linux_view(), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1500, 1500))
    view["tunnelfix"]["link_mtu"]["devices"]["wg0"] = None
    assert pmtu_coverage("peer", view, {"peer": view}) == ("not_checked", "wg0: no MTU in the facts for this tunnel")


def test_verify_needs_the_record_to_call_it_fixed(pmtu):
    view = pmtu.linux_view()
    assert PMTU.rechecked("peer", {}, {"peer": view}) is False
    assert PMTU.rechecked("peer", {}, {"peer": pmtu.measured(view)}) is True
    assert PMTU.rechecked("peer", {}, {}) is False


def test_an_openwrt_router_is_judged_from_its_endpoint_routes(pmtu, load_fixture):
    view = pmtu.measured(pmtu.openwrt_view(), outer=load_fixture("pmtu_ladder", "busybox_v4_black_hole_1400.txt"))
    evidence = _found(view, "owrt")[0][0]
    assert (evidence["uplink_device"], evidence["inner_target"], evidence["set_mtu_bytes"]) == ("eth1", pmtu.HUB_ADDRESS, 1340)


BLACK_HOLE = ("Larger packets vanish without an ICMP answer (a black hole): pings and small requests work while TLS handshakes, "
              "uploads and bulk transfers hang or crawl. WireGuard does not repair this itself.")
OUTER_1400 = ("wg0 has an MTU of 1420 bytes, but the path does not carry packets that large: toward its endpoint 10.198.2.2 (IPv4 "
              "outside, 60 bytes of WireGuard overhead) the largest packet that got through with don't-fragment set was %d bytes, "
              "and a full-size tunnel packet leaves as 1480.")


def test_the_whole_explanation_of_an_outer_hole_on_linux(pmtu):
    (_evidence, text), = _found(pmtu.measured(pmtu.linux_view(), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 1400, 1500)))
    assert text == " ".join([OUTER_1400 % 1400, BLACK_HOLE, "Setting the tunnel's MTU to 1340 bytes makes every tunnel packet fit."])


def test_the_whole_explanation_of_an_inner_shortfall_on_openwrt(pmtu):
    (_evidence, text), = _found(pmtu.measured(pmtu.openwrt_view(), inner=pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1340, 1420)), "owrt")
    assert text == " ".join([
        "wg0 has an MTU of 1420 bytes, but the path does not carry packets that large:",
        "Inside the tunnel, to 10.77.0.1, the largest packet that got through was 1340 bytes.", BLACK_HOLE,
        "Setting the tunnel's MTU to 1340 bytes (and clamping the MSS of the TCP it forwards to it) makes every tunnel packet fit."])


def test_the_whole_explanation_of_a_path_too_narrow_for_any_mtu(pmtu):
    (evidence, text), = _found(pmtu.measured(pmtu.linux_view(), outer=pmtu.path_ladder(4, pmtu.ENDPOINT, 600, 1500)))
    assert evidence["set_mtu_bytes"] is None
    assert text == " ".join([
        OUTER_1400 % 600, BLACK_HOLE,
        "The path is too narrow for any MTU the fix sets (at least 576 bytes, IPv4's minimum datagram; 1280 where IPv6 runs "
        "inside), so nothing is changed: a wider path (another uplink, or the tunnel over a link that is not itself a tunnel) "
        "is the only fix."])


RAISED = (" which needs at least 1280 bytes: the MTU stays at 1280 although the path is narrower, so full-size packets still "
          "leave fragmented; a wider path (or a tunnel without IPv6) is the only full fix.")


@pytest.mark.parametrize("configs, why", [
    (None, "IPv6 runs inside the tunnel,"),
    ([{"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True, "addresses": None,
       "peers": []}],
     "IPv6 may run inside the tunnel (neither the host's address listing, ip -j addr show, nor a wg-quick file of it shows "
     "its addresses, and the kernel drops a device's IPv6 under 1280 bytes),"),
])
def test_the_whole_explanation_of_an_mtu_kept_at_ipv6s_floor(pmtu, configs, why):
    allowed = ("10.77.0.0/24", "fd77::/64") if configs is None else ("10.77.0.0/24",)
    view = pmtu.linux_view(endpoint=V6_ENDPOINT, allowed_ips=allowed, configs=configs)
    (evidence, text), = _found(pmtu.measured(view, outer=pmtu.path_ladder(6, V6_ENDPOINT, 1300, 1500)))
    assert (evidence["set_mtu_bytes"], evidence["raised_to_ipv6_minimum"]) == (1280, True)
    assert text == " ".join([
        "wg0 has an MTU of 1420 bytes, but the path does not carry packets that large: toward its endpoint 2001:db8::10 (IPv6 "
        "outside, 80 bytes of WireGuard overhead) the largest packet that got through with don't-fragment set was 1300 bytes, "
        "and a full-size tunnel packet leaves as 1500.", BLACK_HOLE, "Setting the tunnel's MTU to 1280 bytes makes every tunnel "
        "packet fit.", why + RAISED])


def test_judge_without_a_valid_ladder_finds_nothing_and_sets_nothing():
    assert judge({"outer": None, "inner": None, "outer_family": 6}, 1420, None) == {
        "judged": False, "found": False, "outer_exceeds": False, "inner_short": False, "outer_family": 6, "overhead_bytes": 80,
        "outer_path_mtu_bytes": None, "inner_path_mtu_bytes": None, "set_mtu_bytes": None, "raised_to_ipv6_minimum": False,
        "too_narrow": False}


def two_tunnel_view(pmtu, wg0_mtu=1420):
    """A Linux host with wg0 (the hub through 10.198.2.2) and wg1 (a second hub through 10.198.3.3), both over eth0."""
    view = pmtu.linux_view(tunnel_mtu=wg0_mtu)
    facts = view["tunnelfix"]
    facts["wireguard"]["interfaces"]["wg1"] = {"peers": [{"public_key": pmtu.OTHER_KEY, "endpoint_host": "10.198.3.3",
                                                          "allowed_ips": ["10.78.0.1/32"]}]}
    facts["wireguard"]["configs"].append({"path": "/etc/wireguard/wg1.conf", "kind": "wg-quick", "interface": "wg1",
                                          "wireguard": True, "addresses": ["10.78.0.2/24"], "peers": []})
    facts["routes"]["endpoints"]["10.198.3.3"] = {"dev": "eth0", "gateway": "192.0.2.1"}
    facts["link_mtu"]["devices"]["wg1"] = 1420
    return view


def test_a_clear_tunnel_before_a_found_one_does_not_hide_it(pmtu):
    view = pmtu.measured(two_tunnel_view(pmtu), outer=None)
    wg0, wg1 = view["path_mtu"]["tunnels"]
    assert (wg0["interface"], wg1["interface"]) == ("wg0", "wg1")
    wg0["outer"] = judge_ready(pmtu, 4, pmtu.ENDPOINT, 1500)      # wg0's path carries 1420 + 60
    wg1["outer"] = judge_ready(pmtu, 4, "10.198.3.3", 1400)       # wg1's does not
    assert [(evidence["interface"], evidence["set_mtu_bytes"]) for evidence, _text in _found(view)] == [("wg1", 1340)]
    assert pmtu_coverage("peer", view, {"peer": view}) == (
        "clear", "judged without wg0 to 10.198.2.2, inside the tunnel: the ladder did not run; "
                 "wg1 to 10.198.3.3, inside the tunnel: the ladder did not run")


def test_a_tunnel_without_an_mtu_before_a_measured_one_does_not_hide_it(pmtu):
    view = pmtu.measured(two_tunnel_view(pmtu), outer=None)
    wg0, wg1 = view["path_mtu"]["tunnels"]
    wg0["outer"] = judge_ready(pmtu, 4, pmtu.ENDPOINT, 1400)
    wg1["outer"] = judge_ready(pmtu, 4, "10.198.3.3", 1400)
    wg1["inner"] = parse_ladder(pmtu.path_ladder(4, "10.78.0.1", 1340, 1420))
    view["tunnelfix"]["link_mtu"]["devices"]["wg0"] = None
    assert [evidence["interface"] for evidence, _text in _found(view)] == ["wg1"]
    assert pmtu_coverage("peer", view, {"peer": view}) == ("clear", "judged without wg0: no MTU in the facts for this tunnel")


def test_judge_of_a_path_that_carries_the_tunnel_sets_nothing(pmtu):
    """1420 + 60 fits a 1500-byte path: judged, not found, and no MTU to set although one would fit."""
    entry = {"outer": judge_ready(pmtu, 4, pmtu.ENDPOINT, 1500), "inner": parse_ladder(pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1420, 1420)),
             "outer_family": 4}
    assert judge(entry, 1420, False) == {
        "judged": True, "found": False, "outer_exceeds": False, "inner_short": False, "outer_family": 4, "overhead_bytes": 60,
        "outer_path_mtu_bytes": 1500, "inner_path_mtu_bytes": 1420, "set_mtu_bytes": None, "raised_to_ipv6_minimum": False,
        "too_narrow": False}


def test_a_peer_with_an_mtu_to_set_names_the_finding_before_one_too_narrow_for_any(pmtu):
    view, first, second = _two_peers_measured(pmtu)
    first["outer"] = judge_ready(pmtu, 4, pmtu.ENDPOINT, 600)        # too narrow for any MTU the fix sets
    second["outer"] = judge_ready(pmtu, 4, "10.198.3.3", 1400)
    evidence = _found(view)[0][0]
    assert (evidence["endpoint"], evidence["set_mtu_bytes"], evidence["peers_found"]) == ("10.198.3.3", 1340, 2)


@pytest.mark.parametrize("case, larger, opening", [
    ("iputils_v4_black_hole_1400.txt", "lost silently", "Larger packets vanish without an ICMP answer (a black hole):"),
    ("busybox_v6_black_hole_1400.txt", "lost silently", "Larger packets vanish without an ICMP answer (a black hole):"),
    ("iputils_v4_frag_needed_1400.txt", "refused with ICMP", "A hop answers the larger packets with ICMP (too big), but TCP "
     "inside the tunnel never gets that answer"),
    ("iputils_v6_packet_too_big_1400.txt", "refused with ICMP", "A hop answers the larger packets with ICMP (too big),"),
    ("busybox_v4_frag_needed_1400.txt", "refused with ICMP", "A hop answers the larger packets with ICMP (too big),"),
])
def test_the_finding_says_how_the_larger_packets_failed(pmtu, load_fixture, case, larger, opening):
    """A hop that answers "too big" is no silent black hole: the finding says which the ladder saw (recorded ladders)."""
    text = load_fixture("pmtu_ladder", case)
    view = pmtu.measured(pmtu.linux_view(endpoint=text.split("target=")[1].split()[0]), outer=text)
    (evidence, explanation), = _found(view)
    assert evidence["larger_packets"] == larger
    assert opening in explanation
    assert ("black hole" in explanation) is (larger == "lost silently")


def _probe(payload, result):
    return {"payload_bytes": payload, "result": result}


@pytest.mark.parametrize("ladders, larger", [
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1372, "passed"), _probe(1472, "failed")]}], "lost silently"),
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1472, "too-big-remote"), _probe(1400, "failed")]}],
     "refused with ICMP"),
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1400, "icmp-error")]}], "refused with ICMP"),
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1400, "too-big-local")]}], "refused by this host"),
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1400, "too-big-local"), _probe(1380, "failed")]}], "lost silently"),
    # a failed probe at or under the largest size that passed is chance loss, not the edge
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1200, "failed"), _probe(1372, "passed")]}], None),
    ([{"largest_passing_payload_bytes": 1472, "probes": [_probe(1472, "passed")]}], None),   # reached the uplink's MTU
    # over both ladders that found the fault: a hop's answer on one says the path answers
    ([{"largest_passing_payload_bytes": 1372, "probes": [_probe(1400, "failed")]},
      {"largest_passing_payload_bytes": 1312, "probes": [_probe(1340, "too-big-remote")]}], "refused with ICMP"),
    ([], None),
])
def test_larger_packets_names_how_the_sizes_above_the_edge_failed(ladders, larger):
    assert larger_packets(ladders) == larger


@pytest.mark.parametrize("set_mtu, tunnel_mtu, smaller", [
    (1340, 1420, 1340), (1419, 1420, 1419), (1420, 1420, None), (1440, 1420, None), (None, 1420, None),
    (1340, None, 1340), (True, 1420, None), ("1340", 1420, None)])
def test_smaller_mtu_is_the_mtu_to_set_only_below_the_tunnels(set_mtu, tunnel_mtu, smaller):
    assert smaller_mtu(set_mtu, tunnel_mtu) == smaller
