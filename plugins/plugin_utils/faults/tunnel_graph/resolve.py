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

import collections
import ipaddress
import socket
import threading
import time

RESOLVE_TIMEOUT_S = 2.0   # for all names together
MAX_THREADS = 32          # resolving at once: a fleet of dynamic-DNS names must not start a thread per name


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
    except (socket.gaierror, OSError, UnicodeError, ValueError) as exc:   # ValueError: a NUL in the name
        out[name] = {"addresses": [], "error": "cannot be resolved (%s)" % exc}


def _worker(pending, out):
    """Resolve names from ``pending`` until it is empty (deque.popleft is atomic)."""
    while True:
        try:
            name = pending.popleft()
        except IndexError:
            return
        _resolve_one(name, out)


def resolve_names(names, timeout_s=RESOLVE_TIMEOUT_S) -> dict:
    """``{name: {"addresses": ["203.0.113.7", "2001:db8::7"], "error": None}}`` for each of ``names`` (hostnames),
    resolved with ``socket.getaddrinfo`` (IPv4 first, each address once, sorted) by at most ``MAX_THREADS`` daemon
    threads at once (a resolver that blocks keeps those only); a name not answered within ``timeout_s`` (all together)
    gets ``{"addresses": [], "error": "no answer within N s"}``, one that fails ``"cannot be resolved (...)"``, all of
    them ``"not resolved (no thread could be started)"`` when the system starts no thread. Never raises for a name;
    returns {} for none."""
    names = sorted(set(names))
    out, threads = {}, []
    pending = collections.deque(names)
    deadline = time.monotonic() + timeout_s
    for _number in range(min(MAX_THREADS, len(names))):
        thread = threading.Thread(target=_worker, args=(pending, out), daemon=True)
        try:
            thread.start()
        except RuntimeError:   # "can't start new thread": a pids limit; the threads already started go on
            break
        threads.append(thread)
    if not threads:
        return {name: {"addresses": [], "error": "not resolved (no thread could be started)"} for name in names}
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return {name: dict(out[name]) if name in out else {"addresses": [], "error": "no answer within %g s" % timeout_s}
            for name in names}
