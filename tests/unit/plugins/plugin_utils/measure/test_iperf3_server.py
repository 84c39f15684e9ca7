# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hub's iperf3 server: ours alone on its port, or named failures (issue 16.6: another listener satisfied the check)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_server import listener_names, parse_server_start

SSHD = 'LISTEN 0 128 0.0.0.0:5201 0.0.0.0:* users:(("nc",pid=50,fd=3))'
OURS = 'LISTEN 0 4096 10.44.0.1:5201 0.0.0.0:* users:(("iperf3",pid=812,fd=3))'


def test_a_port_someone_holds_is_busy_and_names_the_process():
    report = parse_server_start("busy\t%s\n" % SSHD)
    assert report == {"state": "busy", "ours": False, "pid": None, "listeners": SSHD}
    assert listener_names(report["listeners"]) == "nc (pid 50)"


@pytest.mark.parametrize("wrapper, listener, parent, ours", [(811, 812, 811, True), (812, 812, 1, True), (811, 900, 1, False)])
def test_the_listener_is_ours_only_when_it_or_its_parent_is_what_we_started(wrapper, listener, parent, ours):
    report = parse_server_start("listening\t%d\t%d\t%d\t%s\n" % (wrapper, listener, parent, OURS))
    assert report["ours"] is ours and report["pid"] == wrapper and report["state"] == "listening"


@pytest.mark.parametrize("text, state", [("slow\n", "slow"), ("no-ss\n", "no-ss"),
                                         ("exited\tiperf3: error - unable to start listener for connections: Cannot assign requested address\n",
                                          "exited")])
def test_the_other_endings(text, state):
    assert parse_server_start(text)["state"] == state


@pytest.mark.parametrize("text", ["", "listening\t1\t2\n", "listening\tx\t2\t3\tline\n", "started\n", "busy\n"])
def test_anything_else_is_a_parse_error(text):
    with pytest.raises(ParseError, match="start script printed"):
        parse_server_start(text)


def test_listener_names_without_process_info():
    assert listener_names("LISTEN 0 5 0.0.0.0:5201 0.0.0.0:*") == "LISTEN 0 5 0.0.0.0:5201 0.0.0.0:*"
    assert listener_names("").startswith("an unknown process")
    assert listener_names(SSHD + " | " + SSHD) == "nc (pid 50)"
