# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""linux_bbr_fq's one plan: as remediate sees it (``Fault.plan`` of fault 3 and buffer_below_bdp: the changes it names), and
the decisions the role applies through the tcp_tuning_plan filter (which files a run changes, whether tcp_bbr is loaded)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import (
    linux_bbr_fq_plan, load_tcp_bbr, role_wanted, tcp_plan)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import parse_sysctl_boot_files, sysctl_boot

DROPIN = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"
HELD = {"net.core.default_qdisc": "fq", "net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432",
        "net.ipv4.tcp_wmem": "4096 16384 33554432", "net.core.netdev_max_backlog": "5000"}
TCP = {"congestion_control": "bbr", "congestion_control_available": ["reno", "cubic", "bbr"],
       "congestion_control_allowed": ["reno", "cubic", "bbr"], "default_qdisc": "fq", "sch_fq_available": True,
       "tcp_bbr_loadable_module": False, "tcp_rmem": "4096 131072 33554432", "tcp_wmem": "4096\t16384 33554432",
       "netdev_max_backlog": 5000, "sysctl_dropins": {DROPIN: HELD}, "tcp_bbr_module_files": []}


def tcp_view(child_netns=False, key="tunnelfix", **tcp):
    return {key: {"tcp": dict(TCP, **tcp), "netns": {"child_netns": child_netns}}}


@pytest.mark.parametrize("view, role_vars, expected", [
    (tcp_view(), {}, []),
    (tcp_view(key="openwrt"), {}, None),                               # a router: openwrt_facts reads no TCP stack
    (tcp_view(congestion_control="cubic"), {}, ["net.ipv4.tcp_congestion_control: cubic -> bbr"]),
    (tcp_view(default_qdisc="fq_codel", netdev_max_backlog=1000), {},
     ["net.core.default_qdisc: fq_codel -> fq", "net.core.netdev_max_backlog: 1000 -> 5000"]),
    (tcp_view(sysctl_dropins={}), {}, [DROPIN + ": write " + ", ".join("%s = %s" % item for item in HELD.items())]),
    (tcp_view(sysctl_dropins={DROPIN: dict(HELD, **{"net.ipv4.tcp_rmem": "4096 131072 6291456"})}), {},
     [DROPIN + ": write " + ", ".join("%s = %s" % item for item in HELD.items())]),
    (tcp_view(sysctl_dropins={"/etc/sysctl.d/99-other.conf": HELD}), {"linux_bbr_fq_sysctl_file": "/etc/sysctl.d/99-other.conf"}, []),
    (tcp_view(netdev_max_backlog=1000, sysctl_dropins={DROPIN: {k: v for k, v in HELD.items() if "backlog" not in k}}),
     {"linux_bbr_fq_netdev_max_backlog": 0}, []),                     # 0: not managed, not persisted
    (tcp_view(default_qdisc=None, netdev_max_backlog=None, child_netns=True,
              sysctl_dropins={DROPIN: {k: v for k, v in HELD.items() if k.startswith("net.ipv4")}}), {}, []),  # host-level keys
    (tcp_view(child_netns=True, default_qdisc=None, netdev_max_backlog=None, sysctl_dropins={}), {},
     [DROPIN + ": write net.ipv4.tcp_congestion_control = bbr, net.ipv4.tcp_rmem = 4096 131072 33554432, "
               "net.ipv4.tcp_wmem = 4096 16384 33554432"]),
    (tcp_view(tcp_bbr_loadable_module=True), {}, ["/etc/modules-load.d/tunnelfix-bbr.conf: write tcp_bbr (load it at boot)"]),
    (tcp_view(tcp_bbr_loadable_module=True, tcp_bbr_module_files=["/etc/modules-load.d/tunnelfix-bbr.conf"]), {}, []),
    (tcp_view(tcp_bbr_loadable_module=True, child_netns=True, default_qdisc=None, netdev_max_backlog=None,
              sysctl_dropins={DROPIN: {k: v for k, v in HELD.items() if k.startswith("net.ipv4")}},
              tcp_bbr_module_files=["/etc/modules-load.d/tunnelfix-bbr.conf"]), {},
     ["/etc/modules-load.d/tunnelfix-bbr.conf: remove"]),            # a container does not own its kernel
    (tcp_view(tcp_bbr_module_files=["/etc/modules-load.d/tunnelfix-bbr.conf"]), {},
     ["/etc/modules-load.d/tunnelfix-bbr.conf: remove"]),            # built in: nothing to load
    (tcp_view(sysctl_dropins=None), {}, None),                         # facts without the drop-ins
    (tcp_view(tcp_bbr_module_files=None), {}, None),
    (tcp_view(congestion_control="cubic", congestion_control_available=["reno", "cubic"]), {}, None),   # the role fails
    (tcp_view(), {"linux_bbr_fq_netdev_max_backlog": "many"}, None),
    (tcp_view(), {"linux_bbr_fq_congestion_control": "cubic"},
     ["net.ipv4.tcp_congestion_control: bbr -> cubic",
      DROPIN + ": write " + ", ".join("%s = %s" % item for item in dict(HELD, **{"net.ipv4.tcp_congestion_control": "cubic"}).items())]),
])
def test_tcp_plan(view, role_vars, expected):
    assert tcp_plan(view, role_vars) == expected


@pytest.mark.parametrize("view, expected", [
    # a key the facts read as absent (None) in a namespace the facts do not call a child: the tcp_tuning action reads it
    # as absent too and does not write it (needs_write), so the plan promises no live change for it
    (tcp_view(default_qdisc=None), []),
    (tcp_view(default_qdisc=None, netdev_max_backlog=None, congestion_control="cubic"),
     ["net.ipv4.tcp_congestion_control: cubic -> bbr"]),
    (tcp_view(tcp_rmem=None, tcp_wmem="4096 16384  6291456"), ["net.ipv4.tcp_wmem: 4096 16384 6291456 -> 4096 16384 33554432"]),
])
def test_tcp_plan_promises_no_write_to_a_key_the_namespace_lacks(view, expected):
    assert tcp_plan(view, {}) == expected


def test_tcp_plan_cannot_tell_from_a_value_no_sysctl_prints():
    assert tcp_plan(tcp_view(tcp_rmem=4096.5), {}) is None


def test_tcp_plan_names_what_the_next_boot_undoes(load_fixture):
    """The drop-in would be written, and a sysctl file applied after it sets cubic: said with the write, not changed."""
    text = load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt")
    boot = sysctl_boot(parse_sysctl_boot_files(text))
    view = tcp_view(sysctl_dropins={}, sysctl_boot=boot)
    assert tcp_plan(view, {}) == [DROPIN + ": write " + ", ".join("%s = %s" % item for item in HELD.items())
                                  + " (/etc/sysctl.d/99-zz-local.conf line 2 sets net.ipv4.tcp_congestion_control = cubic, and"
                                  " systemd-sysctl applies it after %s: the next boot undoes net.ipv4.tcp_congestion_control"
                                  " = bbr; remove or change that line, or name the drop-in so that it sorts after"
                                  " 99-zz-local.conf)" % DROPIN]
    # A drop-in the boot never reads (no line, no boot value): said in words, never "line None sets None".
    unread = tcp_plan(view, {"linux_bbr_fq_sysctl_file": "/opt/tunnelfix/sysctl.conf"})
    assert len(unread) == 1 and "is not applied at boot: it is in no directory" in unread[0] and "None" not in unread[0]
    assert tcp_plan(view, {"linux_bbr_fq_sysctl_file": "/etc/sysctl.d/99-zzz-tunnelfix.conf"}) == [
        "/etc/sysctl.d/99-zzz-tunnelfix.conf: write " + ", ".join("%s = %s" % item for item in HELD.items())]
    assert tcp_plan(tcp_view(sysctl_dropins={DROPIN: HELD}, sysctl_boot=boot), {}) == []   # nothing to write: the finding says it


def test_tcp_plan_with_neither_facts():
    assert tcp_plan({"tunnelfix": {"tcp": TCP}}, {}) is None and tcp_plan({"openwrt": {"netns": {}}}, {}) is None


# linux_bbr_fq_plan: the decisions the role takes from it (tests/unit/plugins/filter/test_tcp_tuning_filter.py: the filter)

MODULES = "/etc/modules-load.d/tunnelfix-bbr.conf"
INIT_NS, CHILD_NS = {"child_netns": False}, {"child_netns": True}


@pytest.mark.parametrize("wanted, tcp, netns, load", [
    ({"net.ipv4.tcp_congestion_control": "bbr"}, {"tcp_bbr_loadable_module": True}, INIT_NS, True),
    ({"net.ipv4.tcp_congestion_control": "bbr"}, {"tcp_bbr_loadable_module": True}, CHILD_NS, False),   # the host's kernel
    ({"net.ipv4.tcp_congestion_control": "bbr"}, {"tcp_bbr_loadable_module": False}, INIT_NS, False),  # built in or absent
    ({"net.ipv4.tcp_congestion_control": "bbr"}, {"tcp_bbr_loadable_module": "yes"}, INIT_NS, False),  # only a true fact
    ({"net.ipv4.tcp_congestion_control": "cubic"}, {"tcp_bbr_loadable_module": True}, INIT_NS, False),
    ({}, {"tcp_bbr_loadable_module": True}, INIT_NS, False),                                           # not managed
])
def test_load_tcp_bbr(wanted, tcp, netns, load):
    assert load_tcp_bbr(wanted, tcp, netns) is load


@pytest.mark.parametrize("dropins, module_files, loadable, wanted, expected", [
    ({DROPIN: HELD}, [], False, HELD, []),                                      # converged
    ({DROPIN: dict(HELD, **{"net.ipv4.tcp_rmem": "4096 131072 6291456"})}, [], False, HELD, [DROPIN]),   # one value differs
    ({}, [], False, HELD, [DROPIN]),                                           # no drop-in yet
    ({DROPIN: HELD}, [MODULES], False, HELD, [MODULES]),                       # nothing to load: the file goes
    ({DROPIN: HELD}, [], True, HELD, [MODULES]),                               # a loadable tcp_bbr: the file is written
    ({DROPIN: HELD}, [MODULES], True, HELD, []),
    ({}, [], False, {}, []),                                                   # nothing to apply, no drop-in: nothing
    ({DROPIN: HELD}, [], False, {}, [DROPIN]),                                 # nothing to apply: the drop-in goes
    (None, None, False, HELD, [DROPIN, MODULES]),                              # unknown: both count
])
def test_files_to_change(dropins, module_files, loadable, wanted, expected):
    tcp = dict(TCP, sysctl_dropins=dropins, tcp_bbr_module_files=module_files, tcp_bbr_loadable_module=loadable)
    plan = linux_bbr_fq_plan(wanted, tcp, INIT_NS, sysctl_file=DROPIN, modules_file=MODULES)
    assert plan["files_to_change"] == expected and plan["load_module"] is loadable


def test_the_plans_parts_come_with_their_files(load_fixture):
    """overridden_at_boot only with the drop-in's path, load_module and files_to_change only with the modules file too."""
    boot = sysctl_boot(parse_sysctl_boot_files(load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt")))
    tcp = dict(TCP, sysctl_boot=boot)
    assert set(linux_bbr_fq_plan(HELD, tcp, INIT_NS)) == {"apply", "skipped", "fatal"}
    with_dropin = linux_bbr_fq_plan(HELD, tcp, INIT_NS, sysctl_file=DROPIN)
    assert set(with_dropin) == {"apply", "skipped", "fatal", "overridden_at_boot"}
    [undone] = with_dropin["overridden_at_boot"]
    assert (undone["key"], undone["boot_value"], undone["file"], undone["reason"]) == (
        "net.ipv4.tcp_congestion_control", "cubic", "/etc/sysctl.d/99-zz-local.conf", "overridden_at_boot")
    assert set(linux_bbr_fq_plan(HELD, tcp, INIT_NS, modules_file=MODULES)) == {"apply", "skipped", "fatal"}


@pytest.mark.parametrize("role_vars, backlog", [({}, 5000), ({"linux_bbr_fq_netdev_max_backlog": "3000"}, 3000),
                                                ({"linux_bbr_fq_netdev_max_backlog": 0}, ""), ({"linux_bbr_fq_netdev_max_backlog": 1}, 1)])
def test_role_wanted(role_vars, backlog):
    wanted = role_wanted(role_vars)
    assert wanted["net.core.netdev_max_backlog"] == backlog and wanted["net.ipv4.tcp_congestion_control"] == "bbr"
    assert role_wanted({"linux_bbr_fq_netdev_max_backlog": "many"}) is None
