# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tcp_facts/netns_facts (shared by tunnel_facts and the tcp_tuning action), module probe, package lists."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import (
    TCP_FACT_KEYS, netns_facts, package_listed, tcp_facts)

NETNS_READ = dict.fromkeys(TCP_FACT_KEYS) | {
    "net.ipv4.tcp_congestion_control": "reno",
    "net.ipv4.tcp_available_congestion_control": "reno bbr cubic",
    "net.ipv4.tcp_allowed_congestion_control": "reno bbr cubic",
    "net.ipv4.tcp_rmem": "4096 131072 6291456",
    "net.ipv4.tcp_wmem": "4096 16384 4194304",
}


def test_tcp_facts_in_a_child_namespace():
    assert tcp_facts(NETNS_READ, None, None) == {
        "congestion_control": "reno", "congestion_control_available": ["reno", "bbr", "cubic"],
        "congestion_control_allowed": ["reno", "bbr", "cubic"], "default_qdisc": None,
        "tcp_rmem": "4096 131072 6291456", "tcp_wmem": "4096 16384 4194304", "netdev_max_backlog": None,
        "tcp_bbr_available": True, "tcp_bbr_loadable_module": False, "sch_fq_available": False}


@pytest.mark.parametrize("bbr, fq, available, loadable, fq_ok", [
    ("module", "builtin", True, True, True),
    ("loaded", None, True, True, False),
    ("builtin", "module", True, False, True),
])
def test_tcp_facts_module_states(bbr, fq, available, loadable, fq_ok):
    read = dict(NETNS_READ, **{"net.ipv4.tcp_available_congestion_control": "reno cubic",
                               "net.core.netdev_max_backlog": "1000", "net.core.default_qdisc": "fq_codel"})
    facts = tcp_facts(read, bbr, fq)
    assert (facts["tcp_bbr_available"], facts["tcp_bbr_loadable_module"], facts["sch_fq_available"]) == (
        available, loadable, fq_ok)
    assert facts["netdev_max_backlog"] == 1000 and facts["default_qdisc"] == "fq_codel"


@pytest.mark.parametrize("read, message", [
    ({"net.core.netdev_max_backlog": "lots"}, "net.core.netdev_max_backlog must be a number of packets, got 'lots'"),
    ({"net.ipv4.tcp_available_congestion_control": ""}, "congestion control list is empty"),
])
def test_tcp_facts_errors(read, message):
    with pytest.raises(ParseError, match=message):
        tcp_facts(read, None, None)


@pytest.mark.parametrize("has_net, has_host_keys, expected", [
    (True, False, True), (True, True, False), (False, False, False)])
def test_netns_facts(has_net, has_host_keys, expected):
    assert netns_facts(has_net, has_host_keys, "podman") == {"child_netns": expected, "container": "podman"}


@pytest.mark.parametrize("text, listed", [
    ("kmod-tcp-bbr - 5.15.167-1\n", True),  # opkg list-installed
    ("kmod-tcp-bbr-6.6.73-r1 x86_64 {kmod-tcp-bbr} (GPL-2.0-only) [installed]\n", True),  # apk list --installed
    ("", False),
    ("kmod-tcp-bbr-extra - 1.0\n", False),
])
def test_package_listed(text, listed):
    assert package_listed(text, "kmod-tcp-bbr") is listed
