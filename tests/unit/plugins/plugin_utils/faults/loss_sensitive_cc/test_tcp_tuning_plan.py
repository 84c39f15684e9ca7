"""plan_tcp_tuning: which TCP sysctls a host can take (shared cases 06 and 08)."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.plan import plan_tcp_tuning

WANTED = {
    "net.core.default_qdisc": "fq",
    "net.ipv4.tcp_congestion_control": "bbr",
    "net.ipv4.tcp_rmem": "4096  131072\t33554432",
    "net.core.netdev_max_backlog": "5000",
}
HOST_OK = {"congestion_control": "cubic", "congestion_control_available": ["reno", "cubic", "bbr"],
           "congestion_control_allowed": ["reno", "cubic"], "sch_fq_available": True,
           "tcp_bbr_loadable_module": False}
INIT_NS = {"child_netns": False}
CHILD_NS = {"child_netns": True}


@pytest.mark.parametrize("tcp, netns, applied, skipped", [
    # a normal host takes everything
    (HOST_OK, INIT_NS, set(WANTED), {}),
    # case 08: kernel without sch_fq keeps BBR, skips fq
    (dict(HOST_OK, sch_fq_available=False), INIT_NS,
     set(WANTED) - {"net.core.default_qdisc"}, {"net.core.default_qdisc": "kernel_lacks_sch_fq"}),
    # case 06: a container - host-level keys skipped, bbr restricted (not allowed) skipped
    (HOST_OK, CHILD_NS, {"net.ipv4.tcp_rmem"},
     {"net.core.default_qdisc": "host_level", "net.core.netdev_max_backlog": "host_level",
      "net.ipv4.tcp_congestion_control": "restricted_in_namespace"}),
    # a container whose host allows bbr
    (dict(HOST_OK, congestion_control_allowed=["reno", "bbr"]), CHILD_NS,
     {"net.ipv4.tcp_rmem", "net.ipv4.tcp_congestion_control"},
     {"net.core.default_qdisc": "host_level", "net.core.netdev_max_backlog": "host_level"}),
    # bbr not listed yet but loadable as a module
    (dict(HOST_OK, congestion_control_available=["reno", "cubic"], tcp_bbr_loadable_module=True), INIT_NS,
     set(WANTED), {}),
])
def test_plan_splits_keys(tcp, netns, applied, skipped):
    plan = plan_tcp_tuning(WANTED, tcp, netns)
    assert plan["fatal"] is None
    assert set(plan["apply"]) == applied
    assert {item["key"]: item["reason"] for item in plan["skipped"]} == skipped


def test_values_are_whitespace_normalised():
    plan = plan_tcp_tuning(WANTED, HOST_OK, INIT_NS)
    assert plan["apply"]["net.ipv4.tcp_rmem"] == "4096 131072 33554432"


def test_empty_values_are_not_managed():
    plan = plan_tcp_tuning({"net.core.default_qdisc": "", "net.ipv4.tcp_wmem": None}, HOST_OK, INIT_NS)
    assert plan == {"apply": {}, "skipped": [], "fatal": None}


@pytest.mark.parametrize("reason, words", [
    ("host_level", "container host"),
    ("kernel_lacks_sch_fq", "internal pacing"),
    ("restricted_in_namespace", "tcp_allowed_congestion_control"),
])
def test_skip_messages_say_what_to_do(reason, words):
    tcp = dict(HOST_OK, sch_fq_available=False)
    plan = plan_tcp_tuning(WANTED, tcp, CHILD_NS if reason != "kernel_lacks_sch_fq" else INIT_NS)
    messages = {item["reason"]: item["message"] for item in plan["skipped"]}
    assert words in messages[reason]


def test_kernel_without_bbr_is_fatal():
    # case 08: tcp_available_congestion_control = reno cubic, modprobe tcp_bbr: not found
    tcp = dict(HOST_OK, congestion_control_available=["reno", "cubic"], tcp_bbr_loadable_module=False)
    plan = plan_tcp_tuning(WANTED, tcp, INIT_NS)
    assert "kernel lacks congestion control 'bbr'" in plan["fatal"]
    assert "CONFIG_TCP_CONG_BBR" in plan["fatal"]


def test_current_cc_is_never_called_restricted():
    tcp = dict(HOST_OK, congestion_control="bbr", congestion_control_allowed=["reno"])
    plan = plan_tcp_tuning({"net.ipv4.tcp_congestion_control": "bbr"}, tcp, CHILD_NS)
    assert plan["apply"] == {"net.ipv4.tcp_congestion_control": "bbr"}
