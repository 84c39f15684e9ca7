# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""merge_wireguard: uci WireGuard config + live ``wg show all dump`` → one view, no secret in it."""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import (
    merge_wireguard, split_dated_output)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump

CASE_NOW = 1767225600  # now of the field cases' dumps (fixtures README)
LAB_NOW = 1796029496  # now of the recorded lab dumps (fixtures README)


@pytest.fixture
def merged(load_fixture):
    def build(uci_case, dump_case=None, now=CASE_NOW):
        network = parse_uci_show(load_fixture("uci_show", uci_case)).get("network", {})
        live = None if dump_case is None else parse_wg_dump(load_fixture("wg_show_all_dump", dump_case), now)["interfaces"]
        return merge_wireguard(network, live)
    return build


def secrets_in(*texts):
    """Every private/preshared key value in uci show or wg dump text (the values that must never leak)."""
    found = set()
    for text in texts:
        found.update(re.findall(r"(?:private_key|preshared_key)='([^']+)'", text))
        for line in text.splitlines():
            fields = line.split("\t")
            if len(fields) == 5:
                found.add(fields[1])  # interface line: private key
            elif len(fields) == 9 and fields[2] != "(none)":
                found.add(fields[2])  # peer line: preshared key
    return found


def test_case01_uci_and_live_merge(merged):
    wg0 = merged("case01_network.txt", "case01_endpoint_hostroute.txt")["wg0"]
    peer = wg0.pop("peers")
    assert wg0 == {
        "in_uci": True, "live": True, "proto": "wireguard", "disabled": False, "private_key_set": True,
        "listen_port": 51820, "addresses": ["10.77.0.2/24"], "nohostroute": False, "mtu": None,
        "options": {"proto": "wireguard", "listen_port": "51820", "addresses": "10.77.0.2/24"},
        "live_state": {"public_key": "A" * 43 + "=", "has_private_key": True, "listen_port": 51820, "fwmark": None},
    }
    assert peer == [{
        "public_key": "B" * 43 + "=", "section": "@wireguard_wg0[0]", "description": "site-b", "disabled": False,
        "preshared_key_set": False, "endpoint_host": "203.0.113.10", "endpoint_port": 51820,
        "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"], "route_allowed_ips": True, "persistent_keepalive_s": 25,
        "in_uci": True,
        "live": {"endpoint": "203.0.113.10:51820", "endpoint_host": "203.0.113.10", "endpoint_port": 51820,
                 "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"], "latest_handshake_epoch": 1767225571,
                 "handshake_age_s": 29, "handshake_state": "fresh", "persistent_keepalive_s": 25,
                 "rx_bytes": 48213344, "tx_bytes": 9120448, "has_preshared_key": False},
    }]


def test_case04_full_tunnel_never_handshaked(merged):
    wg0 = merged("case04_network.txt", "case04_full_tunnel_never.txt")["wg0"]
    assert wg0["nohostroute"] is True          # split or full: faults/endpoint_route/test_tunnels.py
    peer = wg0["peers"][0]
    assert (peer["live"]["handshake_age_s"], peer["live"]["handshake_state"]) == (None, "never")
    assert peer["live"]["endpoint"] == "203.0.113.55:51821"


def test_uci_only_named_and_anonymous_peers(merged):
    wg0 = merged("case11_network_wg.txt")["wg0"]
    assert (wg0["live"], wg0["live_state"]) == (False, None)
    assert [(p["section"], p["public_key"][0], p["preshared_key_set"], p["endpoint_host"], p["live"])
            for p in wg0["peers"]] == [("@wireguard_wg0[0]", "D", False, None, None),
                                       ("dc", "E", True, "dc.example.net", None)]


def test_live_only_interface_and_peers_are_kept(merged):
    interfaces = merged("case11_network_wg.txt", "hub_two_interfaces.txt", LAB_NOW)
    assert list(interfaces) == ["wg0", "wg1"]
    wg0 = interfaces["wg0"]
    assert [(p["public_key"][0], p["in_uci"], p["live"] is not None) for p in wg0["peers"]] == [
        ("D", True, True), ("E", True, False), ("B", False, True), ("C", False, True)]
    assert wg0["peers"][3]["live"]["endpoint_host"] == "fd99:1::3"
    wg1 = interfaces["wg1"]
    assert (wg1["in_uci"], wg1["live"], wg1["options"], wg1["peers"]) == (False, True, {}, [])
    assert wg1["live_state"]["public_key"] == "E" * 43 + "="


@pytest.mark.parametrize("uci_case, dump_case, now", [
    ("case01_network.txt", "case01_endpoint_hostroute.txt", CASE_NOW),
    ("case04_network.txt", "case04_full_tunnel_never.txt", CASE_NOW),
    ("case11_network_wg.txt", "hub_two_interfaces.txt", LAB_NOW),
    ("x_flag_cfg_names.txt", "ipv6_endpoint_psk_keepalive.txt", LAB_NOW),
    ("openwrt_image_network.txt", None, None),
])
def test_no_secret_anywhere_in_the_view(load_fixture, merged, uci_case, dump_case, now):
    texts = [load_fixture("uci_show", uci_case)] + ([load_fixture("wg_show_all_dump", dump_case)] if dump_case else [])
    secrets = secrets_in(*texts)
    assert secrets, "the fixtures hold secrets, so this test can fail"
    dumped = json.dumps(merged(uci_case, dump_case, now))
    for secret in secrets:
        assert secret not in dumped
    assert "<redacted>" not in dumped and "\"private_key\"" not in dumped and "\"preshared_key\"" not in dumped


def test_no_wireguard_config_gives_nothing(merged):
    assert merged("case05_banip.txt") == {}
    assert merge_wireguard({}, {}) == {}


@pytest.mark.parametrize("extra, message", [
    ("network.wg0.listen_port='fast'\n", "network.wg0.listen_port: expected a whole number"),
    ("network.@wireguard_wg0[0].persistent_keepalive='-1'\n",
     "network.@wireguard_wg0[0].persistent_keepalive: expected a whole number"),
    ("network.@wireguard_wg0[0].disabled='maybe'\n", "network.@wireguard_wg0[0].disabled: expected a uci boolean"),
    ("network.@wireguard_wg0[0].allowed_ips='10.0.0.0/33'\n", "is not an address or prefix"),
])
def test_bad_uci_values_name_the_path(load_fixture, extra, message):
    network = parse_uci_show(load_fixture("uci_show", "case01_network.txt") + extra)["network"]
    with pytest.raises(ParseError, match=re.escape(message)):
        merge_wireguard(network, None)


@pytest.mark.parametrize("text, expected", [
    ("1796029496\n", (1796029496, "")),
    ("1796029496\nwg0\tx\n", (1796029496, "wg0\tx\n")),
    (" 1767225600 \n\n", (1767225600, "\n")),
])
def test_split_dated_output(text, expected):
    assert split_dated_output(text) == expected


@pytest.mark.parametrize("text", ["", "wg0\tKKKK\n", "date: invalid\n", None])
def test_split_dated_output_errors(text):
    with pytest.raises(ParseError, match="date|text"):
        split_dated_output(text)


def test_live_only_peer_has_none_for_every_uci_key(merged):
    interfaces = merged("case11_network_wg.txt", "hub_two_interfaces.txt", LAB_NOW)
    live_only = interfaces["wg0"]["peers"][2]
    live = live_only.pop("live")
    assert live_only == {"public_key": "B" * 43 + "=", "section": None, "description": None, "disabled": None,
                         "preshared_key_set": None, "endpoint_host": None, "endpoint_port": None, "allowed_ips": [],
                         "route_allowed_ips": None, "persistent_keepalive_s": None, "in_uci": False}
    assert live["allowed_ips"]
    wg1 = interfaces["wg1"]
    assert (wg1["proto"], wg1["disabled"], wg1["private_key_set"], wg1["listen_port"], wg1["addresses"],
            wg1["nohostroute"], wg1["mtu"]) == (None, None, None, None, [], None, None)


def _case01_with(load_fixture, *lines):
    text = load_fixture("uci_show", "case01_network.txt") + "".join(line + "\n" for line in lines)
    return merge_wireguard(parse_uci_show(text)["network"])


def test_interface_disabled_mtu_and_list_options(load_fixture):
    wg0 = _case01_with(load_fixture, "network.wg0.disabled='1'", "network.wg0.mtu='1420'",
                       "network.wg0.addresses='10.77.0.2/24' 'fd77::2/64'")["wg0"]
    assert (wg0["disabled"], wg0["mtu"], wg0["addresses"]) == (True, 1420, ["10.77.0.2/24", "fd77::2/64"])
    assert wg0["options"]["addresses"] == ["10.77.0.2/24", "fd77::2/64"]
    assert wg0["options"]["disabled"] == "1"


@pytest.mark.parametrize("line, path", [
    ("network.wg0.disabled='maybe'", "network.wg0.disabled"),
    ("network.wg0.mtu='big'", "network.wg0.mtu"),
    ("network.@wireguard_wg0[0].endpoint_port='port'", "network.@wireguard_wg0[0].endpoint_port"),
])
def test_bad_uci_values_are_refused_naming_the_option(load_fixture, line, path):
    with pytest.raises(ParseError) as err:
        _case01_with(load_fixture, line)
    assert re.search(r"(?<![\w.])%s(?![\w.])" % re.escape(path), str(err.value))


@pytest.mark.parametrize("function, value", [(merge_wireguard, []), (split_dated_output, b"1796029496\n")])
def test_wrong_input_type_is_refused_naming_it(function, value):
    with pytest.raises(ParseError) as err:
        function(value)
    assert re.search(r"(?<!\w)%s(?!\w)" % type(value).__name__, str(err.value))
