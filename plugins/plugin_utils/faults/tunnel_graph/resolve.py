# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Endpoint hostnames resolved from the Ansible controller, once per name and run, for endpoint_address_mismatch.

WireGuard resolves an ``Endpoint`` hostname once, when the entry is set (``wg setconf``/``wg set``, wg-quick up, netifd's
ifup); a dynamic-DNS peer that changes its address is not followed until the entry is set again (wireguard-tools'
contrib/reresolve-dns, OpenWrt's ``wireguard_watchdog``). The tunnel graph compares the address the kernel holds with
what the name resolves to now. ``graph.build_graph`` calls the resolver it is given once with every name it needs (the
rules never resolve: they read ``graph["resolved"]``); ``graph.graph_of`` gives it ``resolve_names``, unit tests a fake.

The controller's resolver is not the host's: a split-horizon name may resolve elsewhere, or not at all, from the
controller. The rule therefore uses a resolution as a sign only where it points at an address of the other end.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

RESOLVE_TIMEOUT_S = 2.0   # for all names together: each is resolved in a thread of its own


def address_of(text):
    """``text`` as an ``ipaddress`` address (IPv6 brackets and a zone ``%eth0`` dropped), or None when it is no address
    (a hostname)."""
    text = str(text)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _resolve_one(name, out):
    try:
        infos = socket.getaddrinfo(name, None, 0, socket.SOCK_DGRAM)
        found = sorted({info[4][0].split("%", 1)[0] for info in infos}, key=lambda value: (":" in value, value))
        out[name] = {"addresses": found, "error": None if found else "no address"}
    except (socket.gaierror, OSError, UnicodeError) as exc:
        out[name] = {"addresses": [], "error": "cannot be resolved (%s)" % exc}


def resolve_names(names, timeout_s=RESOLVE_TIMEOUT_S) -> dict:
    """``{name: {"addresses": ["203.0.113.7", "2001:db8::7"], "error": None}}`` for each of ``names`` (hostnames),
    resolved with ``socket.getaddrinfo`` (IPv4 first, each address once, sorted), all names at once in daemon threads;
    a name not answered within ``timeout_s`` (all together) gets ``{"addresses": [], "error": "no answer within N s"}``,
    one that fails ``"cannot be resolved (...)"``. Never raises for a name; returns {} for none."""
    names = sorted(set(names))
    out, threads = {}, []
    for name in names:
        thread = threading.Thread(target=_resolve_one, args=(name, out), daemon=True)
        thread.start()
        threads.append(thread)
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return {name: dict(out[name]) if name in out else {"addresses": [], "error": "no answer within %g s" % timeout_s}
            for name in names}
