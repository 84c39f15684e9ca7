# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ipnet: addresses and prefixes read with netaddr (strict, both families, zones), coverage of a family, a missing netaddr."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet


@pytest.mark.parametrize("text, shown, version", [
    ("203.0.113.10", "203.0.113.10", 4),
    ("0.0.0.0", "0.0.0.0", 4),
    ("255.255.255.255", "255.255.255.255", 4),
    ("2001:0db8::0001", "2001:db8::1", 6),
    ("::1", "::1", 6),
    ("::ffff:203.0.113.10", "::ffff:203.0.113.10", 6),
    ("fe80::1%wg0", "fe80::1%wg0", 6),
    ("fe80::1%br-lan", "fe80::1%br-lan", 6),
])
def test_address(text, shown, version):
    got = ipnet.address(text)
    assert (str(got), got.version) == (shown, version)


@pytest.mark.parametrize("text", [
    "300.1.1.1", "256.0.0.0", "10.1", "010.0.0.1", "1.2.3.04", "0x0a000001", "167772161", "", " 10.0.0.1", "10.0.0.1\n",
    "[::1]", "10.0.0.0/8", "1::::::::1", "fd00::zz", "fe80::1%", "fe80::1%a b", "10.0.0.1%eth0", "dc.example.net",
    None, 42, ["10.0.0.1"],
])
def test_not_an_address(text):
    assert ipnet.address(text) is None


def test_a_zone_is_part_of_the_scoped_address():
    scoped = ipnet.address("fe80::1%wg0")
    assert scoped == ipnet.address("fe80::1%wg0") and hash(scoped) == hash(ipnet.address("fe80::1%wg0"))
    assert scoped != ipnet.address("fe80::1") and ipnet.address("fe80::1") != scoped
    assert scoped != ipnet.address("fe80::1%wg1")
    assert scoped in ipnet.network("fe80::/64") and scoped not in ipnet.network("fe81::/64")


@pytest.mark.parametrize("text, cidr", [
    ("10.0.0.0/8", "10.0.0.0/8"),
    ("10.0.0.1/24", "10.0.0.0/24"),
    ("203.0.113.10", "203.0.113.10/32"),
    ("10.0.0.0/255.255.255.0", "10.0.0.0/24"),
    ("10.0.0.0/32", "10.0.0.0/32"),
    ("0.0.0.0/0", "0.0.0.0/0"),
    ("0::0/0", "::/0"),
    ("8000::/1", "8000::/1"),
    ("2001:db8::1/128", "2001:db8::1/128"),
    ("::ffff:0:0/96", "::ffff:0.0.0.0/96"),
])
def test_network(text, cidr):
    assert str(ipnet.network(text)) == cidr


@pytest.mark.parametrize("text", [
    "10.0.0.0/33", "::/129", "300.1.1.1/8", "10/8", "10.1/16", "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0.0/8 ", " 10.0.0.0/8",
    "10.0.0.0/", "/8", "10.0.0.0/8/8", "fe80::%wg0/64", "fe80::1%wg0", "[::1]", "", "default", None, 8, "10.0.0.0/8\n",
    "203.0.113.10 ", "::1\n", "10.0.0.0 /8", "10.0.0.0/1234", "10.0.0.0/255.0.255.0",
])
def test_not_a_network(text):
    assert ipnet.network(text) is None


def _nets(*texts):
    return [ipnet.network(text) for text in texts]


@pytest.mark.parametrize("prefixes, version, covered", [
    (("0.0.0.0/0",), 4, True),
    (("0.0.0.0/1", "128.0.0.0/1"), 4, True),
    (("0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"), 4, True),
    (("0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/2"), 4, True),
    (("0.0.0.0/1", "128.0.0.0/1", "10.0.0.0/8"), 4, True),
    (("0.0.0.0/1", "10.0.0.0/8", "100.0.0.0/1"), 4, False),       # 100.0.0.0/1 is 0.0.0.0/1: the upper half is missing
    (("0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2"), 4, False),
    (("0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4", "240.0.0.0/5"), 4, False),  # 248.0.0.0/5 missing
    (("0.0.0.0/1",), 4, False),
    (("::/0",), 4, False),
    (("::ffff:0:0/96",), 4, False),
    ((), 4, False),
    (("::/0",), 6, True),
    (("::/1", "8000::/1"), 6, True),
    (("::/2", "4000::/2", "8000::/2", "c000::/2"), 6, True),
    (("::/1",), 6, False),
    (("0.0.0.0/0",), 6, False),
    (("2000::/3",), 6, False),
])
def test_covers_everything(prefixes, version, covered):
    assert ipnet.covers_everything(_nets(*prefixes), version) is covered


@pytest.mark.parametrize("prefixes, outer", [
    (("0.0.0.0/1", "10.0.0.0/8", "128.0.0.0/1", "0.0.0.0/1"), ["0.0.0.0/1", "128.0.0.0/1"]),
    (("128.0.0.0/1", "0.0.0.0/1"), ["0.0.0.0/1", "128.0.0.0/1"]),
    (("10.1.0.0/16", "10.0.0.0/8"), ["10.0.0.0/8"]),
    (("10.0.0.0/8", "11.0.0.0/8"), ["10.0.0.0/8", "11.0.0.0/8"]),
    (("::/0", "10.0.0.0/8", "2001:db8::/32"), ["10.0.0.0/8", "::/0"]),
    ((), []),
])
def test_outermost(prefixes, outer):
    assert [str(net) for net in ipnet.outermost(_nets(*prefixes))] == outer


@pytest.mark.parametrize("call", [
    lambda: ipnet.address("10.0.0.1"),
    lambda: ipnet.address("not an address"),
    lambda: ipnet.network("10.0.0.0/8"),
    lambda: ipnet.everything(4),
    lambda: ipnet.covers_everything([], 4),
])
def test_without_netaddr_every_reader_names_the_package_and_the_fix(monkeypatch, call):
    monkeypatch.setattr(ipnet, "netaddr", None)
    with pytest.raises(ParseError, match=r"^tunnelfix\.fleet needs the Python package netaddr on the controller: "
                                         r"pip install netaddr==1\.3\.0$") as raised:
        call()
    assert isinstance(raised.value, ipnet.NetaddrMissing)


def test_without_netaddr_the_import_error_is_kept(monkeypatch):
    monkeypatch.setattr(ipnet, "netaddr", None)
    monkeypatch.setattr(ipnet, "NETADDR_IMPORT_ERROR", ImportError("No module named 'netaddr'"))
    with pytest.raises(ipnet.NetaddrMissing, match=r"pip install netaddr==1\.3\.0 \(No module named 'netaddr'\)$"):
        ipnet.network("10.0.0.0/8")


@pytest.mark.parametrize("text, prefixlen", [("203.0.113.10", 32), ("2001:db8::1", 128), ("::ffff:203.0.113.10", 128)])
def test_host_prefixlen(text, prefixlen):
    assert ipnet.host_prefixlen(ipnet.address(text)) == prefixlen


@pytest.mark.parametrize("value, expected", [
    ("203.0.113.10", "203.0.113.10"), (" 203.0.113.10 ", "203.0.113.10"), ("[fd99:1::1]", "fd99:1::1"),
    ("fd99:0:0::1", "fd99::1"), ("fe80::1%wg0", "fe80::1%wg0"),
    ("dc.example.net", None), ("300.1.1.1", None), ("203.0.113.10:51820", None), ("", None), (None, None),
])
def test_endpoint_address(value, expected):
    """A WireGuard endpoint host: an IP literal (brackets and blanks around it allowed), else None (a hostname)."""
    found = ipnet.endpoint_address(value)
    assert (None if found is None else str(found)) == expected
