# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge_offload action against a fake target: commands run, check mode, diff, [fixed], failures.

The fake answers ``_low_level_execute_command`` from a table of command → list of (rc, stdout,
stderr), one per call (the last one repeats), and records what ran.
"""

from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.bridge_offload import ActionModule

LS = "ls /sys/class/net/br-lan/brif/"


class FakeBridgeAction(ActionModule):
    def __init__(self, args, answers, check_mode=False, diff=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff,
                               action="tunnelfix.fleet.bridge_offload")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.bridge_offload"
        self.answers = {cmd: list(replies) for cmd, replies in answers.items()}
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        replies = self.answers.get(cmd, [(0, "", "")])
        rc, stdout, stderr = replies.pop(0) if len(replies) > 1 else replies[0]
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


@pytest.fixture
def k(load_fixture):
    """ethtool -k output of a fixture, with the interface renamed."""
    def read(case, name):
        text = load_fixture("ethtool_k", case)
        return (0, "Features for %s:\n" % name + text.split("\n", 1)[1], "")
    return read


@pytest.fixture
def lab(k):
    """br-lan with veth port lan1 (gso/tso on, gro off), as recorded; both off after ethtool -K."""
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "x")
    return {
        LS: [(0, "lan1\n", "")],
        "ethtool -k lan1": [k("netns_veth_port.txt", "lan1"), off],
        "ethtool -k br-lan": [k("netns_bridge.txt", "br-lan"), off],
    }


def test_turns_off_only_what_is_on_ports_first(lab):
    action = FakeBridgeAction({"bridge": "br-lan"}, lab, diff=True)
    result = action.run(task_vars={})
    assert action.ran == [LS, "ethtool -k lan1", "ethtool -k br-lan",
                          "ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off",
                          "ethtool -k lan1", "ethtool -k br-lan"]
    assert result["changed"] is True and result["ports"] == ["lan1"]
    assert result["devices"]["lan1"] == {"changed": ["generic-segmentation-offload", "tcp-segmentation-offload"],
                                         "skipped_fixed": [], "already": ["generic-receive-offload"]}
    assert result["skipped_fixed"] == {} and "msg" not in result
    assert "lan1 tcp-segmentation-offload: on\n" in result["diff"]["before"]
    assert "lan1 tcp-segmentation-offload: off\n" in result["diff"]["after"]
    assert "br-lan generic-receive-offload: off\n" in result["diff"]["after"]


def test_check_mode_reads_only(lab):
    action = FakeBridgeAction({"bridge": "br-lan"}, lab, check_mode=True, diff=True)
    result = action.run(task_vars={})
    assert action.ran == [LS, "ethtool -k lan1", "ethtool -k br-lan"]
    assert result["changed"] is True
    assert result["commands"] == ["ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off"]
    assert "br-lan generic-segmentation-offload: off\n" in result["diff"]["after"]


def test_already_off_is_not_changed(k):
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "x")
    action = FakeBridgeAction({"bridge": "br-lan"}, {LS: [(0, "lan1\nlan2\n", "")]} | {
        "ethtool -k %s" % dev: [off] for dev in ("lan1", "lan2", "br-lan")})
    result = action.run(task_vars={})
    assert action.ran == [LS, "ethtool -k lan1", "ethtool -k lan2", "ethtool -k br-lan"]
    assert result["changed"] is False and result["commands"] == [] and "diff" not in result


def test_fixed_features_are_skipped_and_named(k):
    rc, before, err = k("case12_br-lan_before.txt", "br-lan")
    after = before.replace("tcp-segmentation-offload: on", "tcp-segmentation-offload: off")
    action = FakeBridgeAction({"bridge": "br-lan", "features": ["tso", "netns-local"]}, {
        LS: [(0, "", "")], "ethtool -k br-lan": [(rc, before, err), (rc, after, err)]})
    result = action.run(task_vars={})
    assert "ethtool -K br-lan tso off" in action.ran
    assert result["skipped_fixed"] == {"br-lan": ["netns-local"]}
    assert result["msg"] == "left [fixed] features as they are: br-lan: netns-local"
    assert result["changed"] is True


def test_state_on_turns_back_on(k):
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "br-lan")
    action = FakeBridgeAction({"bridge": "br-lan", "features": ["gso"], "state": "on"},
                              {LS: [(0, "", "")], "ethtool -k br-lan": [off]}, check_mode=True)
    result = action.run(task_vars={})
    assert result["commands"] == ["ethtool -K br-lan gso on"] and result["changed"] is True


def test_yaml_boolean_off_is_accepted_as_state(k):
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "br-lan")
    action = FakeBridgeAction({"bridge": "br-lan", "state": False}, {LS: [(0, "", "")], "ethtool -k br-lan": [off]})
    result = action.run(task_vars={})
    assert result.get("failed") is not True and result["state"] == "off"


def test_refused_change_fails_naming_device_and_feature(lab, k):
    lab["ethtool -k lan1"] = [k("netns_veth_port.txt", "lan1")]  # still on after ethtool -K
    action = FakeBridgeAction({"bridge": "br-lan"}, lab)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == ("ethtool -K ran but these features are still not off: "
                             "lan1: generic-segmentation-offload, tcp-segmentation-offload")


@pytest.mark.parametrize("args, answers, message", [
    ({}, {}, "missing required arguments: bridge"),
    ({"bridge": "br-lan", "state": "maybe"}, {}, "value of state must be one of: off, on, got: maybe"),
    ({"bridge": "br/lan"}, {}, "bridge: 'br/lan' is not an interface name"),
    ({"bridge": "br-lan", "features": []}, {}, "features: needs at least one feature name"),
    ({"bridge": "br-nope"}, {"ls /sys/class/net/br-nope/brif/": [(2, "", "ls: cannot access ...\n")]},
     "bridge: 'br-nope' is not a bridge on the target (no /sys/class/net/br-nope/brif/)"),
    ({"bridge": "br-lan"}, {LS: [(0, "lan1\n", "")], "ethtool -k lan1": [(127, "", "sh: ethtool: not found\n")]},
     "ethtool is not installed on the target (ethtool -k lan1: command not found)"),
    ({"bridge": "br-lan", "features": ["ufo"]}, "lab", "features: offload feature 'ufo' is not in the ethtool -k output"),
    ({"bridge": "br-lan"}, {LS: [(0, "lan1\n", "")], "ethtool -k lan1": [(0, "garbage\n", "")]},
     "cannot read the output of ethtool -k lan1: ethtool -k line 1"),
])
def test_failures_name_option_and_value(lab, args, answers, message):
    action = FakeBridgeAction(args, lab if answers == "lab" else answers)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
    assert not any(cmd.startswith("ethtool -K") for cmd in action.ran)


def test_ethtool_set_failure_is_classified(lab):
    lab["ethtool -K lan1 gso off tso off"] = [(92, "", "netlink error: no device matches name (offset 24)\n")]
    action = FakeBridgeAction({"bridge": "br-lan"}, lab)
    result = action.run(task_vars={})
    assert result["failed"] is True and result["rc"] == 92
    assert result["msg"] == ("ethtool -K lan1 gso off tso off failed with rc=92 (no_device): "
                             "netlink error: no device matches name (offset 24)")
