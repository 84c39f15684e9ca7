# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_nft_counters and find_icmp_limit on nft JSON and text, banIP's new and old naming."""

import json
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import find_icmp_limit, icmp_flood_counter, parse_nft_counters

NEW_TABLE = {"cnt_icmpflood": {"packets": 152, "bytes": 12748}, "cnt_udpflood": {"packets": 0, "bytes": 0},
             "cnt_synflood": {"packets": 0, "bytes": 0}}
OLD_TABLE = {"cnt-icmpflood": {"packets": 27, "bytes": 2268}}

COUNTER_CASES = [
    # (command, fixture, table, expected)
    ("nft_list", "case05_counters_old.txt", None, {
        "cnt-icmpflood": {"packets": 220417, "bytes": 18515028}, "cnt-udpflood": {"packets": 0, "bytes": 0},
        "cnt-synflood": {"packets": 88, "bytes": 5280}, "cnt-tcpinvalid": {"packets": 301, "bytes": 15652},
        "cnt-ctinvalid": {"packets": 1290, "bytes": 90300}}),
    ("nft_list", "case05_prerouting_1.8.txt", None, {}),  # rules only: no counter objects
    ("nft_list", "netns_banip_table.txt", None, NEW_TABLE),
    ("nft_list", "netns_banip_old_table.txt", None, OLD_TABLE),
    ("nft_list", "netns_counters.txt", None, dict(NEW_TABLE, **OLD_TABLE)),
    ("nft_list", "netns_counters.txt", "banIPold", OLD_TABLE),
    ("nft_list", "netns_old_chain_burst10.txt", None, {}),  # anonymous `counter packets 0 bytes 0` left out
    ("nft_j_list", "netns_banip_table.txt", None, NEW_TABLE),
    ("nft_j_list", "netns_banip_old_table.txt", None, OLD_TABLE),
    ("nft_j_list", "netns_counters.txt", None, dict(NEW_TABLE, **OLD_TABLE)),
    ("nft_j_list", "netns_counters.txt", "banIP", NEW_TABLE),
    ("nft_j_list", "netns_ruleset.txt", "banIP",  # one more ping counted between the two recordings
     dict(NEW_TABLE, cnt_icmpflood={"packets": 153, "bytes": 12804})),
    ("nft_j_list", "netns_old_chain_burst10.txt", None, {}),
    ("nft_j_list", "netns_icmplimit_250_burst10.txt", None, {}),
]


@pytest.mark.parametrize("command, case, table, expected", COUNTER_CASES)
def test_parse_nft_counters(load_fixture, command, case, table, expected):
    assert parse_nft_counters(load_fixture(command, case), table=table) == expected


@pytest.mark.parametrize("case", ["netns_banip_table.txt", "netns_banip_old_table.txt", "netns_counters.txt"])
def test_counters_text_and_json_agree(load_fixture, case):
    # both recorded from the same namespace state, one right after the other
    assert parse_nft_counters(load_fixture("nft_list", case)) == parse_nft_counters(load_fixture("nft_j_list", case))


def test_parse_nft_counters_empty():
    assert parse_nft_counters("") == {}


@pytest.mark.parametrize("text, message", [
    ('{"nftables": [{"counter": {"name": "cnt_icmpflood", "table": "banIP", "packets": "12", "bytes": 0}}]}',
     "counter 'cnt_icmpflood': packets must be a non-negative integer, got '12'"),
    ('{"nftables": [{"counter": {"table": "banIP", "packets": 1, "bytes": 0}}]}', "counter object without a name"),
    ('{"nftables": [{"counter": {"name": "c", "table": "a", "packets": 1, "bytes": 1}}, '
     '{"counter": {"name": "c", "table": "b", "packets": 2, "bytes": 2}}]}', "counter 'c' is in tables a and b"),
    ('{"nftables": {}}', "must be an object with an 'nftables' list"),
    ('{"nftables": [', "not JSON \\(line 1"),
    ("table inet banIP {\n\tcounter cnt_icmpflood {\n\t\tpackets 1 bytes\n\t}\n}\n",
     "line 3: counter 'cnt_icmpflood' \\(line 2\\) has no 'packets N bytes N' line"),
    ("table inet banIP {\n\tcounter cnt_icmpflood {\n\t}\n}\n", "line 3: counter 'cnt_icmpflood'"),
    (42, "must be text, got int"),
])
def test_parse_nft_counters_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_nft_counters(text)


LIMIT_CASES = [
    # (command, fixture, expected)
    ("nft_list", "case05_prerouting_1.8.txt",
     {"rate_per_second": 25, "burst_packets": None, "counter": "cnt_icmpflood", "rules": 1, "rates_per_second": [25]}),
    ("nft_list", "case05_prerouting_1.0.txt",
     {"rate_per_second": 10, "burst_packets": None, "counter": "cnt-icmpflood", "rules": 2, "rates_per_second": [10, 10]}),
    ("nft_list", "netns_banip_table.txt",
     {"rate_per_second": 25, "burst_packets": None, "counter": "cnt_icmpflood", "rules": 1, "rates_per_second": [25]}),
    ("nft_list", "netns_banip_old_table.txt",
     {"rate_per_second": 10, "burst_packets": None, "counter": "cnt-icmpflood", "rules": 2, "rates_per_second": [10, 10]}),
    ("nft_list", "netns_icmplimit_250_burst10.txt",
     {"rate_per_second": 250, "burst_packets": 10, "counter": "cnt_icmpflood", "rules": 1, "rates_per_second": [250]}),
    ("nft_j_list", "netns_banip_table.txt",
     {"rate_per_second": 25, "burst_packets": 5, "counter": "cnt_icmpflood", "rules": 1, "rates_per_second": [25]}),
    ("nft_j_list", "netns_banip_old_table.txt",
     {"rate_per_second": 10, "burst_packets": 5, "counter": "cnt-icmpflood", "rules": 2, "rates_per_second": [10, 10]}),
    ("nft_j_list", "netns_old_chain_burst10.txt",  # the third, anonymous-counter rule is not banIP's
     {"rate_per_second": 10, "burst_packets": 5, "counter": "cnt-icmpflood", "rules": 2, "rates_per_second": [10, 10]}),
    ("nft_j_list", "netns_icmplimit_250_burst10.txt",
     {"rate_per_second": 250, "burst_packets": 10, "counter": "cnt_icmpflood", "rules": 1, "rates_per_second": [250]}),
    ("nft_j_list", "netns_ruleset.txt",  # both tables loaded: the new one is listed first
     {"rate_per_second": 25, "burst_packets": 5, "counter": "cnt_icmpflood", "rules": 3, "rates_per_second": [25, 10, 10]}),
    ("nft_list", "case05_counters_old.txt", None),  # counters only, no rule
    ("nft_list", "netns_counters.txt", None),
    ("nft_j_list", "netns_counters.txt", None),
]


@pytest.mark.parametrize("command, case, expected", LIMIT_CASES)
def test_find_icmp_limit(load_fixture, command, case, expected):
    assert find_icmp_limit(load_fixture(command, case)) == expected


@pytest.mark.parametrize("text, message", [
    ('\t\tip protocol icmp counter name "cnt-icmpflood" drop\n',
     "line 1: rule with counter 'cnt-icmpflood' has no 'limit rate over N/second'"),
    ('table inet banIP {\n\tchain pre-routing {\n\t\tmeta l4proto icmp limit rate over 10/minute '
     'counter name "cnt_icmpflood" drop\n', "line 3: rule with counter 'cnt_icmpflood'"),
    ('\t\tip protocol icmp limit rate over 10 mbytes/second counter name cnt_icmpflood drop\n', "line 1"),
    ('{"nftables": [{"rule": {"chain": "pre-routing", "handle": 8, "expr": [{"counter": "cnt_icmpflood"}, '
     '{"drop": null}]}}]}', "rule 8 in chain pre-routing: counter 'cnt_icmpflood' without a 'limit rate over'"),
    ('{"nftables": [{"rule": {"chain": "pre-routing", "handle": 8, "expr": [{"limit": {"rate": 25, "burst": 5, '
     '"per": "minute", "inv": true}}, {"counter": "cnt_icmpflood"}]}}]}',
     "rule 8 in chain pre-routing: expected a packet rate per second"),
    ('{"nftables": [{"rule": {"chain": "pre-routing", "handle": 8, "expr": [{"limit": {"rate": 25, "burst": "5", '
     '"per": "second", "inv": true}}, {"counter": "cnt_icmpflood"}]}}]}', "limit burst must be an integer, got '5'"),
    ("{not json", "not JSON"),
    (None, "must be text, got NoneType"),
])
def test_find_icmp_limit_errors(text, message):
    with pytest.raises(ParseError, match=message):
        find_icmp_limit(text)


def test_ruleset_counters_of_a_later_table(load_fixture):
    # banIP's counters come first in the ruleset; the old table's follow
    assert parse_nft_counters(load_fixture("nft_j_list", "netns_ruleset.txt"), table="banIPold") == OLD_TABLE


def test_json_after_leading_blank_lines(load_fixture):
    assert parse_nft_counters("\n  " + load_fixture("nft_j_list", "netns_banip_old_table.txt")) == OLD_TABLE


@pytest.mark.parametrize("field", ["packets", "bytes"])
def test_counter_with_a_negative_value_is_refused_naming_counter_and_field(field):
    counter = {"name": "cnt_icmpflood", "table": "banIP", "packets": 1, "bytes": 1}
    counter[field] = -1
    with pytest.raises(ParseError) as err:
        parse_nft_counters(json.dumps({"nftables": [{"counter": counter}]}))
    assert re.search(r"(?<!\w)'cnt_icmpflood'(?!\w)", str(err.value))
    assert re.search(r"(?<!\w)%s(?!\w)" % field, str(err.value))


def test_same_counter_name_in_two_text_tables_is_ambiguous():
    text = ("table inet banIP {\n\tcounter cnt_icmpflood {\n\t\tpackets 1 bytes 84\n\t}\n}\n"
            "table inet banIP2 {\n\tcounter cnt_icmpflood {\n\t\tpackets 2 bytes 168\n\t}\n}\n")
    with pytest.raises(ParseError, match="counter 'cnt_icmpflood' is in tables banIP and banIP2"):
        parse_nft_counters(text)
    assert parse_nft_counters(text, table="banIP2") == {"cnt_icmpflood": {"packets": 2, "bytes": 168}}


def _limit_rule(limit):
    return json.dumps({"nftables": [{"rule": {"family": "inet", "table": "banIP", "chain": "pre-routing", "handle": 7,
                                              "expr": [{"limit": limit}, {"counter": "cnt_icmpflood"}, {"drop": None}]}}]})


@pytest.mark.parametrize("limit, shown", [
    ({"rate": 10, "burst": 5, "per": "second", "rate_unit": "kbytes", "inv": True}, "'kbytes'"),  # limit rate over 10 kbytes/second
    ({"rate": 25, "burst": 5, "per": "minute", "inv": True}, "'minute'"),
    ({"rate": "fast", "burst": 5, "per": "second", "inv": True}, "'fast'"),
    ({"rate": True, "burst": 5, "per": "second", "inv": True}, "True"),
    ({"rate": 25, "burst": "5", "per": "second", "inv": True}, "'5'"),
])
def test_icmp_limit_that_is_not_packets_per_second_is_refused(limit, shown):
    with pytest.raises(ParseError) as err:
        find_icmp_limit(_limit_rule(limit))
    assert re.search(r"(?<!\w)rule 7 in chain pre-routing(?!\w)", str(err.value))
    assert re.search(r"(?<!\w)%s(?!\w)" % re.escape(shown), str(err.value))


def test_icmp_limit_in_packets_per_second_is_read():
    assert find_icmp_limit(_limit_rule({"rate": 25, "burst": 5, "per": "second", "rate_unit": "packets", "inv": True})) == \
        {"rate_per_second": 25, "burst_packets": 5, "counter": "cnt_icmpflood", "rules": 1, "rates_per_second": [25]}


@pytest.mark.parametrize("function", [parse_nft_counters, find_icmp_limit])
def test_non_text_is_refused_naming_its_type(function):
    with pytest.raises(ParseError) as err:
        function(b"{}")
    assert re.search(r"(?<!\w)bytes(?!\w)", str(err.value))


def test_icmp_flood_counter_refuses_a_list_naming_it():
    with pytest.raises(ParseError) as err:
        icmp_flood_counter([("cnt_icmpflood", 1)])
    assert re.search(r"(?<!\w)list(?!\w)", str(err.value))


# Hostile JSON from a target (issue 30.10): 100000 '[' (RecursionError in json.loads), a 5000-digit counter (ValueError on
# Python >= 3.11), 600 levels (decodes, deeper than any real output): each a ParseError naming nft -j.
HOSTILE_NFT = ['{"nftables": ' + "[" * 100000,
               '{"nftables": [{"counter": {"family": "inet", "table": "banIP", "name": "cnt_icmpflood", "packets": %s, "bytes": 0}}]}'
               % ("9" * 5000),
               '{"nftables": [{"rule": {"expr": %s}}]}' % ("[" * 600 + "]" * 600)]


@pytest.mark.parametrize("function", [parse_nft_counters, find_icmp_limit])
@pytest.mark.parametrize("text", HOSTILE_NFT, ids=["deep", "5000_digits", "600_levels"])
def test_hostile_json_is_a_parse_error_naming_the_command(function, text):
    with pytest.raises(ParseError, match=r"^nft -j output (is JSON nested|holds a value that cannot be read)"):
        function(text)
