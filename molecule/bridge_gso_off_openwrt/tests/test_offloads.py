# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bridge_gso_off on the python-free router: gso, tso and gro off, the rc.local block before exit 0, the hotplug handler."""

import pytest

OFF = {"generic-segmentation-offload": "off", "tcp-segmentation-offload": "off", "generic-receive-offload": "off"}
HOTPLUG = "/etc/hotplug.d/iface/99-tunnelfix-gso"
BEGIN = "# BEGIN tunnelfix.fleet bridge_gso_off"
END = "# END tunnelfix.fleet bridge_gso_off"


@pytest.fixture(name="rc_local")
def fixture_rc_local(host):
    """/etc/rc.local's lines, stripped, blank ones left out."""
    return [line.strip() for line in host.file("/etc/rc.local").content_string.splitlines() if line.strip()]


@pytest.mark.parametrize("device", ["br-lan", "lan1", "lan2"])
def test_offloads_off(offloads, device):
    assert offloads(device) == OFF


def test_rc_local_has_one_marked_block(rc_local):
    assert [line for line in rc_local if line in (BEGIN, END)] == [BEGIN, END]


def test_rc_local_ends_with_its_only_exit_0(rc_local):
    assert rc_local[-1] == "exit 0"
    assert rc_local.count("exit 0") == 1


def test_rc_local_block_runs_the_helper_before_exit_0(rc_local):
    assert rc_local.index(BEGIN) < rc_local.index(END) < rc_local.index("exit 0")
    assert rc_local[rc_local.index(BEGIN) + 1].startswith("/usr/sbin/tunnelfix-bridge-offload br-lan")


def test_hotplug_handler_is_executable(host):
    assert host.run("test -x %s", HOTPLUG).rc == 0
