# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tcp_tuning action against a fake router that runs its scripts: facts, sysctl -w key by key, read-back, check mode.

The fake (``batch_action`` in this folder's conftest.py) executes what the action sends with dash,
bash and BusyBox sh, PATH holding stub tools (``cat``, ``sysctl``, ``opkg``, ``apk``) that print
recorded answers, one per command. Shell builtins (``command -v``) get their answers as overrides; ``after_write`` answers are the
kernel once the writes ran (they replace a step's answer from the second execution on).
"""


import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import SYSCTL_DROPINS_NAME, TCP_BBR_MODULE_FILES_NAME
from ansible_collections.tunnelfix.fleet.plugins.action.tcp_tuning import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import PRESENCE

CC = "cat /proc/sys/net/ipv4/tcp_congestion_control"
RMEM = "cat /proc/sys/net/ipv4/tcp_rmem"
QDISC = "cat /proc/sys/net/core/default_qdisc"
BACKLOG = "cat /proc/sys/net/core/netdev_max_backlog"
LS = " ".join(PRESENCE)  # the presence listing: module sysfs entries, netns paths, container markers
SET_BBR = "sysctl -w net.ipv4.tcp_congestion_control=bbr"
SET_RMEM = "sysctl -w 'net.ipv4.tcp_rmem=4096 131072 33554432'"  # the step
SET_RMEM_ARGS = "sysctl -w net.ipv4.tcp_rmem=4096 131072 33554432"  # what the stub sees (its words, joined)
BBR = {"net.ipv4.tcp_congestion_control": "bbr"}


def busybox_missing(path):
    return (1, "", "cat: can't open '%s': No such file or directory\n" % path)


@pytest.fixture
def router(load_fixture):
    """The OpenWrt-like container (BusyBox): child netns, reno, bbr allowed, no opkg/apk/modinfo, no /sys/module entries.

    Returns ``(answers, overrides)``: the stubs' answers and the builtins' (``fake_action``).
    """
    answers = {
        CC: (0, "reno\n", ""),
        "cat /proc/sys/net/ipv4/tcp_available_congestion_control": (0, "reno bbr cubic\n", ""),
        "cat /proc/sys/net/ipv4/tcp_allowed_congestion_control": (0, "reno bbr cubic\n", ""),
        QDISC: busybox_missing("/proc/sys/net/core/default_qdisc"),
        RMEM: (0, "4096\t131072\t6291456\n", ""),
        "cat /proc/sys/net/ipv4/tcp_wmem": (0, "4096\t16384\t4194304\n", ""),
        BACKLOG: busybox_missing("/proc/sys/net/core/netdev_max_backlog"),
        # the same paths exist in the lab's podman containers (recorded on the Debian peer)
        LS: (1, load_fixture("ls_1d_presence", "lab_peer_podman.txt"), "ls: /.dockerenv: No such file or directory\n"),
    }
    return answers, {}


@pytest.fixture
def fake(batch_action):
    def make(args, router, after_write=None, **kwargs):
        answers, overrides = router
        return batch_action(ActionModule, args, answers, overrides=overrides, later=after_write, **kwargs)
    return make


def sysctl_calls(action):
    return [call for call in action.router.calls() if call.startswith("sysctl")]


def test_facts_have_the_tunnel_facts_shape(fake, router):
    action = fake({}, router)
    result = action.run(task_vars={})
    assert result["changed"] is False and result["applied"] == {} and result["not_applied"] == []
    assert result["ansible_facts"]["tunnelfix"] == {
        "tcp": {"congestion_control": "reno", "congestion_control_available": ["reno", "bbr", "cubic"],
                "congestion_control_allowed": ["reno", "bbr", "cubic"], "default_qdisc": None,
                "tcp_rmem": "4096 131072 6291456", "tcp_wmem": "4096 16384 4194304", "netdev_max_backlog": None,
                "tcp_bbr_available": True, "tcp_bbr_loadable_module": False, "sch_fq_available": False,
                "sysctl_dropins": {}, "tcp_bbr_module_files": []},
        "netns": {"child_netns": True, "container": "podman"}}
    assert sysctl_calls(action) == []
    assert len(action.ran) == 1 and action.router.leftovers() == []


def test_what_sets_the_keys_at_boot_is_read_with_the_stack(fake, router, load_fixture):
    """The drop-ins (recorded in the lab's router after the fix) and the tcp_bbr module files come in the same execution."""
    answers, overrides = router
    overrides = dict(overrides, **{
        SYSCTL_DROPINS_NAME: (0, load_fixture("sysctl_dropins", "lab_owrt_after_fix.txt"), ""),
        TCP_BBR_MODULE_FILES_NAME: (0, "/etc/modules.d/60-tunnelfix-bbr\n", "")})
    action = fake({}, (answers, overrides))
    tcp = action.run(task_vars={})["ansible_facts"]["tunnelfix"]["tcp"]
    assert tcp["sysctl_dropins"] == {"/etc/sysctl.d/60-tunnelfix-bbr-fq.conf": {
        "net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432",
        "net.ipv4.tcp_wmem": "4096 16384 33554432"}}
    assert tcp["tcp_bbr_module_files"] == ["/etc/modules.d/60-tunnelfix-bbr"]
    assert len(action.ran) == 1


def test_an_unreadable_dropin_listing_fails_naming_it(fake, router):
    answers, overrides = router
    action = fake({}, (answers, dict(overrides, **{SYSCTL_DROPINS_NAME: (0, "net.ipv4.tcp_rmem = 1 2 3\n", "")})))
    result = action.run(task_vars={})
    assert result["failed"] is True and SYSCTL_DROPINS_NAME in result["msg"] and "line 1" in result["msg"]


def test_debian_host_namespace(fake):
    """A Debian VM (GNU cat, procps): host-level keys present, modules from sysfs, no container marker."""
    answers = {
        CC: (0, "cubic\n", ""),
        "cat /proc/sys/net/ipv4/tcp_available_congestion_control": (0, "reno cubic\n", ""),
        "cat /proc/sys/net/ipv4/tcp_allowed_congestion_control": (0, "reno cubic\n", ""),
        QDISC: (0, "pfifo_fast\n", ""),
        RMEM: (0, "4096\t131072\t6291456\n", ""),
        "cat /proc/sys/net/ipv4/tcp_wmem": (0, "4096\t16384\t4194304\n", ""),
        BACKLOG: (0, "1000\n", ""),
        "sysctl -w net.core.default_qdisc=fq": (0, "net.core.default_qdisc = fq\n", ""),
        LS: (2, "/proc/sys/net/core/default_qdisc\n/proc/sys/net/ipv4\n/sys/module/sch_fq\n/sys/module/sch_fq/initstate\n"
                "/sys/module/tcp_bbr\n/sys/module/tcp_bbr/initstate\n", ""),
        "systemd-detect-virt --container": (1, "none\n", ""),
    }
    overrides = {}
    action = fake({"values": {"net.core.default_qdisc": "fq"}}, (answers, overrides),
                  after_write={QDISC: (0, "fq\n", "")})
    result = action.run(task_vars={})
    facts = result["ansible_facts"]["tunnelfix"]
    assert facts["netns"] == {"child_netns": False, "container": None}
    assert facts["tcp"]["netdev_max_backlog"] == 1000 and facts["tcp"]["default_qdisc"] == "pfifo_fast"
    assert facts["tcp"]["tcp_bbr_loadable_module"] is True and facts["tcp"]["sch_fq_available"] is True
    assert result["by_key"] == {"net.core.default_qdisc": {"before": "pfifo_fast", "after": "fq", "status": "changed"}}
    assert sysctl_calls(action) == ["sysctl -w net.core.default_qdisc=fq"]
    assert len(action.ran) == 2


@pytest.mark.parametrize("manager, listing, loadable", [
    ("opkg", "kmod-tcp-bbr - 5.15.167-1\n", True),
    ("apk", "kmod-tcp-bbr-6.6.73-r1 x86_64 {kmod-tcp-bbr} (GPL-2.0-only) [installed]\n", True),
    ("opkg", "", False),
])
def test_kmod_tcp_bbr_package_makes_it_a_loadable_module(fake, router, manager, listing, loadable):
    argv = {"opkg": "opkg list-installed kmod-tcp-bbr", "apk": "apk list --installed kmod-tcp-bbr"}[manager]
    router[0][argv] = (0, listing, "")  # a stub: command -v finds it
    action = fake({}, router)
    result = action.run(task_vars={})
    assert result["ansible_facts"]["tunnelfix"]["tcp"]["tcp_bbr_loadable_module"] is loadable
    assert argv in action.router.calls() and len(action.ran) == 1


def test_sets_key_by_key_and_reads_back(fake, router):
    router[0][SET_BBR] = (0, "net.ipv4.tcp_congestion_control = bbr\n", "")
    router[0][SET_RMEM_ARGS] = (0, "", "")
    action = fake({"values": {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432",
                              "net.core.default_qdisc": "fq"}}, router, diff=True,
                  after_write={CC: (0, "bbr\n", ""), RMEM: (0, "4096\t131072\t33554432\n", "")})
    result = action.run(task_vars={})
    calls = action.router.calls()
    assert sysctl_calls(action) == [SET_BBR, SET_RMEM_ARGS]  # default_qdisc is absent here: never written
    assert calls.index(SET_BBR) < calls.index(CC, calls.index(SET_BBR)) < calls.index(SET_RMEM_ARGS)  # key by key
    assert len(action.ran) == 2  # the reads, then the writes with their read-backs
    assert result["changed"] is True
    assert result["applied"] == {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432"}
    assert [(item["key"], item["reason"]) for item in result["not_applied"]] == [("net.core.default_qdisc", "absent")]
    assert result["by_key"]["net.ipv4.tcp_congestion_control"] == {"before": "reno", "after": "bbr", "status": "changed"}
    assert "net.ipv4.tcp_congestion_control = bbr\n" in result["diff"]["after"]


def test_busybox_exit_0_on_failure_is_decided_by_the_read_back(fake, router, load_fixture):
    router[0][SET_BBR] = (0, "", load_fixture("sysctl_stderr", "busybox_w_ro_proc_sys.txt"))
    result = fake({"values": BBR}, router).run(task_vars={})
    assert result["changed"] is False and result["applied"] == {}
    assert result["not_applied"][0]["reason"] == "read_only"
    assert result["by_key"]["net.ipv4.tcp_congestion_control"] == {"before": "reno", "after": "reno", "status": "read_only"}


def test_restricted_congestion_control_is_explained(fake, router, load_fixture):
    router[0][SET_BBR] = (1, "", load_fixture("sysctl_stderr", "busybox_w_restricted_cc_in_netns.txt"))
    result = fake({"values": BBR}, router).run(task_vars={})
    assert result["not_applied"][0]["reason"] == "permission_denied"
    assert "tcp_allowed_congestion_control on the container host" in result["not_applied"][0]["message"]


def test_check_mode_reads_only(fake, router):
    router[0][SET_BBR] = (0, "", "")
    action = fake({"values": BBR}, router, check_mode=True)
    result = action.run(task_vars={})
    assert sysctl_calls(action) == [] and len(action.ran) == 1
    assert result["changed"] is True and result["applied"] == BBR
    assert result["by_key"]["net.ipv4.tcp_congestion_control"]["after"] == "bbr"


def test_unchanged_value_is_not_written_in_one_execution(fake, router):
    router[0][CC] = (0, "bbr\n", "")
    router[0][SET_BBR] = (0, "", "")
    action = fake({"values": BBR}, router)
    result = action.run(task_vars={})
    assert result["changed"] is False and sysctl_calls(action) == []
    assert len(action.ran) == 1 and CC in action.router.calls()


@pytest.mark.parametrize("args, message", [
    ({"values": {"-p": "x"}}, "values: '-p' is not a dotted sysctl name such as net.ipv4.tcp_rmem"),
    ({"values": {"net.ipv4.tcp_rmem": ""}}, "values: net.ipv4.tcp_rmem: the value is empty"),
    ({"values": {"net.ipv4.tcp_sack": True}}, "values: net.ipv4.tcp_sack: sysctl value True is a boolean"),
    ({"values": "bbr"}, "values: must be a dict of sysctl key and value, got 'bbr'"),
    ({"values": ["bbr"]}, "values: must be a dict of sysctl key and value, got ['bbr']"),
])
def test_bad_values_fail_naming_option_and_value(fake, router, args, message):
    action = fake(args, router)
    result = action.run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert action.ran == []


def test_unreadable_listing_fails_naming_the_command(fake, router):
    router[0][LS] = (0, "garbage\n", "")
    result = fake({}, router).run(task_vars={})
    assert result["failed"] is True and "cannot read the output of ls -1d /sys/module/tcp_bbr" in result["msg"]
    assert "expected absolute paths" in result["msg"]


@pytest.mark.parametrize("modinfo, loadable", [
    ((0, "/lib/modules/6.1.0-27-amd64/kernel/net/ipv4/tcp_bbr.ko\n", ""), True),   # Debian: a loadable module
    ((0, "(builtin)\n", ""), False),                                               # built in, not loadable
    ((1, "", "modinfo: ERROR: Module tcp_bbr not found.\n"), False),
])
def test_modinfo_finds_a_loadable_tcp_bbr_on_linux(fake, router, modinfo, loadable):
    """tunnel_facts' answer too: sysfs, then modinfo, then (OpenWrt) the package."""
    router[0]["modinfo -F filename tcp_bbr"] = modinfo
    result = fake({}, router).run(task_vars={})
    tcp = result["ansible_facts"]["tunnelfix"]["tcp"]
    assert tcp["tcp_bbr_loadable_module"] is loadable
    assert tcp["tcp_bbr_available"] is True  # bbr is in the available list either way
