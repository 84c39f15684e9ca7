# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""faults/endpoint_route/hook.py: whether openwrt_mwan3_wg's full-tunnel hook exists, from ``ls -1d``'s exit code and stderr
(BusyBox ls on OpenWrt: rc 1, GNU coreutils ls: rc 2, both saying "No such file or directory")."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import HOOK_PATH, HOOK_PROBE, hook_exists, parse_hook_probe


@pytest.mark.parametrize("rc, stderr, exists", [
    (0, "", True),
    (0, None, True),
    (1, "ls: /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint: No such file or directory\n", False),     # BusyBox
    (2, "ls: cannot access '/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint': No such file or directory\n", False),   # GNU
    (1, "ls: /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint: Permission denied\n", None),
    (127, "sh: ls: not found\n", None),
    (1, "", None),
    (1, None, None),
])
def test_the_probe_says_present_absent_or_unknown(rc, stderr, exists):
    assert parse_hook_probe(rc, stderr) is exists


class Batch:
    """An action whose batch answered the probe with ``result``; records what was asked."""

    def __init__(self, result):
        self.result, self.asked = result, []

    def step(self, argv, ok_rcs=(0,)):
        self.asked.append((argv, ok_rcs))
        return self.result


def test_hook_exists_reads_the_probe_of_the_batch_accepting_every_exit_code():
    action = Batch({"rc": 1, "stdout": "", "stderr": "ls: %s: No such file or directory\n" % HOOK_PATH})
    assert hook_exists(action) is False
    [(argv, ok_rcs)] = action.asked
    assert argv == HOOK_PROBE == ["ls", "-1d", "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint"]
    assert 0 in ok_rcs and 2 in ok_rcs and 127 in ok_rcs and 255 in ok_rcs
    assert hook_exists(Batch({"rc": 0, "stdout": HOOK_PATH + "\n", "stderr": ""})) is True
