# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/faults/banip_icmp/flood_rule: banIP's live ICMP flood rule(s) per release, and the in-place rewrite."""

from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.flood_rule import (
    live_icmp_limit, live_icmp_limit_text, parse_icmp_flood_rules, replace_script, shell_quote)

FIXTURES = Path(__file__).resolve().parents[4] / "fixtures" / "nft_banip_prerouting"
SHARED = "meta nfproto . meta l4proto { ipv4 . icmp, ipv6 . ipv6-icmp } limit rate over %d/second"


def fixture(name):
    return (FIXTURES / name).read_text()


@pytest.mark.parametrize("name, expected", [
    ("23.05_default.txt", [(4, 10, "cnt-icmpflood", "drop"), (5, 10, "cnt-icmpflood", "drop")]),   # banIP 1.0.1: one rule per family
    ("24.10_default.txt", [(5, 25, "cnt_icmpflood", "drop")]),
    ("25.12_default.txt", [(5, 25, "cnt_icmpflood", "drop")]),
    ("25.12_logging_250.txt", [(5, 250, None, "log"), (7, 250, "cnt_icmpflood", "drop")]),         # 1.8: a log rule of its own
    ("24.10_icmplimit_0.txt", []),
])
def test_flood_rules_per_release(name, expected):
    rules = parse_icmp_flood_rules(fixture(name))
    assert [(r["handle"], r["rate_per_second"], r["counter"], r["kind"]) for r in rules] == expected
    assert all("# handle" not in r["rule"] for r in rules)


def test_live_limit_and_words():
    live = live_icmp_limit(0, fixture("23.05_default.txt"))
    assert (live["chain_loaded"], live["rates_per_second"], live["rate_per_second"]) == (True, [10], 10)
    assert live_icmp_limit_text(live) == "10/s"
    # the table deleted while banIP restarts: nft fails, nothing loaded
    gone = live_icmp_limit(1, fixture("23.05_restarting.txt"))
    assert gone == {"chain_loaded": False, "rules": [], "rates_per_second": [], "rate_per_second": None}
    assert live_icmp_limit_text(gone) == "table inet banIP not loaded"
    assert live_icmp_limit_text(live_icmp_limit(0, fixture("24.10_icmplimit_0.txt"))) == "no ICMP flood rule"


def test_rules_that_differ_have_no_one_rate():
    """One of 1.0.1's two rules rewritten by hand: the live limit is not the new one."""
    text = fixture("23.05_default.txt").replace("over 10/second counter name \"cnt-icmpflood\" drop # handle 5",
                                                "over 250/second counter name \"cnt-icmpflood\" drop # handle 5")
    live = live_icmp_limit(0, text)
    assert (live["rates_per_second"], live["rate_per_second"]) == ([10, 250], None)
    assert live_icmp_limit_text(live) == "10/s and 250/s (rules differ)"


@pytest.mark.parametrize("name, rate, expected", [
    ("24.10_default.txt", 250, ['replace rule inet banIP pre-routing handle 5 %s counter name "cnt_icmpflood" drop' % (SHARED % 250)]),
    ("23.05_default.txt", 250, [
        'replace rule inet banIP pre-routing handle 4 ip protocol icmp limit rate over 250/second counter name "cnt-icmpflood" drop',
        'replace rule inet banIP pre-routing handle 5 ip6 nexthdr ipv6-icmp limit rate over 250/second counter name "cnt-icmpflood" drop']),
    ("25.12_logging_250.txt", 300, [
        'replace rule inet banIP pre-routing handle 5 %s log prefix "banIP/pre-icmp/drop: " level info' % (SHARED % 300),
        'replace rule inet banIP pre-routing handle 7 %s counter name "cnt_icmpflood" drop' % (SHARED % 300)]),
])
def test_replace_script_rewrites_only_the_rate(name, rate, expected):
    assert replace_script(parse_icmp_flood_rules(fixture(name)), rate) == expected


@pytest.mark.parametrize("rate", [0, -1, True, "250", 2 ** 32])
def test_replace_script_refuses_an_impossible_rate(rate):
    with pytest.raises(ValueError, match="rate_per_second must be a whole number"):
        replace_script(parse_icmp_flood_rules(fixture("24.10_default.txt")), rate)


def test_replace_script_refuses_a_rule_without_handle():
    with pytest.raises(ValueError, match="not an ICMP flood rule"):
        replace_script([{"rule": SHARED % 25}], 250)


@pytest.mark.parametrize("text, message", [
    ("", "not a listing of table inet banIP"),
    ("table inet fw4 {\n\tchain input {\n\t}\n}\n", "not a listing of table inet banIP"),
    ("table inet banIP {\n\tchain wan-input { # handle 3\n\t}\n}\n", "not a listing of chain pre-routing"),
    # listed without -a: no handles, nothing to replace
    ("table inet banIP {\n\tchain pre-routing {\n\t\ttype filter hook prerouting priority -175; policy accept;\n"
     "\t\t%s counter name \"cnt_icmpflood\" drop\n\t}\n}\n" % (SHARED % 25), "without '# handle N'"),
    ("table inet banIP {\n\tchain pre-routing { # handle 2\n"
     "\t\tip protocol icmp limit rate over 0/second counter name \"cnt-icmpflood\" drop # handle 4\n\t}\n}\n",
     "impossible rate 0/second"),
])
def test_not_a_chain_listing(text, message):
    with pytest.raises(ParseError, match=message):
        parse_icmp_flood_rules(text)


def test_shell_quote():
    assert shell_quote("a 'b' \"c\"") == "'a '\\''b'\\'' \"c\"'"


# Real banIP tables of each release (recorded from upstream's f_nftinit, tests/unit/fixtures/README.md):
# the live limit the role reads, and the replace script the role runs, on every rule that carries it.
@pytest.mark.parametrize("release, case, rules, rate", [
    ("23.05", "default", 2, 10), ("23.05", "limit250", 2, 250), ("23.05", "log", 2, 10), ("23.05", "limit0", 0, None),
    ("24.10", "default", 1, 25), ("24.10", "limit250", 1, 250), ("24.10", "log", 1, 25), ("24.10", "limit0", 0, None),
    ("25.12", "default", 1, 25), ("25.12", "limit250", 1, 250), ("25.12", "log", 2, 25), ("25.12", "limit0", 0, None),
])
def test_live_limit_and_replace_script_on_every_releases_real_table(load_fixture, release, case, rules, rate):
    live = live_icmp_limit(0, load_fixture("nft_a_list_chain", "%s_banip_%s.txt" % (release, case)))
    assert len(live["rules"]) == rules
    assert live["rate_per_second"] == rate
    if rules:
        script = replace_script(live["rules"], 300)
        assert len(script) == rules
        assert all(line.startswith("replace rule inet banIP pre-routing handle ") and "limit rate over 300/second" in line
                   and "limit rate over %d/second" % rate not in line for line in script)


# The whole error texts: the role prints them when a listing or a wanted rate cannot be used.
HEAD = "table inet banIP {\n\tchain pre-routing { # handle 2\n"


def chain_with_rate(rate):
    return HEAD + "\t\t%s counter name \"cnt_icmpflood\" drop # handle 5\n\t}\n}\n" % (SHARED % rate)


@pytest.mark.parametrize("text, message", [
    (b"table inet banIP {", "expected the text of nft -t -a list chain inet banIP pre-routing, got bytes"),
    (None, "expected the text of nft -t -a list chain inet banIP pre-routing, got NoneType"),
    ("", "not a listing of table inet banIP: ''"),
    ("\n  \n", "not a listing of table inet banIP: '\\n  \\n'"),                    # no line: the text itself
    ("table inet fw4 {\n\tchain input {\n\t}\n}\n", "not a listing of table inet banIP: 'table inet fw4 {'"),
    ("table inet banIP {\n\tchain pre-routing {\n", "not a listing of table inet banIP: 'table inet banIP {'"),  # two lines
    (HEAD.replace("pre-routing", "wan-input") + "\t}\n}\n", "not a listing of chain pre-routing: 'chain wan-input { # handle 2'"),
    (chain_with_rate(0), "ICMP flood rule with an impossible rate 0/second: '%s counter name \"cnt_icmpflood\" drop'" % (SHARED % 0)),
    (chain_with_rate(4294967296), "ICMP flood rule with an impossible rate 4294967296/second: "
                                  "'%s counter name \"cnt_icmpflood\" drop'" % (SHARED % 4294967296)),
])
def test_the_exact_error_of_a_listing_that_is_not_the_chain(text, message):
    with pytest.raises(ParseError) as error:
        parse_icmp_flood_rules(text)
    assert str(error.value) == message


@pytest.mark.parametrize("rate", [1, 4294967295])
def test_the_lowest_and_highest_rate_nft_takes_are_read(rate):
    """Both ends of nft's 32-bit rate: a rule someone set to 1/s or to the maximum is banIP's limit all the same."""
    (rule,) = parse_icmp_flood_rules(chain_with_rate(rate))
    assert (rule["handle"], rule["rate_per_second"]) == (5, rate)
    assert replace_script([rule], rate) == ['replace rule inet banIP pre-routing handle 5 %s counter name "cnt_icmpflood" drop'
                                            % (SHARED % rate)]


def test_three_lines_are_enough_for_an_empty_chain():
    """The table and chain heads and one more line: a chain without rules, no flood rule; two lines are not a listing."""
    assert parse_icmp_flood_rules("table inet banIP {\n\tchain pre-routing { # handle 2\n\t}\n") == []


@pytest.mark.parametrize("rate", [0, 4294967296])
def test_the_exact_error_of_an_impossible_rate(rate):
    with pytest.raises(ValueError) as error:
        replace_script([], rate)
    assert str(error.value) == "rate_per_second must be a whole number 1-4294967295, got %d" % rate


@pytest.mark.parametrize("rule, message", [
    ({"rule": SHARED % 25}, "not an ICMP flood rule with handle and limit: {'rule': '%s'}" % (SHARED % 25)),
    ("%s drop" % (SHARED % 25), "not an ICMP flood rule with handle and limit: '%s drop'" % (SHARED % 25)),   # not parsed
    (None, "not an ICMP flood rule with handle and limit: None"),
    ({"handle": 5, "rule": "ip protocol icmp counter drop"},
     "not an ICMP flood rule with handle and limit: rule must hold exactly one 'limit rate over N/second', got 'ip protocol icmp counter drop'"),
])
def test_the_exact_error_of_a_rule_that_cannot_be_rewritten(rule, message):
    with pytest.raises(ValueError) as error:
        replace_script([rule], 250)
    assert str(error.value) == message
