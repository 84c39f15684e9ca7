# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One host word for a command line: host names, IPv4, IPv6 (with zone); nothing else."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.address import is_host_or_address


@pytest.mark.parametrize("value", ["10.44.0.1", "hub.example.net", "localhost", "::1", "fd00::1",
                                   "::ffff:10.0.0.1", "fe80::1%wg0", "fe80::1%br-lan"])
def test_accepted(value):
    assert is_host_or_address(value) is True


@pytest.mark.parametrize("value", ["", "10.0.0.1:5201", "10.0.0.1\n", "a b", "-R", "host;id", "$(id)",
                                   "1::::::::1", "fd00::zz", "fe80::1%", "fe80::1%a b", "['10.0.0.1']",
                                   "[::1]", "fe80::1%wg0%x", "::1/128", "2001:db8::1:5201:1:1:1:1",
                                   None, 42, ["10.0.0.1"]])
def test_refused(value):
    assert is_host_or_address(value) is False


@pytest.mark.parametrize("value", ["10.44.0.1", "hub.example.net", "a b", None])
def test_a_host_name_or_ipv4_word_needs_no_netaddr(monkeypatch, value):
    monkeypatch.setattr(ipnet, "netaddr", None)
    assert is_host_or_address(value) is (value in ("10.44.0.1", "hub.example.net"))


@pytest.mark.parametrize("value", ["::1", "fe80::1%wg0", "fd00::zz"])
def test_an_ipv6_word_without_netaddr_names_the_package(monkeypatch, value):
    monkeypatch.setattr(ipnet, "netaddr", None)
    with pytest.raises(ParseError, match="pip install netaddr==1.3.0"):
        is_host_or_address(value)
