# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tcp_tuning action against a fake busybox router: facts, sysctl -w key by key, read-back, check mode.

The fake answers ``_low_level_execute_command`` from a table of command → list of (rc, stdout,
stderr), one per call (the last one repeats); unknown commands answer rc 1 (missing file, no such
command for ``command -v``), and it records what ran.
"""

import shlex
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.tcp_tuning import MODULE_PROBE_SCRIPT, ActionModule


CC = "cat /proc/sys/net/ipv4/tcp_congestion_control"
RMEM = "cat /proc/sys/net/ipv4/tcp_rmem"
PROBE = shlex.join(["sh", "-c", MODULE_PROBE_SCRIPT, "sh", "tcp_bbr", "sch_fq"])
SET_BBR = "sysctl -w net.ipv4.tcp_congestion_control=bbr"
SET_RMEM = "sysctl -w 'net.ipv4.tcp_rmem=4096 131072 33554432'"


class FakeTcpTuningAction(ActionModule):
    def __init__(self, args, answers, check_mode=False, diff=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff,
                               action="tunnelfix.fleet.tcp_tuning")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.tcp_tuning"
        self.answers = {cmd: list(replies) for cmd, replies in answers.items()}
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        replies = self.answers.get(cmd, [(1, "", "")])
        rc, stdout, stderr = replies.pop(0) if len(replies) > 1 else replies[0]
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


@pytest.fixture
def router():
    """The OpenWrt-like container: child netns, reno, bbr allowed, no opkg/apk, no /sys/module entries."""
    return {
        CC: [(0, "reno\n", "")],
        "cat /proc/sys/net/ipv4/tcp_available_congestion_control": [(0, "reno bbr cubic\n", "")],
        "cat /proc/sys/net/ipv4/tcp_allowed_congestion_control": [(0, "reno bbr cubic\n", "")],
        RMEM: [(0, "4096\t131072\t6291456\n", "")],
        "cat /proc/sys/net/ipv4/tcp_wmem": [(0, "4096\t16384\t4194304\n", "")],
        PROBE: [(0, "tcp_bbr absent\nsch_fq absent\n", "")],
        "test -d /proc/sys/net/ipv4": [(0, "", "")],
        "test -e /run/.containerenv": [(0, "", "")],
    }


def test_facts_have_the_tunnel_facts_shape(router):
    action = FakeTcpTuningAction({}, router)
    result = action.run(task_vars={})
    assert result["changed"] is False and result["applied"] == {} and result["not_applied"] == []
    assert result["ansible_facts"]["tunnelfix"] == {
        "tcp": {"congestion_control": "reno", "congestion_control_available": ["reno", "bbr", "cubic"],
                "congestion_control_allowed": ["reno", "bbr", "cubic"], "default_qdisc": None,
                "tcp_rmem": "4096 131072 6291456", "tcp_wmem": "4096 16384 4194304", "netdev_max_backlog": None,
                "tcp_bbr_available": True, "tcp_bbr_loadable_module": False, "sch_fq_available": False},
        "netns": {"child_netns": True, "container": "podman"}}
    assert not any(cmd.startswith("sysctl") for cmd in action.ran)


@pytest.mark.parametrize("manager, listing, loadable", [
    ("opkg", "kmod-tcp-bbr - 5.15.167-1\n", True),
    ("apk", "kmod-tcp-bbr-6.6.73-r1 x86_64 {kmod-tcp-bbr} (GPL-2.0-only) [installed]\n", True),
    ("opkg", "", False),
])
def test_kmod_tcp_bbr_package_makes_it_a_loadable_module(router, manager, listing, loadable):
    argv = {"opkg": "opkg list-installed kmod-tcp-bbr", "apk": "apk list --installed kmod-tcp-bbr"}[manager]
    router.update({"command -v %s" % manager: [(0, "/bin/%s\n" % manager, "")], argv: [(0, listing, "")]})
    result = FakeTcpTuningAction({}, router).run(task_vars={})
    assert result["ansible_facts"]["tunnelfix"]["tcp"]["tcp_bbr_loadable_module"] is loadable


def test_sets_key_by_key_and_reads_back(router, load_fixture):
    router[CC] = [(0, "reno\n", ""), (0, "reno\n", ""), (0, "bbr\n", "")]
    router[RMEM] = [(0, "4096\t131072\t6291456\n", ""), (0, "4096\t131072\t6291456\n", ""),
                    (0, "4096\t131072\t33554432\n", "")]
    router[SET_BBR] = [(0, "net.ipv4.tcp_congestion_control = bbr\n", "")]
    router[SET_RMEM] = [(0, "", "")]
    action = FakeTcpTuningAction({"values": {"net.ipv4.tcp_congestion_control": "bbr",
                                             "net.ipv4.tcp_rmem": "4096 131072 33554432",
                                             "net.core.default_qdisc": "fq"}}, router, diff=True)
    result = action.run(task_vars={})
    assert SET_BBR in action.ran and SET_RMEM in action.ran
    assert "sysctl -w net.core.default_qdisc=fq" not in action.ran  # absent here: never written
    assert result["changed"] is True
    assert result["applied"] == {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432"}
    assert [(item["key"], item["reason"]) for item in result["not_applied"]] == [("net.core.default_qdisc", "absent")]
    assert result["by_key"]["net.ipv4.tcp_congestion_control"] == {"before": "reno", "after": "bbr", "status": "changed"}
    assert "net.ipv4.tcp_congestion_control = bbr\n" in result["diff"]["after"]


def test_busybox_exit_0_on_failure_is_decided_by_the_read_back(router, load_fixture):
    router[SET_BBR] = [(0, "", load_fixture("sysctl_stderr", "busybox_w_ro_proc_sys.txt"))]
    result = FakeTcpTuningAction({"values": {"net.ipv4.tcp_congestion_control": "bbr"}}, router).run(task_vars={})
    assert result["changed"] is False and result["applied"] == {}
    assert result["not_applied"][0]["reason"] == "read_only"
    assert result["by_key"]["net.ipv4.tcp_congestion_control"] == {"before": "reno", "after": "reno", "status": "read_only"}


def test_restricted_congestion_control_is_explained(router, load_fixture):
    router[SET_BBR] = [(1, "", load_fixture("sysctl_stderr", "busybox_w_restricted_cc_in_netns.txt"))]
    result = FakeTcpTuningAction({"values": {"net.ipv4.tcp_congestion_control": "bbr"}}, router).run(task_vars={})
    assert result["not_applied"][0]["reason"] == "permission_denied"
    assert "tcp_allowed_congestion_control on the container host" in result["not_applied"][0]["message"]


def test_check_mode_reads_only(router):
    action = FakeTcpTuningAction({"values": {"net.ipv4.tcp_congestion_control": "bbr"}}, router, check_mode=True)
    result = action.run(task_vars={})
    assert not any(cmd.startswith("sysctl") for cmd in action.ran)
    assert result["changed"] is True and result["applied"] == {"net.ipv4.tcp_congestion_control": "bbr"}
    assert result["by_key"]["net.ipv4.tcp_congestion_control"]["after"] == "bbr"


def test_unchanged_value_is_not_written(router):
    router[CC] = [(0, "bbr\n", "")]
    action = FakeTcpTuningAction({"values": {"net.ipv4.tcp_congestion_control": "bbr"}}, router)
    result = action.run(task_vars={})
    assert result["changed"] is False and SET_BBR not in action.ran


@pytest.mark.parametrize("args, message", [
    ({"values": {"-p": "x"}}, "values: '-p' is not a dotted sysctl name such as net.ipv4.tcp_rmem"),
    ({"values": {"net.ipv4.tcp_rmem": ""}}, "values: net.ipv4.tcp_rmem: the value is empty"),
    ({"values": {"net.ipv4.tcp_sack": True}}, "values: net.ipv4.tcp_sack: sysctl value True is a boolean"),
    ({"values": "bbr"}, "values"),
])
def test_bad_values_fail_naming_option_and_value(router, args, message):
    action = FakeTcpTuningAction(args, router)
    result = action.run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert action.ran == []


def test_unreadable_probe_fails_naming_the_command(router):
    router[PROBE] = [(0, "garbage\n", "")]
    result = FakeTcpTuningAction({}, router).run(task_vars={})
    assert result["failed"] is True and "cannot read the output of sh -c" in result["msg"]
    assert "module probe line 1" in result["msg"]
