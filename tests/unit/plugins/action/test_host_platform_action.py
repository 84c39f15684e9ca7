# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host_platform action against the fake router: OpenWrt or not, from ls's exit code; failures named."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.host_platform import ActionModule, platform_of

PROBE = "ls -1d /etc/openwrt_release"


@pytest.mark.parametrize("answer, platform", [
    ((0, "/etc/openwrt_release\n", ""), "openwrt"),
    ((1, "", "ls: /etc/openwrt_release: No such file or directory\n"), "linux"),  # BusyBox
    ((2, "", "ls: cannot access '/etc/openwrt_release': No such file or directory\n"), "linux"),  # GNU ls
])
@pytest.mark.parametrize("check_mode", [False, True])
def test_platform_is_set_as_a_host_fact(batch_action, answer, platform, check_mode):
    action = batch_action(ActionModule, {}, {PROBE: answer}, check_mode=check_mode)
    result = action.run(task_vars={})
    assert result["changed"] is False and not result.get("failed")
    assert result["platform"] == platform
    assert "ansible_facts" not in result   # each role registers it: no host fact (ansible-core 2.21)
    assert action.router.calls() == [PROBE]


def test_an_ls_that_cannot_run_fails_naming_the_command(batch_action):
    result = batch_action(ActionModule, {}, {PROBE: (126, "", "permission denied\n")}).run(task_vars={})
    assert result["failed"] is True
    assert result["cmd"] == PROBE and "rc=126" in result["msg"]


def test_an_unknown_option_is_refused(batch_action):
    result = batch_action(ActionModule, {"platform": "openwrt"}, {}).run(task_vars={})
    assert result["failed"] is True and "platform" in result["msg"]


@pytest.mark.parametrize("rc, platform", [(0, "openwrt"), (1, "linux"), (2, "linux")])
def test_platform_of(rc, platform):
    assert platform_of(rc) == platform
