# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_uci_show, resolve_section, redact_uci, is_secret_option, uci_quote, parse_uci_changes."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import (
    REDACTED,
    format_uci_section,
    is_secret_option,
    is_secret_value,
    parse_uci_changes,
    parse_uci_show,
    redact_uci,
    resolve_section,
    uci_quote,
)

K = "K" * 43 + "="


def _section(stype, anonymous, index, options):
    return {"type": stype, "anonymous": anonymous, "index": index, "options": options}


# (fixture, config, section key, expected section) — secrets kept (keep_secrets=True)
SECTION_CASES = [
    ("case01_network.txt", "network", "wg0", _section("interface", False, 4, {
        "proto": "wireguard", "private_key": K, "listen_port": "51820", "addresses": "10.77.0.2/24"})),
    ("case01_network.txt", "network", "@wireguard_wg0[0]", _section("wireguard_wg0", True, 0, {
        "description": "site-b", "public_key": "B" * 43 + "=", "endpoint_host": "203.0.113.10",
        "endpoint_port": "51820", "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"],
        "route_allowed_ips": "1", "persistent_keepalive": "25"})),
    ("case04_network.txt", "network", "wg0", _section("interface", False, 0, {
        "proto": "wireguard", "private_key": K, "addresses": "10.64.0.2/32", "nohostroute": "1"})),
    ("case04_network.txt", "network", "@wireguard_wg0[0]", _section("wireguard_wg0", True, 0, {
        "public_key": "C" * 43 + "=", "endpoint_host": "203.0.113.55", "endpoint_port": "51821",
        "allowed_ips": ["0.0.0.0/1", "128.0.0.0/1"], "route_allowed_ips": "1", "persistent_keepalive": "25"})),
    ("case05_banip.txt", "banip", "global", _section("banip", False, 0, {
        "ban_enabled": "1", "ban_autodetect": "1", "ban_feed": ["cinsscore", "firehol1"]})),
    ("case05_mwan3_aggressive.txt", "mwan3", "wanb", _section("interface", False, 1, {
        "enabled": "1", "family": "ipv4", "track_ip": ["1.0.0.1", "1.1.1.1", "208.67.222.222", "208.67.220.220"],
        "reliability": "2", "count": "2", "timeout": "1", "interval": "1"})),
    # a named section counts among the sections of its type: dc is @wireguard_wg0[1]
    ("case11_network_wg.txt", "network", "dc", _section("wireguard_wg0", False, 1, {
        "public_key": "E" * 43 + "=", "preshared_key": "P" * 43 + "=", "endpoint_host": "dc.example.net",
        "allowed_ips": "10.30.0.3/32", "route_allowed_ips": "1"})),
    ("firewall_named_anonymous_quoting.txt", "firewall", "@defaults[0]", _section("defaults", True, 0, {
        "input": "REJECT", "output": "ACCEPT", "forward": "REJECT", "synflood_protect": "1"})),
    ("firewall_named_anonymous_quoting.txt", "firewall", "lan", _section("zone", False, 0, {
        "name": "lan", "network": "lan", "input": "ACCEPT"})),
    ("firewall_named_anonymous_quoting.txt", "firewall", "@zone[1]", _section("zone", True, 1, {
        "name": "wan", "network": ["wan", "wan6", "wanb"], "masq": "1", "mtu_fix": "1"})),
    # '\'' escapes, double quotes kept, empty value
    ("firewall_named_anonymous_quoting.txt", "firewall", "@rule[1]", _section("rule", True, 1, {
        "name": "WireGuard from the 'outside'", "src": "wan", "dest_port": "51820", "proto": "udp",
        "extra": '--comment "wg hub"', "family": ""})),
    ("firewall_named_anonymous_quoting.txt", "firewall", "wg_in", _section("rule", False, 2, {
        "name": "wg in, a name with spaces", "src": "wg0", "target": "ACCEPT"})),
    # a value with a newline, list items with spaces
    ("firewall_named_anonymous_quoting.txt", "firewall", "@rule[3]", _section("rule", True, 3, {
        "name": "Multi\nline", "icmp_type": ["echo-request", "echo-reply", "destination unreachable"]})),
    # uci -X show: anonymous sections under cfgXXXXXX
    ("x_flag_cfg_names.txt", "network", "cfg030f15", _section("device", True, 0, {
        "name": "br-lan", "type": "bridge", "ports": ["lan1", "lan2", "lan3"]})),
    ("x_flag_cfg_names.txt", "network", "cfg0b96ba", _section("wireguard_wg0", True, 1, {
        "public_key": "C" * 43 + "=", "allowed_ips": ["10.77.1.0/24", "192.168.30.0/24"]})),
    ("x_flag_cfg_names.txt", "network", "ep_backup", _section("route", False, 0, {
        "interface": "wanb", "target": "203.0.113.10/32", "gateway": "100.64.0.1"})),
    ("wireless_keys.txt", "wireless", "default_radio0", _section("wifi-iface", False, 0, {
        "device": "radio0", "mode": "ap", "ssid": "Branch 'B' office", "encryption": "sae-mixed",
        "key": "not a real passphrase"})),
    # uci show CONFIG.SECTION.OPTION: options without their section line
    ("single_option.txt", "network", "wg0", _section(None, False, -1, {
        "private_key": K, "addresses": ["10.77.0.2/24", "fd77::2/64"]})),
]


@pytest.mark.parametrize("case, config, name, expected", SECTION_CASES)
def test_parse_uci_show_sections(load_fixture, case, config, name, expected):
    assert parse_uci_show(load_fixture("uci_show", case), keep_secrets=True)[config][name] == expected


@pytest.mark.parametrize("case, expected", [
    ("case01_network.txt", {"network": ["loopback", "lan", "wan", "wanb", "wg0", "@wireguard_wg0[0]"]}),
    ("case05_mwan3_aggressive.txt", {"mwan3": ["wan", "wanb"]}),
    ("case11_network_wg.txt", {"network": ["wg0", "@wireguard_wg0[0]", "dc"]}),
    ("firewall_named_anonymous_quoting.txt",
     {"firewall": ["@defaults[0]", "lan", "@zone[1]", "@rule[0]", "@rule[1]", "wg_in", "@rule[3]"]}),
    ("empty_config.txt", {}),
])
def test_parse_uci_show_section_order(load_fixture, case, expected):
    parsed = parse_uci_show(load_fixture("uci_show", case))
    assert {config: list(sections) for config, sections in parsed.items()} == expected


@pytest.mark.parametrize("case", ["case01_network.txt", "case04_network.txt", "case11_network_wg.txt",
                                  "x_flag_cfg_names.txt", "wireless_keys.txt", "single_option.txt"])
def test_parse_uci_show_drops_secrets_by_default(load_fixture, case):
    parsed = parse_uci_show(load_fixture("uci_show", case))
    text = repr(parsed)
    for secret in (K, "P" * 43 + "=", "not a real passphrase", "also not real"):
        assert secret not in text
    assert REDACTED in text


@pytest.mark.parametrize("text, expected", [
    ("", {}),
    ("\n", {}),
    # uci before 2015 printed values unquoted: the line is one string
    ("network.lan=interface\nnetwork.lan.ipaddr=192.168.1.1\n",
     {"network": {"lan": _section("interface", False, 0, {"ipaddr": "192.168.1.1"})}}),
    ("a-b.x=t\na-b.x.o='v'", {"a-b": {"x": _section("t", False, 0, {"o": "v"})}}),
    ("c.s=t\nc.s.o=''\\'''\n", {"c": {"s": _section("t", False, 0, {"o": "'"})}}),
])
def test_parse_uci_show_edges(text, expected):
    assert parse_uci_show(text) == expected


@pytest.mark.parametrize("text, message", [
    ("uci: Entry not found\n", "line 1: expected config.section[.option]=value"),
    ("network.lan=interface\nnetwork.lan.ipaddr='192.168.1.1\n", "line 2: quote opened but never closed"),
    ("network.lan=interface\nnetwork.lan.dns='1.1.1.1','8.8.8.8'\n", "line 2: unexpected ','"),
    ("network.lan=interface\nnetwork.lan=interface\n", "line 2: section network.lan appears twice"),
    ("network.@zone[0]=rule\n", "has type 'rule', not 'zone'"),
    ("network.lan=\n", "line 1: section network.lan has no valid type"),
    ("network.la n.x='1'\n", "line 1: expected"),
])
def test_parse_uci_show_errors(text, message):
    with pytest.raises(ParseError, match=None) as err:
        parse_uci_show(text)
    assert message in str(err.value)


def test_parse_uci_show_rejects_non_text():
    with pytest.raises(ParseError, match="must be text"):
        parse_uci_show(b"network.lan=interface")


@pytest.mark.parametrize("case, config, ref, expected", [
    ("case11_network_wg.txt", "network", "@wireguard_wg0[0]", "@wireguard_wg0[0]"),
    ("case11_network_wg.txt", "network", "@wireguard_wg0[1]", "dc"),
    ("case11_network_wg.txt", "network", "@wireguard_wg0[-1]", "dc"),
    ("case11_network_wg.txt", "network", "@wireguard_wg0[-2]", "@wireguard_wg0[0]"),
    ("case11_network_wg.txt", "network", "@interface[0]", "wg0"),
    ("case11_network_wg.txt", "network", "dc", "dc"),
    ("x_flag_cfg_names.txt", "network", "@wireguard_wg0[1]", "cfg0b96ba"),
    ("x_flag_cfg_names.txt", "network", "@wireguard_wg0[-1]", "cfg0b96ba"),
    ("x_flag_cfg_names.txt", "network", "cfg030f15", "cfg030f15"),
    ("firewall_named_anonymous_quoting.txt", "firewall", "@rule[2]", "wg_in"),
    ("firewall_named_anonymous_quoting.txt", "firewall", "@rule[-1]", "@rule[3]"),
    ("wireless_keys.txt", "wireless", "@wifi-iface[0]", "default_radio0"),
])
def test_resolve_section(load_fixture, case, config, ref, expected):
    assert resolve_section(parse_uci_show(load_fixture("uci_show", case)), config, ref) == expected


@pytest.mark.parametrize("config, ref, message", [
    ("network", "@wireguard_wg0[2]", "section '@wireguard_wg0[2]' not found in network: it has 2 section(s) of type wireguard_wg0"),
    ("network", "@wireguard_wg0[-3]", "section '@wireguard_wg0[-3]' not found in network: it has 2"),
    ("network", "@route[0]", "section '@route[0]' not found in network: it has 0 section(s) of type route"),
    ("network", "wg1", "section 'wg1' not found in network"),
    ("network", "@wireguard_wg0[x]", "section '@wireguard_wg0[x]' is neither a section name"),
    ("network", "wg 0", "section 'wg 0' is neither a section name"),
    ("network", None, "section must be a name or @type[N], got None"),
    ("firewall", "lan", "config 'firewall' not found in uci show output"),
])
def test_resolve_section_errors(load_fixture, config, ref, message):
    parsed = parse_uci_show(load_fixture("uci_show", "case11_network_wg.txt"))
    with pytest.raises(ParseError) as err:
        resolve_section(parsed, config, ref)
    assert message in str(err.value)


@pytest.mark.parametrize("name, expected", [
    ("private_key", True), ("preshared_key", True), ("key", True), ("key2", True), ("password", True),
    ("sae_password", True), ("ppp_password", True), ("auth_secret", True), ("psk", True),
    ("public_key", False), ("keepalive", False), ("persistent_keepalive", False), ("ban_icmplimit", False),
    ("key_mgmt", False), ("endpoint_host", False),
])
def test_is_secret_option(name, expected):
    assert is_secret_option(name) is expected


def test_redact_uci_options_section_and_config():
    options = {"proto": "wireguard", "private_key": K, "allowed_ips": ["10.0.0.0/24"], "key": None}
    assert redact_uci(options) == {"proto": "wireguard", "private_key": REDACTED,
                                   "allowed_ips": ["10.0.0.0/24"], "key": None}
    section = {"type": "interface", "anonymous": False, "index": 0, "options": options}
    assert redact_uci(section)["options"]["private_key"] == REDACTED
    assert redact_uci({"network": {"wg0": section}})["network"]["wg0"]["options"]["private_key"] == REDACTED
    assert options["private_key"] == K  # the input is not changed
    assert redact_uci(None) is None
    with pytest.raises(ParseError, match="must be a dict"):
        redact_uci(["private_key"])


@pytest.mark.parametrize("value, expected", [
    ("site-b", "'site-b'"),
    ("it's", "'it'\\''s'"),
    ("", "''"),
    ("a b", "'a b'"),
    (["a b", "c"], "'a b' 'c'"),
])
def test_uci_quote(value, expected):
    assert uci_quote(value) == expected


@pytest.mark.parametrize("value", ["it's", "'", "a '' b", "x\ny", "$(reboot) `id` \"q\"", "\\'"])
def test_uci_quote_round_trips_through_parse(value):
    assert parse_uci_show("c.s=t\nc.s.o=%s\n" % uci_quote(value))["c"]["s"]["options"]["o"] == value


def test_format_uci_section_round_trips(load_fixture):
    parsed = parse_uci_show(load_fixture("uci_show", "firewall_named_anonymous_quoting.txt"))
    for name, section in parsed["firewall"].items():
        again = parse_uci_show(format_uci_section("firewall", name, section))["firewall"][name]
        assert again["options"] == section["options"]
        assert again["type"] == section["type"]
    assert format_uci_section("firewall", "x", None) == ""


def test_parse_uci_changes(load_fixture):
    assert parse_uci_changes(load_fixture("uci_changes", "staged.txt")) == [
        {"op": "set", "config": "network", "section": "wg0", "option": "nohostroute", "value": "1"},
        {"op": "delete", "config": "network", "section": "ep_backup", "option": None, "value": None},
        {"op": "set", "config": "network", "section": "cfg0a96ba", "option": "persistent_keepalive", "value": "25"},
        {"op": "set", "config": "network", "section": "wg0", "option": "private_key", "value": REDACTED},
        {"op": "add_list", "config": "mwan3", "section": "wan", "option": "track_ip", "value": "9.9.9.9"},
        {"op": "del_list", "config": "mwan3", "section": "wan", "option": "track_ip", "value": "208.67.220.220"},
        {"op": "delete", "config": "network", "section": "wg0", "option": "listen_port", "value": None},
        {"op": "set", "config": "network", "section": "ep_main", "option": None, "value": "route"},
        {"op": "set", "config": "network", "section": "lan", "option": "description", "value": "it's the LAN"},
    ]
    kept = parse_uci_changes(load_fixture("uci_changes", "staged.txt"), keep_secrets=True)
    assert kept[3]["value"] == K
    assert parse_uci_changes(load_fixture("uci_changes", "none.txt")) == []


@pytest.mark.parametrize("text, message", [
    ("uci: Entry not found", "line 1: expected [-]config.section"),
    ("-network.wg0='1'", "line 1: unexpected \"='1'\" after a delete"),
    ("network.wg0.mtu:'1'", "line 1: expected =, += or -="),
    ("network.wg0.mtu='1' '2'", "expected one quoted value, got 2"),
    ("network.wg0.mtu=1420", "line 1: expected a quoted value"),
])
def test_parse_uci_changes_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_uci_changes(text)
    assert message in str(err.value)


def test_redact_uci_by_shape_keeps_public_keys():
    import base64
    import hashlib
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import redact_uci
    key = base64.b64encode(hashlib.sha256(b"fake").digest()).decode()
    values = {"public_key": key, "PublicKey": key, "description": "psk %s here" % key, "allowed_ips": ["10.0.0.0/8", key],
              "updatekey": "x", "pincode": "1234", "mtu": "1420"}
    assert redact_uci(values) == {"public_key": key, "PublicKey": key, "description": "psk <redacted> here",
                                  "allowed_ips": ["10.0.0.0/8", "<redacted>"], "updatekey": "<redacted>",
                                  "pincode": "<redacted>", "mtu": "1420"}


def _named(name):
    return r"(?<![\w.-])%s(?![\w.-])" % re.escape(name)


MULTILINE_THEN_BAD = ("network.lan=interface\n"
                      "network.lan.description='first line\n"
                      "second line'\n"
                      "network.lan.ipaddr='192.168.1.1'\n"
                      "uci: Entry not found\n")


def test_show_error_line_counts_the_lines_of_a_multiline_value():
    with pytest.raises(ParseError) as err:
        parse_uci_show(MULTILINE_THEN_BAD)
    assert re.match(r"line 5\b", str(err.value))


def test_changes_error_line_counts_the_lines_of_a_multiline_value():
    text = ("network.lan.ipaddr='192.168.1.1'\n"
            "network.lan.description='first line\n"
            "second line'\n"
            "-network.wg0.nohostroute\n"
            "uci: Entry not found\n")
    with pytest.raises(ParseError) as err:
        parse_uci_changes(text)
    assert re.match(r"line 5\b", str(err.value))


@pytest.mark.parametrize("text", [
    "\nnetwork.lan=interface\nnetwork.lan.proto='static'\n",        # leading blank line
    "network.lan=interface\n\nnetwork.lan.proto='static'\n",        # blank line between
    "network.lan=interface\n   \nnetwork.lan.proto='static'",       # no newline at the end
    "network.lan=interface\nnetwork.lan.proto='static'",
    "network.lan.proto='static'\nnetwork.lan=interface",            # section line last, no newline
])
def test_show_blank_lines_and_missing_final_newline(text):
    assert parse_uci_show(text) == {"network": {"lan": _section("interface", False, 0, {"proto": "static"})}}


@pytest.mark.parametrize("text", [
    "\n-network.wg0.nohostroute\nnetwork.wg0.mtu='1420'\n",
    "-network.wg0.nohostroute\n\nnetwork.wg0.mtu='1420'\n",
    "network.wg0.mtu='1420'\n-network.wg0.nohostroute",
])
def test_changes_blank_lines_and_missing_final_newline(text):
    ops = sorted((change["op"], change["option"]) for change in parse_uci_changes(text))
    assert ops == [("delete", "nohostroute"), ("set", "mtu")]


def test_changes_error_names_the_line_after_earlier_lines():
    with pytest.raises(ParseError) as err:
        parse_uci_changes("network.wg0.mtu='1420'\n-network.wg0.nohostroute\nnetwork.wg0.mtu:'1'\n")
    assert re.match(r"line 3\b", str(err.value))


@pytest.mark.parametrize("text, quoted", [
    ("network.lan.description=two words\nnetwork.lan.proto='static'\n", "two words"),
    ("network.lan.ipaddr=", ""),
])
def test_changes_unquoted_value_is_quoted_in_the_error_up_to_the_line_end(text, quoted):
    with pytest.raises(ParseError) as err:
        parse_uci_changes(text)
    assert str(err.value).endswith("got %r" % quoted)


def test_changes_missing_operator_names_the_key():
    with pytest.raises(ParseError) as err:
        parse_uci_changes("network.wg0.mtu\n")
    assert re.search(_named("'network.wg0.mtu'"), str(err.value))


@pytest.mark.parametrize("parser", [parse_uci_show, parse_uci_changes])
def test_non_text_is_refused_naming_its_type(parser):
    with pytest.raises(ParseError) as err:
        parser(b"network.lan=interface")
    assert re.search(_named("bytes"), str(err.value))


def test_show_of_one_anonymous_section_keeps_its_index():
    # the lines of one section in `uci show network` (`uci show network.@wireguard_wg0[1]` itself
    # prints the section's cfgXXXXXX name: the cfg row below)
    text = "network.@wireguard_wg0[1]=wireguard_wg0\nnetwork.@wireguard_wg0[1].endpoint_host='dc.example.net'\n"
    assert parse_uci_show(text) == {"network": {"@wireguard_wg0[1]": _section(
        "wireguard_wg0", True, 1, {"endpoint_host": "dc.example.net"})}}


@pytest.mark.parametrize("text, name, stype, anonymous, index", [
    # one option line of `uci show network`: the reference tells the type and index
    ("network.@wireguard_wg0[1].endpoint_host='dc.example.net'\n", "@wireguard_wg0[1]", "wireguard_wg0", True, 1),
    # uci show network.@wireguard_wg0[1].endpoint_host (and uci -X show network): the internal name
    ("network.cfg0a1b2c.endpoint_host='dc.example.net'\n", "cfg0a1b2c", None, True, -1),
    ("network.dc.endpoint_host='dc.example.net'\n", "dc", None, False, -1),
])
def test_show_of_one_option_without_its_section_line(text, name, stype, anonymous, index):
    assert parse_uci_show(text) == {"network": {name: {"type": stype, "anonymous": anonymous, "index": index,
                                                       "options": {"endpoint_host": "dc.example.net"}}}}


def test_show_option_before_its_section_line_is_kept():
    # uci show network.wg0.mtu; uci show network.wg0
    text = "network.wg0.mtu='1420'\nnetwork.wg0=interface\nnetwork.wg0.proto='wireguard'\n"
    assert parse_uci_show(text)["network"]["wg0"] == _section("interface", False, 0, {"mtu": "1420", "proto": "wireguard"})


def test_show_counts_section_types_per_config():
    # uci show network; uci show mwan3: both have sections of type interface
    text = ("network.lan=interface\nnetwork.wan=interface\n"
            "mwan3.wan=interface\nmwan3.@rule[0]=rule\n")
    parsed = parse_uci_show(text)
    assert [parsed["network"][name]["index"] for name in ("lan", "wan")] == [0, 1]
    assert parsed["mwan3"]["wan"]["index"] == 0


def test_show_unquoted_old_style_value_then_more_lines():
    text = "network.lan=interface\nnetwork.lan.ipaddr=192.168.1.1\nnetwork.lan.proto=static\n"
    assert parse_uci_show(text)["network"]["lan"]["options"] == {"ipaddr": "192.168.1.1", "proto": "static"}


def test_format_section_without_type_or_options():
    assert format_uci_section("network", "wg0", {"type": None, "options": {"mtu": "1420"}}) == \
        "network.wg0=\nnetwork.wg0.mtu='1420'\n"
    assert format_uci_section("network", "wg0", {"type": "interface"}) == "network.wg0=interface\n"


@pytest.mark.parametrize("option, value, expected", [
    ("private_key", "x", True),
    ("public_key", K, False),
    ("PublicKey", K, False),
    ("description", K, True),
    ("description", "peer %s here" % K, True),
    ("description", ["a", K], True),
    ("description", ["a", "b"], False),
    ("description", "dc.example.net", False),
    (None, K, True),
    (None, "x", False),
])
def test_is_secret_value(option, value, expected):
    assert bool(is_secret_value(option, value)) is expected


def test_redact_section_keeps_its_type_and_layout():
    section = {"type": "interface", "anonymous": False, "index": 0, "options": {"proto": "wireguard", "private_key": K}}
    assert redact_uci(section) == dict(section, options={"proto": "wireguard", "private_key": REDACTED})


def test_redact_options_that_include_an_option_named_type():
    # network.lan.type='bridge' is an option, not a section's type
    assert redact_uci({"type": "bridge", "proto": "static", "private_key": K}) == \
        {"type": "bridge", "proto": "static", "private_key": REDACTED}


@pytest.mark.parametrize("value", [5, None, {"a": "b"}])
def test_uci_quote_refuses_non_strings_naming_the_value(value):
    with pytest.raises(ParseError) as err:
        uci_quote(value)
    assert re.search(_named(repr(value)), str(err.value))
