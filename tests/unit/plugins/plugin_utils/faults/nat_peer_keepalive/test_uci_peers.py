# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""uci_wireguard_keepalive_targets."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.uci_peers import uci_wireguard_keepalive_targets

D, E, H = "D" * 43 + "=", "E" * 43 + "=", "H" * 43 + "="

TWO_IFACES = """network.wg0=interface
network.wg0.proto='wireguard'
network.wg1=interface
network.wg1.proto='wireguard'
network.lan=interface
network.lan.proto='static'
network.@wireguard_wg1[0]=wireguard_wg1
network.@wireguard_wg1[0].public_key='%s'
network.@wireguard_wg1[0].endpoint_host='203.0.113.9'
network.@wireguard_wg1[0].persistent_keepalive='25'
network.@wireguard_wg0[0]=wireguard_wg0
network.@wireguard_wg0[0].public_key='%s'
network.@wireguard_wg0[0].endpoint_host='hub.example.net'
""" % (H, D)

CASES = [
    # (fixture or text, interfaces, public_keys, [(interface, section, ref, public_key, keepalive)])
    ("case11", ["wg0"], None, [("wg0", "dc", "dc", E, None)]),
    ("case11", None, [], [("wg0", "dc", "dc", E, None)]),
    ("case11", [], [D], [("wg0", "@wireguard_wg0[0]", "@wireguard_wg0[0]", D, None)]),
    ("case11", ["wg0"], [D, E, H], [("wg0", "@wireguard_wg0[0]", "@wireguard_wg0[0]", D, None),
                                    ("wg0", "dc", "dc", E, None)]),
    ("case11", ["wg0"], [H], []),
    (TWO_IFACES, None, None, [("wg0", "@wireguard_wg0[0]", "@wireguard_wg0[0]", D, None),
                              ("wg1", "@wireguard_wg1[0]", "@wireguard_wg1[0]", H, 25)]),
    (TWO_IFACES, ["wg1"], None, [("wg1", "@wireguard_wg1[0]", "@wireguard_wg1[0]", H, 25)]),
    ("network.wg0=interface\nnetwork.wg0.proto='wireguard'\n", None, None, []),
    ("", None, None, []),
]


@pytest.mark.parametrize("source, interfaces, public_keys, expected", CASES)
def test_targets(load_fixture, source, interfaces, public_keys, expected):
    text = load_fixture("uci_show", "case11_network_wg.txt") if source == "case11" else source
    targets = uci_wireguard_keepalive_targets(parse_uci_show(text), interfaces, public_keys)
    assert [(t["interface"], t["section"], t["ref"], t["public_key"], t["persistent_keepalive_s"])
            for t in targets] == expected


def test_named_section_reports_endpoint_and_no_secret(load_fixture):
    targets = uci_wireguard_keepalive_targets(parse_uci_show(load_fixture("uci_show", "case11_network_wg.txt")))
    assert targets[0]["endpoint_host"] == "dc.example.net"
    assert "P" * 43 not in repr(targets)


ERRORS = [
    ("case11", ["wg9"], None, "no uci interface with proto 'wireguard' named wg9 in network (found: wg0)"),
    (TWO_IFACES, ["lan"], None, "named lan"),
    ("network.wg0=interface\nnetwork.wg0.proto='wireguard'\nnetwork.p=wireguard_wg0\nnetwork.p.endpoint_host='x'\n",
     None, None, "network.p (wireguard_wg0) has no public_key"),
    ("network.wg0=interface\nnetwork.wg0.proto='wireguard'\nnetwork.p=wireguard_wg0\nnetwork.p.public_key='%s'\n"
     "network.p.endpoint_host='x'\nnetwork.p.persistent_keepalive='25s'\n" % H, None, None,
     "network.p.persistent_keepalive: expected a whole number"),
]


@pytest.mark.parametrize("source, interfaces, public_keys, message", ERRORS)
def test_errors(load_fixture, source, interfaces, public_keys, message):
    text = load_fixture("uci_show", "case11_network_wg.txt") if source == "case11" else source
    with pytest.raises(ParseError) as err:
        uci_wireguard_keepalive_targets(parse_uci_show(text), interfaces, public_keys)
    assert message in str(err.value)


def test_not_parsed_input():
    with pytest.raises(ParseError, match="expected parsed uci show output"):
        uci_wireguard_keepalive_targets("network.wg0=interface")


def test_empty_public_key_is_refused_naming_the_section():
    text = ("network.wg0=interface\nnetwork.wg0.proto='wireguard'\n"
            "network.@wireguard_wg0[0]=wireguard_wg0\nnetwork.@wireguard_wg0[0].public_key=''\n"
            "network.@wireguard_wg0[0].endpoint_host='203.0.113.10'\n")
    with pytest.raises(ParseError, match=r"network\.@wireguard_wg0\[0\] .*public_key"):
        uci_wireguard_keepalive_targets(parse_uci_show(text))


def test_keys_asked_for_are_found_after_other_peers():
    text = ("network.wg0=interface\nnetwork.wg0.proto='wireguard'\n"
            "network.@wireguard_wg0[0]=wireguard_wg0\nnetwork.@wireguard_wg0[0].public_key='%s'\n"
            "network.@wireguard_wg0[1]=wireguard_wg0\nnetwork.@wireguard_wg0[1].public_key='%s'\n"
            % ("B" * 43 + "=", "C" * 43 + "="))
    targets = uci_wireguard_keepalive_targets(parse_uci_show(text), public_keys=["C" * 43 + "="])
    assert [(t["ref"], t["public_key"][0]) for t in targets] == [("@wireguard_wg0[1]", "C")]


def test_not_parsed_input_names_its_type():
    with pytest.raises(ParseError, match=r"(?<!\w)list(?!\w)"):
        uci_wireguard_keepalive_targets([])
