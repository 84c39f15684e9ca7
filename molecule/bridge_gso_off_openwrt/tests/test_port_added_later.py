# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A port added to br-lan later: the hotplug handler (ifup, not ifdown) and rc.local at boot turn its offloads off.

The image never generates a hotplug event: the handler is run as hotplug-call runs it (sourced, in a subshell).
"""

import pytest

OFF = {"generic-segmentation-offload": "off", "tcp-segmentation-offload": "off", "generic-receive-offload": "off"}
DEVICES = ["br-lan", "lan1", "lan2", "lan3"]
ADD_LAN3 = (
    "ip link del lan3 2>/dev/null; set -e; ip link add lan3 type veth peer name lan3p; ethtool -K lan3 gso on tso on gro on;"
    " ip link set lan3 master br-lan; ip link set lan3 up; ip link set lan3p up"
)
HOOK = "ACTION=%s INTERFACE=lan DEVICE=br-lan sh -c '. /etc/hotplug.d/iface/99-tunnelfix-gso'"


@pytest.fixture(name="lan3_tso_before", scope="module")
def fixture_lan3_tso_before(host):
    """Add lan3 with its offloads on; return its tso then."""
    host.check_output(ADD_LAN3)
    return host.check_output("ethtool -k lan3 | grep '^tcp-segmentation-offload:'")


@pytest.fixture(name="ifup", scope="module")
def fixture_ifup(host, lan3_tso_before):
    """Run the handler for lan's ifup after lan3 was added; return its exit status."""
    assert lan3_tso_before
    return host.run(HOOK % "ifup").rc


def test_lan3_started_with_tso_on(lan3_tso_before):
    """So the handler has something to do."""
    assert lan3_tso_before == "tcp-segmentation-offload: on"


def test_ifup_handler_exits_0(ifup):
    assert ifup == 0


@pytest.mark.usefixtures("ifup")
@pytest.mark.parametrize("device", DEVICES)
def test_offloads_off_after_ifup(offloads, device):
    assert offloads(device) == OFF


@pytest.mark.usefixtures("ifup")
def test_ifdown_leaves_lan3_alone(host, offloads):
    host.check_output("ethtool -K lan3 tso on")
    assert host.run(HOOK % "ifdown").rc == 0
    assert offloads("lan3")["tcp-segmentation-offload"] == "on"


@pytest.fixture(name="boot", scope="module")
def fixture_boot(host):
    """Run /etc/rc.local twice as boot does; return the exit statuses and the file's checksum before and after."""
    before = host.check_output("md5sum < /etc/rc.local")
    statuses = [host.run("sh /etc/rc.local").rc, host.run("sh /etc/rc.local").rc]
    return {"rc": statuses, "unchanged": host.check_output("md5sum < /etc/rc.local") == before}


def test_rc_local_exits_0_twice_and_stays_unchanged(boot):
    assert boot == {"rc": [0, 0], "unchanged": True}


@pytest.mark.usefixtures("boot")
@pytest.mark.parametrize("device", DEVICES)
def test_offloads_off_after_boot(offloads, device):
    """lan3 included: tso was turned on again by the ifdown test."""
    assert offloads(device) == OFF
