# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge_offload action against a fake target that runs its scripts: commands run, check mode, diff, [fixed], failures.

The fake (``batch_action`` in this folder's conftest.py) executes what the action sends with dash,
bash and BusyBox sh, PATH holding stub ``ls`` and ``ethtool`` printing recorded answers, one per
command; ``router.calls()`` lists the stub commands in the order they ran. ``later`` answers are the
devices once the first execution has run (after ``ethtool -K``).
"""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.bridge_offload import ActionModule

LS = "ls /sys/class/net/br-lan/brif/"


@pytest.fixture
def k(load_fixture):
    """ethtool -k output of a fixture, with the interface renamed."""
    def read(case, name):
        text = load_fixture("ethtool_k", case)
        return (0, "Features for %s:\n" % name + text.split("\n", 1)[1], "")
    return read


@pytest.fixture
def fake(batch_action):
    def make(args, answers, later=None, **kwargs):
        return batch_action(ActionModule, args, answers, later=later, **kwargs)
    return make


@pytest.fixture
def lab(k):
    """br-lan with veth port lan1 (gso/tso on, gro off), as recorded; the ethtool -K answers; both off after them."""
    return {
        LS: (0, "lan1\n", ""),
        "ethtool -k lan1": k("netns_veth_port.txt", "lan1"),
        "ethtool -k br-lan": k("netns_bridge.txt", "br-lan"),
        "ethtool -K lan1 gso off tso off": (0, "", ""),
        "ethtool -K br-lan gso off tso off gro off": (0, "", ""),
    }


@pytest.fixture
def all_off(k):
    """What ``ethtool -k`` of lan1 and br-lan answers once lab's ethtool -K ran."""
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "x")
    return {"ethtool -k lan1": off, "ethtool -k br-lan": off}


def test_turns_off_only_what_is_on_ports_first(fake, lab, all_off):
    action = fake({"bridge": "br-lan"}, lab, later=all_off, diff=True)
    result = action.run(task_vars={})
    assert action.router.calls() == [LS, "ethtool -k lan1", "ethtool -k br-lan",
                                     "ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off",
                                     "ethtool -k lan1", "ethtool -k br-lan"]
    assert len(action.ran) == 2  # read everything, then set everything and read back
    assert result["changed"] is True and result["ports"] == ["lan1"]
    assert result["devices"]["lan1"] == {"changed": ["generic-segmentation-offload", "tcp-segmentation-offload"],
                                         "skipped_fixed": [], "already": ["generic-receive-offload"]}
    assert result["skipped_fixed"] == {} and "msg" not in result
    assert "lan1 tcp-segmentation-offload: on\n" in result["diff"]["before"]
    assert "lan1 tcp-segmentation-offload: off\n" in result["diff"]["after"]
    assert "br-lan generic-receive-offload: off\n" in result["diff"]["after"]
    assert action.router.leftovers() == []


def test_check_mode_reads_only(fake, lab):
    action = fake({"bridge": "br-lan"}, lab, check_mode=True, diff=True)
    result = action.run(task_vars={})
    assert action.router.calls() == [LS, "ethtool -k lan1", "ethtool -k br-lan"]
    assert len(action.ran) == 1
    assert result["changed"] is True
    assert result["commands"] == ["ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off"]
    assert "br-lan generic-segmentation-offload: off\n" in result["diff"]["after"]


def test_already_off_is_not_changed_in_one_execution(fake, k):
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "x")
    action = fake({"bridge": "br-lan"}, {LS: (0, "lan1\nlan2\n", "")} | {
        "ethtool -k %s" % dev: off for dev in ("lan1", "lan2", "br-lan")})
    result = action.run(task_vars={})
    assert action.router.calls() == [LS, "ethtool -k lan1", "ethtool -k lan2", "ethtool -k br-lan"]
    assert len(action.ran) == 1
    assert result["changed"] is False and result["commands"] == [] and "diff" not in result


def test_fixed_features_are_skipped_and_named(fake, k):
    rc, before, err = k("case12_br-lan_before.txt", "br-lan")
    after = before.replace("tcp-segmentation-offload: on", "tcp-segmentation-offload: off")
    action = fake({"bridge": "br-lan", "features": ["tso", "netns-local"]}, {
        LS: (0, "", ""), "ethtool -k br-lan": (rc, before, err), "ethtool -K br-lan tso off": (0, "", "")},
        later={"ethtool -k br-lan": (rc, after, err)})
    result = action.run(task_vars={})
    assert "ethtool -K br-lan tso off" in action.router.calls()
    assert result["skipped_fixed"] == {"br-lan": ["netns-local"]}
    assert result["msg"] == "left [fixed] features as they are: br-lan: netns-local"
    assert result["changed"] is True


def test_state_on_turns_back_on(fake, k):
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "br-lan")
    action = fake({"bridge": "br-lan", "features": ["gso"], "state": "on"},
                  {LS: (0, "", ""), "ethtool -k br-lan": off}, check_mode=True)
    result = action.run(task_vars={})
    assert result["commands"] == ["ethtool -K br-lan gso on"] and result["changed"] is True


def test_yaml_boolean_off_is_accepted_as_state(fake, k):
    off = k("netns_bridge_after_tso_gso_gro_off.txt", "br-lan")
    action = fake({"bridge": "br-lan", "state": False}, {LS: (0, "", ""), "ethtool -k br-lan": off})
    result = action.run(task_vars={})
    assert result.get("failed") is not True and result["state"] == "off"


def test_refused_change_fails_naming_device_and_feature(fake, lab, all_off, k):
    all_off["ethtool -k lan1"] = k("netns_veth_port.txt", "lan1")  # still on after ethtool -K
    action = fake({"bridge": "br-lan"}, lab, later=all_off)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == ("ethtool -K ran but these features are still not off: "
                             "lan1: generic-segmentation-offload, tcp-segmentation-offload")


@pytest.mark.parametrize("args, answers, message", [
    ({}, {}, "one of the following is required: bridge, tunnel"),
    ({"bridge": "br-lan", "state": "maybe"}, {}, "value of state must be one of: off, on, got: maybe"),
    ({"bridge": "br/lan"}, {}, "bridge: 'br/lan' is not an interface name"),
    ({"bridge": "br-lan", "features": []}, {}, "features: needs at least one feature name"),
    ({"bridge": "br-lan", "features": ["gso tso"]}, {}, "features: 'gso tso' is not an ethtool feature name"),
    ({"bridge": "br-nope"}, {"ls /sys/class/net/br-nope/brif/": (2, "", "ls: cannot access ...\n")},
     "bridge: 'br-nope' is not a bridge on the target (no /sys/class/net/br-nope/brif/)"),
    # no ethtool stub: the shell itself says "not found" (127)
    ({"bridge": "br-lan"}, {LS: (0, "lan1\n", "")},
     "ethtool is not installed on the target (ethtool -k lan1: command not found)"),
    ({"bridge": "br-lan", "features": ["ufo"]}, "lab", "features: offload feature 'ufo' is not in the ethtool -k output"),
    ({"bridge": "br-lan"}, {LS: (0, "lan1\n", ""), "ethtool -k lan1": (0, "garbage\n", "")},
     "cannot read the output of ethtool -k lan1: ethtool -k line 1"),
])
def test_failures_name_option_and_value(fake, lab, args, answers, message):
    action = fake(args, lab if answers == "lab" else answers)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
    assert not any(call.startswith("ethtool -K") for call in action.router.calls())
    assert len(action.ran) <= 1


def test_ethtool_set_failure_is_classified(fake, lab, all_off):
    lab["ethtool -K lan1 gso off tso off"] = (92, "", "netlink error: no device matches name (offset 24)\n")
    action = fake({"bridge": "br-lan"}, lab, later=all_off)
    result = action.run(task_vars={})
    assert result["failed"] is True and result["rc"] == 92
    assert result["msg"] == ("ethtool -K lan1 gso off tso off failed with rc=92 (no_device): "
                             "netlink error: no device matches name (offset 24)")
    assert len(action.ran) == 2
