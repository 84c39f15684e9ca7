# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""linux_bbr_fq's plan as remediate sees it (``Fault.plan`` of fault 3 and buffer_below_bdp): the changes it names."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import tcp_plan
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
