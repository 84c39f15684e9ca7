# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tcp_tuning_plan filter: linux_bbr_fq's plan, and which of its values a later sysctl file undoes at boot."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.tcp_tuning import FilterModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import parse_sysctl_boot_files, sysctl_boot

PLAN = FilterModule().filters()["tcp_tuning_plan"]
OURS = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"
WANTED = {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432",
          "net.core.default_qdisc": "fq"}
NETNS = {"child_netns": True, "container": "podman"}


def tcp(boot=None):
    facts = {"congestion_control": "cubic", "congestion_control_available": ["reno", "cubic", "bbr"],
             "congestion_control_allowed": ["reno", "cubic", "bbr"], "sch_fq_available": False}
    if boot is not None:
        facts["sysctl_boot"] = boot
    return facts


def test_the_lab_peer_with_a_later_cubic_file(load_fixture):
    boot = sysctl_boot(parse_sysctl_boot_files(load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt")))
    plan = PLAN(WANTED, tcp(boot), NETNS, sysctl_file=OURS)
    assert plan["apply"] == {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432"}
    [item] = plan["overridden_at_boot"]
    assert (item["key"], item["value"], item["boot_value"], item["file"], item["line"], item["reason"]) == (
        "net.ipv4.tcp_congestion_control", "bbr", "cubic", "/etc/sysctl.d/99-zz-local.conf", 2, "overridden_at_boot")
    # a drop-in named to sort after it wins at boot: nothing to report
    assert PLAN(WANTED, tcp(boot), NETNS, sysctl_file="/etc/sysctl.d/99-zzz-tunnelfix-bbr-fq.conf")["overridden_at_boot"] == []


def test_without_the_boot_facts_or_a_file_nothing_is_claimed():
    assert PLAN(WANTED, tcp(), NETNS, sysctl_file=OURS)["overridden_at_boot"] == []
    assert "overridden_at_boot" not in PLAN(WANTED, tcp(), NETNS)          # the old call: the old plan


@pytest.mark.parametrize("sysctl_file", ["sysctl.d/x.conf", 7])
def test_a_drop_in_that_is_no_absolute_path_is_refused(sysctl_file):
    with pytest.raises(AnsibleFilterError, match="sysctl_file must be an absolute path, got"):
        PLAN(WANTED, tcp(), NETNS, sysctl_file=sysctl_file)


MODULES = "/etc/modules-load.d/tunnelfix-bbr.conf"
HELD = {"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432"}   # what a container can take


@pytest.mark.parametrize("facts, netns, expected", [
    # the drop-in already holds exactly the values to apply, no module to load in a container: nothing to write
    ({"sysctl_dropins": {OURS: HELD}, "tcp_bbr_module_files": []}, NETNS, []),
    ({"sysctl_dropins": {OURS: dict(HELD, **{"net.ipv4.tcp_rmem": "4096 131072 6291456"})}, "tcp_bbr_module_files": []},
     NETNS, [OURS]),                                                                # one value differs
    ({"sysctl_dropins": {}, "tcp_bbr_module_files": []}, NETNS, [OURS]),            # no drop-in yet
    ({"sysctl_dropins": {OURS: HELD}, "tcp_bbr_module_files": [MODULES]}, NETNS, [MODULES]),   # a container: remove it
    # a host that owns its kernel and has tcp_bbr as a module: the modules file must be there
    ({"sysctl_dropins": {OURS: HELD}, "tcp_bbr_module_files": [], "tcp_bbr_loadable_module": True}, {"child_netns": False},
     None),
    ({"sysctl_dropins": None, "tcp_bbr_module_files": None}, NETNS, [OURS, MODULES]),   # unknown: both count
])
def test_files_to_change_lists_only_what_a_run_would_write_or_remove(facts, netns, expected):
    plan = PLAN(WANTED, dict(tcp(), **facts), netns, sysctl_file=OURS, modules_file=MODULES)
    if expected is None:        # owns its kernel: default_qdisc may apply too, so the drop-in differs as well
        assert MODULES in plan["files_to_change"]
    else:
        assert plan["files_to_change"] == expected
    assert "files_to_change" not in PLAN(WANTED, dict(tcp(), **facts), netns, sysctl_file=OURS)


def test_a_modules_file_that_is_no_absolute_path_is_refused():
    with pytest.raises(AnsibleFilterError, match="modules_file must be an absolute path"):
        PLAN(WANTED, tcp(), NETNS, sysctl_file=OURS, modules_file="modules.conf")


@pytest.mark.parametrize("wanted_cc, loadable, netns, load", [
    ("bbr", True, {"child_netns": False}, True),         # a loadable tcp_bbr on a host that owns its kernel
    ("bbr", True, NETNS, False),                         # a container: its host's kernel
    ("bbr", False, {"child_netns": False}, False),       # built in, or not there: nothing to load
    ("cubic", True, {"child_netns": False}, False),      # BBR not wanted
])
def test_load_module_is_the_plans_decision(wanted_cc, loadable, netns, load):
    """The role loads tcp_bbr (modprobe, the modules file) where the one plan says so: tune.yml reads plan.load_module."""
    facts = dict(tcp(), tcp_bbr_loadable_module=loadable, sysctl_dropins={}, tcp_bbr_module_files=[])
    plan = PLAN(dict(WANTED, **{"net.ipv4.tcp_congestion_control": wanted_cc}), facts, netns, sysctl_file=OURS, modules_file=MODULES)
    assert plan["load_module"] is load and (MODULES in plan["files_to_change"]) is load
    assert "load_module" not in PLAN(WANTED, facts, netns, sysctl_file=OURS)
