# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fixing role's read and plan (fix.py): what it reads, what differs, what guarded_apply runs and reverts with."""

import hashlib
import json
import shlex
import subprocess
from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import (
    TCP_MTU_PROBING_CONTENT, TCP_MTU_PROBING_FILE, check_tunnels, clamp_sync_command, fix_plan, mss_clamp_file, mss_clamp_rules,
    parse_reading, read_command, role_option_errors, tcp_mtu_probing_plan)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.text_file import marked_block

CLAMP = "/usr/share/nftables.d/chain-post/mangle_forward/tunnelfix-mss-wg0.nft"
KEPT = {"path": "/etc/sysupgrade.conf", "line": CLAMP, "marker": "tunnelfix.fleet wireguard_mtu wg0", "change": False}
KEEP_LINE = "/etc/sysupgrade.conf: keep %s across sysupgrade (the clamp of wg0)" % CLAMP


def owrt(mtu=1420, proto="wireguard", addresses="10.77.0.2/24", rules=None, nft_rc=1, clamp_file=None, kept=1, live=()):
    """The OpenWrt read of wg0 (``read_command``'s output shape; ``clamp_file``: the include's SHA-256, None: absent;
    ``kept``: the lines of /etc/sysupgrade.conf naming the include, None: no such file; ``live``: the device's IPv6
    addresses as ``ip -o -6 addr show dev wg0`` lists them)."""
    lines = ["@@tunnelfix-mtu mtu wg0"] + ([str(mtu)] if mtu else []) + ["@@tunnelfix-mtu ipv6 wg0"]
    lines += ["9: wg0    inet6 %s scope global \\       valid_lft forever preferred_lft forever" % address for address in live]
    lines += ["@@tunnelfix-mtu uci wg0"]
    lines += ([proto] if proto else []) + ["@@tunnelfix-mtu ucimtu wg0", "@@tunnelfix-mtu uciaddr wg0", addresses]
    lines += ["@@tunnelfix-mtu clampfile wg0"] + (["%s  -" % clamp_file] if clamp_file else [])
    lines += ["@@tunnelfix-mtu keep wg0"] + ([str(kept)] if kept is not None else [])
    lines.append("@@tunnelfix-mtu nft")
    if rules is not None:
        lines += ["table inet fw4 {", "\tchain mangle_forward { # handle 1",
                  "\t\ttype filter hook forward priority mangle; policy accept;"]
        lines += ["\t\t%s # handle %d" % (rule, index + 2) for index, rule in enumerate(rules)] + ["\t}", "}"]
    return "\n".join(lines + ["@@tunnelfix-mtu nft-rc %d" % nft_rc]) + "\n"


# ---- read_command --------------------------------------------------------------------------------------------

def test_the_openwrt_read_asks_uci_and_the_fw4_chain_never_for_a_file():
    command = read_command({"wg0": 1340}, "openwrt")
    for part in ("cat /sys/class/net/wg0/mtu", "ip -o -6 addr show dev wg0", "wg show wg0 allowed-ips 2>/dev/null | cut -f2",
                 "uci -q get network.wg0.proto", "uci -q get network.wg0.mtu", "uci -q get network.wg0.addresses",
                 "nft -a list chain inet fw4 mangle_forward", "echo '@@tunnelfix-mtu keep wg0'",
                 "if [ -f /etc/sysupgrade.conf ]; then awk -v p=%s " % CLAMP):
        assert part in command
    assert "/etc/wireguard" not in command and "tcp_mtu_probing" not in command
    assert command.endswith("; true")


def test_the_linux_read_looks_for_the_wg_quick_file_and_the_netdev_by_name():
    command = read_command({"wg.0": "1340"}, "linux", "/srv/wg/", "/run/systemd/network")
    assert "if [ -f /srv/wg/wg.0.conf ]; then printf 'wg-quick %s\\n' /srv/wg/wg.0.conf; awk '{ " in command
    assert "' /srv/wg/wg.0.conf; fi" in command and "&& awk '{ " in command   # each file's MTU settings
    assert "for f in /run/systemd/network/*.netdev" in command
    assert "Name[[:space:]]*=[[:space:]]*wg\\.0[[:space:]]*$" in command   # a dot in the name matches only a dot
    assert "cat /proc/sys/net/ipv4/tcp_mtu_probing" in command and "uci" not in command
    assert command.startswith("echo '@@tunnelfix-mtu mtu wg.0'; cat /sys/class/net/wg.0/mtu 2>/dev/null; ")


def test_the_linux_read_of_root_directories_and_a_plus_in_the_name():
    command = read_command({"wg+0": 1340}, "linux", "/", "/")
    assert "if [ -f /wg+0.conf ]; then printf 'wg-quick %s\\n' /wg+0.conf; awk " in command
    assert "for f in //*.netdev;" not in command and "for f in /*.netdev;" in command
    assert "Name[[:space:]]*=[[:space:]]*wg\\+0[[:space:]]*$" in command   # a + in the name matches only a +
    assert "for f in '/srv/net work/'*.netdev;" in read_command({"wg0": 1340}, "linux", "/etc/wireguard", "/srv/net work//")
    assert ("echo '@@tunnelfix-mtu probing-file'; if [ -f /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf ]; "
            "then sha256sum < /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf; fi") in command


@pytest.mark.parametrize("tunnels, platform, message", [
    ({"wg0;reboot": 1340}, "linux", 'wireguard_mtu_tunnels: "wg0;reboot" is not an interface name'),
    ({"wg0": 1340}, "freebsd", "platform must be one of linux, openwrt, got 'freebsd'"),
    ({"wg0": 575}, "openwrt", 'wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "575"'),
])
def test_the_read_refuses_what_it_cannot_quote(tunnels, platform, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_command(tunnels, platform)


@pytest.mark.parametrize("tunnels, errors", [
    ({"wg0": 576}, []), ({"wg0": 65535}, []), ({"wg0": "1340"}, []), ({}, []),
    ({"wg0": 575}, ['wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "575"']),
    ({"wg0": 65536}, ['wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "65536"']),
    ({"wg0": True}, ['wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "True"']),
    ({"wg0": "13x0"}, ['wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "13x0"']),
    ({"a" * 16: 1340}, ['wireguard_mtu_tunnels: "%s" is not an interface name (1-15 characters of letters, digits and '
                        '_.@=+-, not . or ..)' % ("a" * 16)]),
    (["wg0"], ['wireguard_mtu_tunnels must be a dict of interface name -> MTU bytes, got "[\'wg0\']"']),
    ("wg0=1340", ['wireguard_mtu_tunnels must be a dict of interface name -> MTU bytes, got "wg0=1340"']),
])
def test_check_tunnels_names_the_option_and_the_value(tunnels, errors):
    assert check_tunnels(tunnels) == errors


@pytest.mark.parametrize("given, mtu", [(" 1340 ", 1340), ("1340", 1340), (1340, 1340), ("\u0661\u0663\u0664\u0660", None),
                                        ("+1340", None), (1340.0, None), (False, None)])
def test_an_mtu_is_a_whole_number_of_ascii_digits(given, mtu):
    """Arabic-Indic digits pass str.isdigit() and int(): the role takes ASCII digits only (its message quotes the value)."""
    errors = check_tunnels({"wg0": given})
    assert errors == ([] if mtu else ["wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got %s" % json.dumps(str(given))])
    if mtu:
        assert fix_plan({"wg0": given}, "openwrt", parse_reading(owrt()))["tunnels"][0]["mtu_bytes"] == mtu


def test_a_name_is_quoted_as_json_in_the_message():
    assert check_tunnels({'wg"0\\': 1340}) == [
        'wireguard_mtu_tunnels: "wg\\"0\\\\" is not an interface name (1-15 characters of letters, digits and _.@=+-, not . or ..)']


@pytest.mark.parametrize("options, errors", [
    ({"wireguard_mtu_rollback_timeout_s": 20}, []), ({"wireguard_mtu_rollback_timeout_s": "3600"}, []),
    ({"wireguard_mtu_rollback_timeout_s": 3601}, ['wireguard_mtu_rollback_timeout_s must be 20-3600 seconds, got "3601"']),
    ({"wireguard_mtu_rollback_timeout_s": None}, ['wireguard_mtu_rollback_timeout_s must be 20-3600 seconds, got "None"']),
    ({"wireguard_mtu_networkd_dir": "run/network"}, ['wireguard_mtu_networkd_dir must be an absolute path, got "run/network"']),
    ({"wireguard_mtu_backup": "maybe", "wireguard_mtu_tunnels": {"wg0": 1}},
     ['wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "1"', 'wireguard_mtu_backup must be true or false, got "maybe"']),
])
def test_role_option_errors_names_each_option_and_value(options, errors):
    good = {"wireguard_mtu_tunnels": {"wg0": 1340}, "wireguard_mtu_tcp_mtu_probing": False, "wireguard_mtu_config_dir": "/etc/wireguard",
            "wireguard_mtu_networkd_dir": "/etc/systemd/network", "wireguard_mtu_backup": True, "wireguard_mtu_rollback_timeout_s": 90}
    assert role_option_errors(dict(good, **options)) == errors


# ---- parse_reading -------------------------------------------------------------------------------------------

def test_parse_a_recorded_linux_read(load_fixture):
    reading = parse_reading(load_fixture("wireguard_mtu_read", "linux_wg_quick_and_netdev.txt"))
    assert reading == {"nft_rc": None, "nft_rules": [], "tcp_mtu_probing": 0, "tcp_mtu_probing_file_sha256": None, "interfaces": {
        "wg0": {"live_mtu_bytes": 1420, "ipv6_inside": True, "uci_proto": None, "uci_mtu": None, "clamp_file_sha256": None,
                "clamp_kept_lines": None, "configs": [{"kind": "wg-quick", "path": "/etc/wireguard/wg0.conf", "mtu": None}]},
        "wg1": {"live_mtu_bytes": 1420, "ipv6_inside": False, "uci_proto": None, "uci_mtu": None, "clamp_file_sha256": None,
                "clamp_kept_lines": None, "configs": [{"kind": "netdev", "path": "/etc/systemd/network/50-wg1.netdev", "mtu": "1420"}]}}}


def test_a_link_local_address_is_not_ipv6_inside_but_an_ipv6_allowed_ip_is(load_fixture):
    text = load_fixture("wireguard_mtu_read", "linux_wireguard_go_allowed_ips.txt")
    assert parse_reading(text)["interfaces"]["wg2"]["ipv6_inside"] is True
    assert parse_reading(text)["tcp_mtu_probing"] == 1
    assert parse_reading(text)["tcp_mtu_probing_file_sha256"] == "6bcb6ed1080224fed0ea04a4d63481c4a3bff486bfec539727f50b42a17805b9"
    only_link_local = text.replace("10.79.0.1/32 fd79::1/128", "10.79.0.1/32")
    assert parse_reading(only_link_local)["interfaces"]["wg2"]["ipv6_inside"] is False


@pytest.mark.parametrize("rc_line, rc", [("@@tunnelfix-mtu nft-rc 0", 0), ("@@tunnelfix-mtu nft-rc 127", 127),
                                         ("@@tunnelfix-mtu nft-rc x", None), ("@@tunnelfix-mtu nft-rc", None)])
def test_parse_the_exit_status_of_nft(rc_line, rc):
    reading = parse_reading("@@tunnelfix-mtu nft\n%s\n" % rc_line)
    assert reading["nft_rc"] == rc and reading["interfaces"] == {} and reading["nft_rules"] == []


@pytest.mark.parametrize("section, lines, ipv6", [
    ("uciaddr", ["10.77.0.2/24 fe80::1/64"], False),              # a link-local address of its own: not IPv6 inside
    ("uciaddr", ["10.77.0.2/24 fd77::2/64"], True),
    ("uciaddr", [], False),                                        # uci read, no addresses: none configured
    ("ipv6", ["fe80::/64"], True),                                 # a peer's AllowedIPs: link-local routed inside
    ("ipv6", ["3: wg0    inet6 fe80::1/64 scope link \\       valid_lft forever preferred_lft forever"], False),
    ("ipv6", ["10.77.0.0/24 192.168.20.0/24"], None),              # Linux, no such device: its addresses are unknown
    ("ipv6", [], None),
])
def test_where_ipv6_inside_is_read_from(section, lines, ipv6):
    text = "@@tunnelfix-mtu %s wg0\n%s\n" % (section, "\n".join(lines))
    assert parse_reading(text)["interfaces"]["wg0"]["ipv6_inside"] is ipv6


@pytest.mark.parametrize("mtu, lines, uci, ipv6", [
    ("1420", [], None, False),                                     # Linux, the device there without IPv6 (a networkd tunnel)
    ("1420", ["10.77.0.0/24"], None, False),                       # an IPv4 peer
    ("1420", ["10.77.0.0/24", "3: wg0    inet6 fd77::2/64 scope global \\       valid_lft forever"], None, True),
    ("1420", [], "10.77.0.2/24 fd77::2/64", True),                 # OpenWrt: uci gives it IPv6 at its next ifup
    ("", [], "10.77.0.2/24 fd77::2/64", True),                     # no device: uci's addresses
    ("", [], "10.77.0.2/24", False),
    ("1420", ["fd00::/64"], "10.77.0.2/24", True),                 # a peer's IPv6 AllowedIPs, whatever the addresses
])
def test_the_live_device_or_uci_holding_ipv6_counts(mtu, lines, uci, ipv6):
    text = "@@tunnelfix-mtu mtu wg0\n%s\n@@tunnelfix-mtu ipv6 wg0\n%s\n" % (mtu, "\n".join(lines))
    if uci is not None:
        text += "@@tunnelfix-mtu uciaddr wg0\n%s\n" % uci
    assert parse_reading(text)["interfaces"]["wg0"]["ipv6_inside"] is ipv6


def test_parse_a_config_path_with_a_space_and_a_probing_value_that_is_no_number():
    reading = parse_reading("@@tunnelfix-mtu config wg0\nwg-quick /srv/wire guard/wg0.conf\n@@tunnelfix-mtu probing\nunknown\n")
    assert reading["interfaces"]["wg0"]["configs"] == [{"kind": "wg-quick", "path": "/srv/wire guard/wg0.conf", "mtu": None}]
    assert reading["tcp_mtu_probing"] is None


@pytest.mark.parametrize("lines, mtus", [
    (["wg-quick /etc/wireguard/wg0.conf", "mtu 1420"], ["1420"]),
    (["wg-quick /etc/wireguard/wg0.conf", "mtu"], [""]),                                  # MTU = with no value
    (["wg-quick /etc/wireguard/wg0.conf", "mtu 1420", "mtu 1400"], ["1420, 1400"]),       # two: the module refuses it
    (["netdev /etc/systemd/network/a.netdev", "mtu 1420", "netdev /etc/systemd/network/b.netdev"], ["1420", None]),
])
def test_parse_each_files_mtu_setting(lines, mtus):
    reading = parse_reading("@@tunnelfix-mtu config wg0\n%s\n" % "\n".join(lines))
    assert [config["mtu"] for config in reading["interfaces"]["wg0"]["configs"]] == mtus


def test_a_files_mtu_before_its_file_is_refused():
    with pytest.raises(ParseError, match="config of wg0: expected 'wg-quick PATH' or 'netdev PATH', got 'mtu 1420'"):
        parse_reading("@@tunnelfix-mtu config wg0\nmtu 1420\n")


def test_parse_the_live_chain_without_handles(load_fixture):
    reading = parse_reading(load_fixture("wireguard_mtu_read", "openwrt_clamp_loaded.txt").replace("\n", "\r\n"))
    assert reading["nft_rc"] == 0 and reading["interfaces"]["wg0"]["uci_mtu"] == "1340"
    assert reading["nft_rules"] == [
        'iifname "pppoe-wan" tcp flags syn / fin,syn,rst tcp option maxseg size set rt mtu comment "!fw4: Zone wan IPv4/IPv6 '
        'ingress MTU fixing"'] + mss_clamp_rules("wg0", 1340)


LONG = "x" * 200


@pytest.mark.parametrize("text, message", [
    ("%s\n" % LONG, "the wireguard_mtu read printed %r before its first section" % LONG[:80]),
    ("@@tunnelfix-mtu mtu wg0\n%s\n" % LONG, "/sys/class/net/wg0/mtu: expected a number, got %r" % LONG[:80]),
    ("@@tunnelfix-mtu config wg0\n%s\n" % LONG, "config of wg0: expected 'wg-quick PATH' or 'netdev PATH', got %r" % LONG[:120]),
    ("@@tunnelfix-mtu probing-file\n%s\n" % LONG,
     "sha256sum of /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf: expected a SHA-256 digest, got %r" % LONG[:80]),
    (b"@@tunnelfix-mtu mtu wg0\n", "the wireguard_mtu read must be text, got bytes"),
])
def test_parse_messages_quote_at_most_a_line_of_the_output(text, message):
    with pytest.raises(ParseError) as caught:
        parse_reading(text)
    assert str(caught.value) == message


@pytest.mark.parametrize("text, message", [
    ("stray\n@@tunnelfix-mtu mtu wg0\n", "printed 'stray' before its first section"),
    ("@@tunnelfix-mtu mtu wg0\nlots\n", "/sys/class/net/wg0/mtu: expected a number, got 'lots'"),
    ("@@tunnelfix-mtu config wg0\nsomething /etc/x\n", "config of wg0: expected 'wg-quick PATH' or 'netdev PATH'"),
    ("@@tunnelfix-mtu probing-file\nsha256sum: -: Permission denied\n",
     "sha256sum of /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf: expected a SHA-256 digest, got 'sha256sum: -: Permission denied'"),
    ("@@tunnelfix-mtu probing-file\n%s  -\n" % ("A" * 64), "expected a SHA-256 digest"),   # sha256sum prints lower case
    ("@@tunnelfix-mtu probing-file\n%s  -\n" % ("a" * 63), "expected a SHA-256 digest"),
    (None, "must be text, got NoneType"),
    ("@@tunnelfix-mtu mtu wg0\n-1\n", "/sys/class/net/wg0/mtu: expected a number, got '-1'"),
    ("@@tunnelfix-mtu keep wg0\nawk: /etc/sysupgrade.conf: Permission denied\n",
     "lines of /etc/sysupgrade.conf naming %s: expected a number, got 'awk: /etc/sysupgrade.conf: Permission denied'" % CLAMP),
    ("@@tunnelfix-mtu keep wg0\n\u0661\n", "lines of /etc/sysupgrade.conf naming %s: expected a number" % CLAMP),
])
def test_parse_refuses_other_text(text, message):
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_reading(text)


# ---- fix_plan: OpenWrt ---------------------------------------------------------------------------------------

def test_openwrt_without_fw4_sets_the_mtu_and_loads_the_clamp_live():
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt()))
    assert plan["errors"] == [] and plan["live_change"] is True
    assert plan["files"] == ["/etc/config/network", "/etc/sysupgrade.conf", CLAMP]
    tunnel = plan["tunnels"][0]
    assert tunnel["clamp"] == {"path": CLAMP, "content": "\n".join(mss_clamp_rules("wg0", 1340)) + "\n", "live_rules": [],
                               "live_change": True, "file_change": True, "keep": KEPT}
    assert (tunnel["uci_mtu"], tunnel["uci_change"], tunnel["file_change"]) == (None, True, False)
    assert plan["apply"] == "ip link set dev wg0 mtu 1340 && " + clamp_sync_command("wg0")
    assert plan["restore"] == "ip link set dev wg0 mtu 1420; " + clamp_sync_command("wg0")
    for word in ("ifup", "reload", "restart"):   # netifd would re-create the tunnel (docs/openwrt-fidelity.md)
        assert word not in plan["apply"] + plan["restore"]
    assert plan["diff"]["before"] == "wg0: mtu 1420\nwg0: no MSS clamp rule\n"
    assert plan["diff"]["after"].splitlines() == ["wg0: mtu 1340"] + ["wg0: %s" % rule for rule in mss_clamp_rules("wg0", 1340)]


def test_openwrt_converged_is_no_live_change(load_fixture):
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(load_fixture("wireguard_mtu_read", "openwrt_clamp_loaded.txt")))
    assert plan["changes"] == []
    assert plan["tunnels"][0] == {"interface": "wg0", "mtu_bytes": 1340, "live_mtu_bytes": 1340, "ipv6_inside": False,
                                  "live_change": False, "uci_mtu": "1340", "uci_change": False, "config": None,
                                  "file_change": False, "clamp": {
                                      "path": CLAMP, "content": "\n".join(mss_clamp_rules("wg0", 1340)) + "\n",
                                      "live_rules": mss_clamp_rules("wg0", 1340), "live_change": False, "file_change": False,
                                      "keep": KEPT}}
    assert plan["errors"] == [] and plan["live_change"] is False and plan["apply"] == "" and plan["restore"] == ""
    assert plan["tunnels"][0]["live_change"] is False and plan["tunnels"][0]["clamp"]["live_change"] is False
    assert plan["files"] == ["/etc/config/network", "/etc/sysupgrade.conf", CLAMP]   # snapshotted all the same; none written


@pytest.mark.parametrize("rules, change", [
    (mss_clamp_rules("wg0", 1340), False),
    (mss_clamp_rules("wg0", 1300), True),                      # another MTU: replaced
    (mss_clamp_rules("wg0", 1340)[:3], True),                  # one missing
    (mss_clamp_rules("wg0", 1340) + mss_clamp_rules("wg0", 1340)[:1], True),   # one twice
    (mss_clamp_rules("wg1", 1340), True),                      # another tunnel's rules are not wg0's
])
def test_the_live_clamp_is_converged_only_when_exactly_the_wanted_rules_are_there(rules, change):
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt(mtu=1340, rules=rules, nft_rc=0)))
    assert plan["tunnels"][0]["clamp"]["live_change"] is change and plan["live_change"] is change
    assert plan["tunnels"][0]["live_change"] is False
    if change:
        assert plan["apply"] == plan["restore"] == clamp_sync_command("wg0")


@pytest.mark.parametrize("kept, change", [(None, True), (0, True), (1, False), (2, False)])
def test_the_clamp_is_kept_across_sysupgrade_where_no_line_of_sysupgrade_conf_names_it(kept, change):
    """sysupgrade keeps /etc/config (the uci mtu) but the include under /usr/share only where a line of
    /etc/sysupgrade.conf names it: the plan adds the line where none does (no file: None), and only there; a router
    fixed before (uci, include and rules in place) gets that line alone, nothing live."""
    text = owrt(mtu=1340, rules=mss_clamp_rules("wg0", 1340), nft_rc=0, clamp_file=CLAMP_1340_SHA256, kept=kept).replace(
        "@@tunnelfix-mtu ucimtu wg0\n", "@@tunnelfix-mtu ucimtu wg0\n1340\n")
    reading = parse_reading(text)
    assert reading["interfaces"]["wg0"]["clamp_kept_lines"] == kept
    plan = fix_plan({"wg0": 1340}, "openwrt", reading)
    assert plan["tunnels"][0]["clamp"]["keep"] == dict(KEPT, change=change)
    assert plan["changes"] == ([KEEP_LINE] if change else [])
    assert plan["live_change"] is False and plan["apply"] == plan["restore"] == ""
    assert "/etc/sysupgrade.conf" in plan["files"]   # the snapshot puts it back with the include on a rollback


def test_a_new_clamp_is_written_then_kept_across_sysupgrade():
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt(kept=0)))
    assert plan["changes"] == ["network.wg0.mtu: unset (1420 in use) -> '1340'",
                               "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP, KEEP_LINE]
    assert fix_plan({"wg0": 1340}, "linux", parse_reading("@@tunnelfix-mtu config wg0\nwg-quick /etc/wireguard/wg0.conf\n"))[
        "tunnels"][0]["clamp"] is None   # Linux: no clamp, no sysupgrade


def test_the_block_the_role_writes_is_read_back_as_one_line_and_keeps_the_users_lines(tmp_path):
    """The role's step (plain_file's marked block with the plan's line and marker) on a sysupgrade.conf holding the user's
    own lines, then the role's read of it (run in sh): the include is named once, the user's lines stay, the marker
    lines are comments (sysupgrade skips them), and a second run plans nothing."""
    users = "## This file contains files and directories that should\n/etc/example.conf\n  /etc/openvpn/  \n"
    keep = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt(kept=None)))["tunnels"][0]["clamp"]["keep"]
    written = marked_block(users, keep["line"], keep["marker"])
    assert written == users + "# BEGIN tunnelfix.fleet wireguard_mtu wg0\n%s\n# END tunnelfix.fleet wireguard_mtu wg0\n" % CLAMP
    assert marked_block(written, keep["line"], keep["marker"]) == written
    conf = tmp_path / "sysupgrade.conf"
    for text, kept in ((None, None), (users, 0), (written, 1), (written + "\t%s \r\n" % CLAMP, 2),
                       ("#%s\n%s.bak\n/usr/share/nftables.d/\n" % (CLAMP, CLAMP), 0)):   # a comment, another file, its directory
        if text is not None:
            conf.write_text(text)
        command = read_command({"lo": 1340}, "openwrt").replace("tunnelfix-mss-lo.nft", "tunnelfix-mss-wg0.nft").replace(
            "/etc/sysupgrade.conf", shlex.quote(str(conf)))
        reading = run_read(tmp_path, command, FAKES)
        assert reading["interfaces"]["lo"]["clamp_kept_lines"] == kept, text
    conf.write_text(written)
    read = owrt(mtu=1340, rules=mss_clamp_rules("wg0", 1340), nft_rc=0, clamp_file=CLAMP_1340_SHA256, kept=1).replace(
        "@@tunnelfix-mtu ucimtu wg0\n", "@@tunnelfix-mtu ucimtu wg0\n1340\n")
    assert fix_plan({"wg0": 1340}, "openwrt", parse_reading(read))["changes"] == []


def test_a_device_that_is_down_gets_its_files_only_but_the_clamp_still_loads():
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt(mtu=None)))
    assert plan["tunnels"][0]["live_mtu_bytes"] is None and plan["tunnels"][0]["live_change"] is False
    assert plan["apply"] == clamp_sync_command("wg0")


CLAMP_1340_SHA256 = "c4f1d159c255bd1e3e5f1c943d83cd0375dfacafefd527b08cf61d9c0d2536f1"   # sha256sum of wg0's include at 1340


@pytest.mark.parametrize("live, written, line, uci", [
    (1340, "1420", "network.wg0.mtu: '1420' -> '1340'", True),   # live already, the next ifup would set the old one
    (1420, "1340", "wg0: live MTU 1420 -> 1340", False),          # written already, live not yet: uci is left alone
    (1420, "1420", "network.wg0.mtu: '1420' -> '1340'", True),   # the live change is the line's too (the same value)
    (None, None, "network.wg0.mtu: unset -> '1340'", True),      # the device is down
    (1420, None, "network.wg0.mtu: unset (1420 in use) -> '1340'", True),
    (1400, "1420", "network.wg0.mtu: '1420' (1400 in use) -> '1340'", True),
    (1340, "1340", None, False),
])
def test_the_uci_line_shows_where_uci_differs_and_a_live_line_where_only_the_live_mtu_does(live, written, line, uci):
    text = owrt(mtu=live, rules=mss_clamp_rules("wg0", 1340), nft_rc=0, clamp_file=CLAMP_1340_SHA256).replace(
        "@@tunnelfix-mtu ucimtu wg0\n", "@@tunnelfix-mtu ucimtu wg0\n%s" % ("%s\n" % written if written else ""))
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(text))
    assert plan["changes"] == ([line] if line else [])
    assert plan["tunnels"][0]["uci_change"] is uci and plan["tunnels"][0]["clamp"]["file_change"] is False


@pytest.mark.parametrize("rules, digest, line", [
    (None, None, "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP),
    (None, CLAMP_1340_SHA256, "load %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP),
    (mss_clamp_rules("wg0", 1340), "0" * 64, "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP),
    (mss_clamp_rules("wg0", 1340), CLAMP_1340_SHA256, None),
])
def test_the_clamp_line_writes_where_the_include_differs_and_loads_where_only_the_live_rules_do(rules, digest, line):
    text = owrt(mtu=1340, rules=rules, nft_rc=0, clamp_file=digest).replace(
        "@@tunnelfix-mtu ucimtu wg0\n", "@@tunnelfix-mtu ucimtu wg0\n1340\n")
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(text))
    assert plan["changes"] == ([line] if line else [])
    assert plan["tunnels"][0]["clamp"]["file_change"] is (digest != CLAMP_1340_SHA256)
    assert plan["tunnels"][0]["clamp"]["live_change"] is (rules is None)


@pytest.mark.parametrize("mtu, live, addresses, refused", [
    (1279, ["fd77::2/64"], "10.77.0.2/24", True), (1280, ["fd77::2/64"], "10.77.0.2/24", False),
    (1279, [], "10.77.0.2/24", False), (576, [], "10.77.0.2/24", False),
    (1279, [], "10.77.0.2/24 fd77::2/64", True),                   # uci adds IPv6 at the next ifup: 1279 would cut it
    (1279, ["fe80::1/64"], "10.77.0.2/24", False),                 # link-local only
])
def test_the_ipv6_floor_where_ipv6_runs_inside(mtu, live, addresses, refused):
    plan = fix_plan({"wg0": mtu}, "openwrt", parse_reading(owrt(addresses=addresses, live=live)))
    message = ("wireguard_mtu_tunnels: wg0=%d is below 1280 bytes, the least IPv6 takes, and IPv6 runs inside wg0 (an address "
               "or a peer's AllowedIPs): the kernel would drop IPv6 from it" % mtu)
    assert plan["errors"] == ([message] if refused else [])


@pytest.mark.parametrize("addresses, refused", [("10.77.0.2/24 fd77::2/64", True), ("10.77.0.2/24", False)])
def test_a_router_tunnel_not_up_is_judged_on_its_uci_addresses(addresses, refused):
    """No device (down: no MTU, no address listed): uci's addresses say whether IPv6 will run inside it."""
    reading = parse_reading(owrt(mtu=None, addresses=addresses, live=()))
    assert reading["interfaces"]["wg0"]["live_mtu_bytes"] is None
    assert bool(fix_plan({"wg0": 1279}, "openwrt", reading)["errors"]) is refused


@pytest.mark.parametrize("proto, shown", [("static", "'static'"), (None, "unset")])
def test_openwrt_refuses_an_interface_that_is_not_wireguard_in_uci(proto, shown):
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt(proto=proto)))
    assert plan["errors"] == ["wireguard_mtu_tunnels: wg0 is not a WireGuard interface in uci (network.wg0.proto is %s)" % shown]
    assert not any(line.startswith("network.") for line in plan["changes"])   # no uci line for what is not its


def test_openwrt_without_nft_is_refused():
    plan = fix_plan({"wg0": 1340}, "openwrt", parse_reading(owrt(nft_rc=127)))
    assert plan["errors"] == ["wireguard_mtu_tunnels: nft is not installed on this router: the MSS clamp cannot be loaded"]


def test_no_tunnels_no_files_no_change():
    assert fix_plan({}, "openwrt", parse_reading(owrt())) == {
        "errors": [], "changes": [], "tunnels": [], "live_change": False, "apply": "", "restore": "", "files": [],
        "diff": {"before": "", "after": ""},
        "tcp_mtu_probing": {"live_change": False, "file_change": False, "path": TCP_MTU_PROBING_FILE,
                            "content": TCP_MTU_PROBING_CONTENT, "changes": []}}


# ---- fix_plan: Linux -----------------------------------------------------------------------------------------

def test_linux_writes_the_file_that_owns_each_tunnel(load_fixture):
    plan = fix_plan({"wg0": 1340, "wg1": 1380}, "linux", parse_reading(load_fixture("wireguard_mtu_read", "linux_wg_quick_and_netdev.txt")))
    assert plan["errors"] == []
    assert [(t["interface"], t["config"], t["clamp"]) for t in plan["tunnels"]] == [
        ("wg0", {"kind": "wg-quick", "path": "/etc/wireguard/wg0.conf", "mtu": None}, None),
        ("wg1", {"kind": "netdev", "path": "/etc/systemd/network/50-wg1.netdev", "mtu": "1420"}, None)]
    assert plan["changes"] == ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now unset, 1420 in use)",
                               "/etc/systemd/network/50-wg1.netdev: [NetDev] MTUBytes=1380 (now 1420)"]
    assert [t["file_change"] for t in plan["tunnels"]] == [True, True]
    assert plan["files"] == ["/etc/wireguard/wg0.conf", "/etc/systemd/network/50-wg1.netdev"]
    assert plan["apply"] == "ip link set dev wg0 mtu 1340 && ip link set dev wg1 mtu 1380"
    assert plan["restore"] == "ip link set dev wg0 mtu 1420; ip link set dev wg1 mtu 1420"


def test_linux_wg_quick_wins_over_a_netdev_of_the_same_name():
    text = "@@tunnelfix-mtu config wg0\nnetdev /etc/systemd/network/50-wg0.netdev\nwg-quick /etc/wireguard/wg0.conf\n"
    assert fix_plan({"wg0": 1340}, "linux", parse_reading(text))["tunnels"][0]["config"] == {
        "kind": "wg-quick", "path": "/etc/wireguard/wg0.conf", "mtu": None}


@pytest.mark.parametrize("live, written, lines", [
    ("1340", None, ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now unset)"]),    # live already: the file only
    ("1340", "1420", ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),
    ("1420", "1340", ["wg0: live MTU 1420 -> 1340"]),                                  # the file has it: live only
    ("1420", "1420", ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),  # both, one line
    ("1400", "1420", ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420, 1400 in use)"]),
    ("", "1420", ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),      # the device is down
    ("1340", "1340", []),                                                               # converged
    ("1340", "01340", ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 01340)"]),   # the module compares the text
])
def test_linux_writes_the_file_where_its_setting_differs_and_a_live_line_where_only_the_live_mtu_does(live, written, lines):
    text = "@@tunnelfix-mtu mtu wg0\n%s\n@@tunnelfix-mtu config wg0\nwg-quick /etc/wireguard/wg0.conf\n%s" % (
        live, "" if written is None else "mtu %s\n" % written)
    plan = fix_plan({"wg0": 1340}, "linux", parse_reading(text))
    assert plan["changes"] == lines
    assert plan["tunnels"][0]["file_change"] is (written != "1340")
    assert plan["live_change"] is (live not in ("", "1340"))


@pytest.mark.parametrize("configs, message", [
    ("", "wireguard_mtu_tunnels: no configuration for wg0 (no /srv/wg/wg0.conf and no .netdev with Name=wg0 and "
         "Kind=wireguard in /etc/systemd/network)"),
    ("netdev /etc/systemd/network/a.netdev\nnetdev /etc/systemd/network/b.netdev\n",
     "wireguard_mtu_tunnels: wg0 is configured by 2 .netdev files (/etc/systemd/network/a.netdev, "
     "/etc/systemd/network/b.netdev): keep one"),
])
def test_linux_refuses_a_tunnel_without_exactly_one_file(configs, message):
    plan = fix_plan({"wg0": 1340}, "linux", parse_reading("@@tunnelfix-mtu config wg0\n" + configs), "/srv/wg/")
    assert plan["errors"] == [message] and plan["files"] == []


def test_the_refusal_names_the_directories_as_given_and_the_defaults():
    plan = fix_plan({"wg0": 1340}, "linux", parse_reading("@@tunnelfix-mtu config wg0\n"), "/srv/wgX/", "/srv/netX//")
    assert plan["errors"] == ["wireguard_mtu_tunnels: no configuration for wg0 (no /srv/wgX/wg0.conf and no .netdev with Name=wg0 "
                              "and Kind=wireguard in /srv/netX)"]
    plan = fix_plan({"wg0": 1340}, "linux", parse_reading("@@tunnelfix-mtu config wg0\n@@tunnelfix-mtu probing\n0\n"))
    assert plan["errors"] == ["wireguard_mtu_tunnels: no configuration for wg0 (no /etc/wireguard/wg0.conf and no .netdev with "
                              "Name=wg0 and Kind=wireguard in /etc/systemd/network)"]
    assert plan["changes"] == [] and plan["tcp_mtu_probing"]["live_change"] is False   # probing: off unless asked


@pytest.mark.parametrize("call, error, message", [
    (lambda: fix_plan({"wg0": 1340}, "freebsd", parse_reading("")), ValueError, "platform must be one of linux, openwrt, got 'freebsd'"),
    (lambda: read_command({"wg0": 1340}, "bsd"), ValueError, "platform must be one of linux, openwrt, got 'bsd'"),
    (lambda: fix_plan({"wg0": 1340}, "linux", []), ParseError, "reading must be parse_reading's dict, got []"),
    (lambda: fix_plan({"wg0": 1, "wg 1": 1340}, "linux", parse_reading("")), ValueError,
     'wireguard_mtu_tunnels: wg0 must be 576-65535 bytes, got "1"; wireguard_mtu_tunnels: "wg 1" is not an interface name '
     '(1-15 characters of letters, digits and _.@=+-, not . or ..)'),
])
def test_the_exact_refusals(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value) == message


def test_a_bad_name_does_not_hide_the_next_tunnels_problem():
    assert check_tunnels({"wg 0": 1340, "wg1": 99}) == [
        'wireguard_mtu_tunnels: "wg 0" is not an interface name (1-15 characters of letters, digits and _.@=+-, not . or ..)',
        'wireguard_mtu_tunnels: wg1 must be 576-65535 bytes, got "99"']


def test_the_plan_refuses_bad_input_with_the_errors_of_the_option():
    with pytest.raises(ValueError, match="wireguard_mtu_tunnels: wg0 must be 576-65535 bytes"):
        fix_plan({"wg0": 100}, "linux", parse_reading(""))
    with pytest.raises(ParseError, match="reading must be parse_reading's dict"):
        fix_plan({"wg0": 1340}, "linux", {"interfaces": []})


# ---- tcp_mtu_probing_plan -----------------------------------------------------------------------------------

FILE_SHA256 = "6bcb6ed1080224fed0ea04a4d63481c4a3bff486bfec539727f50b42a17805b9"   # sha256sum of the role's file (fixture)
LIVE_LINE = "net.ipv4.tcp_mtu_probing=1 live"
FILE_LINE = "write /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf: net.ipv4.tcp_mtu_probing = 1"


def probing_read(value, digest):
    """The Linux read's two probing sections (nothing printed for a value or a file not there)."""
    return "@@tunnelfix-mtu probing\n%s\n@@tunnelfix-mtu probing-file\n%s" % (value, "%s  -\n" % digest if digest else "")


def test_the_files_content_is_the_recorded_digest():
    assert hashlib.sha256(TCP_MTU_PROBING_CONTENT.encode()).hexdigest() == FILE_SHA256
    assert TCP_MTU_PROBING_CONTENT.endswith("\nnet.ipv4.tcp_mtu_probing = 1\n")


@pytest.mark.parametrize("wanted, platform, value, digest, live, written, lines", [
    (True, "linux", "0", None, True, True, [LIVE_LINE, FILE_LINE]),
    (True, "linux", "2", FILE_SHA256, True, False, [LIVE_LINE]),          # 2 (always probe) is not what the role sets
    (True, "linux", "1", None, False, True, [FILE_LINE]),                     # live already, the file missing
    (True, "linux", "1", "0" * 64, False, True, [FILE_LINE]),                 # a file of other content
    (True, "linux", "1", FILE_SHA256, False, False, []),                      # converged
    (True, "linux", "", FILE_SHA256, True, False, [LIVE_LINE]),   # not read: set it
    (True, "openwrt", "0", None, False, False, []),                           # a router is left alone
    (False, "linux", "0", None, False, False, []),                            # the option is off
])
def test_tcp_mtu_probing_changes_each_part_only_where_it_differs(wanted, platform, value, digest, live, written, lines):
    plan = tcp_mtu_probing_plan(wanted, platform, parse_reading(probing_read(value, digest)))
    assert (plan["live_change"], plan["file_change"], plan["changes"]) == (live, written, lines)
    assert (plan["path"], plan["content"]) == (TCP_MTU_PROBING_FILE, TCP_MTU_PROBING_CONTENT)
    # fix_plan's lines end with these, whatever the tunnels
    assert fix_plan({}, platform, parse_reading(probing_read(value, digest)), tcp_mtu_probing=wanted)["changes"] == lines


def test_the_probing_lines_follow_the_tunnels_lines(load_fixture):
    plan = fix_plan({"wg0": 1340}, "linux", parse_reading(load_fixture("wireguard_mtu_read", "linux_wg_quick_and_netdev.txt")),
                    tcp_mtu_probing=True)
    assert plan["changes"] == ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now unset, 1420 in use)", LIVE_LINE, FILE_LINE]
    assert plan["tcp_mtu_probing"]["live_change"] is True and plan["tcp_mtu_probing"]["file_change"] is True
    assert plan["live_change"] is True and "sysctl" not in plan["apply"]   # not under guarded_apply: it cannot cut the path


# ---- clamp_sync_command --------------------------------------------------------------------------------------

def test_the_sync_deletes_only_this_tunnels_rules_and_loads_its_include_as_fw4_does():
    command = clamp_sync_command("wg.0")
    assert command.startswith("{ nft -a list chain inet fw4 mangle_forward 2>/dev/null | sed -n ")
    assert command.endswith("| nft -f -")
    sed = shlex.split(command.split("| sed -n ", 1)[1].split(";", 1)[0])[0]
    assert sed == ('s/.* comment "tunnelfix-mss wg\\.0" # handle \\([0-9][0-9]*\\)$/'
                   'delete rule inet fw4 mangle_forward handle \\1/p')
    assert "if [ -f %s ]" % mss_clamp_file("wg.0") in command
    assert "'include \"%s\"'" % mss_clamp_file("wg.0") in command
    assert "'type filter hook forward priority mangle; policy accept;'" in command


def test_the_printed_declaration_is_fw4s_chain_with_the_include():
    """What ``nft -f -`` gets after the deletes when the include is there: fw4's table and chain holding the include."""
    command = clamp_sync_command("wg0")
    printed = command.split("then printf '%s\\n' ", 1)[1].split("; fi;", 1)[0]
    assert "".join(word + "\n" for word in shlex.split(printed)) == (
        "table inet fw4 {\nchain mangle_forward {\ntype filter hook forward priority mangle; policy accept;\n"
        'include "%s"\n}\n}\n' % CLAMP)


# ---- the read run in sh, with uci, nft, wg and ip answering as recorded -----------------------------------------

FAKES = {   # command -> sh body (POSIX)
    "ip": 'printf \'1: lo    inet6 fd77::2/64 scope global \\\\       valid_lft forever preferred_lft forever\\n\'',
    "wg": 'printf \'%s\\t10.77.0.0/24 fd00::/64\\n\' "(fake-key)"',
    "uci": 'case "$3" in network.lo.proto) echo wireguard ;; network.lo.addresses) echo 10.77.0.2/24 ;; *) exit 1 ;; esac',
}


def run_read(tmp_path, command, fakes):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in fakes.items():
        (bin_dir / name).write_text("#!/bin/sh\n%s\n" % body)
        (bin_dir / name).chmod(0o755)
    run = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=True,
                         env={"PATH": "%s:/usr/bin:/bin" % bin_dir, "LC_ALL": "C"})
    return parse_reading(run.stdout)


@pytest.mark.skipif(not Path("/sys/class/net/lo/mtu").exists(), reason="needs Linux sysfs (lo's MTU)")
def test_the_linux_read_run_in_sh_finds_each_tunnels_file(tmp_path):
    wg_dir, net_dir = tmp_path / "wire guard", tmp_path / "network"
    wg_dir.mkdir()
    net_dir.mkdir()
    (wg_dir / "lo.conf").write_text("[Interface]\n")
    (net_dir / "50-lo2.netdev").write_text("[NetDev]\nName = lo2\nKind=wireguard\nMTUBytes = 1400 \n")
    (net_dir / "60-lo2.netdev").write_text("[NetDev]\nName=lo2\nKind=bridge\n")        # not WireGuard
    (net_dir / "70-lo2.netdev").write_text("[NetDev]\nName=lo20\nKind=wireguard\n")    # another name
    reading = run_read(tmp_path, read_command({"lo": 1340, "lo2": 1340}, "linux", str(wg_dir), str(net_dir) + "/"), FAKES)
    assert reading["interfaces"] == {
        "lo": {"live_mtu_bytes": int(Path("/sys/class/net/lo/mtu").read_text()), "uci_proto": None, "uci_mtu": None,
               "clamp_file_sha256": None, "clamp_kept_lines": None, "configs": [{"kind": "wg-quick", "path": "%s/lo.conf" % wg_dir, "mtu": None}],
               "ipv6_inside": True},
        "lo2": {"live_mtu_bytes": None, "uci_proto": None, "uci_mtu": None, "ipv6_inside": True, "clamp_file_sha256": None, "clamp_kept_lines": None,
                "configs": [{"kind": "netdev", "path": "%s/50-lo2.netdev" % net_dir, "mtu": "1400"}]}}
    assert reading["tcp_mtu_probing"] == int(Path("/proc/sys/net/ipv4/tcp_mtu_probing").read_text())
    assert reading["nft_rc"] is None


@pytest.mark.skipif(not Path("/sys/class/net/lo/mtu").exists(), reason="needs Linux sysfs (lo's MTU)")
@pytest.mark.parametrize("nft, rc, rules", [
    (None, 127, []),                                        # no nft on the router
    ("exit 1", 1, []),                                      # no fw4 table
    ("chain", 0, None),                                     # the recorded chain
])
def test_the_openwrt_read_run_in_sh_asks_uci_and_nft(tmp_path, load_fixture, nft, rc, rules):
    fakes = dict(FAKES, **({"nft": nft} if nft else {}))
    if rules is None:
        chain = load_fixture("wireguard_mtu_read", "openwrt_clamp_loaded.txt").split("@@tunnelfix-mtu nft\n")[1].split("@@")[0]
        fakes["nft"] = "printf '%%s' %s" % shlex.quote(chain)
        rules = parse_reading(load_fixture("wireguard_mtu_read", "openwrt_clamp_loaded.txt"))["nft_rules"]
    reading = run_read(tmp_path, read_command({"lo": 1340}, "openwrt"), fakes)
    assert reading["interfaces"]["lo"]["uci_proto"] == "wireguard" and reading["interfaces"]["lo"]["uci_mtu"] is None
    assert reading["interfaces"]["lo"]["ipv6_inside"] is True and reading["interfaces"]["lo"]["configs"] == []
    assert (reading["nft_rc"], reading["nft_rules"]) == (rc, rules)
    assert reading["tcp_mtu_probing"] is None
