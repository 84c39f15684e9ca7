# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_wg_config_peers: WG_CONFIG_PEERS output recorded in the lab, and one run by BusyBox over hand-made files."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.wg_config_peers import keepalive_seconds, parse_wg_config_peers

KEY_A, KEY_B, KEY_C = ("%s=" % (letter * 43) for letter in "ABC")


def test_lab_peer(load_fixture):
    assert parse_wg_config_peers(load_fixture("wg_config_peers", "lab_peer.txt")) == [
        {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
         "addresses": [],   # recorded before the listing printed Address = lines
         "configured_public_key": None,   # and before it printed the pubkey line
         "peers": [{"public_key": KEY_A, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 5,
                    "allowed_ips": []}]}]   # recorded before the listing printed AllowedIPs lines


def test_lab_hub_peers_without_endpoint_or_keepalive(load_fixture):
    (hub,) = parse_wg_config_peers(load_fixture("wg_config_peers", "lab_hub.txt"))
    assert hub["peers"] == [{"public_key": KEY_B, "endpoint": None, "persistent_keepalive_s": None, "allowed_ips": []},
                            {"public_key": KEY_C, "endpoint": None, "persistent_keepalive_s": None, "allowed_ips": []}]


def test_wg_quick_and_netdev(load_fixture):
    wg_quick, netdev = parse_wg_config_peers(load_fixture("wg_config_peers", "wg_quick_and_netdev_busybox.txt"))
    assert wg_quick["peers"] == [{"public_key": KEY_A, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 5, "allowed_ips": []}]
    assert netdev == {"path": "/etc/systemd/network/30-wg1.netdev", "kind": "netdev", "interface": "wg1", "wireguard": True,
                      "addresses": None, "configured_public_key": None,
                      "peers": [{"public_key": KEY_B, "endpoint": "[2001:db8::1]:51820", "persistent_keepalive_s": None,
                                 "allowed_ips": []},
                                {"public_key": KEY_C, "endpoint": None, "persistent_keepalive_s": 25, "allowed_ips": []}]}


def test_allowed_ips_as_kept(load_fixture):
    """Each peer's AllowedIPs as its file keeps them: wg-quick lines add up (comma-separated, a comment cut on the target);
    a .netdev splits on commas and blanks, and an empty AllowedIPs= drops what came before (systemd's
    config_parse_wireguard_allowed_ips). No private or preshared key is in the listing."""
    wg_quick, netdev = parse_wg_config_peers(load_fixture("wg_config_peers", "allowed_ips_busybox.txt"))
    assert [(peer["public_key"][0], peer["allowed_ips"]) for peer in wg_quick["peers"]] == [
        ("A", ["10.77.0.2/32", "10.0.0.0/16", "192.168.20.0/24"]), ("B", ["10.77.0.3/32", "10.0.5.0/24"]),
        ("C", ["10.77.0.4/32", "192.168.20.0/24"])]
    assert [(peer["public_key"][0], peer["allowed_ips"]) for peer in netdev["peers"]] == [
        ("D", ["10.88.0.2/32", "fd88::2/128"]), ("E", ["0.0.0.0/0", "::/0"])]
    assert wg_quick["addresses"] == ["10.77.0.1/24"] and netdev["interface"] == "wg1"
    assert "KKKK" not in load_fixture("wg_config_peers", "allowed_ips_busybox.txt")


def test_a_peer_without_allowed_ips_has_none():
    text = "/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n/etc/wireguard/wg0.conf\twg-quick\tpublickey\tX\n"
    assert parse_wg_config_peers(text)[0]["peers"][0]["allowed_ips"] == []


def test_a_netdev_of_another_kind_and_settings_outside_a_peer():
    text = ("/etc/systemd/network/br0.netdev\tnetdev\tsection\tNetDev\n/etc/systemd/network/br0.netdev\tnetdev\tname\tbr0\n"
            "/etc/systemd/network/br0.netdev\tnetdev\tkind\tbridge\n"
            "/etc/wireguard/wg2.conf\twg-quick\tsection\tInterface\n/etc/wireguard/wg2.conf\twg-quick\tpublickey\tX\n"
            "/etc/wireguard/wg2.conf\twg-quick\tname\tnot-a-netdev\n")
    bridge, wg2 = parse_wg_config_peers(text)
    assert (bridge["interface"], bridge["wireguard"], bridge["peers"]) == ("br0", False, [])
    assert (wg2["interface"], wg2["peers"]) == ("wg2", [])


@pytest.mark.parametrize("value, seconds", [("25", 25), (" 5 ", 5), ("off", None), ("Off", None), ("0", None), ("00", None),
                                            (None, None), ("1", 1), ("25s", "25s")])
def test_keepalive_seconds(value, seconds):
    assert keepalive_seconds(value) == seconds


@pytest.mark.parametrize("text", ["/etc/wireguard/wg0.conf\twg-quick\tsection\n", "etc/wg0.conf\twg-quick\tsection\tPeer\n",
                                  "/etc/wireguard/wg0.conf\tnetplan\tsection\tPeer\n"])
def test_errors_name_the_line(text):
    with pytest.raises(ParseError, match="line 1: expected 'PATH<TAB>KIND<TAB>NAME<TAB>VALUE'"):
        parse_wg_config_peers("\n" * 0 + text)


def test_nothing_and_not_text():
    assert parse_wg_config_peers("") == []
    with pytest.raises(ParseError, match="must be text"):
        parse_wg_config_peers(b"x")


def test_a_wg_quick_value_ends_at_a_comment_a_netdev_value_does_not():
    """wg(8): "#" starts a comment anywhere; systemd.netdev: whole-line comments only, so "#" is part of a value."""
    text = ("/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n"
            "/etc/wireguard/wg0.conf\twg-quick\tpersistentkeepalive\t5 # NAT\n"
            "/etc/wireguard/wg0.conf\twg-quick\tendpoint\t203.0.113.1:51820 # psk not-a-real-key\n"
            "/etc/wireguard/wg0.conf\twg-quick\tallowedips\t10.77.0.0/24 # , 10.0.0.0/8\n"
            "/etc/systemd/network/wg1.netdev\tnetdev\tsection\tNetDev\n"
            "/etc/systemd/network/wg1.netdev\tnetdev\tname\twg#1\n")
    configs = parse_wg_config_peers(text)
    assert configs[0]["peers"] == [{"public_key": None, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 5,
                                    "allowed_ips": ["10.77.0.0/24"]}]
    assert configs[1]["interface"] == "wg#1"


def test_wg_quick_addresses_of_the_interface_section_only():
    text = ("/etc/wireguard/wg0.conf\twg-quick\tsection\tInterface\n/etc/wireguard/wg0.conf\twg-quick\taddress\t10.77.0.2/24, fd77::2/64\n"
            "/etc/wireguard/wg0.conf\twg-quick\taddress\t10.78.0.2/24\n/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n"
            "/etc/wireguard/wg0.conf\twg-quick\taddress\t192.0.2.9/32\n")
    assert parse_wg_config_peers(text)[0]["addresses"] == ["10.77.0.2/24", "fd77::2/64", "10.78.0.2/24"]


def test_the_exact_errors():
    with pytest.raises(ParseError) as error:
        parse_wg_config_peers(b"x")
    assert str(error.value) == "WireGuard configuration listing must be text, got bytes"
    long_line = "/etc/wireguard/wg0.conf\twg-quick\tsection" + "x" * 300
    with pytest.raises(ParseError) as error:
        parse_wg_config_peers("/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n\n" + long_line + "\n")
    assert str(error.value) == ("WireGuard configuration listing line 3: expected 'PATH<TAB>KIND<TAB>NAME<TAB>VALUE' with KIND wg-quick "
                                "or netdev, got %r" % long_line[:200])


def test_an_empty_line_is_skipped_not_the_end():
    text = "/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n\n  \n/etc/wireguard/wg0.conf\twg-quick\tpersistentkeepalive\t25\n"
    assert parse_wg_config_peers(text)[0]["peers"] == [{"public_key": None, "endpoint": None, "persistent_keepalive_s": 25,
                                                        "allowed_ips": []}]


def test_tabs_and_blanks_inside_a_value_and_blanks_in_a_path():
    """Only the first three tabs separate fields: the target prints a value as written (Address = a,<TAB>b), and a
    file's path may hold a blank."""
    text = ("/etc/wireguard/wg0.conf\twg-quick\tsection\tInterface\n"
            "/etc/wireguard/wg0.conf\twg-quick\taddress\t10.77.0.2/24,\tfd77::2/64\n"
            "/etc/systemd/network/30 wg1.netdev\tnetdev\tsection\tNetDev\n"
            "/etc/systemd/network/30 wg1.netdev\tnetdev\tname\twg1\n")
    wg0, wg1 = parse_wg_config_peers(text)
    assert wg0["addresses"] == ["10.77.0.2/24", "fd77::2/64"]
    assert (wg1["path"], wg1["interface"]) == ("/etc/systemd/network/30 wg1.netdev", "wg1")


def test_a_wg_quick_value_ends_at_its_first_hash():
    text = ("/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n"
            "/etc/wireguard/wg0.conf\twg-quick\tpersistentkeepalive\t5 # NAT # router\n")
    assert parse_wg_config_peers(text)[0]["peers"][0]["persistent_keepalive_s"] == 5


def test_a_netdev_without_name_has_no_interface():
    text = "/etc/systemd/network/30-wg1.netdev\tnetdev\tsection\tNetDev\n/etc/systemd/network/30-wg1.netdev\tnetdev\tkind\twireguard\n"
    assert parse_wg_config_peers(text) == [{"path": "/etc/systemd/network/30-wg1.netdev", "kind": "netdev", "interface": None,
                                            "wireguard": True, "addresses": None, "configured_public_key": None, "peers": []}]


def test_only_a_wg_quick_interface_sections_address_counts_and_only_a_netdevs_netdev_section_names_it():
    """Address = outside [Interface] (before any section) or in a .netdev, and Name= in a wg-quick file's section called
    NetDev, are not what the fault reads: the addresses and the interface name stay as they were."""
    text = ("/etc/wireguard/wg0.conf\twg-quick\taddress\t192.0.2.1/32\n"
            "/etc/wireguard/wg0.conf\twg-quick\tsection\tInterface\n/etc/wireguard/wg0.conf\twg-quick\tpublickey\tX\n"
            "/etc/wireguard/wg0.conf\twg-quick\tsection\tNetDev\n/etc/wireguard/wg0.conf\twg-quick\tname\twg9\n"
            "/etc/systemd/network/wg1.netdev\tnetdev\tsection\tNetDev\n/etc/systemd/network/wg1.netdev\tnetdev\taddress\t10.0.0.1/24\n"
            "/etc/systemd/network/wg1.netdev\tnetdev\tsection\tWireGuard\n/etc/systemd/network/wg1.netdev\tnetdev\tname\twg8\n")
    wg0, wg1 = parse_wg_config_peers(text)
    assert (wg0["interface"], wg0["addresses"], wg0["peers"]) == ("wg0", [], [])
    assert (wg1["interface"], wg1["addresses"], wg1["wireguard"]) == (None, None, False)


def test_the_public_key_of_each_file_s_private_key(load_fixture):
    """The pubkey line: wg pubkey's output for the file's own private key (a .netdev's PrivateKeyFile over its
    PrivateKey); a file without a private key has no such line, a key wg rejects an empty value: None; the empty line
    after each derived key is skipped."""
    configs = parse_wg_config_peers(load_fixture("wg_config_peers", "derived_public_keys_dash.txt"))
    assert [(c["interface"], c["configured_public_key"]) for c in configs] == [
        ("wg0", "OEkKQYVpoZ99rlDx9pJV+D6bi08utjUYu3fnxbQB1D0="), ("wg1", None),
        ("wg2", "HVapTA5m/P0nKvt4HsUBFlnD3+OzhlPbG9LyB57aTUA="), ("wg3", None)]
    assert [len(c["peers"]) for c in configs] == [1, 1, 1, 1] and configs[0]["addresses"] == ["10.77.0.1/24"]


def test_no_wg_on_the_target_leaves_every_own_key_unknown(load_fixture):
    configs = parse_wg_config_peers(load_fixture("wg_config_peers", "derived_public_keys_no_wg_dash.txt"))
    assert [c["configured_public_key"] for c in configs] == [None] * 4
    assert [c["peers"][0]["public_key"][0] for c in configs] == ["A", "B", "C", "D"]


def test_the_pubkey_line_is_the_file_s_whatever_section_it_follows():
    """It comes after the file's last section (a [Peer]): it neither changes that peer nor starts one."""
    text = ("/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n/etc/wireguard/wg0.conf\twg-quick\tpublickey\t%s\n"
            "/etc/wireguard/wg0.conf\twg-quick\tpubkey\t%s\n" % (KEY_A, KEY_B))
    (config,) = parse_wg_config_peers(text)
    assert config["configured_public_key"] == KEY_B and [peer["public_key"] for peer in config["peers"]] == [KEY_A]


@pytest.mark.parametrize("value", ["wg: Key is not the correct length or format", "%s=" % ("A" * 42), "%s==" % ("A" * 42),
                                   "%s=" % ("!" * 43), KEY_A + KEY_B])
def test_a_pubkey_value_that_is_no_public_key_is_unknown(value):
    """What is not one key of wg(8)'s format (44 characters of base64, 32 bytes) is not taken for the interface's key
    (a wg that printed anything else would make public_key_mismatch compare the running key with it); the listing's
    other lines stand. Breaker session 41: the OpenWrt parser already refused it, this one kept any text."""
    text = ("/etc/wireguard/wg0.conf\twg-quick\tsection\tPeer\n/etc/wireguard/wg0.conf\twg-quick\tpublickey\t%s\n"
            "/etc/wireguard/wg0.conf\twg-quick\tpubkey\t%s\n" % (KEY_A, value))
    (config,) = parse_wg_config_peers(text)
    assert config["configured_public_key"] is None and config["peers"][0]["public_key"] == KEY_A
