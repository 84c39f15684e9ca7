# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tcp_tuning action against a fake router that runs its scripts: facts, sysctl -w key by key, read-back, check mode.

The fake (``batch_action`` in this folder's conftest.py) executes what the action sends with dash,
bash and BusyBox sh, PATH holding stub tools (``cat``, ``sysctl``, ``opkg``, ``apk``) that print
recorded answers, one per command. Shell builtins (``command -v``) get their answers as overrides; ``after_write`` answers are the
kernel once the writes ran (they replace a step's answer from the second execution on).
"""


import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import SYSCTL_BOOT_FILES_NAME, TCP_BBR_MODULE_FILES_NAME
from ansible_collections.tunnelfix.fleet.plugins.action.tcp_tuning import WRITE_PROBE_NAME, ActionModule
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
                "sysctl_dropins": {}, "tcp_bbr_module_files": [],
                "sysctl_boot": {"applied_by": "sysctl --system", "files": [], "masked": {}, "links": {}, "effective": {},
                                "warnings": []}},
        "netns": {"child_netns": True, "container": "podman"}}
    assert result["persist_failed"] == []
    assert sysctl_calls(action) == []
    assert len(action.ran) == 1 and action.router.leftovers() == []


def test_what_sets_the_keys_at_boot_is_read_with_the_stack(fake, router, load_fixture):
    """Every sysctl file the boot reads (a router whose /etc/sysctl.conf sets cubic last) and the tcp_bbr module files
    come in the same execution."""
    answers, overrides = router
    overrides = dict(overrides, **{
        SYSCTL_BOOT_FILES_NAME: (0, load_fixture("sysctl_boot_files", "openwrt_sysctl_conf_last.txt"), ""),
        TCP_BBR_MODULE_FILES_NAME: (0, "/etc/modules.d/60-tunnelfix-bbr\n", "")})
    action = fake({}, (answers, overrides))
    tcp = action.run(task_vars={})["ansible_facts"]["tunnelfix"]["tcp"]
    assert tcp["sysctl_dropins"]["/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"] == {
        "net.core.default_qdisc": "fq", "net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432",
        "net.ipv4.tcp_wmem": "4096 16384 33554432", "net.core.netdev_max_backlog": "5000"}
    assert tcp["sysctl_dropins"]["/etc/sysctl.conf"] == {"net.ipv4.tcp_congestion_control": "cubic"}
    assert tcp["sysctl_boot"]["effective"]["net.ipv4.tcp_congestion_control"] == {
        "value": "cubic", "file": "/etc/sysctl.conf", "line": 3}
    assert tcp["tcp_bbr_module_files"] == ["/etc/modules.d/60-tunnelfix-bbr"]
    assert len(action.ran) == 1


def test_an_unreadable_dropin_listing_fails_naming_it(fake, router):
    answers, overrides = router
    action = fake({}, (answers, dict(overrides, **{SYSCTL_BOOT_FILES_NAME: (0, "net.ipv4.tcp_rmem = 1 2 3\n", "")})))
    result = action.run(task_vars={})
    assert result["failed"] is True and SYSCTL_BOOT_FILES_NAME in result["msg"] and "line 1" in result["msg"]


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
    router[0]["cat /proc/sys/net/ipv4/tcp_allowed_congestion_control"] = (0, "reno cubic\n", "")
    router[0][SET_BBR] = (1, "", load_fixture("sysctl_stderr", "busybox_w_restricted_cc_in_netns.txt"))
    result = fake({"values": BBR}, router).run(task_vars={})
    assert result["not_applied"][0]["reason"] == "permission_denied"
    assert "tcp_allowed_congestion_control on the container host" in result["not_applied"][0]["message"]


def test_a_refusal_is_not_blamed_on_the_allowed_list_that_has_bbr(fake, router, load_fixture):
    """bbr is allowed here (the router's list): an EPERM has another cause, and the allow advice would be wrong."""
    router[0][SET_BBR] = (1, "", load_fixture("sysctl_stderr", "busybox_w_restricted_cc_in_netns.txt"))
    [item] = fake({"values": BBR}, router).run(task_vars={})["not_applied"]
    assert item["reason"] == "permission_denied" and "tcp_allowed_congestion_control" not in item["message"]


@pytest.mark.parametrize("uid, reason", [(None, "read_only"), ("0", "read_only"), ("65534", "permission_denied")])
def test_procps4_permission_denied_on_key(fake, router, load_fixture, uid, reason):
    """procps-ng 4 on a read-only /proc/sys: "permission denied on key", as it says to a user without the right."""
    router[0][SET_BBR] = (1, "", load_fixture("sysctl_stderr", "procps_w_ro_proc_sys.txt"))
    if uid is not None:
        router[0]["id -u"] = (0, uid + "\n", "")
    action = fake({"values": BBR}, router)
    [item] = action.run(task_vars={})["not_applied"]
    assert item["reason"] == reason and "tcp_allowed_congestion_control" not in item["message"]
    assert len(action.ran) == 2   # id -u came with the reads


def test_the_files_to_persist_are_probed_with_the_reads(fake, router, tmp_path):
    writable = tmp_path / "etc" / "sysctl.d"
    writable.mkdir(parents=True)
    paths = [str(writable / "60-tunnelfix-bbr-fq.conf"), str(tmp_path / "etc" / "modules-load.d" / "tunnelfix-bbr.conf")]
    action = fake({"persist_paths": paths}, router, check_mode=True)
    result = action.run(task_vars={})
    assert result["persist_failed"] == [] and len(action.ran) == 1
    assert sorted(path.name for path in (tmp_path / "etc").iterdir()) == ["sysctl.d"]   # probed, nothing left behind
    assert list(writable.iterdir()) == []


@pytest.mark.parametrize("message, reason", [
    ("sh: 1: cannot create /etc/sysctl.d/.tunnelfix-write-probe: Read-only file system", "read_only"),
    ("sh: line 0: can't create /etc/sysctl.d/.tunnelfix-write-probe: Permission denied", "permission_denied"),
    ("sh: line 1: /etc/sysctl.d/.tunnelfix-write-probe: Operation not permitted", "permission_denied"),
    ("sh: 1: cannot create /etc/sysctl.d/.tunnelfix-write-probe: Input/output error", "unknown"),
])
def test_an_unwritable_directory_is_named(fake, router, message, reason):
    path = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"
    answers, overrides = router
    overrides = dict(overrides, **{WRITE_PROBE_NAME: (0, "%s\t/etc/sysctl.d\t%s\n/etc/modules-load.d/x.conf\t/etc\tok\n"
                                                      % (path, message), "")})
    router[0][SET_BBR] = (0, "", "")
    action = fake({"values": BBR, "persist_paths": [path, "/etc/modules-load.d/x.conf"]}, (answers, overrides), check_mode=True)
    result = action.run(task_vars={})
    assert result["persist_failed"] == [{"path": path, "directory": "/etc/sysctl.d", "reason": reason, "message": (
        "%s cannot be written: /etc/sysctl.d %s (%s)" % (
            path, "is on a read-only file system" if reason == "read_only" else "refuses new files", message))}]
    assert sysctl_calls(action) == [] and result["changed"] is True   # the action only reports: the role decides


@pytest.mark.parametrize("path", ["etc/sysctl.d/x.conf", "/etc/sysctl.d/", ""])
def test_persist_paths_must_be_absolute_files(fake, router, path):
    action = fake({"persist_paths": [path]}, router)
    result = action.run(task_vars={})
    assert result["failed"] is True and result["msg"] == "persist_paths: %r is not an absolute file path" % path
    assert action.ran == []


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
