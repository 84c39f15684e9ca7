# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Addresses and prefixes, read with netaddr: the one place the collection imports it (controller only).

Pure functions, no I/O. Input is text as iproute2, uci and ``wg`` print it; output is netaddr's
``IPAddress`` and ``IPNetwork`` (normalised to the prefix: ``10.0.0.1/24`` → ``10.0.0.0/24``).
Nothing on a target imports this module: OpenWrt has no Python and Linux targets need no netaddr.

netaddr is a controller requirement (requirements.txt). Without it every function here raises
``NetaddrMissing``, a ParseError, so each caller's boundary turns it into a task failure that
names the package and the fix; a missing package is never read as "not an address".
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

try:
    import netaddr
except ImportError as exc:  # ansible-test's import sanity and a controller without the package
    netaddr = None
    NETADDR_IMPORT_ERROR = exc
else:
    NETADDR_IMPORT_ERROR = None

NETADDR_MISSING = "tunnelfix.fleet needs the Python package netaddr on the controller: pip install netaddr==1.3.0"
# The zone of a scoped IPv6 literal, as in fe80::1%br-lan.
_ZONE = re.compile(r"[A-Za-z0-9_.-]+")
# The part after "/": a prefix length, or an IPv4 netmask/hostmask (uci's netmask, 255.255.255.0).
_PREFIX = re.compile(r"[0-9]{1,3}|[0-9]{1,3}(\.[0-9]{1,3}){3}")
# Every IPv4 or every IPv6 address.
_EVERYTHING = {4: "0.0.0.0/0", 6: "::/0"}


class NetaddrMissing(ParseError):
    """The netaddr package is not installed on the controller (the message says how to install it)."""


def _netaddr():
    """The netaddr module; NetaddrMissing when it could not be imported."""
    if netaddr is None:
        detail = " (%s)" % NETADDR_IMPORT_ERROR if NETADDR_IMPORT_ERROR is not None else ""
        raise NetaddrMissing(NETADDR_MISSING + detail)
    return netaddr


def address(value):
    """An IPv4 or IPv6 literal as a netaddr ``IPAddress``, or None when ``value`` is not one.

    ``"203.0.113.10"`` → ``IPAddress("203.0.113.10")``; ``"2001:0db8::0001"`` →
    ``IPAddress("2001:db8::1")``; ``"fe80::1%wg0"`` → a scoped address that prints as
    ``fe80::1%wg0`` (zone: letters, digits, ``_``, ``.``, ``-``) and equals only the same address
    with the same zone. ``"300.1.1.1"``, ``"10.1"``, ``"010.0.0.1"``, ``"[::1]"``, ``" ::1"``,
    ``"10.0.0.0/8"``, ``""``, a non-str → None. Strict like inet_pton(3): no shorthand IPv4.
    """
    module = _netaddr()
    if not isinstance(value, str):
        return None
    text, sep, zone = value.partition("%")
    if sep and (":" not in text or not _ZONE.fullmatch(zone)):
        return None
    try:
        parsed = module.IPAddress(text)
    except (module.AddrFormatError, ValueError, TypeError):
        return None
    return ScopedAddress(parsed, zone) if sep else parsed


def endpoint_address(value):
    """A WireGuard endpoint host as an ``IPAddress`` (``address``), or None for a hostname; ``[v6]`` brackets allowed.

    ``"203.0.113.10"`` → ``IPAddress("203.0.113.10")``; ``"[fd99:1::1]"`` → ``IPAddress("fd99:1::1")``;
    ``"fe80::1%wg0"`` → the scoped address; ``"dc.example.net"``, ``"300.1.1.1"``, ``None`` → ``None``.
    Raises nothing but ``NetaddrMissing``.
    """
    return address(str(value).strip().strip("[]"))


def network(value):
    """An IPv4 or IPv6 prefix (or a bare address: /32, /128) as a netaddr ``IPNetwork``, or None.

    ``"10.0.0.1/24"`` → ``IPNetwork("10.0.0.0/24")`` (host bits cleared, as the kernel keeps it);
    ``"203.0.113.10"`` → ``IPNetwork("203.0.113.10/32")``; ``"10.0.0.0/255.255.255.0"`` →
    ``IPNetwork("10.0.0.0/24")``; ``"0::0/0"`` → ``IPNetwork("::/0")``. ``"10.0.0.0/33"``,
    ``"300.1.1.1/8"``, ``"10/8"``, ``"10.0.0.0/+8"``, ``"10.0.0.0/8 "``, ``"fe80::%wg0/64"``, ``""``,
    ``"default"``, a non-str → None (iproute2's ``default`` is for the caller to read).
    """
    module = _netaddr()
    if not isinstance(value, str):
        return None
    _text, sep, prefix = value.partition("/")
    if sep and not _PREFIX.fullmatch(prefix):  # netaddr reads "/+8" and "/ 8" as /8; the kernel and wg do not
        return None
    try:
        return module.IPNetwork(value).cidr
    except (module.AddrFormatError, ValueError, TypeError):
        return None


def host_prefixlen(ip) -> int:
    """The prefix length of one address of ``ip``'s family: 32 (IPv4) or 128 (IPv6)."""
    return 32 if ip.version == 4 else 128


def everything(version):
    """The prefix of every address of IP ``version`` (4 or 6): ``IPNetwork("0.0.0.0/0")`` or ``IPNetwork("::/0")``."""
    return _netaddr().IPNetwork(_EVERYTHING[version])


def covers_everything(networks, version) -> bool:
    """Whether ``networks`` (IPNetworks, any family) hold every address of IP ``version`` between them.

    ``0.0.0.0/0``; ``0.0.0.0/1`` + ``128.0.0.0/1``; the four ``/2``; halves plus an overlapping
    ``10.0.0.0/8`` → True for 4; ``0.0.0.0/1`` alone, ``::/0`` → False for 4. The other family and
    IPv4-mapped IPv6 prefixes (``::ffff:0:0/96``) never count for IPv4: the kernel routes them apart.
    """
    module = _netaddr()
    return module.IPSet(net for net in networks if net.version == version) >= module.IPSet([everything(version)])


def outermost(networks) -> list:
    """The distinct prefixes of ``networks`` that no other one of them holds, lowest first (IPv4 before IPv6).

    ``[0.0.0.0/1, 10.0.0.0/8, 128.0.0.0/1, 0.0.0.0/1]`` → ``[0.0.0.0/1, 128.0.0.0/1]``.
    """
    distinct = sorted(set(networks), key=lambda net: (net.version, net.first, net.prefixlen))
    return [net for net in distinct
            if not any(other != net and other.version == net.version and net in other for other in distinct)]


if netaddr is not None:
    class ScopedAddress(netaddr.IPAddress):
        """A scoped IPv6 address (``fe80::1%wg0``): netaddr's address plus the zone it prints and compares."""

        __slots__ = ("zone",)

        def __init__(self, ip, zone):
            super().__init__(ip)
            self.zone = zone

        def __str__(self):
            return "%s%%%s" % (super().__str__(), self.zone)

        def __repr__(self):
            return "ScopedAddress('%s')" % self

        def __eq__(self, other):
            return super().__eq__(other) and getattr(other, "zone", None) == self.zone

        def __ne__(self, other):
            return not self.__eq__(other)

        def __hash__(self):
            return hash((super().__hash__(), self.zone))
else:
    ScopedAddress = None
