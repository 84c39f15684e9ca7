# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openwrt_mwan3_wg: wg0 (split tunnel) fixed, wg1 (full tunnel) keeps its host route, wg0 brought up once."""


def route_words(host, command):
    """The first line of an ``ip route`` command, cut to ``<destination> via <gateway> dev <device>``."""
    lines = host.check_output(command).splitlines()
    return lines[0].split()[:5] if lines else []


def test_nohostroute_only_on_the_split_tunnel(uci_get):
    assert {"wg0": uci_get("network.wg0.nohostroute"), "wg1": uci_get("network.wg1.nohostroute")} == {"wg0": "1", "wg1": None}


def test_nothing_left_staged(uci_changes):
    assert uci_changes("network") == []


def test_split_tunnel_endpoint_no_longer_pinned(host):
    assert route_words(host, "ip route show 203.0.113.10/32") == []


def test_split_tunnel_endpoint_follows_the_default_route(host):
    assert route_words(host, "ip route get 203.0.113.10") == ["203.0.113.10", "via", "192.0.2.1", "dev", "eth1"]


def test_full_tunnel_endpoint_keeps_its_host_route(host):
    assert route_words(host, "ip route show 203.0.113.55/32") == ["203.0.113.55", "via", "198.51.100.1", "dev", "wwan0"]


def test_wg0_brought_up_exactly_once(recorded_calls):
    assert [call for call in recorded_calls() if "ifup" in call] == ["/sbin/ifup wg0"]


def test_hotplug_script_installed_where_mwan3track_events_run(host):
    assert host.run("test -f /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint").rc == 0


def test_hook_left_by_an_earlier_version_removed(host):
    """prepare plants it where mwan3 never looks (/etc/hotplug.d/mwan3/); the role removes it."""
    assert host.run("test -e /etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint").rc == 1


def test_rollback_confirmed(host):
    """No snapshot left, nothing armed."""
    assert host.check_output("ls -A /var/run/tunnelfix-rollback 2>/dev/null || true") == ""
