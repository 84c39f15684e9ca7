# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""iperf3_server: the start script's report turned into a pid or a failure naming the port and the process."""

import shlex

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.iperf3_server import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_server import START_SCRIPT, STOP_SCRIPT

ARGS = {"bind": "10.44.0.1", "port": 5201, "timeout_s": 300}
START = shlex.join(["sh", "-c", START_SCRIPT, "sh", "10.44.0.1", "5201", "300"])
OURS = 'LISTEN 0 4096 10.44.0.1:5201 0.0.0.0:* users:(("iperf3",pid=812,fd=3))'
OTHER = 'LISTEN 0 5 0.0.0.0:5201 0.0.0.0:* users:(("python3",pid=77,fd=3))'


def start(batch_action, report, args=None):
    action = batch_action(ActionModule, dict(ARGS, **(args or {})), {}, overrides={START: (0, report, "")})
    return action, action.run(task_vars={})


def test_ours_alone_on_the_port_returns_the_pid(batch_action):
    action, result = start(batch_action, "listening\t811\t2515960\t812\t811\t%s\n" % OURS)
    assert not result.get("failed"), result
    assert (result["pid"], result["start_time"], result["port"], result["listeners"]) == (811, 2515960, 5201, OURS)
    assert action.ran == [START]


def test_a_port_another_server_holds_fails_at_once_naming_it(batch_action):
    action, result = start(batch_action, "busy\t%s\n" % OTHER)
    assert result["failed"] is True and len(action.ran) == 1
    assert result["msg"].startswith("port 5201 on the hub is taken by python3 (pid 77): another server listens there")


def test_a_listener_that_is_not_ours_is_refused_and_ours_stopped(batch_action):
    stop = shlex.join(["sh", "-c", STOP_SCRIPT, "sh", "811", "2515960"])
    action = batch_action(ActionModule, ARGS, {}, overrides={START: (0, "listening\t811\t2515960\t77\t1\t%s\n" % OTHER, ""),
                                                             stop: (0, "stopped\n", "")})
    result = action.run(task_vars={})
    assert result["failed"] is True and "taken by python3 (pid 77)" in result["msg"] and action.ran == [START, stop]


@pytest.mark.parametrize("report, message", [
    ("exited\tiperf3: error - unable to start listener for connections: Cannot assign requested address\n",
     "iperf3 --server on 10.44.0.1:5201 ended before it listened: iperf3: error - unable to start listener"),
    # run with --json, iperf3 3.12 puts the error in its JSON on stdout and says only "exiting" on stderr
    ('exited\t{  "start": {   "connected": [],   "version": "iperf 3.12",   "system_info": "Linux hub 6.1.0-28-amd64 '
     '#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22) x86_64"  },  "intervals": [],  "end": {  },  "error": "error - '
     'unable to start listener for connections: Cannot assign requested address" } iperf3: exiting \n',
     "iperf3 --server on 10.44.0.1:5201 ended before it listened: error - unable to start listener for connections: "
     "Cannot assign requested address"),
    ("exited\t\n", "iperf3 --server on 10.44.0.1:5201 ended before it listened: no message"),
    ("slow\n", "iperf3 --server on 10.44.0.1:5201 did not listen within 10 s; it was stopped"),
    ("no-ss\n", "ss (iproute2) is not on the hub: the iperf3 port 5201 cannot be checked before the test"),
    ("what\n", "start script printed"),
])
def test_other_endings_fail_saying_why(batch_action, report, message):
    _action, result = start(batch_action, report)
    assert result["failed"] is True and message in result["msg"]


STOP = shlex.join(["sh", "-c", STOP_SCRIPT, "sh", "811", "2515960"])


@pytest.mark.parametrize("report, state", [("stopped\n", "stopped"), ("gone\n", "gone")])
def test_stop_passes_the_pid_and_its_start_time_and_never_fails(batch_action, report, state):
    action = batch_action(ActionModule, {"state": "stopped", "pid": 811, "start_time": 2515960}, {}, overrides={STOP: (0, report, "")})
    assert action.run(task_vars={}) == {"changed": False, "pid": 811, "start_time": 2515960, "stop": state}
    assert action.ran == [STOP]


def test_a_pid_that_is_another_process_now_is_named_and_left_alone(batch_action):
    """Issue 30.8: the stop once killed any process whose command line held iperf3 (an admin's iperf3 -s, after pid reuse)."""
    action = batch_action(ActionModule, {"state": "stopped", "pid": 811, "start_time": 2515960}, {},
                          overrides={STOP: (0, "not_ours\t2600001\tiperf3\n", "")})
    result = action.run(task_vars={})
    assert not result.get("failed") and result["stop"] == "not_ours"
    assert result["warnings"] == ["iperf3_server: pid 811 is no longer the iperf3 server this run started: it is now 'iperf3', "
                                  "started at tick 2600001 (the server: tick 2515960), so nothing was killed"]


def test_a_server_that_outlives_sigterm_is_a_warning(batch_action):
    action = batch_action(ActionModule, {"state": "stopped", "pid": 811, "start_time": 2515960}, {}, overrides={STOP: (0, "running\n", "")})
    result = action.run(task_vars={})
    assert not result.get("failed") and result["stop"] == "running" and "still ran 3 s after SIGTERM" in result["warnings"][0]


def test_stop_output_it_cannot_read_fails_naming_the_script_and_the_host(batch_action):
    action = batch_action(ActionModule, {"state": "stopped", "pid": 811, "start_time": 2515960}, {}, overrides={STOP: (0, "what\n", "")})
    result = action.run(task_vars={"inventory_hostname": "hub"})
    assert result["failed"] is True and result["msg"].startswith(
        "cannot read the output of sh -c '<stop the iperf3 server pid 811 started at tick 2515960>' on hub: the iperf3 server's "
        "stop script printed 'what\\n'")


def test_check_mode_starts_nothing(batch_action):
    action = batch_action(ActionModule, ARGS, {}, check_mode=True)
    result = action.run(task_vars={})
    assert result["skipped"] is True and action.ran == []


@pytest.mark.parametrize("args, named", [
    ({"port": 70000}, "port: 70000"), ({"port": 0}, "port: 0"), ({"timeout_s": 0}, "timeout_s: 0"),
    ({"state": "stopped", "pid": 1, "start_time": 5}, "pid: 1"), ({"state": "stopped", "start_time": 5}, "pid"),
    ({"state": "stopped", "pid": 811}, "start_time"), ({"state": "stopped", "pid": 811, "start_time": 0}, "start_time: 0"),
    ({"bind": None}, "bind"),
])
def test_bad_input_fails_naming_the_option(batch_action, args, named):
    merged = dict(ARGS, **args)
    merged = {key: value for key, value in merged.items() if value is not None}
    result = batch_action(ActionModule, merged, {}).run(task_vars={})
    assert result["failed"] is True and named in result["msg"]
