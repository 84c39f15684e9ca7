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
