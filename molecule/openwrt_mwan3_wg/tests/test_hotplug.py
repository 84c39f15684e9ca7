# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The full tunnel's host route follows the working uplink when mwan3 runs the hotplug script."""

HOOK = "ACTION=%s INTERFACE=%s DEVICE=%s /etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"
EVENTS = [
    ("wanb_down", "disconnected", "wanb", "wwan0"),
    ("wanb_up", "connected", "wanb", "wwan0"),
    ("wan_down", "disconnected", "wan", "eth1"),
    ("wan_up", "connected", "wan", "eth1"),
]


def test_host_route_follows_the_working_uplink(host):
    routes = {}
    for name, action, interface, device in EVENTS:
        host.run(HOOK % (action, interface, device))
        routes[name] = " ".join(host.check_output("ip route show 203.0.113.55/32").split()[:5])
    assert routes == {
        "wanb_down": "203.0.113.55 via 192.0.2.1 dev eth1",
        "wanb_up": "203.0.113.55 via 192.0.2.1 dev eth1",
        "wan_down": "203.0.113.55 via 198.51.100.1 dev wwan0",
        "wan_up": "203.0.113.55 via 192.0.2.1 dev eth1",
    }
