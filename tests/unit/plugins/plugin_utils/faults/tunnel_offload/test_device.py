# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""classify_tunnel_device: whether a device the bridge_offload action is asked to change is a layer-3 tunnel, each way
it can tell (ip -d -j first, then sysfs' tun_flags, then uevent's DEVTYPE), from recorded output.

The action's tests (tests/unit/plugins/action/test_bridge_offload_action.py) run it through the action; these call it
directly, so the tests of plugins/plugin_utils (what `make mutation` runs) pin its decisions too.
"""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.device import IFF_TUN, classify_tunnel_device

IP = "ip -d -j link show"


def link(load_fixture, case, **changes):
    """The recorded ``ip -d -j link show dev`` output of ``case``, its one link's top-level keys changed."""
    links = json.loads(load_fixture("ip_d_j_link_show_dev", case))
    links[0].update(changes)
    return json.dumps(links)


@pytest.mark.parametrize("device, case, changes, expected", [
    ("tailscale0", "netns_tun_vnet_hdr.txt", {}, {"tunnel": True, "kind": "tun", "what": "a tun tunnel", "source": IP}),
    ("eth0", "netns_veth.txt", {}, {"tunnel": False, "kind": "veth", "what": "a veth", "source": IP}),
    ("br-lan", "netns_bridge.txt", {}, {"tunnel": False, "kind": "bridge", "what": "a bridge", "source": IP}),
    ("lan1", "netns_bridge_port_veth.txt", {}, {"tunnel": False, "kind": "veth", "what": "a veth", "source": IP}),
    # a NIC driver registers no link kind: no linkinfo at all
    ("eth0", "netns_veth.txt", {"linkinfo": None},
     {"tunnel": False, "kind": None, "what": "a device without a link kind (a physical NIC)", "source": IP}),
    # a TUN device in tap mode (layer 2): kind tun, but no tunnel
    ("tailscale0", "netns_tun_vnet_hdr.txt", {"linkinfo": {"info_kind": "tun", "info_data": {"type": "tap"}}},
     {"tunnel": False, "kind": "tun", "what": "a TAP (layer 2)", "source": IP}),
])
def test_ip_decides_when_it_lists_the_device(load_fixture, device, case, changes, expected):
    # sysfs would say otherwise: ip's answer wins whenever it holds the device
    assert classify_tunnel_device(device, link(load_fixture, case, **changes), "0x1802\n", "DEVTYPE=wireguard\n") == expected


@pytest.mark.parametrize("ip_json", [None, "", "[]", 'Option "-j" is unknown, try "ip -help".\n', '[{"ifname": "other0"}]'])
def test_sysfs_decides_when_ip_does_not_list_the_device(load_fixture, ip_json):
    flags = load_fixture("sys_class_net_tun_flags", "netns_tun_plain.txt")
    assert classify_tunnel_device("tun0", ip_json, flags, None) == {
        "tunnel": True, "kind": "tun", "what": "a tun tunnel", "source": "sysfs"}


@pytest.mark.parametrize("flags, tunnel, what", [
    ("netns_tun_plain.txt", True, "a tun tunnel"),            # 0x1001: IFF_TUN | IFF_NO_PI
    ("netns_tun_vnet_hdr.txt", True, "a tun tunnel"),         # 0x5001: with virtio-net headers (wireguard-go, tailscaled)
    ("netns_tap_persistent.txt", False, "a TAP (layer 2)"),   # 0x1802: IFF_TAP, persistent
])
def test_tun_flags(load_fixture, flags, tunnel, what):
    got = classify_tunnel_device("tun0", None, load_fixture("sys_class_net_tun_flags", flags), "DEVTYPE=wireguard\n")
    assert got == {"tunnel": tunnel, "kind": "tun", "what": what, "source": "sysfs"}


@pytest.mark.parametrize("flags, tunnel", [("0x1", True), ("0x0", False), ("0x2", False), ("0x3", True), ("1001", True)])
def test_iff_tun_is_the_lowest_bit(flags, tunnel):
    assert IFF_TUN == 1
    assert classify_tunnel_device("tun0", None, flags, None)["tunnel"] is tunnel


@pytest.mark.parametrize("flags", ["tun\n", "0xZZ", "-"])
def test_tun_flags_that_are_no_hex_number_are_refused_naming_the_file(flags):
    with pytest.raises(ParseError, match=r"/sys/class/net/tun0/tun_flags: expected a hex number such as 0x1001, got"):
        classify_tunnel_device("tun0", None, flags, None)


@pytest.mark.parametrize("flags, uevent, expected", [
    # no tun_flags (not a TUN/TAP) or an empty one: uevent's DEVTYPE
    (None, "handmade_wireguard.txt", {"tunnel": True, "kind": "wireguard", "what": "a wireguard tunnel", "source": "sysfs"}),
    (" \n", "handmade_wireguard.txt", {"tunnel": True, "kind": "wireguard", "what": "a wireguard tunnel", "source": "sysfs"}),
    (None, "netns_bridge.txt", {"tunnel": False, "kind": "bridge", "what": "a bridge", "source": "sysfs"}),
    (None, "netns_veth.txt", {"tunnel": False, "kind": None, "source": "sysfs",
                              "what": "neither a TUN (no tun_flags) nor WireGuard (no DEVTYPE=wireguard)"}),
    (None, None, {"tunnel": False, "kind": None, "source": "sysfs",
                  "what": "neither a TUN (no tun_flags) nor WireGuard (no DEVTYPE=wireguard)"}),
])
def test_uevent_decides_without_tun_flags(load_fixture, flags, uevent, expected):
    text = load_fixture("sys_class_net_uevent", uevent) if uevent else None
    assert classify_tunnel_device("wg0", None, flags, text) == expected


def test_the_last_devtype_line_counts_and_its_value_is_stripped():
    assert classify_tunnel_device("wg0", None, None, "DEVTYPE=bridge\nDEVTYPE= wireguard \n")["tunnel"] is True
    assert classify_tunnel_device("wg0", None, None, "DEVTYPE=wireguard\nDEVTYPE=bridge\n")["tunnel"] is False
    assert classify_tunnel_device("wg0", None, None, "XDEVTYPE=wireguard\n")["tunnel"] is False
