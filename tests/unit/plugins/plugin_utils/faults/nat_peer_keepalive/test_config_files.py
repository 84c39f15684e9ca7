# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The wireguard_keepalive listing (fixtures: wg_config_listing/) and the choice of files to change."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.config_files import (
    config_plan, parse_config_listing, unmatched_messages)

REC = "/tmp/tfrec/"


@pytest.mark.parametrize("case, expected", [
    ("lab_peer_wg_quick.txt", {"wg_quick": ["/etc/wireguard/wg0.conf"], "netdev": []}),
    ("wg_quick_and_networkd.txt", {"wg_quick": [REC + "wireguard/wg0.conf"],
                                   "netdev": [REC + "network/30-wg1.netdev", REC + "network/40-wg2.netdev"]}),
    ("networkd_only_busybox.txt", {"wg_quick": [], "netdev": [REC + "network/30-wg1.netdev", REC + "network/40-wg2.netdev"]}),
    ("no_directories.txt", {"wg_quick": [], "netdev": []}),
])
@pytest.mark.parametrize("crlf", [False, True])
def test_parse(load_fixture, case, expected, crlf):
    text = load_fixture("wg_config_listing", case)
    assert parse_config_listing(text.replace("\n", "\r\n") if crlf else text) == expected


@pytest.mark.parametrize("text, message", [
    (None, "config listing must be text, got NoneType"),
    ("wg-quick relative.conf\n", "line 1: expected 'wg-quick PATH' or 'netdev PATH', got 'wg-quick relative.conf'"),
    ("wg-quick /a.conf\nls: cannot access\n", "line 2: expected"),
])
def test_parse_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_config_listing(text)


BOTH = {"wg_quick": ["/w/wg0.conf", "/w/wg5.conf"], "netdev": ["/n/30-wg1.netdev"]}


@pytest.mark.parametrize("listing, interfaces, expected", [
    (BOTH, [], (["/w/wg0.conf", "/w/wg5.conf"], ["/n/30-wg1.netdev"], [])),
    (BOTH, ["wg5"], (["/w/wg5.conf"], [], [])),
    (BOTH, ["wg1"], ([], ["/n/30-wg1.netdev"], ["wg1"])),
    (BOTH, ["wg1", "wg0"], (["/w/wg0.conf"], ["/n/30-wg1.netdev"], ["wg1"])),
    ({"wg_quick": [], "netdev": ["/n/a.netdev"]}, [], ([], ["/n/a.netdev"], [])),
])
def test_plan(listing, interfaces, expected):
    plan = config_plan(listing, interfaces, "/w", "/n")
    assert (plan["wg_quick_paths"], plan["netdev_paths"], plan["netdev_interfaces"]) == expected


def test_plan_nothing_to_work_on_names_both_directories():
    with pytest.raises(ParseError, match='wireguard_keepalive_config_dir: no wg-quick [*].conf file in "/w" '
                                         'and no .netdev with Kind=wireguard in "/n"'):
        config_plan({"wg_quick": [], "netdev": []}, [], "/w", "/n")


@pytest.mark.parametrize("listing", [{"wg_quick": ["/w/wg0.conf"], "netdev": []}, {"wg_quick": [], "netdev": []}])
def test_plan_missing_named_interface_is_named(listing):
    with pytest.raises(ParseError, match="^wireguard_keepalive_interfaces: no configuration for wg9 [(]no /w/wg9.conf "
                                         "and no .netdev with Kind=wireguard in /n[)]; wireguard_keepalive_interfaces: "
                                         "no configuration for wg8 "):
        config_plan(listing, ["wg9", "wg8"], "/w", "/n")


KEY_A, KEY_B = "A" * 43 + "=", "B" * 43 + "="


@pytest.mark.parametrize("wanted, matched, expected", [
    ({"interfaces": [], "public_keys": []}, {"interfaces": ["wg0"], "public_keys": [KEY_A]}, []),
    ({"interfaces": ["wg0", "wg9"], "public_keys": []}, {"interfaces": ["wg0"], "public_keys": []},
     ["wireguard_keepalive_interfaces: no configuration for wg9 on peer (no /w/wg9.conf and no .netdev with "
      "Name=wg9 and Kind=wireguard in /n)"]),
    ({"interfaces": [], "public_keys": [KEY_A, KEY_B]}, {"interfaces": ["wg0"], "public_keys": [KEY_A]},
     ["wireguard_keepalive_public_keys: no peer %s on peer in any WireGuard interface" % KEY_B]),
    ({"interfaces": ["wg0", "wg1"], "public_keys": [KEY_B]}, {"interfaces": ["wg0", "wg1"], "public_keys": []},
     ["wireguard_keepalive_public_keys: no peer %s on peer in wg0, wg1" % KEY_B]),
])
def test_unmatched_messages(wanted, matched, expected):
    assert unmatched_messages(wanted, matched, "peer", "/w", "/n") == expected


def test_parse_keeps_spaces_in_paths_and_skips_blank_lines():
    text = "wg-quick /etc/wire guard/wg0.conf\n\nnetdev /etc/systemd/network/30-wg1.netdev\n"
    assert parse_config_listing(text) == {"wg_quick": ["/etc/wire guard/wg0.conf"],
                                          "netdev": ["/etc/systemd/network/30-wg1.netdev"]}


def test_parse_refuses_bytes_naming_the_type():
    with pytest.raises(ParseError, match=r"(?<!\w)bytes(?!\w)"):
        parse_config_listing(b"wg-quick /etc/wireguard/wg0.conf\n")
