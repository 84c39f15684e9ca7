# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_sysctl_apply: value checks, per-key status and the sysctl_live result shape."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl_apply import (
    check_values, needs_write, status_before_write, summarize, write_status)


def test_check_values_normalises():
    assert check_values({"net.ipv4.tcp_rmem": [4096, "131072", 6291456], "net.core.x": 1}) == {
        "net.ipv4.tcp_rmem": "4096 131072 6291456", "net.core.x": "1"}


@pytest.mark.parametrize("values, message", [
    ({"-p": "x"}, "values: '-p' is not a dotted sysctl name such as net.ipv4.tcp_rmem"),
    ({"net/ipv4/x": "1"}, "values: 'net/ipv4/x' is not a dotted sysctl name"),
    ({"net.ipv4.x": "  "}, "values: net.ipv4.x: the value is empty"),
    ({"net.ipv4.x": True}, "values: net.ipv4.x: sysctl value True is a boolean; write 1 or 0"),
    ("bbr", "values: must be a dict"),
])
def test_check_values_errors_name_option_and_key(values, message):
    with pytest.raises(ParseError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        check_values(values)


@pytest.mark.parametrize("before, value, status, write", [
    (None, "bbr", "absent", False),
    ("bbr", "bbr", "unchanged", False),
    ("reno", "bbr", "changed", True),
])
def test_status_before_write(before, value, status, write):
    assert status_before_write(before, value) == status
    assert needs_write(before, value) is write


@pytest.mark.parametrize("rc, stderr_case, after, status", [
    (0, None, "bbr", "changed"),
    # BusyBox may exit 0 on failure: the read-back decides, stderr names the reason
    (0, "busybox_w_ro_proc_sys.txt", "reno", "read_only"),
    (0, None, "reno", "invalid"),
    (1, "busybox_w_unknown_cc.txt", "reno", "absent"),
    (1, "busybox_w_restricted_cc_in_netns.txt", "reno", "permission_denied"),
    # procps-ng 4 says "permission denied on key" when it cannot open the key: as root, a read-only /proc/sys
    (1, "procps_w_ro_proc_sys.txt", "reno", "read_only"),
])
def test_write_status(load_fixture, rc, stderr_case, after, status):
    stderr = load_fixture("sysctl_stderr", stderr_case) if stderr_case else ""
    assert write_status(rc, stderr, after, "bbr") == status


def test_write_status_as_another_user(load_fixture):
    assert write_status(1, load_fixture("sysctl_stderr", "procps_w_as_nobody.txt"), "reno", "bbr", as_root=False) == "permission_denied"


@pytest.mark.parametrize("allowed, advice", [
    (None, True), (["reno", "cubic"], True), ([], True),
    (["reno", "bbr", "cubic"], False),                     # bbr allowed already: telling to allow it would be wrong
])
def test_the_allow_advice_only_where_the_namespace_does_not_allow_it(allowed, advice):
    [item] = summarize([("net.ipv4.tcp_congestion_control", "bbr", "reno", "reno", "permission_denied")], allowed)["not_applied"]
    assert ("tcp_allowed_congestion_control" in item["message"]) is advice and item["reason"] == "permission_denied"


def test_read_only_is_never_the_allow_advice():
    [item] = summarize([("net.ipv4.tcp_congestion_control", "bbr", "reno", "reno", "read_only")], None)["not_applied"]
    assert "read-only" in item["message"] and "tcp_allowed_congestion_control" not in item["message"]
    assert "permission denied on key" in item["message"]


def test_summarize_has_the_sysctl_live_shape():
    result = summarize([
        ("net.ipv4.tcp_congestion_control", "bbr", "reno", "bbr", "changed"),
        ("net.ipv4.tcp_rmem", "4096 131072 33554432", "4096 131072 33554432", "4096 131072 33554432", "unchanged"),
        ("net.core.default_qdisc", "fq", None, None, "absent"),
    ])
    assert result["changed"] is True
    assert result["applied"] == {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432"}
    assert [(item["key"], item["reason"], item["before"]) for item in result["not_applied"]] == [
        ("net.core.default_qdisc", "absent", None)]
    assert result["not_applied"][0]["message"] == "net.core.default_qdisc does not exist on this kernel or in this namespace"
    assert result["by_key"]["net.ipv4.tcp_congestion_control"] == {"before": "reno", "after": "bbr", "status": "changed"}
    assert result["diff"]["before"].splitlines()[0] == "net.ipv4.tcp_congestion_control = reno"
    assert result["diff"]["after"].splitlines()[2] == "net.core.default_qdisc = None"


def test_summarize_nothing_changed():
    assert summarize([("net.x.y", "1", "1", "1", "unchanged")])["changed"] is False
