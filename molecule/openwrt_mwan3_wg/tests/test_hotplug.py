# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The full tunnel's host route follows mwan3's own events, with nobody running the hook by hand.

The image's mwan3track (lab/images/openwrt/rootfs/usr/sbin/mwan3track, modelled on the release's)
tracks wan and wanb by pinging their gateways, which live in the namespaces wan-far and wanb-far
that prepare created inside the container. Dropping the echo requests in wan-far makes it announce
wan disconnected with ``env -i ACTION=disconnected ... /sbin/hotplug-call iface``, as the real one
does; the role's hook in /etc/hotplug.d/iface/ must then re-point the endpoint, and back on connected.
"""

import time

import pytest

ENDPOINT = "203.0.113.55"
VIA_WAN = "203.0.113.55 via 192.0.2.1 dev eth1"
VIA_WANB = "203.0.113.55 via 198.51.100.1 dev wwan0"
DROP_ECHO = ("ip netns exec wan-far nft add table inet tf_test && "
             "ip netns exec wan-far nft add chain inet tf_test input '{ type filter hook input priority 0; }' && "
             "ip netns exec wan-far nft add rule inet tf_test input icmp type echo-request drop")
ANSWER_ECHO = "ip netns exec wan-far nft delete table inet tf_test"


def endpoint_route(host):
    """``ip route show <endpoint>/32`` cut to ``<destination> via <gateway> dev <device>``."""
    lines = host.check_output("ip route show %s/32" % ENDPOINT).splitlines()
    return " ".join(lines[0].split()[:5]) if lines else ""


def wait_for_route(host, want, timeout_s=20.0):
    """The endpoint's route once it is ``want``, or the last one seen after timeout_s."""
    deadline = time.monotonic() + timeout_s
    route = endpoint_route(host)
    while route != want and time.monotonic() < deadline:
        time.sleep(0.5)
        route = endpoint_route(host)
    return route


def status(host, interface):
    return host.check_output("cat /var/run/mwan3track/%s/STATUS 2>/dev/null || true" % interface)


def wait_for_status(host, interface, want, timeout_s=20.0):
    """mwan3track's STATUS of the interface once it is ``want``, or the last one seen after timeout_s."""
    deadline = time.monotonic() + timeout_s
    seen = status(host, interface)
    while seen != want and time.monotonic() < deadline:
        time.sleep(0.5)
        seen = status(host, interface)
    return seen


@pytest.fixture(scope="module")
def trackers(host):
    """mwan3track for wan and wanb, started as mwan3's init script starts them; stopped afterwards.

    Yields the endpoint's route before they started (their first check fires connected at once).
    """
    before = endpoint_route(host)
    host.check_output("for i in wan wanb; do setsid /usr/sbin/mwan3track $i </dev/null >/dev/null 2>&1 & done")
    yield before
    host.run(ANSWER_ECHO)
    host.run("for p in /proc/[0-9]*; do case \"$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)\" in "
             "*'/usr/sbin/mwan3track '*) kill ${p#/proc/} ;; esac; done")


def test_host_route_follows_mwan3_events(host, trackers):
    seen = {"before": trackers}
    # Each tracker's first check announces connected (FIRSTCONNECT=1): the best uplink, wan, is used.
    seen["both_online"] = wait_for_route(host, VIA_WAN)
    host.check_output(DROP_ECHO)
    # mwan3track writes STATUS before it fires the event, whose scripts run before its next check
    seen["wan_status_down"] = wait_for_status(host, "wan", "offline")
    seen["wan_disconnected"] = wait_for_route(host, VIA_WANB, timeout_s=5.0)
    host.check_output(ANSWER_ECHO)
    seen["wan_status_up"] = wait_for_status(host, "wan", "online")
    seen["wan_connected"] = wait_for_route(host, VIA_WAN, timeout_s=5.0)
    assert seen == {
        "before": VIA_WANB,   # pinned by prepare, kept by the role (full tunnel)
        "both_online": VIA_WAN,
        "wan_status_down": "offline",
        "wan_disconnected": VIA_WANB,
        "wan_status_up": "online",
        "wan_connected": VIA_WAN,
    }
    assert host.check_output("ip route get %s" % ENDPOINT).split()[:5] == VIA_WAN.split()


def test_events_logged_as_mwan3track_and_the_hook_log_them(host, trackers):
    log = host.check_output("logread")
    assert "Interface wan (eth1) is offline" in log
    assert "Interface wan (eth1) is online" in log
    assert "tunnelfix-wg-endpoint: %s via 198.51.100.1 dev wwan0 (disconnected wan)" % ENDPOINT in log
    assert "tunnelfix-wg-endpoint: %s via 192.0.2.1 dev eth1 (connected wan)" % ENDPOINT in log


@pytest.mark.parametrize("event", [
    "ACTION=ifdown INTERFACE=wan DEVICE=eth1",               # netifd's, not mwan3's
    "ACTION=disconnecting INTERFACE=wan DEVICE=eth1",        # a falling score, no decision yet
    "ACTION=disconnected INTERFACE=lan DEVICE=br-lan",       # not an uplink
])
def test_other_events_leave_the_route(host, trackers, event):
    assert wait_for_route(host, VIA_WAN) == VIA_WAN
    host.check_output("env -i %s /sbin/hotplug-call iface" % event)
    assert endpoint_route(host) == VIA_WAN
