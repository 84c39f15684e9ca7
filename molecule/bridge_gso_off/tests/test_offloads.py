# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bridge_gso_off in a systemd container: gso, tso and gro off on br-lan and its ports, the oneshot unit enabled and run."""

import pytest

OFF = {"generic-segmentation-offload": "off", "tcp-segmentation-offload": "off", "generic-receive-offload": "off"}


@pytest.mark.parametrize("device", ["br-lan", "lan1", "lan2"])
def test_offloads_off(offloads, device):
    assert offloads(device) == OFF


def test_unit_enabled_and_ran(host):
    shown = host.check_output("systemctl show -p UnitFileState -p ActiveState -p Result tunnelfix-bridge-offload@br-lan.service")
    assert dict(line.split("=", 1) for line in shown.splitlines()) == {"UnitFileState": "enabled", "ActiveState": "active", "Result": "success"}
