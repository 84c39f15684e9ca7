# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Is a string one host a command line may name: a host name, an IPv4 or an IPv6 literal?

Used wherever a host from the task ends up as one word of a command on the target (ping targets,
the iperf3 server): no spaces, quotes, newlines, ports, lists or shell syntax get through.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet

# A host name or an IPv4 literal: letters, digits, dots and dashes, starting with a letter or digit.
_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*")


def is_host_or_address(value) -> bool:
    """``"hub.example.net"``, ``"10.44.0.1"``, ``"::1"``, ``"fe80::1%wg0"`` → True;
    ``"10.0.0.1:5201"``, ``"a b"``, ``"-R"``, ``"host;id"``, ``"10.0.0.1\\n"``, a non-str → False.

    A value with a colon must be an IPv6 address (``ipnet.address``: netaddr), optionally with a
    ``%zone`` of letters, digits, ``_``, ``.`` and ``-``.
    """
    if not isinstance(value, str):
        return False
    if ":" not in value:
        return bool(_HOST.fullmatch(value))
    parsed = ipnet.address(value)
    return parsed is not None and parsed.version == 6
