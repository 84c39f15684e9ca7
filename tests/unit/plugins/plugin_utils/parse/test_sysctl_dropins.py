# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_sysctl_dropins (tcp_reader's SYSCTL_DROPINS output, recorded in the lab) and parse_path_lines."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_dropins import parse_path_lines, parse_sysctl_dropins

OURS = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"
APPLIED = {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432",
           "net.ipv4.tcp_wmem": "4096 16384 33554432"}


def test_lab_peer_after_the_fix(load_fixture):
    assert parse_sysctl_dropins(load_fixture("sysctl_dropins", "lab_peer_after_fix.txt")) == {
        "/etc/sysctl.d/10-tunnelfix-lab.conf": {"net.ipv4.tcp_congestion_control": "cubic"}, OURS: APPLIED}


def test_lab_router_after_the_fix(load_fixture):
    assert parse_sysctl_dropins(load_fixture("sysctl_dropins", "lab_owrt_after_fix.txt")) == {OURS: APPLIED}


def test_slashes_a_dash_a_trailing_hash_and_a_repeated_key(load_fixture):
    files = parse_sysctl_dropins(load_fixture("sysctl_dropins", "lab_peer_slash_dash_comment.txt"))
    assert list(files) == ["/etc/sysctl.d/10-tunnelfix-lab.conf", OURS, "/etc/sysctl.d/70-tfrec.conf"]   # listed order
    assert files["/etc/sysctl.d/70-tfrec.conf"] == {
        "net.ipv4.tcp_rmem": "4096 131072 33554432",                        # the later line of the file wins
        "net.core.default_qdisc": "fq_codel # not a comment for systemd-sysctl"}


def test_nothing_set_anywhere():
    assert parse_sysctl_dropins("") == {} and parse_sysctl_dropins("\n") == {}


@pytest.mark.parametrize("text, message", [
    ("net.ipv4.tcp_rmem = 1 2 3\n", "line 1: expected 'PATH<TAB>KEY = VALUE'"),
    ("etc/sysctl.conf\tnet.ipv4.tcp_rmem = 1\n", "line 1: expected 'PATH<TAB>KEY = VALUE'"),
    ("\n/etc/sysctl.conf\tnet.ipv4.tcp_rmem 1 2 3\n", "line 2: /etc/sysctl.conf has no 'KEY = VALUE'"),
    ("/etc/sysctl.conf\t - = bbr\n", "line 1: /etc/sysctl.conf has no 'KEY = VALUE'"),
])
def test_errors_name_the_line(text, message):
    with pytest.raises(ParseError, match=message):
        parse_sysctl_dropins(text)


def test_not_text():
    with pytest.raises(ParseError, match="must be text, got NoneType"):
        parse_sysctl_dropins(None)
    with pytest.raises(ParseError, match="must be text, got int"):
        parse_path_lines(3)


def test_path_lines():
    assert parse_path_lines("/etc/modules.d/60-tunnelfix-bbr\n\n/etc/modules-load.d/a.conf\n/etc/modules.d/60-tunnelfix-bbr\n") == [
        "/etc/modules-load.d/a.conf", "/etc/modules.d/60-tunnelfix-bbr"]
    assert parse_path_lines("") == []
    with pytest.raises(ParseError, match="line 2: expected an absolute path, got 'tcp_bbr'"):
        parse_path_lines("/etc/a\ntcp_bbr\n")
