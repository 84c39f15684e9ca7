# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tunnel_facts' bridges subset on Linux: the same shape as openwrt_facts', tools missing reported, not failed.

A fake AnsibleModule answers run_command from a table of command -> (rc, stdout, stderr) over the
recorded tfh1-rec output (see module_utils/test_tunnel_links.py) and records what ran; the
ip_forward read is pointed at the recorded /proc file.
"""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.modules import tunnel_facts

GSO = "generic-segmentation-offload"
TSO = "tcp-segmentation-offload"
GRO = "generic-receive-offload"
IP = "/usr/sbin/ip"
ETHTOOL = "/usr/sbin/ethtool"
LINKS = "%s -d -j link show" % IP


class Failed(Exception):
    pass


class FakeModule:
    def __init__(self, answers, tools=("ip", "ethtool")):
        self.answers, self.tools, self.ran = answers, tools, []

    def get_bin_path(self, name, required=False):
        return "/usr/sbin/%s" % name if name in self.tools else None

    def run_command(self, argv):
        cmd = " ".join(argv)
        self.ran.append(cmd)
        assert cmd in self.answers, "unexpected command %r" % cmd
        return self.answers[cmd]

    def fail_json(self, **kwargs):
        raise Failed(kwargs)


@pytest.fixture
def linux(load_fixture, monkeypatch):
    forward = load_fixture("proc_sys_net_ipv4_ip_forward", "netns_on.txt")
    monkeypatch.setattr(tunnel_facts, "read_sysctl", lambda key: forward if key == "net.ipv4.ip_forward" else None)
    return {
        LINKS: (0, load_fixture("ip_d_j_link_show", "netns_bridge_veth_tun1280_owned_tap.txt"), ""),
        "%s -k lan1" % ETHTOOL: (0, load_fixture("ethtool_k", "netns_veth_port.txt"), ""),
        "%s -k br-lan" % ETHTOOL: (0, load_fixture("ethtool_k", "netns_bridge.txt"), ""),
    }


def test_recorded_bridge_tun_and_forwarding(linux):
    module = FakeModule(linux)
    facts = tunnel_facts.gather_bridges(module)
    assert module.ran == list(linux)
    assert set(facts) == {"ip_json", "ethtool_installed", "ip_forward", "note", "bridges", "tunnels"}
    assert (facts["ip_json"], facts["ethtool_installed"], facts["ip_forward"], facts["note"]) == (True, True, 1, None)
    assert facts["tunnels"] == {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UP"}}
    bridge = facts["bridges"]["br-lan"]
    assert (bridge["mtu"], bridge["gso_tso_gro"]["on"], bridge["ports"]["lan1"]["gso_tso_gro"]["on"]) == (
        1500, [GSO, TSO, GRO], [GSO, TSO])


@pytest.mark.parametrize("tools, change, expected, ran", [
    # no ethtool: features null, the note says why
    (("ip",), {}, {"ethtool_installed": False, "note": "ethtool is not installed: offload features unknown"}, [LINKS]),
    # one device's ethtool fails: its error is kept, the rest read
    (("ip", "ethtool"), {"%s -k lan1" % ETHTOOL: (76, "", "netlink error: no device matches name (offset 24)\n")},
     {"ethtool_installed": True, "note": None}, [LINKS, "%s -k lan1" % ETHTOOL, "%s -k br-lan" % ETHTOOL]),
    # no ip: nothing known about links, forwarding still read
    ((), {}, {"ip_json": False, "bridges": {}, "tunnels": {}, "ip_forward": 1,
              "note": "ip -d -j link show gave no link list (ip (iproute2) is not installed): bridges and tunnels unknown"},
     []),
    (("ip", "ethtool"), {LINKS: (255, "", 'Option "-d" is unknown\n')},
     {"ip_json": False, "ethtool_installed": None, "tunnels": {}}, [LINKS]),
])
def test_missing_tools_are_reported(linux, tools, change, expected, ran):
    module = FakeModule(dict(linux, **change), tools)
    facts = tunnel_facts.gather_bridges(module)
    assert {key: facts[key] for key in expected} == expected
    assert module.ran == ran
    if "%s -k lan1" % ETHTOOL in change:
        lan1 = facts["bridges"]["br-lan"]["ports"]["lan1"]
        assert (lan1["features"], lan1["ethtool_error"]) == (None, "netlink error: no device matches name (offset 24)")


def test_unreadable_ip_forward_is_unknown(linux, monkeypatch):
    monkeypatch.setattr(tunnel_facts, "read_sysctl", lambda key: None)
    facts = tunnel_facts.gather_bridges(FakeModule(linux))
    assert facts["ip_forward"] is None and "forwarding unknown" in facts["note"]


@pytest.mark.parametrize("change, message", [
    ({"%s -k br-lan" % ETHTOOL: (0, "Features for br-lan:\ngarbage\n", "")}, "cannot read the output of ethtool -k br-lan"),
])
def test_unreadable_ethtool_output_fails_naming_the_device(linux, change, message):
    with pytest.raises(Failed) as failed:
        tunnel_facts.gather_bridges(FakeModule(dict(linux, **change)))
    assert message in failed.value.args[0]["msg"]


def test_bridges_is_a_subset():
    assert "bridges" in tunnel_facts.SUBSETS
