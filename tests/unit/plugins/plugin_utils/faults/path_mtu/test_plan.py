# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's plan per platform: the lines of what the fix changes, [] when converged, None when the facts cannot tell."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import mss_clamp_file, mss_clamp_rules
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.plan import facts_reading, pmtu_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID

PMTU = BY_ID["path_mtu_black_hole"]
CLAMP = "/usr/share/nftables.d/chain-post/mangle_forward/tunnelfix-mss-wg0.nft"


def _hole(pmtu, view, path_mtu=1400):
    return pmtu.measured(view, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, path_mtu, 1500))


@pytest.mark.parametrize("written, before", [(None, "unset (1420 in use)"), ("1420", "'1420'")])
def test_openwrt_sets_the_uci_mtu_and_clamps_the_mss(pmtu, written, before):
    view = _hole(pmtu, pmtu.openwrt_view(written_mtu=written))
    assert PMTU.plan(view, {}) == [
        "network.wg0.mtu: %s -> '1340'" % before,
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP,
        "/etc/sysupgrade.conf: keep %s across sysupgrade (the clamp of wg0)" % CLAMP]


def test_the_clamp_names_the_tunnel_both_ways_and_both_families():
    assert mss_clamp_file("wg0") == CLAMP
    assert mss_clamp_rules("wg0", 1340) == [
        'oifname "wg0" meta nfproto ipv4 tcp flags syn / fin,syn,rst tcp option maxseg size > 1300 tcp option maxseg size set 1300 '
        'comment "tunnelfix-mss wg0"',
        'oifname "wg0" meta nfproto ipv6 tcp flags syn / fin,syn,rst tcp option maxseg size > 1280 tcp option maxseg size set 1280 '
        'comment "tunnelfix-mss wg0"',
        'iifname "wg0" meta nfproto ipv4 tcp flags syn / fin,syn,rst tcp option maxseg size > 1300 tcp option maxseg size set 1300 '
        'comment "tunnelfix-mss wg0"',
        'iifname "wg0" meta nfproto ipv6 tcp flags syn / fin,syn,rst tcp option maxseg size > 1280 tcp option maxseg size set 1280 '
        'comment "tunnelfix-mss wg0"']


def test_the_clamp_only_lowers_the_mss():
    """A fixed ``set`` alone would raise a smaller MSS (a peer behind a narrower link); every rule sets only a larger one."""
    for rule in mss_clamp_rules("wg0", 1400):
        size = rule.split("maxseg size set ")[1].split()[0]
        assert "tcp option maxseg size > %s tcp option maxseg size set %s" % (size, size) in rule


@pytest.mark.parametrize("kind, path, line", [
    ("wg-quick", "/etc/wireguard/wg0.conf", "/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"),
    ("netdev", "/etc/systemd/network/50-wg0.netdev", "/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1340 (now 1420)"),
])
def test_linux_writes_the_file_that_configures_the_tunnel(pmtu, kind, path, line):
    configs = [{"path": "/etc/wireguard/wg1.conf", "kind": "wg-quick", "interface": "wg1", "wireguard": True},
               {"path": "/etc/systemd/network/10-other.netdev", "kind": "netdev", "interface": "wg0", "wireguard": False},
               {"path": path, "kind": kind, "interface": "wg0", "wireguard": True}]
    assert PMTU.plan(_hole(pmtu, pmtu.linux_view(configs=configs)), {}) == [line]


def test_linux_plans_the_wg_quick_file_when_a_netdev_names_the_tunnel_too(pmtu):
    """The role edits the file wg-quick owns (fix._config); the plan names the same one, whatever order the facts list."""
    configs = [{"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True},
               {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True}]
    assert PMTU.plan(_hole(pmtu, pmtu.linux_view(configs=configs)), {}) == [
        "/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]


@pytest.mark.parametrize("path_mtu, tunnel_mtu", [(1400, 1340), (1400, 1339), (1500, 1420)])
def test_a_measured_tunnel_that_fits_is_converged(pmtu, path_mtu, tunnel_mtu):
    for view in (pmtu.linux_view(tunnel_mtu=tunnel_mtu), pmtu.openwrt_view(tunnel_mtu=tunnel_mtu)):
        assert PMTU.plan(_hole(pmtu, view, path_mtu), {}) == []


def test_one_byte_over_is_a_change(pmtu):
    assert PMTU.plan(_hole(pmtu, pmtu.linux_view(tunnel_mtu=1341)), {}) == [
        "/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1341)"]


def test_a_tunnel_at_the_ipv6_floor_changes_nothing(pmtu):
    view = pmtu.linux_view(tunnel_mtu=1280, allowed_ips=("10.77.0.0/24", "::/0"))
    assert PMTU.plan(_hole(pmtu, view, 1300), {}) == []


@pytest.mark.parametrize("build", [
    lambda pmtu: pmtu.linux_view(),                                                  # no record: nothing measured
    lambda pmtu: pmtu.measured(pmtu.linux_view()),                                   # no ladder ran
    lambda pmtu: pmtu.measured(pmtu.linux_view(), outer=pmtu.ladder(4, pmtu.ENDPOINT, 548, 1472).replace(
        "result largest=548", "result none").replace("probe 548 passed", "probe 548 failed").replace(
        "probe 549 failed attempts=2\n", "")),                                      # an invalid ladder
    lambda pmtu: _hole(pmtu, pmtu.linux_view(configs=[])),                          # no file of the facts configures wg0
    lambda pmtu: _hole(pmtu, pmtu.openwrt_view(in_uci=False)),                      # not a uci interface
])
def test_the_plan_cannot_tell(pmtu, build):
    assert PMTU.plan(build(pmtu), {}) is None


def test_a_second_tunnel_without_a_valid_ladder_makes_the_host_unknown(pmtu):
    view = pmtu.linux_view(tunnel_mtu=1340)
    view["tunnelfix"]["wireguard"]["interfaces"]["wg1"] = {"peers": [{"public_key": pmtu.OTHER_KEY, "endpoint_host": "10.198.3.3",
                                                                      "allowed_ips": ["10.78.0.1/32"]}]}
    view = _hole(pmtu, view)
    assert [entry["interface"] for entry in view["path_mtu"]["tunnels"]] == ["wg0", "wg1"]
    view["path_mtu"]["tunnels"][1]["outer"] = None
    assert PMTU.plan(view, {}) is None
    del view["tunnelfix"]["wireguard"]["interfaces"]["wg1"]["peers"][0]["endpoint_host"]   # a tunnel without peers to probe
    assert PMTU.plan(view, {}) == []


def test_the_fault_plans_with_this_folders_plan():
    assert PMTU.plan is pmtu_plan and PMTU.fix_role == "tunnelfix.fleet.wireguard_mtu"


@pytest.mark.parametrize("listed, role_vars, line", [
    # the facts list no directories: the defaults they read, which a trailing slash on the option does not change
    (None, {"wireguard_mtu_config_dir": "/etc/wireguard/"}, "/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"),
    (None, {"wireguard_mtu_networkd_dir": "/etc/systemd/network//"}, "/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"),
    # the facts read the role's own directories
    ({"wg_quick": "/srv/wg/", "networkd": "/srv/networkd"},
     {"wireguard_mtu_config_dir": "/srv/wg", "wireguard_mtu_networkd_dir": "/srv/networkd/"},
     "/srv/wg/wg0.conf: [Interface] MTU = 1340 (now 1420)"),
    # the role reads other directories than the facts listed: they cannot tell what it finds there
    (None, {"wireguard_mtu_config_dir": "/srv/wg"}, None),
    (None, {"wireguard_mtu_networkd_dir": "/srv/networkd"}, None),
    ({"wg_quick": "/srv/wg", "networkd": "/etc/systemd/network"}, {}, None),
])
def test_linux_plans_only_where_the_facts_read_the_roles_directories(pmtu, listed, role_vars, line):
    wg_dir = (listed or {}).get("wg_quick", "/etc/wireguard").rstrip("/")
    view = pmtu.linux_view(configs=[{"path": wg_dir + "/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                                     "addresses": ["10.77.0.2/24"], "peers": []}])
    if listed is not None:
        view["tunnelfix"]["wireguard"]["config_dirs"] = listed
    assert PMTU.plan(_hole(pmtu, view), role_vars) == (None if line is None else [line])


def test_the_facts_in_the_shape_of_the_roles_read(pmtu):
    """fix.fix_plan decides on this: the live MTU, IPv6 inside, the uci interface or the files that configure the tunnel;
    what the facts do not read (the fw4 include's rules and file, its line in /etc/sysupgrade.conf, tcp_mtu_probing) is None: unknown; a file's MTU setting is
    taken as the live MTU (the facts do not read it either)."""
    configs = [{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True, "addresses": ["fd77::2/64"]},
               {"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": True},
               {"path": "/etc/systemd/network/60-wg0.netdev", "kind": "netdev", "interface": "wg0", "wireguard": False},
               {"path": "/etc/wireguard/wg1.conf", "kind": "wg-quick", "interface": "wg1", "wireguard": True},
               {"path": "/etc/systemd/network/50-wg0.network", "kind": "network", "interface": "wg0", "wireguard": True}]
    assert facts_reading(pmtu.linux_view(tunnel_mtu=1400, configs=configs)) == {
        "interfaces": {"wg0": {"live_mtu_bytes": 1400, "ipv6_inside": True, "uci_proto": None, "uci_mtu": None, "clamp_file_sha256": None,
                               "clamp_kept_lines": None,
                               "configs": [{"kind": "wg-quick", "path": "/etc/wireguard/wg0.conf", "mtu": "1400"},
                                           {"kind": "netdev", "path": "/etc/systemd/network/50-wg0.netdev", "mtu": "1400"}]}},
        "nft_rc": None, "nft_rules": None, "tcp_mtu_probing": None, "tcp_mtu_probing_file_sha256": None}
    assert facts_reading(pmtu.openwrt_view(written_mtu=1420))["interfaces"] == {
        "wg0": {"live_mtu_bytes": 1420, "ipv6_inside": False, "uci_proto": "wireguard", "uci_mtu": "1420", "clamp_file_sha256": None,
                "clamp_kept_lines": None, "configs": []}}
    assert facts_reading(pmtu.openwrt_view(in_uci=False))["interfaces"]["wg0"]["uci_proto"] is None
