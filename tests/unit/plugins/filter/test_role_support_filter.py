# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role_support filters (role_option_errors, wireguard_config_plan, bridge_persist_probe, banip_inactive_reason,
health_check_probe, ...): input checks, error translation."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.limiter import DISABLED_REASON, NOT_LOADED_REASON
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.plan import live_limit_change
from ansible_collections.tunnelfix.fleet.plugins.filter.role_support import FilterModule

FILTERS = FilterModule().filters()


def test_role_option_errors():
    errors = FILTERS["role_option_errors"]({"bridge_gso_off_bridges": ["br0"], "bridge_gso_off_features": ["x"]},
                                           "bridge_gso_off")
    assert errors == ['bridge_gso_off_features: "x" is not one of gso, tso, gro, lro']
    with pytest.raises(AnsibleFilterError, match="role_option_errors: role must be one of"):
        FILTERS["role_option_errors"]({}, "other")


def test_wireguard_config_plan(load_fixture):
    plan = FILTERS["wireguard_config_plan"](load_fixture("wg_config_listing", "lab_peer_wg_quick.txt"), [],
                                            "/etc/wireguard", "/etc/systemd/network")
    assert plan == {"wg_quick_paths": ["/etc/wireguard/wg0.conf"], "netdev_paths": [], "netdev_interfaces": []}
    with pytest.raises(AnsibleFilterError, match="^wireguard_keepalive_config_dir: no wg-quick"):
        FILTERS["wireguard_config_plan"]("", [], "/etc/wireguard", "/etc/systemd/network")
    with pytest.raises(AnsibleFilterError, match="interfaces must be a list of strings, got 'wg0'"):
        FILTERS["wireguard_config_plan"]("", "wg0", "/w", "/n")


def test_bridge_persist_probe(load_fixture):
    assert FILTERS["bridge_persist_probe"](load_fixture("bridge_persist_probe", "lab_peer_no_unit.txt"))["method"] == "systemd"
    with pytest.raises(AnsibleFilterError, match="bridge_persist_probe: persist probe: no"):
        FILTERS["bridge_persist_probe"]("")


def test_wireguard_unmatched():
    wanted = {"interfaces": ["wg9"], "public_keys": []}
    assert FILTERS["wireguard_unmatched"](wanted, {"interfaces": [], "public_keys": []}, "h", "/w", "/n")[0].startswith(
        "wireguard_keepalive_interfaces: no configuration for wg9 on h")
    with pytest.raises(AnsibleFilterError, match="matched must be a dict with the lists interfaces and public_keys"):
        FILTERS["wireguard_unmatched"](wanted, {"interfaces": "wg0"}, "h", "/w", "/n")


def test_banip_icmp_report_takes_what_the_role_passes():
    """roles/banip_icmp/tasks/report.yml passes seven arguments (the last: the uci task's changed)."""
    report = FILTERS["banip_icmp_report"]
    facts = {"version": "1.5.6", "icmplimit_per_second": 250}
    lines = report(facts, facts, 300, True, "/etc/init.d/banip", "25/s", True)
    assert lines[2] == "ban_icmplimit (packets/s): 250 -> 300 (would set)"
    assert report(facts, facts, 250, False, "/etc/init.d/banip", "25/s")[1] == "before -> after"


ACTIVE = {"installed": True, "enabled": True, "nft_installed": True, "nft_table_loaded": True,
          "icmp_limit_rule": {"rate_per_second": 25, "burst_packets": None, "counter": "cnt_icmpflood", "rules": 1}}


@pytest.mark.parametrize("banip, reason", [
    (ACTIVE, ""),
    (dict(ACTIVE, enabled=None), ""),
    (dict(ACTIVE, enabled=False), DISABLED_REASON),
    (dict(ACTIVE, nft_table_loaded=False), NOT_LOADED_REASON),
    ({"installed": False}, "banIP is not installed (no /etc/init.d/banip)"),
])
def test_banip_inactive_reason_is_what_the_role_decides_on(banip, reason):
    """roles/banip_icmp/vars/main.yml: empty = write and reload; a reason = leave banIP alone and say it."""
    assert FILTERS["banip_inactive_reason"](banip) == reason


@pytest.mark.parametrize("banip", [None, "installed", {"enabled": True}])
def test_banip_inactive_reason_refuses_what_is_not_the_facts(banip):
    with pytest.raises(AnsibleFilterError, match="banip_inactive_reason: expected openwrt_facts' banip facts"):
        FILTERS["banip_inactive_reason"](banip)


def test_health_check_probe_paces_inside_the_limit():
    """roles/health_check_measure/tasks/main.yml passes the facts and its interval_ms."""
    assert FILTERS["health_check_probe"](ACTIVE, 100)["interval_ms"] == 200
    assert FILTERS["health_check_probe"](None, 100)["interval_ms"] == 100
    with pytest.raises(AnsibleFilterError, match="health_check_probe: wanted_interval_ms must be a whole number 0-10000, got -5"):
        FILTERS["health_check_probe"](ACTIVE, -5)
    with pytest.raises(AnsibleFilterError, match="health_check_probe: expected openwrt_facts' banip facts"):
        FILTERS["health_check_probe"]("banip", 100)


MIXED_23_05 = ("23.05_banip_default.txt", ("ip6 nexthdr ipv6-icmp limit rate over 10/second", "ip6 nexthdr ipv6-icmp limit rate over 250/second"))


@pytest.mark.parametrize("fixture, edit, wanted, stale", [
    ("24.10_banip_default.txt", None, 250, True),             # one rule at 25/s
    ("24.10_banip_default.txt", None, "25", False),           # the role's var may come as text
    ("24.10_banip_limit250.txt", None, 250, False),
    ("24.10_banip_limit250.txt", None, 251, True),            # one above
    ("24.10_banip_limit250.txt", None, 249, True),            # one below
    ("24.10_banip_limit0.txt", None, 250, False),             # no live rule: uci only
    ("23.05_banip_default.txt", None, 10, False),             # two rules, one per family, both at the limit
    (*MIXED_23_05, 250, True),                                # 10/s (IPv4) and 250/s (IPv6): the IPv4 rule must change
    (*MIXED_23_05, 10, True),
])
def test_banip_icmp_live_says_whether_the_live_rule_changes_as_the_plan_does(load_fixture, fixture, edit, wanted, stale):
    """roles/banip_icmp/vars/main.yml: __banip_icmp_live_stale is the filter's ``stale``, the fault's plan's decision
    (plan.live_limit_change), not a second one written in Jinja."""
    chain = load_fixture("nft_a_list_chain", fixture)
    if edit:
        chain = chain.replace(*edit)
    live = FILTERS["banip_icmp_live"]({"rc": 0, "stdout": chain}, wanted)
    assert live["stale"] is stale
    assert live["stale"] == live_limit_change(live["rates_per_second"], int(wanted))
    assert "stale" not in FILTERS["banip_icmp_live"]({"rc": 0, "stdout": chain})


def test_banip_icmp_live_refuses_a_wanted_limit_that_is_no_number():
    with pytest.raises(AnsibleFilterError, match="banip_icmp_live: wanted_per_second must be a whole number, got 'lots'"):
        FILTERS["banip_icmp_live"]({"rc": 0, "stdout": ""}, "lots")
