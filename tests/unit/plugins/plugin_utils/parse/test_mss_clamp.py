# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MSS clamping rules from nft list ruleset and iptables-save, and whether they cover a tunnel in each direction (issue 17.8)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.mss_clamp import (
    clamp_sources, parse_iptables_save_mss_clamps, parse_nft_mss_clamps, rule_covers, tunnel_mss_clamp)

BOTH_UNKNOWN = {"to_tunnel": None, "from_tunnel": None}


def nft(load_fixture, case):
    return parse_nft_mss_clamps(load_fixture("nft_list", "netns_ruleset_%s.txt" % case))


def ipt(load_fixture, case):
    return parse_iptables_save_mss_clamps(load_fixture("iptables_save", "netns_%s.txt" % case))


def test_firewall4_mtu_fix_on_the_wan_zone_only(load_fixture):
    """OpenWrt's default: mtu_fix on wan; the vpn zone of wg0 has none."""
    rules = nft(load_fixture, "fw4_mtu_fix_wan_only")
    assert [(r["chain"], r["hook"], r["mss"], r["oifname"], r["iifname"]) for r in rules] == [
        ("inet fw4 mangle_postrouting", "postrouting", "pmtu", [{"op": "==", "names": ["wan"]}], []),
        ("inet fw4 mangle_forward", "forward", "pmtu", [], [{"op": "==", "names": ["wan"]}])]
    assert tunnel_mss_clamp(rules, "wg0", 1420, True) == {"to_tunnel": False, "from_tunnel": False}
    assert tunnel_mss_clamp(rules, "wan", 1492, True) == {"to_tunnel": True, "from_tunnel": True}


def test_firewall4_mtu_fix_on_a_zone_of_the_tunnels(load_fixture):
    """mtu_fix on a vpn zone of wg0 and tailscale0: one egress and one ingress rule, nft printing the set its own order."""
    rules = nft(load_fixture, "fw4_mtu_fix_vpn_zone")
    assert rules[1]["oifname"] == [{"op": "==", "names": ["wg0", "tailscale0"]}]
    assert rules[1]["line"] == 140
    for tunnel in ("wg0", "tailscale0"):
        assert tunnel_mss_clamp(rules, tunnel, 1280, True) == {"to_tunnel": True, "from_tunnel": True}
    assert tunnel_mss_clamp(rules, "tun0", 1500, True) == {"to_tunnel": False, "from_tunnel": False}


def test_a_fixed_size_clamp_into_a_wildcard_and_an_output_only_rule(load_fixture):
    """oifname "tailscale*" ... size set 1240 in a forward chain; an iifname rule on the output hook clamps only the host's own."""
    rules = nft(load_fixture, "fixed_size_clamp")
    assert [(r["hook"], r["mss"]) for r in rules] == [("forward", 1240), ("output", "pmtu")]
    # 1240 fits 1280 - 40 exactly; one byte of MTU less and it does not
    assert tunnel_mss_clamp(rules, "tailscale0", 1280, True) == {"to_tunnel": True, "from_tunnel": False}
    assert tunnel_mss_clamp(rules, "tailscale0", 1279, True) == {"to_tunnel": False, "from_tunnel": False}
    assert tunnel_mss_clamp(rules, "tailscale0", None, True) == {"to_tunnel": None, "from_tunnel": False}
    assert tunnel_mss_clamp(rules, "wg0", 1420, True) == {"to_tunnel": False, "from_tunnel": False}


@pytest.mark.parametrize("case", ["no_clamp", "empty"])
def test_no_clamp_at_all(load_fixture, case):
    assert nft(load_fixture, case) == []
    assert tunnel_mss_clamp([], "wg0", 1420, True) == {"to_tunnel": False, "from_tunnel": False}


def test_iptables_nft_rules_read_through_nft_and_iptables_save_alike(load_fixture):
    """wg-quick's PostUp clamp: iptables-nft lists it translated, iptables-save as written; one direction only."""
    from_nft = nft(load_fixture, "iptables_nft_wg_quick")
    from_save = ipt(load_fixture, "wg_quick_postup_clamp")
    assert [(r["chain"], r["oifname"], r["mss"]) for r in from_nft] == [
        ("ip mangle POSTROUTING", [{"op": "==", "names": ["wg0"]}], "pmtu")]
    assert [(r["source"], r["chain"], r["hook"], r["oifname"], r["iifname"], r["mss"]) for r in from_save] == [
        ("iptables", "mangle POSTROUTING", "postrouting", [{"op": "==", "names": ["wg0"]}], [], "pmtu")]
    for rules in (from_nft, from_save):
        assert tunnel_mss_clamp(rules, "wg0", 1420, True) == {"to_tunnel": True, "from_tunnel": False}


def test_iptables_set_mss_a_negation_and_an_output_rule(load_fixture):
    rules = ipt(load_fixture, "set_mss_negated_output")
    assert [(r["chain"], r["hook"], r["mss"], r["oifname"], r["iifname"]) for r in rules] == [
        ("mangle OUTPUT", "output", "pmtu", [{"op": "==", "names": ["tailscale0"]}], []),
        ("filter FORWARD", "forward", 1240, [], [{"op": "==", "names": ["tailscale0"]}]),
        ("filter FORWARD", "forward", "pmtu", [{"op": "!=", "names": ["eth0"]}], [])]
    # ! -o eth0 clamps every SYN forwarded out of anything but eth0, into tailscale0 too
    assert tunnel_mss_clamp(rules, "tailscale0", 1280, True) == {"to_tunnel": True, "from_tunnel": True}
    # and SYNs coming in on eth0 leave by another device: clamped; going out of eth0 they are not
    assert tunnel_mss_clamp(rules, "eth0", 1500, True) == {"to_tunnel": False, "from_tunnel": True}


def test_iptables_save_without_tables(load_fixture):
    assert ipt(load_fixture, "empty") == []


@pytest.mark.parametrize("line, names, op", [
    ("-A FORWARD -o wg+ -p tcp -j TCPMSS --clamp-mss-to-pmtu", ["wg*"], "=="),
    ("-A FORWARD -o ! wg0 -p tcp -j TCPMSS --clamp-mss-to-pmtu", ["wg0"], "!="),    # iptables before 1.4.3
    ("-A FORWARD --out-interface wg0 -j TCPMSS --set-mss 1380", ["wg0"], "=="),
])
def test_iptables_interface_spellings(line, names, op):
    (rule,) = parse_iptables_save_mss_clamps("*mangle\n%s\nCOMMIT\n" % line)
    assert rule["oifname"] == [{"op": op, "names": names}]


@pytest.mark.parametrize("rule_line, covers", [
    ('oifname @vpn_devices tcp option maxseg size set rt mtu', None),     # a named set: members unknown
    ('oifname != "wg*" tcp option maxseg size set rt mtu', False),
    ('oifname != { "eth0", "wan" } tcp option maxseg size set rt mtu', True),
    ('oif "wg0" tcp option maxseg size set rt mtu', True),
    ('tcp flags syn tcp option maxseg size set rt mtu', True),            # no interface match: every forwarded SYN
    ('oifname "wg0" iifname "br-lan" tcp option maxseg size set 1380', True),
    ('oifname "wg0" tcp option maxseg size set 1381', False),             # 1381 > 1420 - 40
    ('iifname "wan" tcp option maxseg size set rt mtu', False),           # another device's clamp (fw4's wan ingress)
    ('iifname != "wg0" tcp option maxseg size set rt mtu', True),         # only exclusions on the other side
])
def test_nft_interface_matches(rule_line, covers):
    (rule,) = parse_nft_mss_clamps("table inet t {\n\tchain c {\n\t\t%s\n\t}\n}\n" % rule_line)
    assert rule["hook"] is None     # a regular chain counts, whatever jumps to it
    assert rule_covers(rule, "oifname", "wg0", 1420) is covers
    expected = {True: True, False: False, None: None}[covers]
    assert tunnel_mss_clamp([rule], "wg0", 1420, True)["to_tunnel"] is expected


@pytest.mark.parametrize("parser, text, message", [
    (parse_nft_mss_clamps, "table inet t {\n\tchain c {\n\t\ttcp option maxseg size set tcp option window\n", "line 3: a maxseg rule"),
    (parse_nft_mss_clamps, "tcp option maxseg size set rt mtu\n", "line 1: a maxseg rule outside any chain"),
    (parse_nft_mss_clamps, b"x", "must be text"),
    (parse_iptables_save_mss_clamps, "*mangle\n-A FORWARD -j TCPMSS\n", "line 2: -j TCPMSS without"),
    (parse_iptables_save_mss_clamps, "*mangle\n-A FORWARD -m comment --comment \"x -j TCPMSS\n", "line 2: No closing quotation"),
    (parse_iptables_save_mss_clamps, "-A FORWARD -j TCPMSS --clamp-mss-to-pmtu\n", "line 1: a rule before any"),
    (parse_iptables_save_mss_clamps, None, "must be text"),
])
def test_errors_name_the_line(parser, text, message):
    with pytest.raises(ParseError, match=message):
        parser(text)


def test_a_tcpmss_word_in_another_rule_is_no_clamp():
    assert parse_iptables_save_mss_clamps('*filter\n-A FORWARD -m comment --comment "TCPMSS later" -j ACCEPT\n') == []


@pytest.mark.parametrize("results, sources, complete, clamp", [
    # both read: the union judges
    ({"nft": ("read", "fw4_mtu_fix_vpn_zone"), "iptables": ("read", "")}, {"nft": "read", "iptables": "read"}, True,
     {"to_tunnel": True, "from_tunnel": True}),
    # OpenWrt with firewall4 and no iptables at all: nft alone is complete
    ({"nft": ("read", "fw4_mtu_fix_wan_only"), "iptables": ("not installed", "")}, {"nft": "read", "iptables": "not installed"},
     True, {"to_tunnel": False, "from_tunnel": False}),
    # nft refused (not root): a clamp iptables shows still counts, its absence is unknown
    ({"nft": ("rc=1: Operation not permitted (you must be root)", ""), "iptables": ("read", "wg_quick_postup_clamp")},
     {"nft": "rc=1: Operation not permitted (you must be root)", "iptables": "read"}, False,
     {"to_tunnel": True, "from_tunnel": None}),
    # neither tool: unknown, never False
    ({"nft": ("not installed", ""), "iptables": ("not installed", "")}, {"nft": "not installed", "iptables": "not installed"},
     False, BOTH_UNKNOWN),
    # output that does not parse counts as not read, its error the status
    ({"nft": ("read", "garbage"), "iptables": ("not installed", "")}, None, False, BOTH_UNKNOWN),
])
def test_sources(load_fixture, results, sources, complete, clamp):
    texts = {"fw4_mtu_fix_vpn_zone": load_fixture("nft_list", "netns_ruleset_fw4_mtu_fix_vpn_zone.txt"),
             "fw4_mtu_fix_wan_only": load_fixture("nft_list", "netns_ruleset_fw4_mtu_fix_wan_only.txt"),
             "wg_quick_postup_clamp": load_fixture("iptables_save", "netns_wg_quick_postup_clamp.txt"),
             "garbage": "table inet t {\n\tchain c {\n\t\ttcp option maxseg size set ???\n"}
    read = clamp_sources({name: (status, texts.get(text, text)) for name, (status, text) in results.items()})
    if sources is None:
        assert read["sources"]["nft"].startswith("nft list ruleset line 3: a maxseg rule")
    else:
        assert read["sources"] == sources
    assert read["complete"] is complete
    assert tunnel_mss_clamp(read["rules"], "wg0", 1420, read["complete"]) == clamp


def test_the_error_stderr_fixtures_are_what_a_non_root_user_gets(load_fixture):
    """What the facts' status holds when the tools refuse: their first stderr line (recorded as uid 65534)."""
    assert load_fixture("nft_stderr", "netns_ruleset_not_root.txt").splitlines()[0] == "Operation not permitted (you must be root)"
    assert "Permission denied (you must be root)" in load_fixture("iptables_save_stderr", "netns_not_root.txt")


def test_sources_must_be_both():
    with pytest.raises(ParseError, match="nft and iptables"):
        clamp_sources({"nft": ("read", "")})


# firewall4's rule for a zone of many devices: one line over 200 characters (the errors quote its first 200)
MANY = "oifname { %s } tcp flags syn / fin,syn,rst tcp option maxseg size set " % ", ".join('"wg%d"' % n for n in range(20))


@pytest.mark.parametrize("parser, text, message", [
    (parse_nft_mss_clamps, "table inet t {\n\tchain c {\n\t\toifname \"wg0\" tcp option maxseg size set tcp option window\n",
     "nft list ruleset line 3: a maxseg rule without 'size set rt mtu' or 'size set N', got "
     "'oifname \"wg0\" tcp option maxseg size set tcp option window'"),
    (parse_nft_mss_clamps, "table inet t {\n\tchain c {\n\t\t%sx\n" % MANY,
     "nft list ruleset line 3: a maxseg rule without 'size set rt mtu' or 'size set N', got %r" % (MANY + "x")[:200]),
    (parse_nft_mss_clamps, "\ttcp option maxseg size set rt mtu\n",
     "nft list ruleset line 1: a maxseg rule outside any chain: 'tcp option maxseg size set rt mtu'"),
    (parse_nft_mss_clamps, "\n%srt mtu\n" % MANY, "nft list ruleset line 2: a maxseg rule outside any chain: %r" % (MANY + "rt mtu")[:200]),
    (parse_nft_mss_clamps, b"x", "nft list ruleset output must be text, got bytes"),
    (parse_nft_mss_clamps, None, "nft list ruleset output must be text, got NoneType"),
    (parse_iptables_save_mss_clamps, "*mangle\n-A FORWARD -o wg0 -j TCPMSS\n",
     "iptables-save line 2: -j TCPMSS without --clamp-mss-to-pmtu or --set-mss N"),
    (parse_iptables_save_mss_clamps, "*mangle\n-A FORWARD -j TCPMSS --set-mss auto\n",
     "iptables-save line 2: -j TCPMSS without --clamp-mss-to-pmtu or --set-mss N"),
    (parse_iptables_save_mss_clamps, "*mangle\n-A FORWARD -m comment --comment \"x -j TCPMSS\n",
     "iptables-save line 2: No closing quotation: '-A FORWARD -m comment --comment \"x -j TCPMSS'"),
    (parse_iptables_save_mss_clamps, "*mangle\n-A FORWARD -m comment --comment \"%s -j TCPMSS\n" % ("x" * 250),
     "iptables-save line 2: No closing quotation: %r" % ("-A FORWARD -m comment --comment \"%s -j TCPMSS" % ("x" * 250))[:200]),
    (parse_iptables_save_mss_clamps, "# Generated by iptables-save v1.8.9\n-A FORWARD -j TCPMSS --clamp-mss-to-pmtu\n",
     "iptables-save line 2: a rule before any *table line"),
    (parse_iptables_save_mss_clamps, ["*mangle"], "iptables-save output must be text, got list"),
])
def test_errors_name_the_line_and_quote_it(parser, text, message):
    with pytest.raises(ParseError) as err:
        parser(text)
    assert str(err.value) == message


@pytest.mark.parametrize("results", [{"nft": ("read", "")}, [("read", "")], {"nft": ("read", ""), "iptables": ("read", ""), "x": 1}])
def test_sources_of_another_shape_are_named(results):
    with pytest.raises(ParseError) as err:
        clamp_sources(results)
    assert str(err.value) == "clamp sources must be a dict with nft and iptables, got %r" % (results,)


def test_a_source_that_does_not_parse_keeps_200_characters_of_why():
    text = "table inet t {\n\tchain c {\n\t\t%sx\n" % MANY
    read = clamp_sources({"nft": ("read", text), "iptables": ("read", "")})
    with pytest.raises(ParseError) as err:
        parse_nft_mss_clamps(text)
    assert len(str(err.value)) > 200
    assert read["sources"] == {"nft": str(err.value)[:200], "iptables": "read"}
    assert (read["rules"], read["complete"]) == ([], False)


@pytest.mark.parametrize("line, oifname, iifname, mss", [
    ("-A FORWARD ! -i eth0 -o wg+ -p tcp -j TCPMSS --clamp-mss-to-pmtu", [{"op": "==", "names": ["wg*"]}],
     [{"op": "!=", "names": ["eth0"]}], "pmtu"),     # the negation is the next match's only
    ("-A FORWARD --in-interface wg0 -p tcp -j TCPMSS --set-mss 1380", [], [{"op": "==", "names": ["wg0"]}], 1380),
    ("-A FORWARD -i ! wg0 -o eth0 -j TCPMSS --set-mss 1240", [{"op": "==", "names": ["eth0"]}], [{"op": "!=", "names": ["wg0"]}], 1240),
])
def test_iptables_ingress_spellings(line, oifname, iifname, mss):
    text = "*mangle\n%s -j TCPMSS --clamp-mss-to-pmtu\n" % line if mss is None else "*mangle\n%s\n" % line
    (rule,) = parse_iptables_save_mss_clamps(text)
    assert (rule["oifname"], rule["iifname"], rule["mss"]) == (oifname, iifname, "pmtu" if mss is None else mss)


def test_an_escaped_quote_in_an_nft_device_name_is_part_of_the_name():
    (rule,) = parse_nft_mss_clamps('table inet t {\n\tchain c {\n\t\toifname "vpn\\"1" tcp option maxseg size set rt mtu\n')
    assert rule["oifname"] == [{"op": "==", "names": ['vpn"1']}]


def test_every_field_of_recorded_rules(load_fixture):
    """Each rule names its source and line, so the finding can point at it."""
    assert nft(load_fixture, "fixed_size_clamp") == [
        {"source": "nft", "line": 4, "chain": "inet tailscale_clamp forward", "hook": "forward", "mss": 1240,
         "oifname": [{"op": "==", "names": ["tailscale*"]}], "iifname": []},
        {"source": "nft", "line": 9, "chain": "inet tailscale_clamp output", "hook": "output", "mss": "pmtu",
         "oifname": [], "iifname": [{"op": "==", "names": ["tailscale0"]}]}]
    assert [(r["source"], r["line"]) for r in ipt(load_fixture, "set_mss_negated_output")] == [
        ("iptables", 8), ("iptables", 16), ("iptables", 17)]


def test_an_nft_negation_reads_as_not_equal():
    (rule,) = parse_nft_mss_clamps('table inet t {\n\tchain c {\n\t\tiifname != { "eth0", "wan" } oif "wg0" '
                                   'tcp option maxseg size set rt mtu\n')
    assert (rule["iifname"], rule["oifname"]) == ([{"op": "!=", "names": ["eth0", "wan"]}], [{"op": "==", "names": ["wg0"]}])


def test_a_rule_in_a_user_chain_has_no_hook():
    """iptables: a user chain (jumps are not followed) counts whatever jumps to it, even one whose name holds a built-in's."""
    (rule,) = parse_iptables_save_mss_clamps("*mangle\n-A OUTPUT_VPN -o wg0 -j TCPMSS --clamp-mss-to-pmtu\n")
    assert (rule["chain"], rule["hook"]) == ("mangle OUTPUT_VPN", None)
    assert tunnel_mss_clamp([rule], "wg0", 1420, True) == {"to_tunnel": True, "from_tunnel": False}


@pytest.mark.parametrize("name, device, covers", [
    ("wg0", "wg0", True), ("wg0", "wg01", False), ("wg0", "wg1", False),          # a name is the device's whole name
    ("wg*", "wg1", True), ("wg*", "wlan0", False), ("wg*", "wg", True),            # a wildcard: its prefix
    ("tailscale*", "tun0", False), ("tailscale*", "tailscale0", True),
])
def test_a_name_matches_the_whole_device_name_or_a_wildcards_prefix(name, device, covers):
    (rule,) = parse_nft_mss_clamps('table inet t {\n\tchain c {\n\t\toifname "%s" tcp option maxseg size set rt mtu\n' % name)
    assert rule_covers(rule, "oifname", device, 1420) is covers


def test_only_tcpmss_rules_are_split_and_every_one_is_read():
    """Another rule is never split as shell words (its text cannot fail the read), and one that only mentions TCPMSS in a
    comment does not end the reading of the rules after it."""
    text = ("*filter\n-A FORWARD -m comment --comment \"don't \\\" split -j ACCEPT\n"
            "-A FORWARD -m comment --comment \"TCPMSS later\" -j ACCEPT\n"
            "-A FORWARD -o wg0 -p tcp -j TCPMSS --set-mss 1380\n")
    assert [(r["line"], r["mss"]) for r in parse_iptables_save_mss_clamps(text)] == [(4, 1380)]


@pytest.mark.parametrize("tail, oifname", [
    ("-o ! wg0", [{"op": "!=", "names": ["wg0"]}]),      # iptables before 1.4.3, as the rule's last match
    ("! -o wg+", [{"op": "!=", "names": ["wg*"]}]),
    ("-o", []),                                          # an -o without a name: nothing to match
])
def test_interface_matches_after_the_target_options(tail, oifname):
    (rule,) = parse_iptables_save_mss_clamps("*mangle\n-A FORWARD -j TCPMSS --set-mss 1380 %s\n" % tail)
    assert (rule["oifname"], rule["mss"]) == (oifname, 1380)
