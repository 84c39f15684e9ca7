# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ping_burst action against a fake router answering from recorded output."""

import shlex
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.ping_burst import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.ping_burst import ping_burst_script

TARGETS = ["100.64.10.1", "100.64.20.1"]


class FakePingBurstAction(ActionModule):
    def __init__(self, args, answers):
        task = SimpleNamespace(args=args, async_val=0, check_mode=False, diff=False, action="tunnelfix.fleet.ping_burst")
        super().__init__(task, SimpleNamespace(_shell=SimpleNamespace(tmpdir=None)), None, None, None)
        self._load_name = "tunnelfix.fleet.ping_burst"
        self.answers = answers
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        rc, stdout, stderr = self.answers.get(cmd, (127, "", "sh: not found"))
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


def router(load_fixture, case):
    script = shlex.join(["sh", "-c", ping_burst_script(TARGETS, 10, 10, 1)])
    return {"command -v ping": (0, "/bin/ping\n", ""), script: (0, load_fixture("ping_burst", case), "")}


def test_counts_the_lost_health_checks_and_never_changes(load_fixture):
    result = FakePingBurstAction({"targets": TARGETS}, router(load_fixture, "banip_limit_25_two_uplinks.txt")).run(task_vars={})
    assert not result.get("failed") and result["changed"] is False
    assert (result["sent"], result["failed_pings"], result["rate_per_second"]) == (20, 10, 100.0)
    assert result["cmd"] == "sh -c <ping burst script>"


def test_the_rate_is_the_one_the_router_could_pace_not_the_one_asked_for(load_fixture):
    """A router whose sleep takes whole seconds only (OpenWrt's BusyBox) says so in the output's first line."""
    answers = router(load_fixture, "banip_limit_25_two_uplinks.txt")
    script = next(cmd for cmd in answers if cmd.startswith("sh "))
    answers[script] = (0, "interval_ms 1000\n" + answers[script][1], "")
    result = FakePingBurstAction({"targets": TARGETS}, answers).run(task_vars={})
    assert (result["interval_ms"], result["rate_per_second"], result["sent"]) == (1000, 1.0, 20)


def test_max_failed_fails_with_the_numbers(load_fixture):
    result = FakePingBurstAction({"targets": TARGETS, "max_failed": 0},
                                 router(load_fixture, "banip_limit_25_two_uplinks.txt")).run(task_vars={})
    assert result["failed"] is True and result["msg"] == "10 of 20 one-shot pings failed (max_failed=0)"


def test_max_failed_passes_after_the_fix(load_fixture):
    result = FakePingBurstAction({"targets": TARGETS, "max_failed": 0},
                                 router(load_fixture, "banip_limit_250_two_uplinks.txt")).run(task_vars={})
    assert not result.get("failed") and result["failed_pings"] == 0


def test_missing_ping_is_a_clear_failure():
    result = FakePingBurstAction({"targets": TARGETS}, {"command -v ping": (127, "", "")}).run(task_vars={})
    assert result["failed"] is True and result["msg"] == "ping is not installed on the target"


@pytest.mark.parametrize("args, named", [
    ({"targets": ["1.2.3.4 && reboot"]}, "1.2.3.4 && reboot"),
    ({"targets": TARGETS, "count": 0}, "count"),
    ({"targets": TARGETS, "interval_ms": 20000}, "interval_ms"),
    ({"targets": TARGETS, "count": "many"}, "count"),
    ({}, "targets"),
    ({"targets": ["10.0.0.1\n"]}, "10.0.0.1\\n"),
    ({"targets": TARGETS, "max_failed": -1}, "max_failed must be a whole number 0-1000, got -1"),
    ({"targets": TARGETS, "max_failed": True}, "max_failed"),
])
def test_bad_input_fails_naming_the_option_and_runs_nothing(args, named):
    action = FakePingBurstAction(args, {})
    result = action.run(task_vars={})
    assert result["failed"] is True and named in result["msg"] and action.ran == []


@pytest.mark.parametrize("target", ["2001:db8::1", "fe80::1%wg0"])
def test_without_netaddr_an_ipv6_target_fails_naming_the_package(monkeypatch, target):
    monkeypatch.setattr(ipnet, "netaddr", None)
    result = FakePingBurstAction({"targets": [target]}, {}).run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == "tunnelfix.fleet needs the Python package netaddr on the controller: pip install netaddr==1.3.0"


@pytest.mark.parametrize("target, accepted", [("2001:db8::1", True), ("fe80::1%wg0", True), ("2001:db8::g", False),
                                              ("[2001:db8::1]", False), ("300.1.1.1:1", False)])
def test_an_ipv6_target_is_read_with_netaddr(target, accepted):
    result = FakePingBurstAction({"targets": [target]}, {}).run(task_vars={})
    assert ("is not an IP address or host name" in (result.get("msg") or "")) is not accepted
