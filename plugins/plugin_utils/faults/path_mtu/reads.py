# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the PMTU fault reads: every device's MTU and live IPv6 addresses (the two readings the facts lacked), each
tunnel's ladder targets, and the measurement record the ladders make.

From the facts gathered in the host's one remote execution:

- the tunnel device's MTU and the uplink's: ``link_mtu`` (``LINK_MTU``, this file): the MTU of every device of
  ``ip -d -j link show``, the step the ``bridges`` reading runs too (a step two readings list runs once);
- every device's live IPv6 addresses: ``link_ipv6`` (``LINK_IPV6``, this file): ``ip -j addr show``, one command on
  both platforms (all families: ``ip -6 addr show`` leaves out a device without IPv6, such as a kernel WireGuard
  device holding only IPv4, which is the very answer wanted), devices that are up (``parse_ipv6_addresses``);
- the endpoints: ``wireguard`` (Linux ``wg show all dump``; OpenWrt uci merged with the live state), and the device
  each endpoint is reached through: Linux ``routes.endpoints[address].dev``, OpenWrt ``endpoint_routes.endpoints``;
- whether IPv6 runs inside (the 1280 floor, ``carries_ipv6``): an IPv6 prefix in a peer's AllowedIPs, or an IPv6
  address other than link-local on the device as ``link_ipv6`` lists it or in its configuration (OpenWrt: uci; Linux:
  the wg-quick file's ``Address =``: the next start adds it); known to be none when either was read and holds none (a
  systemd-networkd or ``wg set`` tunnel whose device shows only IPv4), unknown when neither was.

``tunnels(view)`` puts those together per tunnel and peer. ``ladder_targets(view, hub_address)`` turns them into
what the measuring step probes: per peer with an endpoint, the outer ladder (to the endpoint, up to the uplink's MTU)
and the inner one (to the far tunnel address, up to the tunnel's MTU), with ``ladder.ladder_bounds``. The far tunnel
address (``far_address``) is, in this order: the peer's one host address in its AllowedIPs (a /32, else a /128: how
a hub lists each peer); else the hub's ``tunnelfix_tunnel_address`` when the host's ``tunnelfix_tunnel_hub`` names one
and it lies in the peer's AllowedIPs (a peer or router whose AllowedIPs are the tunnel's subnet or everything); else
none: the inner ladder is not run and the record says why (the rule then judges from the outer ladder alone, or
not at all: ``rule.pmtu_coverage``). ``record_entry`` is the record's entry for one target and the ladders' output:
the one shape the rule reads (``view["path_mtu"]``, module doc of ``rule.py``).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import ladder_bounds, parse_ladder
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bridges import load_ip_links
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tunnel_links import FORWARD_AND_LINKS_ARGV, split_forward_and_links
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS, step_of


def parse_link_mtus(text) -> dict:
    """``ip -d -j link show`` (or ``ip -j link show``) -> ``{device: MTU bytes}`` for every device, None where ``ip`` prints no
    ``mtu``: ``'[{"ifname": "eth0", "mtu": 1500}, {"ifname": "wg0", "mtu": 1420}]'`` -> ``{"eth0": 1500, "wg0": 1420}``.

    Raises ParseError as ``parse/bridges.load_ip_links`` does (not a JSON list of link objects).
    """
    out = {}
    for link in load_ip_links(text):
        mtu = link.get("mtu")
        out[link["ifname"]] = mtu if isinstance(mtu, int) and not isinstance(mtu, bool) and mtu > 0 else None
    return out


def gather_link_mtu(action, facts, args):
    """The ``link_mtu`` reading's gather: ``{"devices": {device: MTU bytes}, "note": None}``, or ``{"devices": None, "note":
    why}`` when ``ip -d -j link show`` failed or printed no JSON (an ``ip`` without ``-j``): the MTUs are then unknown."""
    res = action.step(FORWARD_AND_LINKS_ARGV, ok_rcs=ANY_EXIT_STATUS)
    _forward, links = action.parse_output(res, split_forward_and_links)
    if res["rc"] != 0:
        return {"devices": None, "note": "ip -d -j link show failed (rc=%s: %s): link MTUs unknown"
                % (res["rc"], ((res["stderr"] or "").strip() or "no output").splitlines()[0][:200])}
    try:
        return {"devices": parse_link_mtus(links), "note": None}
    except ParseError as exc:
        return {"devices": None, "note": "%s: link MTUs unknown" % str(exc)[:200]}


_LINK_MTU = Read(steps=(step_of(FORWARD_AND_LINKS_ARGV),), gather=gather_link_mtu)
# every device's MTU: the tunnels' and the uplinks' (module doc)
LINK_MTU = Reading("link_mtu", {"linux": _LINK_MTU, "openwrt": _LINK_MTU})


# every device's addresses, all families: a device without IPv6 is listed too (module doc)
ADDR_ARGV = ["ip", "-j", "addr", "show"]


def parse_ipv6_addresses(text) -> dict:
    """``ip -j addr show`` -> ``{device: ["address/prefix", ...]}``: every device that is up (``UP`` in its ``flags``),
    with its IPv6 (``inet6``) addresses as printed, link-local ones too; ``[]`` for one without any (IPv4 only, or IPv6
    off on it)::

        '[{"ifname": "wg0", "flags": ["POINTOPOINT", "NOARP", "UP", "LOWER_UP"],
           "addr_info": [{"family": "inet", "local": "10.77.0.2", "prefixlen": 24}]},
          {"ifname": "wg1", "flags": ["POINTOPOINT", "NOARP", "UP", "LOWER_UP"],
           "addr_info": [{"family": "inet6", "local": "fd77::2", "prefixlen": 64}]},
          {"ifname": "wg2", "flags": ["POINTOPOINT", "NOARP"], "addr_info": []}]'
        -> {"wg0": [], "wg1": ["fd77::2/64"]}

    A device that is down is left out: the kernel drops a device's IPv6 addresses when it goes down
    (``net.ipv6.conf.*.keep_addr_on_down`` 0, the default), so its listing says nothing of the IPv6 it runs once up.
    Format: iproute2's JSON (``-j``, iproute2 >= 4.13), one object per device with ``ifname``, ``flags`` and
    ``addr_info`` (a list; ``local`` and ``prefixlen`` per address; recorded: tests/unit/fixtures/ip_j_addr_show/).
    Raises ParseError as ``parse/bridges.load_ip_links`` does (not a JSON list of link objects), and for a device without
    an ``addr_info`` list of objects (``ip -j link show``'s listing, which says nothing about addresses).
    """
    return parse_addresses(text, ("inet6",))


def parse_addresses(text, families) -> dict:
    """``ip -j addr show`` -> ``{device: ["address/prefix", ...]}`` of every device that is up, with its addresses of
    ``families`` (``"inet"``, ``"inet6"``) as printed, in order; the parse ``parse_ipv6_addresses`` and the tunnel
    graph's ``parse_device_addresses`` share (their docstrings give the format and the errors)."""
    out = {}
    for link in load_ip_links(text, " ".join(ADDR_ARGV)):
        infos = link.get("addr_info")
        if not isinstance(infos, list) or not all(isinstance(info, dict) for info in infos):
            raise ParseError("%s output must list each device's addresses ('addr_info'), %s has none" % (" ".join(ADDR_ARGV), link["ifname"]))
        if "UP" not in (link.get("flags") if isinstance(link.get("flags"), list) else []):
            continue
        out[link["ifname"]] = ["%s/%d" % (info["local"], info["prefixlen"]) for info in infos
                               if info.get("family") in families and isinstance(info.get("local"), str) and is_int(info.get("prefixlen"))]
    return out


def gather_addresses(action, parse, unknown):
    """The ``ip -j addr show`` step (``ADDR_ARGV``) of a reading, parsed by ``parse``: ``{"devices": parse(output),
    "note": None}``, or ``{"devices": None, "note": why}`` ending in ``unknown`` (": live IPv6 addresses unknown") when
    the command failed, printed nothing or no such JSON (BusyBox's ``ip`` has no ``-j``): the addresses are then
    unknown, never "none". Shared by ``link_ipv6`` here and the tunnel graph's ``link_addresses``."""
    res = action.step(ADDR_ARGV, ok_rcs=ANY_EXIT_STATUS)
    command = " ".join(ADDR_ARGV)
    if res["rc"] != 0:
        return {"devices": None, "note": "%s failed (rc=%s: %s): %s"
                % (command, res["rc"], ((res["stderr"] or "").strip() or "no output").splitlines()[0][:200], unknown)}
    if not (res["stdout"] or "").strip():
        return {"devices": None, "note": "%s printed nothing: %s" % (command, unknown)}
    try:
        return {"devices": parse(res["stdout"]), "note": None}
    except ParseError as exc:
        return {"devices": None, "note": "%s: %s" % (str(exc)[:200], unknown)}


def gather_link_ipv6(action, facts, args):
    """The ``link_ipv6`` reading's gather: ``{"devices": {device: ["address/prefix", ...]}, "note": None}``, or
    ``{"devices": None, "note": why}`` (``gather_addresses``): the live addresses are then unknown, never "no IPv6"."""
    return gather_addresses(action, parse_ipv6_addresses, "live IPv6 addresses unknown")


_LINK_IPV6 = Read(steps=(step_of(ADDR_ARGV),), gather=gather_link_ipv6)
# every device's live IPv6 addresses: whether IPv6 runs inside a tunnel (module doc, carries_ipv6)
LINK_IPV6 = Reading("link_ipv6", {"linux": _LINK_IPV6, "openwrt": _LINK_IPV6})


def host_facts(view):
    """``(facts, platform)``: openwrt_facts' facts on a router, else tunnel_facts' (``{}``, ``"linux"`` when neither)."""
    if isinstance(view.get("openwrt"), dict):
        return view["openwrt"], "openwrt"
    return view.get("tunnelfix") or {}, "linux"


def link_mtus(facts):
    """``link_mtu.devices`` of ``facts`` (``{device: MTU}``), or None when the facts hold no MTUs."""
    devices = (facts.get("link_mtu") or {}).get("devices")
    return devices if isinstance(devices, dict) else None


def live_ipv6(facts):
    """``link_ipv6.devices`` of ``facts`` (``{device: ["address/prefix", ...]}``), or None when the facts hold no listing."""
    devices = (facts.get("link_ipv6") or {}).get("devices")
    return devices if isinstance(devices, dict) else None


def _family(value):
    address = ipnet.address(value) if isinstance(value, str) else None
    return None if address is None else address.version


def carries_ipv6(allowed_ips, live, configured=None):
    """Whether IPv6 runs inside a tunnel, now or at its next start: THE one test of the fault's rule (``tunnels``) and
    the fixing role (``fix.parse_reading``), each on what it read:

    ``allowed_ips``: its peers' AllowedIPs; ``live``: the device's addresses as the host lists them now (``link_ipv6``;
    the role's ``ip -o -6 addr show dev IF``), None when the device is not in that listing (absent, down, not read);
    ``configured``: the addresses its configuration gives it (OpenWrt uci ``addresses``, a wg-quick file's
    ``Address =``), None when none was read (systemd-networkd's ``.network``, ``wg set``: not read).

    True when a peer's AllowedIPs hold an IPv6 prefix (``::/0`` too), or ``live`` or ``configured`` holds an IPv6 address
    other than link-local (fe80::/10): the device runs IPv6 now, or its configuration gives it one at the next start
    (an MTU the fix writes under 1280 would then cut it: the kernel drops a device's IPv6 under 1280). False when
    neither does and at least one of them was read (a networkd tunnel with IPv4 only on the device is known to carry no
    IPv6); None when both are None: the rule then keeps the 1280 floor, and the role (which refuses an MTU under 1280
    only where it finds IPv6) refuses nothing.
    ``(["10.77.0.0/24"], ["fd77::2/64"])`` -> True; ``(["10.77.0.0/24"], ["fe80::1/64"], ["fd77::2/64"])`` -> True (the
    next start adds it); ``(["10.77.0.0/24"], ["fe80::1/64"], None)`` -> False; ``(["10.77.0.0/24"], None, None)`` -> None.
    """
    if any(_family(str(prefix).split("/", maxsplit=1)[0]) == 6 for prefix in allowed_ips or []):
        return True
    if live is None and configured is None:
        return None
    link_local = ipnet.network("fe80::/10")
    nets = [ipnet.network(str(address)) for address in list(live or []) + list(configured or [])]
    return any(net is not None and net.version == 6 and net.ip not in link_local for net in nets)


def tunnel_addresses(facts, platform, name, info):
    """The tunnel's configured addresses in the facts (``info``: its ``wireguard`` interface): OpenWrt its uci
    ``addresses``; Linux the ``Address =`` lines of the wg-quick file that configures it; None without one (not read)."""
    if platform == "openwrt":
        return list(info.get("addresses") or [])
    for config in (facts.get("wireguard") or {}).get("configs") or []:
        if config.get("kind") == "wg-quick" and config.get("interface") == name:
            return config.get("addresses")
    return None


def _endpoints(facts, platform, name, peer):
    """``(endpoint address, uplink device)`` of one peer: the live endpoint and its route (Linux), or the endpoint_routes
    entry of the peer (OpenWrt: its live endpoint, else its uci IP literal); ``(None, None)`` without an endpoint."""
    if platform == "openwrt":
        for entry in (facts.get("endpoint_routes") or {}).get("endpoints") or []:
            if entry.get("interface") == name and entry.get("public_key") == peer.get("public_key"):
                return entry.get("address"), entry.get("dev")
        return None, None
    host = peer.get("endpoint_host")
    route = ((facts.get("routes") or {}).get("endpoints") or {}).get(host) or {}
    return host, route.get("dev")


def tunnels(view) -> dict:
    """The host's WireGuard tunnels as the PMTU fault sees them, by interface::

        {"wg0": {"tunnel_mtu_bytes": 1420, "ipv6_inside": False,     # carries_ipv6: None, unknown
                 "peers": [{"public_key": "BBBB…B=", "endpoint": "203.0.113.10", "endpoint_family": 4,
                            "uplink_device": "eth0", "uplink_mtu_bytes": 1500, "allowed_ips": ["10.77.0.0/24"]}]}}

    A peer without an endpoint (a hub's peer before its first handshake) is left out. Unknown values are None (no
    ``link_mtu`` facts, an endpoint whose route was not read, a hostname endpoint: ``endpoint_family`` None).
    ``ipv6_inside``: ``carries_ipv6`` of its peers' AllowedIPs, the device's live addresses (``link_ipv6``, when it lists
    the device) and its configured ones (``tunnel_addresses``).
    """
    facts, platform = host_facts(view)
    mtus, live = link_mtus(facts) or {}, live_ipv6(facts) or {}
    out = {}
    for name, info in sorted(wireguard_interfaces(facts).items()):
        peers = []
        for peer in info.get("peers") or []:
            endpoint, device = _endpoints(facts, platform, name, peer)
            if not endpoint:
                continue
            peers.append({"public_key": peer.get("public_key"), "endpoint": endpoint, "endpoint_family": _family(endpoint),
                          "uplink_device": device, "uplink_mtu_bytes": mtus.get(device) if device else None,
                          "allowed_ips": list(peer.get("allowed_ips") or [])})
        allowed = [prefix for peer in info.get("peers") or [] for prefix in peer.get("allowed_ips") or []]
        out[name] = {"tunnel_mtu_bytes": mtus.get(name),
                     "ipv6_inside": carries_ipv6(allowed, live.get(name), tunnel_addresses(facts, platform, name, info)),
                     "peers": peers}
    return out


def far_address(allowed_ips, hub_address=None):
    """``(address, None)``: the far tunnel address to probe inside the tunnel (module doc for the order), or ``(None, why)``.

    ``["10.77.0.2/32", "192.168.50.0/24"]`` -> ``("10.77.0.2", None)``; ``["10.77.0.0/24"]`` with hub address
    ``"10.77.0.1"`` -> ``("10.77.0.1", None)``; ``["0.0.0.0/0"]`` without a hub -> ``(None, "its AllowedIPs (0.0.0.0/0)
    hold no host address ...")``.
    """
    nets = [net for net in (ipnet.network(str(prefix)) for prefix in allowed_ips or []) if net is not None]
    for version in (4, 6):
        hosts = [net for net in nets if net.version == version and net.size == 1]
        if hosts:
            return str(hosts[0].ip), None
    hub = ipnet.address(hub_address) if isinstance(hub_address, str) else None
    if hub is not None and any(hub in net for net in nets if net.version == hub.version):
        return str(hub), None
    why = "its AllowedIPs (%s) hold no host address (/32, /128)" % (", ".join(str(p) for p in allowed_ips or []) or "none")
    if hub_address:
        why += " and the hub's tunnelfix_tunnel_address %s is not among them" % hub_address
    else:
        why += " and no tunnelfix_tunnel_hub with a tunnelfix_tunnel_address names the far end"
    return None, why + ": the far tunnel address is unknown, so the tunnel itself is not probed"


def _ladder(target, family, link_mtu, what):
    """``({"target", "family", "low", "high"}, None)`` for a ladder over a link of ``link_mtu`` bytes, or ``(None, why)``."""
    if family not in (4, 6):
        return None, "%s %s is no IP address" % (what, target)
    if "%" in target:  # wg show's [fe80::1%eth0]:51820: a peer on the uplink's own link, no path beyond it to probe
        return None, ("%s %s is link-local: it is on the link itself, whose MTU is the path's (the ladder probes no "
                      "scoped address)" % (what, target))
    if link_mtu is None:
        return None, "the MTU of the link toward %s %s is unknown" % (what, target)
    try:
        low, high = ladder_bounds(family, link_mtu)
    except ValueError as exc:
        return None, "%s %s: %s" % (what, target, exc)
    return {"target": target, "family": family, "low": low, "high": high}, None


def ladder_targets(view, hub_address=None) -> list:
    """What the measuring step probes on this host: one entry per tunnel and peer with an endpoint::

        [{"interface": "wg0", "public_key": "BBBB…B=", "endpoint": "203.0.113.10", "uplink_device": "eth0",
          "uplink_mtu_bytes": 1500, "tunnel_mtu_bytes": 1420,
          "outer": {"target": "203.0.113.10", "family": 4, "low": 548, "high": 1472}, "outer_note": None,
          "inner": {"target": "10.77.0.1", "family": 4, "low": 548, "high": 1392}, "inner_note": None}]

    ``outer``/``inner`` None with ``outer_note``/``inner_note`` saying why that ladder cannot run (no MTU known for its
    link, no far tunnel address: ``far_address``; a route toward the endpoint that leads into the tunnel itself, as
    wg-quick's full tunnel routes every unmarked packet). ``hub_address``: the host's hub's ``tunnelfix_tunnel_address``, or None.
    """
    out = []
    for name, tunnel in tunnels(view).items():
        for peer in tunnel["peers"]:
            if peer["uplink_device"] == name:
                # wg-quick's full tunnel: an unmarked packet to the endpoint goes to its table (51820), into the tunnel;
                # WireGuard's own packets leave through the uplink by their fwmark, a ping has none
                outer, outer_note = None, ("the route toward the endpoint %s leads into %s itself (a full tunnel's policy "
                                           "routing, which WireGuard's own packets bypass by their fwmark and a ping does "
                                           "not): a ladder would measure the tunnel, not the path outside it"
                                           % (peer["endpoint"], name))
            else:
                outer, outer_note = _ladder(peer["endpoint"], peer["endpoint_family"], peer["uplink_mtu_bytes"], "the endpoint")
            far, why = far_address(peer["allowed_ips"], hub_address)
            if far is None:
                inner, inner_note = None, why
            else:
                inner, inner_note = _ladder(far, _family(far), tunnel["tunnel_mtu_bytes"], "the far tunnel address")
            out.append({"interface": name, "public_key": peer["public_key"], "endpoint": peer["endpoint"],
                        "uplink_device": peer["uplink_device"], "uplink_mtu_bytes": peer["uplink_mtu_bytes"],
                        "tunnel_mtu_bytes": tunnel["tunnel_mtu_bytes"], "outer": outer, "outer_note": outer_note,
                        "inner": inner, "inner_note": inner_note})
    return out


def record_entry(target, outer_output=None, inner_output=None) -> dict:
    """One entry of the measuring step's record: ``target`` (a ``ladder_targets`` entry) with ``"outer"``/``"inner"`` replaced
    by ``ladder.parse_ladder`` of each ladder's output (None where that ladder did not run: its note says why) and
    ``"outer_family"`` (the endpoint's address family, the overhead the rule assumes). Raises ParseError as parse_ladder."""
    entry = dict(target, outer_family=(target.get("outer") or {}).get("family"),
                 inner_target=(target.get("inner") or {}).get("target"))
    entry["outer"] = parse_ladder(outer_output) if outer_output is not None else None
    entry["inner"] = parse_ladder(inner_output) if inner_output is not None else None
    return entry
