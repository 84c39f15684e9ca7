# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Is a string one host a command line may name: a host name, an IPv4 or an IPv6 literal?

Used wherever a host from the task ends up as one word of a command on the target (ping targets,
the iperf3 server): no spaces, quotes, newlines, ports, lists or shell syntax get through.
"""

from __future__ import annotations

import ipaddress
import re

# A host name or an IPv4 literal: letters, digits, dots and dashes, starting with a letter or digit.
_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*")
# The zone of a scoped IPv6 literal, as in fe80::1%br-lan.
_ZONE = re.compile(r"[A-Za-z0-9_.-]+")


def is_host_or_address(value) -> bool:
    """``"hub.example.net"``, ``"10.44.0.1"``, ``"::1"``, ``"fe80::1%wg0"`` → True;
    ``"10.0.0.1:5201"``, ``"a b"``, ``"-R"``, ``"host;id"``, ``"10.0.0.1\\n"``, a non-str → False.

    A value with a colon must be an IPv6 address (``ipaddress.IPv6Address``), optionally with a
    ``%zone`` of letters, digits, ``_``, ``.`` and ``-``.
    """
    if not isinstance(value, str):
        return False
    if ":" not in value:
        return bool(_HOST.fullmatch(value))
    address, sep, zone = value.partition("%")
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return not sep or bool(_ZONE.fullmatch(zone))
