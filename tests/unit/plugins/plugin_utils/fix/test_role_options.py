# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""option_errors: every bad option of a role, one message each naming the option and the value."""

import re
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import ROLE_OPTIONS
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.role_options import (
    BRIDGE_FEATURES, CHECKS, MAX_BACKLOG, MAX_KEEPALIVE_S, option_errors)

REPO = Path(__file__).resolve().parents[5]

BBR = {
    "linux_bbr_fq_congestion_control": "bbr", "linux_bbr_fq_default_qdisc": "fq",
    "linux_bbr_fq_tcp_rmem": "4096 131072 33554432", "linux_bbr_fq_tcp_wmem": "4096 16384 33554432",
    "linux_bbr_fq_netdev_max_backlog": 5000, "linux_bbr_fq_sysctl_file": "/etc/sysctl.d/60-x.conf",
    "linux_bbr_fq_modules_load_file": "/etc/modules-load.d/x.conf", "linux_bbr_fq_allow_runtime_only": False,
}
KEY = "A" * 43 + "="
WG = {"wireguard_keepalive_persistent_keepalive_s": 25, "wireguard_keepalive_public_keys": [KEY],
      "wireguard_keepalive_interfaces": ["wg0"]}
GSO = {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["gso", "tso", "gro"]}
HCM = {"health_check_measure_targets": [], "health_check_measure_count": 10, "health_check_measure_interval_ms": 100,
       "health_check_measure_timeout_s": 1, "health_check_measure_window_s": 30}
TM = {"tunnel_measure_phase": "before", "tunnel_measure_min_bits_per_second": "",
      "tunnel_measure_path_bits_per_second": "40M", "tunnel_measure_max_ping_loss_percent": 0}
UDP = {"udp_gro_forwarding_enable": False, "udp_gro_forwarding_device": "", "udp_gro_forwarding_persist": True,
       "udp_gro_forwarding_gateway_timeout_s": 30, "udp_gro_forwarding_rollback_timeout_s": 90}
PT = {"prometheus_textfile_floor_bits_per_second": ""}
MWAN = {"openwrt_mwan3_wg_interfaces": [], "openwrt_mwan3_wg_preferred_uplink": "wan", "openwrt_mwan3_wg_metered_uplinks": [],
        "openwrt_mwan3_wg_rollback_timeout_s": 90}
PMTU = {"path_mtu_measure_phase": "before", "path_mtu_measure_interval_ms": 200, "path_mtu_measure_timeout_s": 1,
        "path_mtu_measure_attempts": 2}
MTU = {"wireguard_mtu_tunnels": {"wg0": 1340}, "wireguard_mtu_tcp_mtu_probing": False, "wireguard_mtu_config_dir": "/etc/wireguard",
       "wireguard_mtu_networkd_dir": "/etc/systemd/network", "wireguard_mtu_backup": True, "wireguard_mtu_rollback_timeout_s": 90}
DEFAULTS = {"tunnel_measure": TM, "linux_bbr_fq": BBR, "wireguard_keepalive": WG, "bridge_gso_off": GSO, "health_check_measure": HCM,
            "udp_gro_forwarding": UDP, "prometheus_textfile": PT, "openwrt_mwan3_wg": MWAN, "path_mtu_measure": PMTU, "wireguard_mtu": MTU}


@pytest.mark.parametrize("role, change", [
    ("linux_bbr_fq", {}),
    ("linux_bbr_fq", {"linux_bbr_fq_default_qdisc": "", "linux_bbr_fq_tcp_rmem": "", "linux_bbr_fq_netdev_max_backlog": 0}),
    ("linux_bbr_fq", {"linux_bbr_fq_netdev_max_backlog": "1048576", "linux_bbr_fq_tcp_wmem": " 1 1 1 "}),
    ("linux_bbr_fq", {"linux_bbr_fq_allow_runtime_only": True}),
    ("linux_bbr_fq", {"linux_bbr_fq_allow_runtime_only": "yes"}),     # -e gives a string
    ("wireguard_keepalive", {}),
    ("wireguard_keepalive", {"wireguard_keepalive_persistent_keepalive_s": "0", "wireguard_keepalive_public_keys": [],
                             "wireguard_keepalive_interfaces": []}),
    ("bridge_gso_off", {"bridge_gso_off_features": ["lro"]}),
    # issue 17.8: tunnels alone are enough; their features are checked like the bridges'
    ("bridge_gso_off", {"bridge_gso_off_bridges": [], "bridge_gso_off_tunnels": ["tailscale0", "wg0"],
                        "bridge_gso_off_tunnel_features": ["tso", "gso"]}),
    ("health_check_measure", {}),
    ("health_check_measure", {"health_check_measure_targets": ["192.0.2.1", "wan.example"],
                              "health_check_measure_count": "500", "health_check_measure_interval_ms": "0",
                              "health_check_measure_timeout_s": 60}),
    ("health_check_measure", {"health_check_measure_targets": "192.0.2.1, 192.0.2.2"}),
    ("health_check_measure", {"health_check_measure_window_s": 0}),          # no passive window
    ("health_check_measure", {"health_check_measure_window_s": "600"}),
    ("tunnel_measure", {}),
    ("tunnel_measure", {"tunnel_measure_min_bits_per_second": 32000000, "tunnel_measure_path_bits_per_second": None,
                        "tunnel_measure_max_ping_loss_percent": "2.5", "tunnel_measure_phase": "after-1.x"}),
    ("prometheus_textfile", {}),
    ("prometheus_textfile", {"prometheus_textfile_floor_bits_per_second": None}),
    ("prometheus_textfile", {"prometheus_textfile_floor_bits_per_second": "24.9M"}),
    ("prometheus_textfile", {"prometheus_textfile_floor_bits_per_second": 1}),
    ("udp_gro_forwarding", {}),
    ("udp_gro_forwarding", {"udp_gro_forwarding_enable": "true", "udp_gro_forwarding_device": "eth0.2",
                            "udp_gro_forwarding_persist": "no", "udp_gro_forwarding_gateway_timeout_s": "0"}),
    ("udp_gro_forwarding", {"udp_gro_forwarding_device": None, "udp_gro_forwarding_gateway_timeout_s": 120,
                            "udp_gro_forwarding_rollback_timeout_s": 195}),          # 195 x 2/3 = 130 = 120 + 10
    ("udp_gro_forwarding", {"udp_gro_forwarding_gateway_timeout_s": 0, "udp_gro_forwarding_rollback_timeout_s": 20}),
    ("udp_gro_forwarding", {"udp_gro_forwarding_rollback_timeout_s": "60"}),          # 60 x 2/3 = 40 = 30 + 10
    ("openwrt_mwan3_wg", {}),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_interfaces": ["wg0", "wg_home"], "openwrt_mwan3_wg_preferred_uplink": "eth1",
                          "openwrt_mwan3_wg_metered_uplinks": ["wanb", "wwan0"], "openwrt_mwan3_wg_rollback_timeout_s": "3600"}),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_rollback_timeout_s": 20}),
    # one definition of an interface name everywhere: wg-quick's set plus "@" (the kernel takes it)
    ("wireguard_keepalive", {"wireguard_keepalive_interfaces": ["wg@0"]}),
])
def test_good_options_give_no_error(role, change):
    assert option_errors(role, dict(DEFAULTS[role], **change)) == []


@pytest.mark.parametrize("role, change, messages", [
    ("linux_bbr_fq", {"linux_bbr_fq_congestion_control": "BBR!"},
     ['linux_bbr_fq_congestion_control must be a congestion control name such as bbr or cubic, got "BBR!"']),
    ("linux_bbr_fq", {"linux_bbr_fq_congestion_control": 7}, ['got "7"']),
    ("linux_bbr_fq", {"linux_bbr_fq_default_qdisc": "fq codel"}, ['linux_bbr_fq_default_qdisc must be', 'got "fq codel"']),
    ("linux_bbr_fq", {"linux_bbr_fq_tcp_rmem": "9000 100 10"},
     ['linux_bbr_fq_tcp_rmem must be three ascending byte counts', 'got "9000 100 10"']),
    ("linux_bbr_fq", {"linux_bbr_fq_tcp_wmem": "0 1 2"}, ['linux_bbr_fq_tcp_wmem must be', 'got "0 1 2"']),
    ("linux_bbr_fq", {"linux_bbr_fq_tcp_wmem": "1 2"}, ['linux_bbr_fq_tcp_wmem must be', 'got "1 2"']),
    ("linux_bbr_fq", {"linux_bbr_fq_netdev_max_backlog": 1048577},
     ['linux_bbr_fq_netdev_max_backlog must be 0-1048576 packets (0 leaves it alone), got "1048577"']),
    ("linux_bbr_fq", {"linux_bbr_fq_netdev_max_backlog": True}, ['got "True"']),
    ("linux_bbr_fq", {"linux_bbr_fq_netdev_max_backlog": "-1"}, ['got "-1"']),
    ("linux_bbr_fq", {"linux_bbr_fq_sysctl_file": "etc/x"}, ['linux_bbr_fq_sysctl_file must be an absolute path, got "etc/x"']),
    ("linux_bbr_fq", {"linux_bbr_fq_allow_runtime_only": "maybe"}, ['linux_bbr_fq_allow_runtime_only must be true or false, got "maybe"']),
    ("linux_bbr_fq", {"linux_bbr_fq_allow_runtime_only": None}, ['linux_bbr_fq_allow_runtime_only must be true or false, got "None"']),
    ("wireguard_keepalive", {"wireguard_keepalive_persistent_keepalive_s": 70000},
     ['wireguard_keepalive_persistent_keepalive_s must be 0-65535 seconds, got "70000"']),
    ("wireguard_keepalive", {"wireguard_keepalive_public_keys": ["not-a-key", KEY]},
     ['wireguard_keepalive_public_keys: "not-a-key" is not a WireGuard public key']),
    ("wireguard_keepalive", {"wireguard_keepalive_interfaces": ["wg0", "a-name-far-too-long"]},
     ['wireguard_keepalive_interfaces: "a-name-far-too-long" is not an interface name']),
    ("bridge_gso_off", {"bridge_gso_off_bridges": []},
     ["bridge_gso_off_bridges is empty: name at least one bridge, for example [br-lan]"]),
    ("bridge_gso_off", {"bridge_gso_off_bridges": ["br lan"]}, ['bridge_gso_off_bridges: "br lan" is not an interface name']),
    ("bridge_gso_off", {"bridge_gso_off_features": ["gso-please"]},
     ['bridge_gso_off_features: "gso-please" is not one of gso, tso, gro, lro']),
    ("bridge_gso_off", {"bridge_gso_off_bridges": [], "bridge_gso_off_tunnels": []},
     ["bridge_gso_off_bridges is empty", "(or a tunnel device in bridge_gso_off_tunnels, for example [tailscale0])"]),
    ("bridge_gso_off", {"bridge_gso_off_tunnels": ["wg0", "wg 1"]}, ['bridge_gso_off_tunnels: "wg 1" is not an interface name']),
    ("bridge_gso_off", {"bridge_gso_off_tunnels": ["tun/0"]}, ['bridge_gso_off_tunnels: "tun/0" is not an interface name']),
    ("bridge_gso_off", {"bridge_gso_off_tunnels": ["wg0"], "bridge_gso_off_tunnel_features": ["tso", "rx-csum"]},
     ['bridge_gso_off_tunnel_features: "rx-csum" is not one of gso, tso, gro, lro']),
    ("bridge_gso_off", {"bridge_gso_off_tunnel_features": None}, ['bridge_gso_off_tunnel_features: "None" is not one of']),
    ("health_check_measure", {"health_check_measure_interval_ms": -5},
     ['health_check_measure_interval_ms must be 0-10000 ms, got "-5"']),
    ("health_check_measure", {"health_check_measure_count": 0}, ['health_check_measure_count must be 1-1000 rounds, got "0"']),
    ("health_check_measure", {"health_check_measure_window_s": 601},
     ['health_check_measure_window_s must be 0-600 seconds (0: no passive window), got "601"']),
    ("health_check_measure", {"health_check_measure_window_s": "-1"}, ['health_check_measure_window_s must be', 'got "-1"']),
    ("health_check_measure", {"health_check_measure_timeout_s": True}, ['health_check_measure_timeout_s must be', 'got "True"']),
    ("health_check_measure", {"health_check_measure_targets": ["192.0.2.1; reboot"]},
     ['health_check_measure_targets: "192.0.2.1; reboot" is not an IP address or host name']),
    ("health_check_measure", {"health_check_measure_targets": {"a": 1}},
     ['health_check_measure_targets must be a list of addresses, got "{\'a\': 1}"']),
    ("health_check_measure", {"health_check_measure_targets": ["192.0.2.1", "192.0.2.2"], "health_check_measure_count": 501},
     ['must be at most 1000 pings, got "501" x 2']),
    ("tunnel_measure", {"tunnel_measure_phase": "a/b"}, ['tunnel_measure_phase must be a word', 'got "a/b"']),
    ("tunnel_measure", {"tunnel_measure_phase": "after\n"}, ['got "after\\n"']),
    ("tunnel_measure", {"tunnel_measure_min_bits_per_second": "10 Mbit/s junk"},
     ['tunnel_measure_min_bits_per_second must be bits per second', 'got "10 Mbit/s junk"']),
    ("tunnel_measure", {"tunnel_measure_path_bits_per_second": "-5M"},
     ['tunnel_measure_path_bits_per_second must be bits per second', '(empty: unknown), got "-5M"']),
    ("tunnel_measure", {"tunnel_measure_max_ping_loss_percent": 101}, ['must be 0-100 percent, got "101"']),
    ("tunnel_measure", {"tunnel_measure_max_ping_loss_percent": "lots"}, ['got "lots"']),
    ("prometheus_textfile", {"prometheus_textfile_floor_bits_per_second": "fast"},
     ['prometheus_textfile_floor_bits_per_second must be above 0', 'got "fast"']),
    ("prometheus_textfile", {"prometheus_textfile_floor_bits_per_second": 0}, ['got "0"']),
    ("prometheus_textfile", {"prometheus_textfile_floor_bits_per_second": "-1M"}, ['got "-1M"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_enable": "maybe"}, ['udp_gro_forwarding_enable must be true or false, got "maybe"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_persist": None}, ['udp_gro_forwarding_persist must be true or false, got "None"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_device": "eth0; reboot"},
     ['udp_gro_forwarding_device must be an interface name', 'got "eth0; reboot"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_device": "a-name-far-too-long"}, ['got "a-name-far-too-long"']),
    # the kernel's dev_valid_name refuses ':' (an address label such as eth0:1 is no device), and "$" let a newline through
    ("udp_gro_forwarding", {"udp_gro_forwarding_device": "eth0:1"}, ['udp_gro_forwarding_device must be an interface name', 'got "eth0:1"']),
    ("bridge_gso_off", {"bridge_gso_off_bridges": ["br:lan"]}, ['bridge_gso_off_bridges: "br:lan" is not an interface name']),
    ("wireguard_keepalive", {"wireguard_keepalive_interfaces": ["wg0\n"]},
     ['wireguard_keepalive_interfaces: "wg0\\n" is not an interface name (1-15 characters of letters, digits and _.@=+-, not . or ..)']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_interfaces": "wg0"}, ['openwrt_mwan3_wg_interfaces must be a list of interface names, got "wg0"']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_interfaces": ["wg0", "wg 1"]}, ['openwrt_mwan3_wg_interfaces: "wg 1" is not an interface name']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_preferred_uplink": ["wan"]},
     ['openwrt_mwan3_wg_preferred_uplink: "[\'wan\']" is not a uci interface or device name']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_preferred_uplink": "wan; reboot"}, ['openwrt_mwan3_wg_preferred_uplink: "wan; reboot" is not']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_metered_uplinks": ["wanb", "x" * 16]},
     ['openwrt_mwan3_wg_metered_uplinks: "%s" is not a uci interface or device name' % ("x" * 16)]),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_metered_uplinks": "wanb,wanc"},
     ['openwrt_mwan3_wg_metered_uplinks must be a list of uci interface or device names, got "wanb,wanc"']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_rollback_timeout_s": 19}, ['openwrt_mwan3_wg_rollback_timeout_s must be 20-3600 seconds, got "19"']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_rollback_timeout_s": True}, ['got "True"']),
    ("openwrt_mwan3_wg", {"openwrt_mwan3_wg_rollback_timeout_s": "3601"}, ['got "3601"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_gateway_timeout_s": 121},
     ['udp_gro_forwarding_gateway_timeout_s must be 0-120 seconds (0: no gateway check), got "121"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_gateway_timeout_s": True}, ['got "True"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_rollback_timeout_s": 19}, ['udp_gro_forwarding_rollback_timeout_s must be 20-3600 seconds, got "19"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_rollback_timeout_s": 3601}, ['got "3601"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_rollback_timeout_s": 59},                # 59 x 2/3 = 39 < 30 + 10
     ['udp_gro_forwarding_rollback_timeout_s must be at least 1.5 x (udp_gro_forwarding_gateway_timeout_s + 10) = 60 seconds, got "59"']),
    ("udp_gro_forwarding", {"udp_gro_forwarding_gateway_timeout_s": 120, "udp_gro_forwarding_rollback_timeout_s": 194},
     ['= 195 seconds, got "194"']),
    ("wireguard_mtu", {"wireguard_mtu_tunnels": {"wg0": 575}}, ['wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "575"']),
    ("wireguard_mtu", {"wireguard_mtu_tunnels": {"wg0": 65536}}, ['got "65536"']),
    ("wireguard_mtu", {"wireguard_mtu_tunnels": {"wg0;reboot": 1340}}, ['wireguard_mtu_tunnels: "wg0;reboot" is not an interface name']),
    ("wireguard_mtu", {"wireguard_mtu_tunnels": "wg0=1340"}, ['wireguard_mtu_tunnels must be a dict of interface name -> MTU bytes']),
    ("wireguard_mtu", {"wireguard_mtu_config_dir": "etc/wireguard"}, ['wireguard_mtu_config_dir must be an absolute path, got "etc/wireguard"']),
    ("wireguard_mtu", {"wireguard_mtu_rollback_timeout_s": 19}, ['wireguard_mtu_rollback_timeout_s must be 20-3600 seconds, got "19"']),
    ("wireguard_mtu", {"wireguard_mtu_tcp_mtu_probing": "sometimes"}, ['wireguard_mtu_tcp_mtu_probing must be true or false, got "sometimes"']),
])
def test_each_bad_option_is_named_with_its_value(role, change, messages):
    errors = option_errors(role, dict(DEFAULTS[role], **change))
    assert len(errors) == 1
    assert all(message in errors[0] for message in messages)


def test_every_problem_is_reported_at_once():
    errors = option_errors("linux_bbr_fq", dict(BBR, linux_bbr_fq_tcp_rmem="3 2 1", linux_bbr_fq_modules_load_file="x"))
    assert [error.split()[0] for error in errors] == ["linux_bbr_fq_tcp_rmem", "linux_bbr_fq_modules_load_file"]


@pytest.mark.parametrize("role, options, message", [
    ("nope", {},
     "role must be one of bridge_gso_off, health_check_measure, linux_bbr_fq, openwrt_mwan3_wg, path_mtu_measure, prometheus_textfile, "
     "tunnel_measure, udp_gro_forwarding, wireguard_keepalive, wireguard_mtu, got 'nope'"),
    ("linux_bbr_fq", [], "options must be a dict"),
])
def test_bad_calls(role, options, message):
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        option_errors(role, options)


class _Recording(dict):
    """The options a check reads, by name (get and [])."""

    def __init__(self, *args):
        super().__init__(*args)
        self.read = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)


@pytest.mark.parametrize("role", sorted(DEFAULTS))
def test_every_option_checked_is_one_the_roles_spec_has(role):
    """An option name is written in the role's argument spec; a check of a name the spec lacks fails here."""
    options = _Recording(DEFAULTS[role])
    assert option_errors(role, options) == []
    assert options.read and options.read <= set(ROLE_OPTIONS[role]), options.read - set(ROLE_OPTIONS[role])


@pytest.mark.parametrize("role", sorted(DEFAULTS))
def test_every_bool_option_of_the_spec_is_checked_as_one(role):
    """Which options are booleans comes from the spec: each one's bad value is named, whatever the role."""
    for name, spec in ROLE_OPTIONS[role].items():
        if spec["type"] == "bool" and name in DEFAULTS[role]:
            assert "%s must be true or false, got \"maybe\"" % name in option_errors(role, dict(DEFAULTS[role], **{name: "maybe"}))


def test_the_feature_choices_are_the_specs():
    for option in ("bridge_gso_off_features", "bridge_gso_off_tunnel_features"):
        choices = ROLE_OPTIONS["bridge_gso_off"][option]["choices"]
        assert option_errors("bridge_gso_off", dict(GSO, **{option: list(choices)})) == []
        assert option_errors("bridge_gso_off", dict(GSO, **{option: ["rxvlan"]})) == [
            '%s: "rxvlan" is not one of %s' % (option, ", ".join(choices))]
    assert BRIDGE_FEATURES == tuple(ROLE_OPTIONS["bridge_gso_off"]["bridge_gso_off_features"]["choices"])


@pytest.mark.parametrize("role, option, limit", [
    ("wireguard_keepalive", "wireguard_keepalive_persistent_keepalive_s", "0-%d" % MAX_KEEPALIVE_S),
    ("linux_bbr_fq", "linux_bbr_fq_netdev_max_backlog", "1-%d" % MAX_BACKLOG),
    ("udp_gro_forwarding", "udp_gro_forwarding_gateway_timeout_s", "0-120"),
    ("udp_gro_forwarding", "udp_gro_forwarding_rollback_timeout_s", "20-3600"),
    ("openwrt_mwan3_wg", "openwrt_mwan3_wg_rollback_timeout_s", "20-3600"),
    ("wireguard_mtu", "wireguard_mtu_rollback_timeout_s", "20-3600"),
])
def test_the_limits_checked_are_the_ones_the_spec_documents(role, option, limit):
    """A range a spec cannot express is checked here and said in the spec's description: the two agree."""
    specs = yaml.safe_load((REPO / "roles" / role / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))
    description = specs["argument_specs"]["main"]["options"][option]["description"]
    assert limit in " ".join(description if isinstance(description, list) else [description])
    high = int(limit.split("-")[1])

    def named(value):
        return [message for message in option_errors(role, dict(DEFAULTS[role], **{option: value})) if message.startswith(option + " ")]
    assert named(high) == [] and named(high + 1)


@pytest.mark.parametrize("path", sorted(str(p.relative_to(REPO)) for p in (REPO / "roles").glob("*/*/*.yml")
                                        if "role_option_errors" in p.read_text(encoding="utf-8")))
def test_the_roles_hand_over_only_options_their_spec_has(path):
    text = (REPO / path).read_text(encoding="utf-8")
    role = path.split("/")[1]
    named = set(re.findall(r"'(%s_\w+)':" % role, text)) | set(re.findall(r"^\s+(%s_\w+): \"\{\{" % role, text, re.M))
    assert named and named <= set(ROLE_OPTIONS[role]), named - set(ROLE_OPTIONS[role])


def test_the_filters_documented_roles_are_the_ones_it_checks():
    docs = yaml.safe_load((REPO / "plugins" / "filter" / "role_option_errors.yml").read_text(encoding="utf-8"))["DOCUMENTATION"]
    assert sorted(docs["options"]["role"]["choices"]) == sorted(CHECKS) == sorted(DEFAULTS)
