# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A port added to br-lan later (the kernel recomputes the bridge's features) is fixed when the unit runs again."""

import pytest

OFF = {"generic-segmentation-offload": "off", "tcp-segmentation-offload": "off", "generic-receive-offload": "off"}
ADD_LAN3 = (
    "ip link del lan3 2>/dev/null; set -e; ip link add lan3 type veth peer name lan3p; ethtool -K lan3 gso on tso on gro on;"
    " ip link set lan3 master br-lan; ip link set lan3 up; ip link set lan3p up"
)


@pytest.fixture(name="lan3_tso_before", scope="module")
def fixture_lan3_tso_before(host):
    """Add lan3 with its offloads on, read its tso, then run the unit again; return the tso read before."""
    host.check_output(ADD_LAN3)
    before = host.check_output("ethtool -k lan3 | grep '^tcp-segmentation-offload:'")
    host.check_output("systemctl restart tunnelfix-bridge-offload@br-lan.service")
    return before


def test_lan3_started_with_tso_on(lan3_tso_before):
    """So the unit had something to do."""
    assert lan3_tso_before == "tcp-segmentation-offload: on"


@pytest.mark.usefixtures("lan3_tso_before")
@pytest.mark.parametrize("device", ["br-lan", "lan3"])
def test_offloads_off_after_the_unit_ran_again(offloads, device):
    assert offloads(device) == OFF
