# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The iperf3 action against a fake python-free target: lookup, the client run, busy retries, failures, check mode.

The fake answers ``_low_level_execute_command`` from a table of command → list of (rc, stdout,
stderr), one per call (the last one repeats); unknown commands answer rc 127 (no such command),
and it records what ran and how long the controller slept.
"""

import shlex
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.iperf3 import ActionModule

LOOKUP = shlex.join(["sh", "-c", 'p=$(command -v iperf3) || exit 1; echo "$p"; command -v timeout || echo; "$p" --version 2>&1 || true'])
VERSION = "iperf 3.12 (cJSON 1.7.15)\nLinux peer 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 x86_64\n"
FOUND = (0, "/usr/bin/iperf3\n\n" + VERSION, "")
CLIENT = shlex.join(["/usr/bin/iperf3", "-c", "127.0.0.1", "-p", "5299", "-J", "-t", "2", "-P", "1",
                     "--connect-timeout", "5000", "--get-server-output"])


class FakeIperf3Action(ActionModule):
    def __init__(self, args, answers, check_mode=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=False,
                               action="tunnelfix.fleet.iperf3")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.iperf3"
        self.answers = {cmd: list(replies) for cmd, replies in answers.items()}
        self.ran = []
        self.slept = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        replies = self.answers.get(cmd, [(127, "", "sh: %s: not found\n" % cmd.split()[0])])
        rc, stdout, stderr = replies.pop(0) if len(replies) > 1 else replies[0]
        return {"rc": rc, "stdout": stdout, "stderr": stderr}

    def sleep(self, seconds):
        self.slept.append(seconds)

    @staticmethod
    def uniform(low, high):
        return high


ARGS = {"server": "127.0.0.1", "port": 5299, "duration_s": 2}


@pytest.fixture
def replies(load_fixture):
    def json_reply(case, rc=0):
        return (rc, load_fixture("iperf3_json", case), "")
    return json_reply


def test_measures_over_the_connection(replies):
    action = FakeIperf3Action(ARGS, {LOOKUP: [FOUND], CLIENT: [replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert action.ran == [LOOKUP, CLIENT]
    assert "failed" not in result and result["changed"] is False
    assert result["bits_per_second"] == pytest.approx(632835310.29)
    assert result["bits_per_second_human"] == "633 Mbit/s"
    assert result["receiver_bits_per_second"] == result["bits_per_second"]
    assert result["sender_bits_per_second"] == pytest.approx(643914833.10)
    assert result["retransmits"] == 24982 and result["version"] == "3.12" and result["valid"] is True
    assert result["server"] == "127.0.0.1:5299" and result["attempts"] == 1
    assert action.slept == []


def test_busy_server_is_retried_with_growing_jittered_waits(replies):
    busy = replies("error_busy_3.12.txt", rc=1)
    action = FakeIperf3Action(dict(ARGS, busy_backoff_s=1.5),
                              {LOOKUP: [FOUND], CLIENT: [busy, busy, replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert "failed" not in result and result["attempts"] == 3
    assert action.slept == [1.5, 3.0]
    assert action.ran == [LOOKUP, CLIENT, CLIENT, CLIENT]


def test_busy_server_fails_after_busy_retries(replies):
    action = FakeIperf3Action(dict(ARGS, busy_retries=2),
                              {LOOKUP: [FOUND], CLIENT: [replies("error_busy_3.12.txt", 1)]})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["retryable"] is True and result["attempts"] == 3
    assert result["msg"] == ("iperf3 to 127.0.0.1:5299 failed after 3 attempt(s): "
                             "the server is busy running a test. try again later")
    assert len(action.slept) == 2
    assert result["cmd"] == shlex.split(CLIENT) and result["rc"] == 1


def test_refused_is_not_retried_and_never_a_zero_result(replies):
    action = FakeIperf3Action(dict(ARGS, bind_address="127.0.0.1"),
                              {LOOKUP: [FOUND], CLIENT + " -B 127.0.0.1": [replies("error_refused_3.12.txt", 1)]})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["retryable"] is False and result["attempts"] == 1
    assert result["msg"] == ("iperf3 to 127.0.0.1:5299 failed after 1 attempt(s): unable to connect to server: "
                             "Connection refused (with bind_address=127.0.0.1)")
    assert "bits_per_second" not in result and action.slept == []


def test_output_that_is_not_json_fails_with_stderr():
    action = FakeIperf3Action(ARGS, {LOOKUP: [FOUND],
                                     CLIENT: [(1, "", "iperf3: error - unable to resolve host\n")]})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["attempts"] == 1
    assert result["msg"].startswith("iperf3 to 127.0.0.1:5299: iperf3 printed nothing on stdout")
    assert result["stderr"] == "iperf3: error - unable to resolve host\n" and result["rc"] == 1


def test_minimum_not_reached_fails_with_the_numbers(replies):
    action = FakeIperf3Action(dict(ARGS, min_bits_per_second="1G"),
                              {LOOKUP: [FOUND], CLIENT: [replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert "receiver bits_per_second 633 Mbit/s (632835310) is below the required 1.00 Gbit/s (1000000000)" \
        in result["msg"]
    assert result["bits_per_second"] == pytest.approx(632835310.29)


def test_unjudgeable_threshold_is_a_warning(replies):
    action = FakeIperf3Action(dict(ARGS, max_lost_percent=1),
                              {LOOKUP: [FOUND], CLIENT: [replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert "failed" not in result
    assert result["warnings"] == ["max_lost_percent is only measured for UDP tests; not checked"]


def test_missing_iperf3_fails_before_running_anything():
    action = FakeIperf3Action(ARGS, {})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["attempts"] == 0
    assert result["msg"] == "iperf3 is not installed on this host: install the iperf3 package"
    assert action.ran == [LOOKUP]


def test_check_mode_looks_up_iperf3_but_runs_no_test():
    action = FakeIperf3Action(ARGS, {LOOKUP: [FOUND]}, check_mode=True)
    result = action.run(task_vars={})
    assert result["skipped"] is True and result["msg"] == "check mode: iperf3 test not run"
    assert result["changed"] is False and result["attempts"] == 0 and "failed" not in result
    assert action.ran == [LOOKUP]


@pytest.mark.parametrize("args, message", [
    (dict(ARGS, port=70000), "port must be 1-65535, got 70000"),
    (dict(ARGS, min_bits_per_second="10X"), "min_bits_per_second: cannot parse bitrate '10X'"),
    (dict(ARGS, protocol="sctp"), "protocol"),
    (dict(ARGS, burst=3), "burst"),
    ({"port": 5201}, "server"),
])
def test_bad_options_fail_without_touching_the_target(args, message):
    action = FakeIperf3Action(args, {LOOKUP: [FOUND]})
    result = action.run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert action.ran == []


TIMEOUT_FOUND = (0, "/usr/bin/iperf3\n/usr/bin/timeout\n" + VERSION, "")
BOUNDED = shlex.join(["/usr/bin/timeout", "27", "/usr/bin/iperf3", "-c", "127.0.0.1", "-p", "5299", "-J", "-t", "2", "-P", "1",
                      "--connect-timeout", "5000", "--get-server-output"])


def test_the_client_runs_under_timeout_where_the_target_has_it(replies):
    """2 s test + 5 s connect timeout + 20 s slack: no client outlives its test (issue 16.6)."""
    action = FakeIperf3Action(ARGS, {LOOKUP: [TIMEOUT_FOUND], BOUNDED: [replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert not result.get("failed"), result
    assert action.ran == [LOOKUP, BOUNDED]


def test_a_client_stopped_by_timeout_fails_at_once_saying_why():
    action = FakeIperf3Action(ARGS, {LOOKUP: [TIMEOUT_FOUND], BOUNDED: [(124, "", "")]})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["attempts"] == 1 and action.slept == []
    assert result["msg"] == ("iperf3 to 127.0.0.1:5299 gave no result within 27 s and was stopped: the port may be held by "
                             "something that is not an iperf3 server, or the path stalls")


def test_without_timeout_on_the_target_rc_124_is_iperf3s_own():
    action = FakeIperf3Action(ARGS, {LOOKUP: [FOUND], CLIENT: [(124, "", "")]})
    assert "gave no result" not in action.run(task_vars={}).get("msg", "")


UDP_ARGS = dict(ARGS, protocol="udp", bitrate="20M", duration_s=5)
UDP_CLIENT = shlex.join(["/usr/bin/iperf3", "-c", "127.0.0.1", "-p", "5299", "-J", "-t", "5", "-P", "1",
                         "--connect-timeout", "5000", "--get-server-output", "-u", "-b", "20000000"])


def test_one_lookup_asks_for_the_servers_view_and_it_is_parsed(replies):
    """Still two executions: the lookup (path, timeout, version) and the test."""
    action = FakeIperf3Action(UDP_ARGS, {LOOKUP: [FOUND],
                                         UDP_CLIENT: [replies("udp_forward_server_output_3.16.txt")]})
    result = action.run(task_vars={})
    assert action.ran == [LOOKUP, UDP_CLIENT] and "failed" not in result
    assert (result["server_version"], result["server_lost_packets"], result["lost_packets"]) == ("3.16", 412, 412)
    assert result["udp_counters_64bit"] is False


def test_an_unknown_udp_loss_is_null_and_fails_a_loss_threshold(replies):
    action = FakeIperf3Action(dict(UDP_ARGS, max_lost_percent=1),
                              {LOOKUP: [FOUND], UDP_CLIENT: [replies("udp_forward_server_output_client_3.16_server_3.12.txt")]})
    result = action.run(task_vars={})
    assert result["lost_percent"] is None and result["valid"] is True
    assert result["failed"] is True and "lost_percent is unknown (the server runs iperf3 3.12" in result["msg"]


def test_a_long_udp_test_gets_64_bit_counters(replies):
    args = dict(UDP_ARGS, bitrate="0", duration_s=3600)
    client = shlex.join(["/usr/bin/iperf3", "-c", "127.0.0.1", "-p", "5299", "-J", "-t", "3600", "-P", "1",
                         "--connect-timeout", "5000", "--get-server-output", "--udp-counters-64bit", "-u", "-b", "0"])
    action = FakeIperf3Action(args, {LOOKUP: [FOUND], client: [replies("udp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert action.ran == [LOOKUP, client] and result["udp_counters_64bit"] is True


def test_an_iperf3_that_names_no_version_gets_neither_option(replies):
    plain = shlex.join(["/usr/bin/iperf3", "-c", "127.0.0.1", "-p", "5299", "-J", "-t", "2", "-P", "1",
                        "--connect-timeout", "5000"])
    action = FakeIperf3Action(ARGS, {LOOKUP: [(0, "/usr/bin/iperf3\n\n", "")], plain: [replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert action.ran == [LOOKUP, plain] and "failed" not in result and result["udp_counters_64bit"] is False


def test_a_stuck_server_is_an_invalid_result_that_fails_a_floor(replies):
    action = FakeIperf3Action(dict(ARGS, reverse=True, min_bits_per_second="1k"),
                              {LOOKUP: [FOUND], CLIENT + " -R": [replies("tcp_reverse_server_stuck_3.11.txt")]})
    result = action.run(task_vars={})
    assert result["valid"] is False and "a stuck server" in result["invalid_reason"]
    assert result["failed"] is True and "result is invalid (only the first of the client's 10 intervals" in result["msg"]


@pytest.mark.parametrize("delay_s, slept", [(0, []), (0.0, []), (1.7, [1.7])])
def test_start_delay_sleeps_on_the_controller_before_the_test(replies, delay_s, slept):
    action = FakeIperf3Action(dict(ARGS, start_delay_s=delay_s), {LOOKUP: [FOUND], CLIENT: [replies("tcp_forward_3.12.txt")]})
    result = action.run(task_vars={})
    assert "failed" not in result and action.slept == slept and action.ran == [LOOKUP, CLIENT]


@pytest.mark.parametrize("delay_s", [-0.1, 600.1])
def test_a_start_delay_out_of_range_fails_naming_it(delay_s):
    action = FakeIperf3Action(dict(ARGS, start_delay_s=delay_s), {LOOKUP: [FOUND]})
    result = action.run(task_vars={})
    assert result["failed"] is True and "start_delay_s" in result["msg"] and action.slept == []


@pytest.mark.parametrize("stdout, message", [
    ("[" * 100000, "iperf3 to 127.0.0.1:5299: iperf3 output is JSON nested too deeply"),
    ('{"end": {"sum_sent": {"retransmits": %s}}}' % ("9" * 5000), "iperf3 to 127.0.0.1:5299: iperf3 output holds a value"),
], ids=["deep", "5000_digits"])
def test_hostile_json_fails_naming_iperf3_and_the_server(stdout, message):
    """Issue 30.10: a failed result (the client's own host is the task's), never RecursionError or ValueError."""
    action = FakeIperf3Action(ARGS, {LOOKUP: [FOUND], CLIENT: [(0, stdout, "")]})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["msg"].startswith(message) and result["attempts"] == 1
