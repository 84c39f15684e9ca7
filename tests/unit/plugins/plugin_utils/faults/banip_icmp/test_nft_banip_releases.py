# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nft parsers on the table each release's own banIP f_nftinit loaded (23.05 = 1.0.1, 24.10 = 1.5.6, 25.12 = 1.8.12).

Fixtures: tests/unit/fixtures/{nft_list,nft_t_list,nft_j_list,nft_t_j_list,nft_a_list_chain}/<release>_banip_<case>.txt
(provenance in tests/unit/fixtures/README.md). Cases: default (the release's default ban_icmplimit), limit250,
log (ban_logprerouting '1'), limit0 (ban_icmplimit '0': no rule).
"""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import (
    find_icmp_limit, icmp_flood_counter, icmp_flood_rules, parse_nft_counters, replace_flood_rate)

RELEASES = ("23.05", "24.10", "25.12")
CASES = ("default", "limit250", "log", "limit0")
TEXT = ("nft_list", "nft_t_list", "nft_a_list_chain")
JSON = ("nft_j_list", "nft_t_j_list")
COUNTER = {"23.05": "cnt-icmpflood", "24.10": "cnt_icmpflood", "25.12": "cnt_icmpflood"}
DEFAULT_LIMIT = {"23.05": 10, "24.10": 25, "25.12": 25}
# 1.0.1: one rule per family (two buckets); 1.5.6 and 1.8.12: one rule for both
RULES = {"23.05": 2, "24.10": 1, "25.12": 1}
# cnt_icmpflood after 200 IPv4 and 100 IPv6 pings at 500/s (the README's run)
DROPPED = {("23.05", "default"): 264, ("23.05", "limit250"): 42, ("23.05", "log"): 263,
           ("24.10", "default"): 236, ("24.10", "limit250"): 47, ("24.10", "log"): 11,
           ("25.12", "default"): 236, ("25.12", "limit250"): 45, ("25.12", "log"): 235}


def _rate(release, case):
    return {"default": DEFAULT_LIMIT[release], "limit250": 250, "log": DEFAULT_LIMIT[release], "limit0": None}[case]


def _name(release, case):
    return "%s_banip_%s.txt" % (release, case)


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", TEXT + JSON)
def test_find_icmp_limit_on_every_release_and_listing(load_fixture, release, case, command):
    found = find_icmp_limit(load_fixture(command, _name(release, case)))
    rate = _rate(release, case)
    if rate is None:
        assert found is None
        return
    # nft's text hides the default burst of 5; its JSON names it
    assert found == {"rate_per_second": rate, "burst_packets": 5 if command in JSON else None,
                     "counter": COUNTER[release], "rules": RULES[release], "rates_per_second": [rate] * RULES[release]}


def test_the_log_rules_own_limit_is_not_the_flood_limit(load_fixture):
    # 1.5.6 with logging: `limit rate over 25/second log ... limit rate 10/second counter ... drop`
    text = load_fixture("nft_list", _name("24.10", "log"))
    assert "limit rate 10/second counter name \"cnt_icmpflood\"" in text
    assert find_icmp_limit(text)["rate_per_second"] == 25
    rule = json.loads(load_fixture("nft_j_list", _name("24.10", "log")))
    # the same with the expressions in another order: the log's limit first
    for item in rule["nftables"]:
        exprs = item.get("rule", {}).get("expr", [])
        if {"counter": "cnt_icmpflood"} in exprs:
            exprs.reverse()
    assert find_icmp_limit(json.dumps(rule))["rate_per_second"] == 25


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", CASES)
def test_counters_agree_across_listings(load_fixture, release, case):
    # the counters' listing and the table's four listings, recorded one after the other without traffic between
    counters = "%s_banip_counters_%s.txt" % (release, case)
    expected = icmp_flood_counter(parse_nft_counters(load_fixture("nft_list", counters)))
    assert expected == icmp_flood_counter(parse_nft_counters(load_fixture("nft_j_list", counters)))
    assert expected["name"] == COUNTER[release]
    assert expected["packets"] == DROPPED.get((release, case), 0)
    for command in ("nft_list", "nft_t_list", "nft_j_list", "nft_t_j_list"):
        assert icmp_flood_counter(parse_nft_counters(load_fixture(command, _name(release, case)), table="banIP")) == expected


@pytest.mark.parametrize("release", RELEASES)
def test_terse_listing_leaves_out_only_the_set_elements(load_fixture, release):
    full, terse = (json.loads(load_fixture(command, _name(release, "default")))["nftables"] for command in JSON)
    sets = [item["set"] for item in full if "set" in item]
    assert [len(s.get("elem", [])) for s in sets] == [5]
    assert [s.get("elem") for s in (item["set"] for item in terse if "set" in item)] == [None]
    without_elements = [{key: ({k: v for k, v in value.items() if k != "elem"} if key == "set" else value)
                         for key, value in item.items()} for item in full]
    assert without_elements == terse
    assert "elements = " in load_fixture("nft_list", _name(release, "default"))
    assert "elements = " not in load_fixture("nft_t_list", _name(release, "default"))


def _rule(handle, text, kind, counter, rate):
    return {"handle": handle, "rule": text, "kind": kind, "counter": counter, "rate_per_second": rate, "burst_packets": None}


V4_101, V6_101 = "ip protocol icmp limit rate over %d/second", "ip6 nexthdr ipv6-icmp limit rate over %d/second"
BOTH = "meta nfproto . meta l4proto { ipv4 . icmp, ipv6 . ipv6-icmp } limit rate over %d/second"
FLOOD_RULES = {
    ("23.05", "default"): [_rule(16, V4_101 % 10 + ' counter name "cnt-icmpflood" drop', "drop", "cnt-icmpflood", 10),
                           _rule(17, V6_101 % 10 + ' counter name "cnt-icmpflood" drop', "drop", "cnt-icmpflood", 10)],
    ("23.05", "limit250"): [_rule(16, V4_101 % 250 + ' counter name "cnt-icmpflood" drop', "drop", "cnt-icmpflood", 250),
                            _rule(17, V6_101 % 250 + ' counter name "cnt-icmpflood" drop', "drop", "cnt-icmpflood", 250)],
    ("23.05", "log"): [
        _rule(16, V4_101 % 10 + ' log prefix "banIP/pre-icmp/drop: " counter name "cnt-icmpflood" drop', "drop", "cnt-icmpflood", 10),
        _rule(17, V6_101 % 10 + ' log prefix "banIP/pre-icmp/drop: " counter name "cnt-icmpflood" drop', "drop", "cnt-icmpflood", 10)],
    ("24.10", "default"): [_rule(20, BOTH % 25 + ' counter name "cnt_icmpflood" drop', "drop", "cnt_icmpflood", 25)],
    ("24.10", "limit250"): [_rule(20, BOTH % 250 + ' counter name "cnt_icmpflood" drop', "drop", "cnt_icmpflood", 250)],
    ("24.10", "log"): [_rule(20, BOTH % 25 + ' log prefix "banIP/pre-icmp/drop: " limit rate 10/second counter name "cnt_icmpflood" drop',
                             "drop", "cnt_icmpflood", 25)],
    ("25.12", "default"): [_rule(22, BOTH % 25 + ' counter name "cnt_icmpflood" drop', "drop", "cnt_icmpflood", 25)],
    ("25.12", "limit250"): [_rule(22, BOTH % 250 + ' counter name "cnt_icmpflood" drop', "drop", "cnt_icmpflood", 250)],
    ("25.12", "log"): [_rule(23, BOTH % 25 + ' limit name "loglimit" log prefix "banIP/pre-icmp/drop: "', "log", None, 25),
                       _rule(25, BOTH % 25 + ' counter name "cnt_icmpflood" drop', "drop", "cnt_icmpflood", 25)],
}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", CASES)
def test_icmp_flood_rules_with_handles(load_fixture, release, case):
    assert icmp_flood_rules(load_fixture("nft_a_list_chain", _name(release, case))) == FLOOD_RULES.get((release, case), [])


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", ("default", "log"))
def test_replace_flood_rate_sets_only_the_flood_limit(load_fixture, release, case):
    for rule in icmp_flood_rules(load_fixture("nft_a_list_chain", _name(release, case))):
        new = replace_flood_rate(rule["rule"], 250)
        assert new == rule["rule"].replace("limit rate over %d/second" % DEFAULT_LIMIT[release], "limit rate over 250/second")
        assert new != rule["rule"]
        # the rule read back after `nft replace rule ... handle H <new>` (tests/unit/fixtures/README.md) is the limit250 case's
        after = {r["handle"]: r for r in FLOOD_RULES.get((release, "limit250"))}
        if case == "default":
            assert new == after[rule["handle"]]["rule"]


def test_replace_flood_rate_keeps_the_log_limit_and_the_burst():
    rule = BOTH % 25 + ' burst 10 packets log prefix "banIP/pre-icmp/drop: " limit rate 10/second counter name "cnt_icmpflood" drop'
    assert replace_flood_rate(rule, 250) == rule.replace("over 25/second", "over 250/second")
    assert "limit rate 10/second" in replace_flood_rate(rule, 250)


@pytest.mark.parametrize("rate", [0, -1, 2.5, "250", True, None])
def test_replace_flood_rate_refuses_a_rate_naming_it(rate):
    with pytest.raises(ValueError) as err:
        replace_flood_rate(BOTH % 25 + " counter name \"cnt_icmpflood\" drop", rate)
    assert "rate_per_second" in str(err.value)
    assert re.search(r"(?<!\w)%s(?!\w)" % re.escape(repr(rate)), str(err.value))


@pytest.mark.parametrize("rule, message", [
    ('ct state invalid limit name "loglimit" log prefix "banIP/pre-ct/drop: "', "exactly one 'limit rate over N/second'"),
    ('tcp flags fin,syn / fin,syn log prefix "x" limit rate 10/second counter name "cnt_tcpinvalid" drop', "exactly one"),
    (BOTH % 25 + " " + (BOTH % 25), "exactly one"),
    ('ip protocol icmp limit rate over 10/minute counter name "cnt-icmpflood" drop', "exactly one"),
    (BOTH % 25 + ' counter name "cnt_icmpflood" drop # handle 22', "'# handle N'"),
    (None, "must be text, got NoneType"),
])
def test_replace_flood_rate_refuses_a_rule_it_cannot_change(rule, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        replace_flood_rate(rule, 250)


@pytest.mark.parametrize("text, message", [
    ('\t\tip protocol icmp limit rate over 10/second counter name "cnt-icmpflood" drop\n', "line 1: rule with counter 'cnt-icmpflood' without '# handle N'"),
    ('x\n\t\tip protocol icmp counter name "cnt-icmpflood" drop # handle 3\n', "line 2: rule with counter 'cnt-icmpflood' has no 'limit rate over"),
    (b"", "must be text, got bytes"),
])
def test_icmp_flood_rules_errors(text, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        icmp_flood_rules(text)


def test_icmp_flood_rules_finds_a_log_rule_whose_rate_was_left_behind(load_fixture):
    # the drop rule replaced, the log rule not (yet): both still found, each with its own rate
    text = load_fixture("nft_a_list_chain", _name("25.12", "log")).replace(
        'over 25/second counter name "cnt_icmpflood"', 'over 250/second counter name "cnt_icmpflood"')
    assert [(r["handle"], r["kind"], r["rate_per_second"]) for r in icmp_flood_rules(text)] == [(23, "log", 25), (25, "drop", 250)]


# The whole error texts (the role prints them) and where a flood rule's list stops.
MATCH = "meta nfproto . meta l4proto { ipv4 . icmp, ipv6 . ipv6-icmp } "
LONG_LOG = "log prefix \"banIP/pre-icmp/drop: %s\" level info" % ("x" * 200)


def _error(call, *args):
    with pytest.raises(ParseError) as error:
        call(*args)
    return str(error.value)


def test_another_flood_limit_listed_first_is_passed_over():
    text = ("table inet banIP {\n\tchain pre-routing { # handle 2\n"
            "\t\tmeta l4proto udp limit rate over 100/second counter name \"cnt_udpflood\" drop # handle 4\n"
            "\t\t%slimit rate over 25/second counter name \"cnt_icmpflood\" drop # handle 5\n\t}\n}\n" % MATCH)
    assert [(rule["handle"], rule["rate_per_second"]) for rule in icmp_flood_rules(text)] == [(5, 25)]


def test_the_exact_errors_of_a_listing():
    assert _error(icmp_flood_rules, b"x") == "nft -a list chain output must be text, got bytes"
    log = "%slimit rate over 25/second %s" % (MATCH, LONG_LOG)
    drop = "%slimit rate over 25/second counter name \"cnt_icmpflood\" drop # handle 7" % MATCH
    assert _error(icmp_flood_rules, "\t\t%s\n\t\t%s\n" % (log, drop)) == (
        "nft list line 1: ICMP flood log rule without '# handle N' (list the chain with nft -a), got %r" % log[:200])
    # the log rule's limit in another unit than the drop rule's: not a rate per second
    minute = "%slimit rate over 25/minute %s # handle 6" % (MATCH, LONG_LOG)
    assert _error(icmp_flood_rules, "\t\t%s\n\t\t%s\n" % (minute, drop)) == (
        "nft list line 1: ICMP flood log rule has no 'limit rate over N/second', got %r" % minute[:200])


def test_the_exact_error_of_a_counter_without_its_numbers():
    line = "\t\tpackets 1 bytes " + "x" * 250  # no byte count, and longer than the 200 characters shown
    text = "table inet banIP {\n\tcounter cnt_icmpflood {\n%s\n\t}\n}\n" % line
    assert _error(parse_nft_counters, text) == (
        "nft list line 3: counter 'cnt_icmpflood' (line 2) has no 'packets N bytes N' line, got %r" % line[:200])


def test_the_exact_errors_of_a_rule_that_cannot_be_rewritten():
    assert _error(replace_flood_rate, b"x", 5) == "rule must be text, got bytes"
    twice = "%slimit rate over 25/second %s limit rate over 10/second drop" % (MATCH, LONG_LOG)
    assert _error(replace_flood_rate, twice, 5) == "rule must hold exactly one 'limit rate over N/second', got %r" % twice[:200]
    handled = "%slimit rate over 25/second %s # handle 5" % (MATCH, LONG_LOG)
    assert _error(replace_flood_rate, handled, 5) == (
        "rule must be the rule's text without its '# handle N' comment, got %r" % handled[:200])
