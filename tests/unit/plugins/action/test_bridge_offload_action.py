# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge_offload action against a fake target that runs its scripts: commands run, check mode, diff, [fixed], failures.

The fake (``batch_action`` in this folder's conftest.py) executes what the action sends with dash,
bash and BusyBox sh, PATH holding stub ``ls`` and ``ethtool`` printing recorded answers, one per
command; ``router.calls()`` lists the stub commands in the order they ran. ``later`` answers are the
devices once the first execution has run (after ``ethtool -K``).
"""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.bridge_offload import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.plan import bridge_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.plan import tunnel_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import device_offloads
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ethtool import parse_ethtool_features

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
                                         "skipped_fixed": [], "already": ["generic-receive-offload"], "absent": []}
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


def test_a_feature_the_devices_do_not_have_is_left_alone_and_named(fake, lab, all_off):
    """ufo (gone from Linux 4.14 on, so not in these ethtool -k outputs): nothing to turn off, not a failure."""
    action = fake({"bridge": "br-lan", "features": ["gso", "tso", "gro", "ufo"]}, lab, later=all_off)
    result = action.run(task_vars={})
    assert result.get("failed") is not True, result
    assert result["commands"] == ["ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off"]
    assert result["devices"]["br-lan"]["absent"] == ["udp-fragmentation-offload"]
    assert result["msg"] == ("left alone features these devices do not have: lan1: udp-fragmentation-offload; "
                             "br-lan: udp-fragmentation-offload")


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
    ({"bridge": "br-lan", "features": ["gos"]}, "lab",
     "features: offload feature 'gos' is not in the ethtool -k output of lan1, br-lan (known short names: gro, gso, lro"),
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


# --- tunnel mode (issue 17.8): one layer-3 tunnel device, refusing anything else -------------------------------

def device(load_fixture, name, link=None, tun_flags=None, uevent="netns_veth.txt", ethtool=None, link_rc=0):
    """The answers for one device: its ip -d -j link (fixture of ip_d_j_link_show_dev, or None: ip without -j), its sysfs
    files (None: missing) and ethtool -k."""
    sysfs = "cat /sys/class/net/%s/" % name
    answers = {
        "ip -d -j link show dev %s" % name: (link_rc, load_fixture("ip_d_j_link_show_dev", link), "") if link
        else (255, "", 'Option "-j" is unknown, try "ip -help".\n'),
        sysfs + "tun_flags": (0, load_fixture("sys_class_net_tun_flags", tun_flags), "") if tun_flags
        else (1, "", "cat: can't open '/sys/class/net/%s/tun_flags': No such file or directory\n" % name),
        sysfs + "uevent": (0, load_fixture("sys_class_net_uevent", uevent), "")}
    if ethtool:
        answers["ethtool -k %s" % name] = (0, load_fixture("ethtool_k", ethtool), "")
    return answers


@pytest.fixture
def tailscale0(load_fixture):
    """tailscale0 as recorded: a TUN opened with offloads (tso, gso on), MTU 1280; the ethtool -K answer."""
    return dict(device(load_fixture, "tailscale0", "netns_tun_vnet_hdr.txt", "netns_tun_vnet_hdr.txt", "netns_tun.txt",
                       "netns_tun_vnet_hdr_tso_mtu1280.txt"),
                **{"ethtool -K tailscale0 tso off gso off": (0, "", "")})


def test_a_tunnel_gets_tso_and_gso_off_and_nothing_else(fake, load_fixture, tailscale0):
    after = {"ethtool -k tailscale0": (0, load_fixture("ethtool_k", "netns_tun_vnet_hdr_after_tso_gso_off.txt"), "")}
    action = fake({"tunnel": "tailscale0", "features": ["tso", "gso"]}, tailscale0, later=after, diff=True)
    result = action.run(task_vars={})
    assert result.get("failed") is not True, result
    assert action.router.calls() == ["ip -d -j link show dev tailscale0", "cat /sys/class/net/tailscale0/tun_flags",
                                     "cat /sys/class/net/tailscale0/uevent", "ethtool -k tailscale0",
                                     "ethtool -K tailscale0 tso off gso off", "ethtool -k tailscale0"]
    assert len(action.ran) == 2
    assert (result["changed"], result["tunnel"], result["kind"], result["commands"]) == (
        True, "tailscale0", "tun", ["ethtool -K tailscale0 tso off gso off"])
    assert "bridge" not in result and "ports" not in result
    assert result["diff"]["before"] == ("tailscale0 tcp-segmentation-offload: on\n"
                                        "tailscale0 generic-segmentation-offload: on\n")
    assert result["diff"]["after"] == result["diff"]["before"].replace(": on", ": off")
    assert result["diff"]["before_header"] == "tailscale0 offloads"


def test_a_tunnel_in_check_mode_is_only_read(fake, tailscale0):
    action = fake({"tunnel": "tailscale0", "features": ["tso", "gso"]}, tailscale0, check_mode=True)
    result = action.run(task_vars={})
    assert result["changed"] is True and len(action.ran) == 1
    assert not any(call.startswith("ethtool -K") for call in action.router.calls())


def test_a_tunnel_already_off_is_not_changed(fake, load_fixture, tailscale0):
    tailscale0["ethtool -k tailscale0"] = (0, load_fixture("ethtool_k", "netns_tun_vnet_hdr_after_tso_gso_off.txt"), "")
    action = fake({"tunnel": "tailscale0", "features": ["tso", "gso"]}, tailscale0)
    result = action.run(task_vars={})
    assert (result["changed"], result["commands"], len(action.ran)) == (False, [], 1)


@pytest.mark.parametrize("name, kwargs, kind", [
    # where ip has no -j (BusyBox), sysfs: IFF_TUN in tun_flags, DEVTYPE=wireguard in uevent
    ("tun0", {"tun_flags": "netns_tun_plain.txt", "uevent": "netns_tun.txt"}, "tun"),
    ("wg0", {"uevent": "handmade_wireguard.txt"}, "wireguard"),
])
def test_sysfs_tells_when_ip_cannot(fake, load_fixture, name, kwargs, kind):
    answers = device(load_fixture, name, ethtool="netns_tun_plain_mtu1500.txt", **kwargs)
    result = fake({"tunnel": name, "features": ["gso"]}, answers, check_mode=True).run(task_vars={})
    assert result.get("failed") is not True, result
    assert (result["kind"], result["commands"]) == (kind, ["ethtool -K %s gso off" % name])


@pytest.mark.parametrize("name, kwargs, what", [
    ("eth0", {"link": "netns_veth.txt"}, "(ip -d -j link show: a veth)"),
    ("br-lan", {"link": "netns_bridge.txt", "uevent": "netns_bridge.txt"}, "(ip -d -j link show: a bridge)"),
    ("lan1", {"link": "netns_bridge_port_veth.txt"}, "(ip -d -j link show: a veth)"),
    ("tap0", {"tun_flags": "netns_tap_persistent.txt", "uevent": "netns_tun.txt"}, "(sysfs: a TAP (layer 2))"),
    ("br-lan", {"uevent": "netns_bridge.txt"}, "(sysfs: a bridge)"),
    ("eth0", {}, "(sysfs: neither a TUN (no tun_flags) nor WireGuard (no DEVTYPE=wireguard))"),
])
def test_anything_but_a_tunnel_is_refused_before_any_change(fake, load_fixture, name, kwargs, what):
    """A physical NIC, a veth, a bridge or its port, a TAP: never touched, the device and what it is named."""
    answers = device(load_fixture, name, ethtool="netns_veth_eth0.txt", **kwargs)
    action = fake({"tunnel": name, "features": ["tso", "gso"]}, answers)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == ("tunnel: %r is not a layer-3 tunnel device %s; offloads are only changed on TUN, WireGuard "
                             "and other IP tunnels, never on a NIC, bridge or veth" % (name, what))
    assert not any(call.startswith("ethtool -K") for call in action.router.calls()) and len(action.ran) == 1


def test_a_physical_nic_without_a_link_kind_is_refused(fake, load_fixture):
    """A NIC driver registers no rtnl link kind: ip -d -j prints no linkinfo (the recorded veth with it taken away)."""
    link = json.loads(load_fixture("ip_d_j_link_show_dev", "netns_veth.txt"))
    del link[0]["linkinfo"]
    answers = device(load_fixture, "eth0", "netns_veth.txt", ethtool="netns_veth_eth0.txt")
    answers["ip -d -j link show dev eth0"] = (0, json.dumps(link), "")
    result = fake({"tunnel": "eth0"}, answers).run(task_vars={})
    assert "(ip -d -j link show: a device without a link kind (a physical NIC))" in result["msg"]


@pytest.mark.parametrize("args, answers, message", [
    ({"tunnel": "tfnosuch0"}, "missing", "tunnel: 'tfnosuch0' does not exist on the target (Device \"tfnosuch0\" does not exist.)"),
    ({"tunnel": "wg 0"}, {}, "tunnel: 'wg 0' is not an interface name"),
    ({"tunnel": "wg0", "bridge": "br-lan"}, {}, "parameters are mutually exclusive: bridge|tunnel"),
    ({"tunnel": "tun0"}, "bad_flags", "tunnel: cannot tell whether 'tun0' is a tunnel: /sys/class/net/tun0/tun_flags: expected a hex"),
])
def test_tunnel_failures_name_option_and_value(fake, load_fixture, args, answers, message):
    if answers == "missing":
        answers = {"ip -d -j link show dev tfnosuch0": (1, "", load_fixture("ip_d_j_link_show_dev_stderr", "netns_no_such_device.txt"))}
    elif answers == "bad_flags":
        answers = device(load_fixture, "tun0", ethtool="netns_tun_plain_mtu1500.txt")
        answers["cat /sys/class/net/tun0/tun_flags"] = (0, "tun\n", "")
    action = fake(args, answers)
    result = action.run(task_vars={})
    assert result["failed"] is True and message in result["msg"], result
    assert not any(call.startswith("ethtool -K") for call in action.router.calls())


# --- the faults' plans are what the action runs (issue 31.4: one decision, fed the facts or a fresh ethtool -k) -------

def without(line, text):
    """An ethtool -k text without the feature ``line`` starts with (a kernel or ethtool that lacks it)."""
    return "".join(kept for kept in text.splitlines(True) if not kept.startswith(line))


# (devices: name -> (ethtool -k fixture, edit of its text or None), bridge or tunnel, features)
SAME_STATE = {
    "veth port and bridge, defaults": ({"lan1": ("netns_veth_port.txt", None), "br-lan": ("netns_bridge.txt", None)},
                                       "br-lan", ["gso", "tso", "gro"]),
    "two ports, features in another order": ({"lan2": ("openwrt_image_lan2_gro_on.txt", None),
                                              "lan1": ("case12_lan1_port.txt", None),
                                              "br-lan": ("openwrt_image_br-lan.txt", None)}, "br-lan", ["gro", "gso"]),
    "all off already": ({"lan1": ("netns_bridge_after_tso_gso_gro_off.txt", None),
                         "br-lan": ("netns_bridge_after_tso_gso_gro_off.txt", None)}, "br-lan", ["gso", "tso", "gro"]),
    "tso on and [fixed] on the bridge": ({"lan1": ("netns_veth_port.txt", None), "br-lan": (
        "netns_bridge.txt", lambda text: text.replace("tcp-segmentation-offload: on", "tcp-segmentation-offload: on [fixed]"))},
        "br-lan", ["tso", "gso"]),
    "a port without lro": ({"lan1": ("netns_veth_port.txt", lambda text: without("large-receive-offload:", text)),
                            "br-lan": ("netns_bridge.txt", lambda text: text.replace(
                                "large-receive-offload: off [fixed]", "large-receive-offload: on"))},
                           "br-lan", ["lro", "gso"]),
    "a tunnel": ({"tailscale0": ("netns_tun_vnet_hdr_tso_mtu1280.txt", None)}, "tailscale0", ["tso", "gso"]),
}


@pytest.mark.parametrize("case", sorted(SAME_STATE))
def test_the_faults_plan_lists_the_commands_the_action_runs(fake, load_fixture, case):
    """For the same device state, the bridge (or tunnel) fault's plan from the facts is the action's commands."""
    devices, target, wanted = SAME_STATE[case]
    texts = {}
    for name, (fixture, edit) in devices.items():
        text = load_fixture("ethtool_k", fixture)
        texts[name] = "Features for %s:\n" % name + (edit or str)(text).split("\n", 1)[1]
    offloads = {name: device_offloads(parse_ethtool_features(text)) for name, text in texts.items()}
    if target == "tailscale0":
        view = {"tunnelfix": {"bridges": {"ip_json": True, "bridges": {}, "tunnels": offloads}}}
        planned = tunnel_plan(view, {"bridge_gso_off_tunnels": [target], "bridge_gso_off_tunnel_features": wanted,
                                     "bridge_gso_off_persist": False})
        answers = device(load_fixture, target, "netns_tun_vnet_hdr.txt", "netns_tun_vnet_hdr.txt", "netns_tun.txt")
        args = {"tunnel": target, "features": wanted}
    else:
        ports = {name: facts for name, facts in offloads.items() if name != target}
        view = {"tunnelfix": {"bridges": {"ip_json": True, "bridges": {target: dict(offloads[target], ports=ports)}}}}
        planned = bridge_plan(view, {"bridge_gso_off_bridges": [target], "bridge_gso_off_features": wanted,
                                     "bridge_gso_off_persist": False})
        answers = {"ls /sys/class/net/%s/brif/" % target: (0, "".join(name + "\n" for name in sorted(ports)), "")}
        args = {"bridge": target, "features": wanted}
    answers.update({"ethtool -k %s" % name: (0, text, "") for name, text in texts.items()})
    result = fake(args, answers, check_mode=True).run(task_vars={})
    assert result.get("failed") is not True, result
    assert planned == result["commands"]
    assert planned or case == "all off already"
