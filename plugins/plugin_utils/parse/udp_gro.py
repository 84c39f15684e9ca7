# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kernel release, the default-route NIC and its UDP GRO forwarding features (the ``udp_gro`` facts).

Pure functions, no I/O; openwrt_facts and tunnel_facts (``remote/udp_gro_reader.py``) and the
fault ``faults/udp_gro_forwarding/`` read the same shape, and the role ``udp_gro_forwarding``
acts on it. Sources:

* ``uname -r``: the kernel release, ``6.1.0-26-amd64`` (Debian), ``6.6.73`` (OpenWrt 24.10),
  ``5.15.167`` (OpenWrt 23.05), ``6.8.0-45-generic`` (Ubuntu), ``6.1.21-v8+`` (Raspberry Pi OS).
* The default routes of ``ip -j route show table all`` (``parse/route.py``), both families.
* ``ethtool -k DEV`` (``parse/ethtool.py``): ``rx-udp-gro-forwarding`` is the kernel's
  NETIF_F_GRO_UDP_FWD (Linux 5.12, off by default), ``rx-gro-list`` NETIF_F_GRO_FRAGLIST
  (fraglist GRO, which takes precedence over plain UDP GRO when both are on), and both work inside
  GRO (``generic-receive-offload``). Linux 6.2 gave TUN devices UDP segmentation offload, which
  is what lets a TUN-based tunnel (Tailscale, wireguard-go) take the aggregated UDP whole.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.route import default_routes

UDP_GRO_FORWARDING = "rx-udp-gro-forwarding"
GRO_LIST = "rx-gro-list"
GRO = "generic-receive-offload"
# the features the facts keep per NIC, as ethtool -k names them
FEATURES = (UDP_GRO_FORWARDING, GRO_LIST, GRO)
# "6.1.0-26-amd64", "6.6.73", "5.15.167", "6.12.0-rc3", "6.2": MAJOR.MINOR[.PATCH], then anything
_RELEASE = re.compile(r"^(?P<major>\d+)\.(?P<minor>\d+)(?:\.(?P<patch>\d+))?(?:[-+_.~][\x21-\x7e]*)?$")


def parse_kernel_release(text: str) -> dict:
    """``uname -r`` output -> ``{"release": str, "version": [major, minor, patch]}``.

    ``"6.1.0-26-amd64\\n"`` -> ``{"release": "6.1.0-26-amd64", "version": [6, 1, 0]}``;
    ``"6.2\\n"`` -> ``{"release": "6.2", "version": [6, 2, 0]}`` (no patch level: 0);
    ``"6.1.21-v8+"`` -> ``[6, 1, 21]``. Format: the kernel's UTS release string, one line
    (``uname -r``, BusyBox and coreutils alike; ``/proc/sys/kernel/osrelease`` holds the same).

    Raises ParseError for empty output, more than one line, or a release that does not start with
    MAJOR.MINOR.
    """
    if not isinstance(text, str):
        raise ParseError("uname -r output must be text, got %s" % type(text).__name__)
    release = text.strip()
    match = _RELEASE.match(release)
    if not match:  # the pattern takes one line only: [\x21-\x7e] has no line break
        raise ParseError("uname -r: expected a kernel release such as 6.1.0-26-amd64, got %r" % release[:100])
    return {"release": release,
            "version": [int(match["major"]), int(match["minor"]), int(match["patch"] or 0)]}


def at_least(version, minimum) -> bool | None:
    """Whether ``version`` (``[6, 1, 0]``) is ``minimum`` (``(6, 2)``) or later; None when the version is unknown."""
    if not isinstance(version, (list, tuple)) or not version or not all(isinstance(part, int) for part in version):
        return None
    return tuple(version) >= tuple(minimum)


def _metric(route):
    """The metric the kernel compares: not printed is 0 (IPv4); IPv6 routes always print theirs."""
    return route.get("metric") or 0


def _best_main_defaults(routes):
    """The default route the main table uses per family, ``[(family, route)]`` (inet first): the lowest metric wins,
    the first listed on a tie. A gateway-less IPv4 default (``default dev ppp0``) has no family of its own: inet."""
    best = {}
    for route in default_routes(routes):
        if route.get("table") != "main":  # parse_ip_route_show gives every route its table ("main" when not printed)
            continue
        family = route.get("family") or "inet"
        if family not in best or _metric(route) < _metric(best[family]):
            best[family] = route
    return [(family, best[family]) for family in ("inet", "inet6") if family in best]


def _hops(route):
    """``[(dev, gateway)]`` of a route: its own, or each next hop's (a multipath default)."""
    if route.get("dev"):
        return [(route["dev"], route.get("gateway"))]
    return [(hop.get("dev"), hop.get("gateway")) for hop in route.get("nexthops") or [] if hop.get("dev")]


def default_route_nics(routes, tunnels, endpoint_routes) -> dict:
    """The NICs the host's default routes leave through, and why one could not be told.

    ``routes``: ``parse_ip_route_show`` output (any tables; the main table's unicast defaults are
    read); ``tunnels``: ``parse_ip_link_tunnels`` output (``{name: {...}}``, the layer-3 tunnel
    devices); ``endpoint_routes``: ``{tunnel: [(dev, gateway), ...]}``, the routes the kernel uses
    to reach each tunnel's peer endpoints (``ip route get``), None where not read. Output::

        {"nics": [{"device": "eth0", "families": ["inet", "inet6"],
                   "gateways": {"inet": "192.0.2.1", "inet6": "fe80::1"}, "through_tunnel": None}],
         "note": None}

    Per family the main table's default with the lowest metric (the one the kernel uses; the
    first listed on a tie); a multipath default gives each next hop's device. A default through a
    tunnel (a full tunnel: ``default dev wg0``) is not the NIC: the tunnel's own packets leave
    through the device of the route to its endpoint, so that device is the NIC
    (``through_tunnel``: the tunnel), with that route's gateway. A policy-routed full tunnel
    (wg-quick's fwmark table) leaves the main table's default on the NIC, so it needs no such
    step. ``note`` says what could not be told (no default route in the main table; a default
    through a tunnel whose endpoint route was not read, such as Tailscale's TUN), else None.
    """
    nics, notes = {}, []
    best = _best_main_defaults(routes)
    if not best:
        notes.append("no default route in the main table")
    for family, route in best:
        for dev, gateway in _hops(route):
            through = None
            if dev in (tunnels or {}):
                under = [(udev, ugw) for udev, ugw in (endpoint_routes or {}).get(dev) or []
                         if udev and udev not in (tunnels or {})]
                if not under:
                    notes.append("the %s default route goes through tunnel %s, and no route to its endpoint that leaves "
                                 "through a NIC was read" % (family, dev))
                    continue
                through, hops = dev, under
            else:
                hops = [(dev, gateway)]
            for nic, nic_gateway in hops:
                entry = nics.setdefault(nic, {"device": nic, "families": [], "gateways": {}, "through_tunnel": through})
                if family not in entry["families"]:
                    entry["families"].append(family)
                entry["gateways"].setdefault(family, nic_gateway)
    return {"nics": list(nics.values()), "note": "; ".join(notes) or None}


def gro_features(parsed) -> dict:
    """``parse_ethtool_features`` output -> the FEATURES this ethtool printed, as ``on``/``off`` with `` [fixed]``.

    ``{"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"}``; a
    feature the kernel or ethtool does not know (before Linux 5.12) is left out. Raises ParseError
    for a dict that is not ``parse_ethtool_features`` output.
    """
    if not isinstance(parsed, dict) or not isinstance(parsed.get("features"), dict):
        raise ParseError("expected parse_ethtool_features output, got %r" % (parsed,))
    out = {}
    for name in FEATURES:
        feature = parsed["features"].get(name)
        if isinstance(feature, dict):
            out[name] = ("on" if feature.get("enabled") else "off") + (" [fixed]" if feature.get("fixed") else "")
    return out


def udp_gro_subset(kernel, ip_forward, tunnels, routes, endpoint_routes, read_features, notes=()) -> dict:
    """The ``udp_gro`` facts, one shape for openwrt_facts (OpenWrt) and tunnel_facts (Linux).

    ``kernel``: ``parse_kernel_release`` output or None; ``ip_forward``: ``parse_ip_forward``'s int
    or None; ``tunnels``: ``parse_ip_link_tunnels`` output or None (not read); ``routes`` and
    ``endpoint_routes`` as ``default_route_nics`` takes them (``routes`` None: not read; without the
    routes or the tunnels no NIC is named);
    ``read_features(device)``: ``parse_ethtool_features`` output, a string saying why ``ethtool -k``
    failed, or None without ethtool (then nothing more is asked); ``notes``: what the caller could
    not read. Output::

        {"kernel_release": "6.6.73", "kernel_version": [6, 6, 73],
         "ip_forward": 1, "tunnels": {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UNKNOWN"}},
         "nics": [{"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"}, "through_tunnel": None,
                   "features": {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"},
                   "ethtool_error": None}],
         "ethtool_installed": True,     # None: no NIC to ask about
         "note": None}                  # what is unknown and why, else None

    ``features`` is None where not read (``ethtool_error`` says why, or ethtool is missing).
    Raises ParseError (from ``gro_features``) when ``read_features`` returns a dict of another shape.
    """
    notes = [note for note in notes if note]
    # without the tunnels a default route's device could be one of them: no NIC then, rather than a tunnel taken for one
    known = routes is not None and tunnels is not None
    found = default_route_nics(routes, tunnels, endpoint_routes) if known else {"nics": [], "note": None}
    if found["note"]:
        notes.append(found["note"])
    installed = True if found["nics"] else None
    nics = []
    for nic in found["nics"]:
        entry = dict(nic, features=None, ethtool_error=None)
        got = read_features(nic["device"]) if installed else None
        if got is None and installed:
            installed = False
            notes.append("ethtool is not installed: the NIC's offload features are unknown")
        elif isinstance(got, str):
            entry["ethtool_error"] = got
        elif got is not None:
            entry["features"] = gro_features(got)
        nics.append(entry)
    return {"kernel_release": (kernel or {}).get("release"), "kernel_version": (kernel or {}).get("version"),
            "ip_forward": ip_forward, "tunnels": tunnels, "nics": nics,
            "ethtool_installed": installed, "note": "; ".join(notes) or None}
