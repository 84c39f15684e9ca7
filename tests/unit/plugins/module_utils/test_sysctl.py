# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_sysctl_output, normalize_sysctl_value, classify_sysctl_error(s), parse_cc_list."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import (
    REASONS,
    classify_sysctl_error,
    classify_sysctl_errors,
    normalize_sysctl_value,
    parse_cc_list,
    parse_sysctl_output,
)

OUTPUT_CASES = [
    ("sysctl", "netns_congestion_control_keys.txt", {
        "net.ipv4.tcp_congestion_control": "bbr",
        "net.ipv4.tcp_available_congestion_control": "reno bbr cubic",
        "net.ipv4.tcp_allowed_congestion_control": "reno bbr"}),
    ("sysctl", "host_congestion_control_and_qdisc.txt", {
        "net.ipv4.tcp_available_congestion_control": "reno bbr cubic",
        "net.ipv4.tcp_allowed_congestion_control": "reno bbr",
        "net.ipv4.tcp_congestion_control": "bbr",
        "net.core.default_qdisc": "pfifo_fast"}),
    # the kernel prints vectors with tabs
    ("sysctl", "netns_a_grep_tcp.txt", {
        "net.ipv4.tcp_allowed_congestion_control": "reno bbr",
        "net.ipv4.tcp_available_congestion_control": "reno bbr cubic",
        "net.ipv4.tcp_congestion_control": "bbr",
        "net.ipv4.tcp_rmem": "4096 131072 33554432",
        "net.ipv4.tcp_wmem": "4096 16384 4194304"}),
    # `sysctl -p` prints only what it applied
    ("sysctl", "netns_p_partial_apply.txt", {"net.ipv4.tcp_wmem": "4096 16384 4194304"}),
    ("sysctl", "case06_docker_a_grep_tcp.txt", {
        "net.ipv4.tcp_congestion_control": "cubic",
        "net.ipv4.tcp_rmem": "4096 131072 6291456",
        "net.ipv4.tcp_wmem": "4096 16384 4194304"}),
    ("sysctl", "case08_available_congestion_control.txt", {"net.ipv4.tcp_available_congestion_control": "reno cubic"}),
    ("sysctl_busybox", "netns_read_rmem_available_cc.txt", {
        "net.ipv4.tcp_rmem": "4096 131072 33554432",
        "net.ipv4.tcp_available_congestion_control": "reno bbr cubic"}),
]


@pytest.mark.parametrize("command, case, expected", OUTPUT_CASES)
def test_parse_sysctl_output(load_fixture, command, case, expected):
    assert parse_sysctl_output(load_fixture(command, case)) == expected


@pytest.mark.parametrize("text, expected", [
    ("", {}),
    ("\n\n", {}),
    ("kernel.domainname = \n", {"kernel.domainname": ""}),
    ("net.ipv4.conf.eth0/100.rp_filter = 2\r\n", {"net.ipv4.conf.eth0/100.rp_filter": "2"}),
    ("kernel.core_pattern = |/bin/false a=b\n", {"kernel.core_pattern": "|/bin/false a=b"}),
])
def test_parse_sysctl_output_edges(text, expected):
    assert parse_sysctl_output(text) == expected


@pytest.mark.parametrize("text, message", [
    ("net.ipv4.tcp_rmem = 1\nsysctl: cannot stat /proc/sys/x: No such file or directory\n",
     "line 2: expected 'key = value'"),
    ("= cubic\n", "line 1: expected 'key = value'"),
    ("net ipv4 = 1\n", "line 1: expected 'key = value'"),
    (None, "sysctl output must be text"),
])
def test_parse_sysctl_output_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_sysctl_output(text)
    assert message in str(err.value)


@pytest.mark.parametrize("value, expected", [
    ("4096\t131072  6291456\n", "4096 131072 6291456"),
    ("  bbr ", "bbr"),
    ("", ""),
    (1, "1"),
    (0, "0"),
    ([4096, "87380", 6291456], "4096 87380 6291456"),
    (("4096", " 16384 ", 4194304), "4096 16384 4194304"),
])
def test_normalize_sysctl_value(value, expected):
    assert normalize_sysctl_value(value) == expected


@pytest.mark.parametrize("value, message", [
    (True, "sysctl value True is a boolean; write 1 or 0"),
    (None, "sysctl value must be a string, an integer or a list of them, got None"),
    (0.5, "got 0.5"),
    ({"a": 1}, "got {'a': 1}"),
    ([1, None], "got None"),
])
def test_normalize_sysctl_value_errors(value, message):
    with pytest.raises(ParseError) as err:
        normalize_sysctl_value(value)
    assert message in str(err.value)


# recorded stderr (procps-ng 4.0.2 / BusyBox 1.35 in a child netns) and field cases → reason
REASON_CASES = [
    ("procps_read_default_qdisc_in_netns.txt", "absent"),
    ("procps_w_default_qdisc_in_netns.txt", "absent"),
    ("procps_w_unknown_cc.txt", "absent"),
    ("procps_w_restricted_cc_in_netns.txt", "permission_denied"),
    ("procps_w_ro_proc_sys.txt", "read_only"),  # procps 4 says "permission denied on key": as root, the mount
    ("procps_w_invalid_value.txt", "invalid"),
    ("procps_p_netns_mixed.txt", "absent"),
    ("procps_p_ro_proc_sys_mixed.txt", "absent"),
    ("sh_redirect_ro_proc_sys.txt", "read_only"),
    ("busybox_read_default_qdisc_in_netns.txt", "absent"),
    ("busybox_w_unknown_cc.txt", "absent"),
    ("busybox_w_restricted_cc_in_netns.txt", "permission_denied"),
    ("busybox_w_as_nobody.txt", "permission_denied"),
    ("busybox_w_ro_proc_sys.txt", "read_only"),
    ("case06_docker_p_apply.txt", "absent"),
    ("case08_w_qdisc_and_bbr.txt", "absent"),
]


@pytest.mark.parametrize("case, reason", REASON_CASES)
def test_classify_sysctl_error(load_fixture, case, reason):
    assert classify_sysctl_error(load_fixture("sysctl_stderr", case)) == reason


@pytest.mark.parametrize("case, as_root, reason", [
    ("procps_w_ro_proc_sys.txt", True, "read_only"),
    ("procps_w_ro_proc_sys.txt", False, "permission_denied"),
    ("procps_w_as_nobody.txt", False, "permission_denied"),
    ("procps_w_as_nobody.txt", True, "read_only"),                       # the same words: as root only the mount refuses
    ("procps_w_restricted_cc_in_netns.txt", True, "permission_denied"),  # the kernel's EPERM on the write, not the open
    ("procps_w_restricted_cc_in_netns.txt", False, "permission_denied"),
    ("busybox_w_as_nobody.txt", True, "permission_denied"),              # BusyBox prints the errno itself
    ("busybox_w_ro_proc_sys.txt", False, "read_only"),
])
def test_procps4_permission_denied_on_key_is_the_read_only_mount_as_root(load_fixture, case, as_root, reason):
    assert classify_sysctl_error(load_fixture("sysctl_stderr", case), as_root) == reason


@pytest.mark.parametrize("stderr, reason", [
    ("", "unknown"),
    ("sysctl: something new\n", "unknown"),
    ("write failed: EROFS\n", "read_only"),
    ("EPERM\n", "permission_denied"),
    # the errno decides, not the verb: stat(2) can fail for other reasons than a missing key
    ("sysctl: cannot stat /proc/sys/net/core/rmem_max: Permission denied\n", "permission_denied"),
    ("sysctl: setting key \"net.ipv4.tcp_rmem\": Invalid argument\n", "invalid"),
])
def test_classify_sysctl_error_inline(stderr, reason):
    assert classify_sysctl_error(stderr) == reason
    assert reason in REASONS


# (case, [(key, reason, value_unavailable)])
DETAIL_CASES = [
    ("case06_docker_p_apply.txt", [
        ("net.core.default_qdisc", "absent", False),
        ("net.ipv4.tcp_congestion_control", "read_only", None),
        ("net.ipv4.tcp_wmem", "read_only", None),
        ("net.ipv4.tcp_rmem", "read_only", None),
        ("net.core.netdev_max_backlog", "absent", False)]),
    # case 08: the keys exist, the kernel lacks tcp_bbr / sch_fq
    ("case08_w_qdisc_and_bbr.txt", [
        ("net.core.default_qdisc", "absent", True),
        ("net.ipv4.tcp_congestion_control", "absent", True)]),
    ("procps_p_netns_mixed.txt", [
        ("net.core.default_qdisc", "absent", False),
        ("net.ipv4.tcp_congestion_control", "permission_denied", None)]),
    ("procps_p_ro_proc_sys_mixed.txt", [
        ("net.core.default_qdisc", "absent", False),
        ("net.ipv4.tcp_congestion_control", "read_only", None),
        ("net.ipv4.tcp_wmem", "read_only", None)]),
    ("procps_w_unknown_cc.txt", [("net.ipv4.tcp_congestion_control", "absent", True)]),
    ("busybox_read_default_qdisc_in_netns.txt", [("net.core.default_qdisc", "absent", False)]),
    ("busybox_w_unknown_cc.txt", [(None, "absent", True)]),
    ("busybox_w_ro_proc_sys.txt", [("net.ipv4.tcp_congestion_control", "read_only", None)]),
    ("sh_redirect_ro_proc_sys.txt", [("net.ipv4.tcp_congestion_control", "read_only", None)]),
]


@pytest.mark.parametrize("case, expected", DETAIL_CASES)
def test_classify_sysctl_errors(load_fixture, case, expected):
    text = load_fixture("sysctl_stderr", case)
    errors = classify_sysctl_errors(text)
    assert [(e["key"], e["reason"], e["value_unavailable"]) for e in errors] == expected
    assert all(e["message"] in text for e in errors)


@pytest.mark.parametrize("command, case, expected", [
    ("proc_tcp_available_congestion_control", "host.txt", ["reno", "bbr", "cubic"]),
    ("proc_tcp_available_congestion_control", "netns.txt", ["reno", "bbr", "cubic"]),
    ("proc_tcp_allowed_congestion_control", "host.txt", ["reno", "bbr"]),
    ("sysctl", "case08_available_congestion_control.txt", ["reno", "cubic"]),
])
def test_parse_cc_list(load_fixture, command, case, expected):
    assert parse_cc_list(load_fixture(command, case)) == expected


@pytest.mark.parametrize("text, expected", [
    ("reno cubic reno\n", ["reno", "cubic"]),
    ("net.ipv4.tcp_allowed_congestion_control=reno bbr", ["reno", "bbr"]),
    ("\treno\tcubic\t\n", ["reno", "cubic"]),
])
def test_parse_cc_list_inline(text, expected):
    assert parse_cc_list(text) == expected


@pytest.mark.parametrize("text, message", [
    ("", "congestion control list is empty"),
    ("net.ipv4.tcp_available_congestion_control = \n", "congestion control list is empty"),
    ("reno\ncubic\n", "must be one line, got 2"),
    ("reno cub;ic", "congestion control name 'cub;ic'"),
    (None, "must be text"),
])
def test_parse_cc_list_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_cc_list(text)
    assert message in str(err.value)
