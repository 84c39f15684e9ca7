# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""link_addresses: every device's live addresses (``ip -j addr show``), and its gather's notes when they are unknown."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.reads import (
    LINK_ADDRESSES, gather_link_addresses, parse_device_addresses)


def _link(name, flags=("UP",), infos=()):
    return {"ifname": name, "flags": list(flags), "addr_info": list(infos)}


def test_only_devices_up_with_their_inet_and_inet6_addresses_in_order():
    text = json.dumps([
        _link("eth0", ["BROADCAST", "UP", "LOWER_UP"], [
            {"family": "inet", "local": "192.168.1.2", "prefixlen": 24},
            {"family": "inet6", "local": "fe80::1", "prefixlen": 64},
            {"family": "link", "local": "aa:bb", "prefixlen": 48},            # not an address family the rule reads
            {"family": "inet", "local": 7, "prefixlen": 24},                  # no text address
            {"family": "inet", "local": "192.168.9.2", "prefixlen": "24"},    # no number of bits
            {"family": "inet", "local": "192.168.9.3"},                       # none at all
            {"local": "192.168.9.4", "prefixlen": 24},                        # no family
            {"family": "inet6", "local": "fd00::2", "prefixlen": 0}]),
        _link("eth1", ["BROADCAST"], [{"family": "inet", "local": "10.0.0.1", "prefixlen": 8}]),   # down
        _link("eth2", ["UP"]),                                                # up, no address
        {"ifname": "eth3", "flags": "UP", "addr_info": []},                   # flags not a list: not known up
        {"ifname": "eth4", "addr_info": []},                                  # no flags
    ])
    assert parse_device_addresses(text) == {"eth0": ["192.168.1.2/24", "fe80::1/64", "fd00::2/0"], "eth2": []}


def test_empty_output_lists_no_device():
    assert parse_device_addresses("") == {} and parse_device_addresses("[]") == {}


@pytest.mark.parametrize("link", [{"ifname": "eth0", "flags": ["UP"]}, {"ifname": "eth0", "flags": ["UP"], "addr_info": None},
                                  {"ifname": "eth0", "flags": ["DOWN"], "addr_info": ["192.168.1.2/24"]},
                                  {"ifname": "eth0", "flags": ["UP"], "addr_info": [{"family": "inet"}, "x"]}])
def test_a_device_without_a_list_of_address_objects_is_an_error(link):
    # down or up: the listing is not ip -j addr show's
    with pytest.raises(ParseError) as info:
        parse_device_addresses(json.dumps([link]))
    assert str(info.value) == "ip -j addr show output must list each device's addresses ('addr_info'), eth0 has none"


def test_text_that_is_not_the_listing_is_an_error_naming_the_command():
    with pytest.raises(ParseError, match="^ip -j addr show output is not JSON"):
        parse_device_addresses("1: lo: <LOOPBACK,UP> mtu 65536")


class _Action:
    """A host's runner answering one step with ``res``; records the steps it ran."""

    def __init__(self, rc=0, stdout="", stderr=""):
        self.res, self.steps = {"rc": rc, "stdout": stdout, "stderr": stderr}, []

    def step(self, argv, ok_rcs=None):
        self.steps.append((list(argv), ok_rcs))
        return self.res


def test_gather_reads_every_device():
    action = _Action(stdout=json.dumps([_link("eth0", infos=[{"family": "inet", "local": "192.168.1.2", "prefixlen": 24}])]))
    assert gather_link_addresses(action, {}, {}) == {"devices": {"eth0": ["192.168.1.2/24"]}, "note": None}
    assert [argv for argv, _ok in action.steps] == [["ip", "-j", "addr", "show"]]
    assert list(action.steps[0][1]) == list(range(256))     # any exit status comes back: a failure is a note, not an error


@pytest.mark.parametrize("res, note", [
    ({"rc": 1, "stderr": "Object \"addr\" is unknown\nTry ip help\n"},
     "ip -j addr show failed (rc=1: Object \"addr\" is unknown): live addresses unknown"),
    ({"rc": 255, "stderr": None}, "ip -j addr show failed (rc=255: no output): live addresses unknown"),
    ({"rc": 2, "stderr": "  \n"}, "ip -j addr show failed (rc=2: no output): live addresses unknown"),
    ({"rc": 1, "stderr": "e" * 300}, "ip -j addr show failed (rc=1: %s): live addresses unknown" % ("e" * 200)),
    ({"rc": 0, "stdout": None}, "ip -j addr show printed nothing: live addresses unknown"),
    ({"rc": 0, "stdout": " \n"}, "ip -j addr show printed nothing: live addresses unknown"),
    ({"rc": 0, "stdout": "[{\"ifname\": \"eth0\"}]"},
     "ip -j addr show output must list each device's addresses ('addr_info'), eth0 has none: live addresses unknown"),
])
def test_gather_notes_why_the_addresses_are_unknown_never_none(res, note):
    action = _Action(**{"stdout": "", "stderr": "", **res})
    assert gather_link_addresses(action, {}, {}) == {"devices": None, "note": note}


def test_a_long_parse_error_is_cut_in_the_note():
    action = _Action(stdout="x" * 500)      # BusyBox's ip without -j: text echoed in the error
    got = gather_link_addresses(action, {}, {})
    assert got["devices"] is None
    assert got["note"].endswith(": live addresses unknown") and len(got["note"]) == 200 + len(": live addresses unknown")


def test_the_reading_runs_on_both_platforms_with_the_one_listing():
    assert LINK_ADDRESSES.name == "link_addresses"
    for platform in ("linux", "openwrt"):
        read = LINK_ADDRESSES.on(platform)
        assert [step.argv for step in read.steps] == [["ip", "-j", "addr", "show"]] and read.gather is gather_link_addresses
