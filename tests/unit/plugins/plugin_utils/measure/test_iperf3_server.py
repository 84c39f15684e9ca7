# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hub's iperf3 server: ours alone on its port, or named failures (issue 16.6: another listener satisfied the check)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_server import (
    START_SCRIPT, exit_message, listener_names, parse_server_start)

SSHD = 'LISTEN 0 128 0.0.0.0:5201 0.0.0.0:* users:(("nc",pid=50,fd=3))'
OURS = 'LISTEN 0 4096 10.44.0.1:5201 0.0.0.0:* users:(("iperf3",pid=812,fd=3))'


def test_a_port_someone_holds_is_busy_and_names_the_process():
    report = parse_server_start("busy\t%s\n" % SSHD)
    assert report == {"state": "busy", "ours": False, "pid": None, "start_time": None, "listeners": SSHD}
    assert listener_names(report["listeners"]) == "nc (pid 50)"


@pytest.mark.parametrize("wrapper, listener, parent, ours", [(811, 812, 811, True), (812, 812, 1, True), (811, 900, 1, False)])
def test_the_listener_is_ours_only_when_it_or_its_parent_is_what_we_started(wrapper, listener, parent, ours):
    report = parse_server_start("listening\t%d\t2515960\t%d\t%d\t%s\n" % (wrapper, listener, parent, OURS))
    assert report["ours"] is ours and report["pid"] == wrapper and report["state"] == "listening"
    assert report["start_time"] == 2515960


@pytest.mark.parametrize("text, state", [("slow\n", "slow"), ("no-ss\n", "no-ss"),
                                         ("exited\tiperf3: error - unable to start listener for connections: Cannot assign requested address\n",
                                          "exited")])
def test_the_other_endings(text, state):
    assert parse_server_start(text)["state"] == state


@pytest.mark.parametrize("text", ["", "listening\t1\t2\n", "listening\tx\t5\t2\t3\tline\n", "listening\t1\t2\t3\tline\n",
                                  "started\n", "busy\n"])
def test_anything_else_is_a_parse_error(text):
    with pytest.raises(ParseError, match="start script printed"):
        parse_server_start(text)


def test_a_wrapper_whose_start_time_was_not_read_is_a_parse_error():
    """Stop needs the start time to prove the pid is ours (issue 30.8): without it the start fails."""
    with pytest.raises(ParseError, match="could not read the start time of pid 811"):
        parse_server_start("listening\t811\t0\t812\t811\t%s\n" % OURS)


def test_listener_names_without_process_info():
    assert listener_names("LISTEN 0 5 0.0.0.0:5201 0.0.0.0:*") == "LISTEN 0 5 0.0.0.0:5201 0.0.0.0:*"
    assert listener_names("").startswith("an unknown process")
    assert listener_names(SSHD + " | " + SSHD) == "nc (pid 50)"


# iperf3 3.12 --server --json that cannot listen (recorded on loopback, flattened as START_SCRIPT prints it)
JSON_EXIT = ('{  "start": {   "connected": [],   "version": "iperf 3.12",   "system_info": "Linux vm 6.18.44-fc-v857 #1 '
             'SMP PREEMPT_DYNAMIC @0 x86_64"  },  "intervals": [],  "end": {  },  "error": "error - unable to start listener '
             'for connections: Cannot assign requested address" } iperf3: exiting ')


@pytest.mark.parametrize("output, message", [
    (JSON_EXIT, "error - unable to start listener for connections: Cannot assign requested address"),
    ('{ "error": "error - a \\"quoted\\" name" }', 'error - a "quoted" name'),
    ("iperf3: parameter error - some option\n", "iperf3: parameter error - some option"),
    ("", ""),
    (None, ""),
])
def test_exit_message_is_the_json_error_else_the_output(output, message):
    assert exit_message(output) == message


def test_the_server_runs_with_json_and_keeps_its_output_for_the_exit_message():
    """--json: a client's --get-server-output then carries the server's JSON (its counts and version)."""
    assert START_SCRIPT.count("iperf3 --server --one-off --json ") == 2
    assert START_SCRIPT.count('>"$out" 2>"$err" &') == 2
    assert 'cat "$out" "$err"' in START_SCRIPT
    assert 'rm -f "$err"\n' not in START_SCRIPT and START_SCRIPT.count('rm -f "$err" "$out"') == 3
