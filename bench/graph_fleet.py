# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A synthetic fleet for the tunnel graph: hosts' WireGuard facts as diagnose's views hold them, with seeded faults.

Used by bench/graph.py (the graph's benchmark: 1,000 hosts with 10 peers each) and by tests/unit/bench/test_graph_fleet.py
(each seeded fault found on the right hosts, none without seeds). No Ansible, no network: pure data.

The fleet is ``sites`` meshes of ``size`` hosts (every host lists the ``size - 1`` others: 10 peers each at the default
11). Host ``s003-h04`` is host 4 of site 3; even hosts are Linux (a wg-quick file /etc/wireguard/wg0.conf, the running
interface as ``wg show all dump`` gives it, tunnel_facts' shape), odd hosts OpenWrt routers (uci merged with the live
state, openwrt_facts' shape). Every host listens on 51820 at 198.18.S.H (RFC 2544's benchmark range), has the tunnel
address 10.X.Y.H/24 of its site, and allows each peer its /32; every entry keeps the other's endpoint and had a
handshake 20 s ago. Keys are fake: 43 base64 characters of a SHA-256 of the host's name and "=", never a real key.

``fleet(sites, size, seeds)`` returns ``(views, expected)``: ``expected`` is ``{(fault id, host, other end), ...}``, the
graph findings the seeds should give, each with the host at the tunnel's other end (``other_end``); a seed changes
hosts of its own site, so seeds never meet. SEEDS names each seed.
"""

from __future__ import annotations

import base64
import copy
import hashlib

PORT = 51820
HANDSHAKE_AGE_S = 20


def public_key(name) -> str:
    """A fake WireGuard public key for ``name``: 44 characters, base64 of 32 bytes (the shape ``wg`` prints)."""
    return base64.b64encode(hashlib.sha256(name.encode()).digest()).decode()


def host_name(site, index) -> str:
    return "s%03d-h%02d" % (site, index)


def _public_address(site, index):
    return "198.18.%d.%d" % (site % 256, index + 1)


def _tunnel_address(site, index):
    return "10.%d.%d.%d" % (site // 256, site % 256, index + 1)


def _linux(name, site, index, members):
    live, configured = [], []
    for other in members:
        if other == index:
            continue
        key = public_key(host_name(site, other))
        live.append({"public_key": key, "allowed_ips": ["%s/32" % _tunnel_address(site, other)],
                     "endpoint_host": _public_address(site, other), "endpoint_port": PORT,
                     "handshake_age_s": HANDSHAKE_AGE_S, "tx_bytes": 92000, "rx_bytes": 148000,
                     "persistent_keepalive_s": None})
        configured.append({"public_key": key, "endpoint": "%s:%d" % (_public_address(site, other), PORT),
                           "allowed_ips": ["%s/32" % _tunnel_address(site, other)]})
    return {"tunnelfix": {"wireguard": {
        "interfaces": {"wg0": {"public_key": public_key(name), "listen_port": PORT, "peers": live}},
        "configs": [{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                     "addresses": ["%s/24" % _tunnel_address(site, index)], "peers": configured}]}}}


def _openwrt(name, site, index, members):
    peers = []
    for other in members:
        if other == index:
            continue
        peers.append({"public_key": public_key(host_name(site, other)), "in_uci": True, "disabled": False,
                      "endpoint_host": _public_address(site, other), "endpoint_port": PORT,
                      "allowed_ips": ["%s/32" % _tunnel_address(site, other)], "route_allowed_ips": True,
                      "section": "@wireguard_wg0[%d]" % len(peers),
                      "live": {"allowed_ips": ["%s/32" % _tunnel_address(site, other)],
                               "endpoint_host": _public_address(site, other), "endpoint_port": PORT,
                               "handshake_age_s": HANDSHAKE_AGE_S, "tx_bytes": 92000, "rx_bytes": 148000}})
    return {"openwrt": {"wireguard": {"interfaces": {"wg0": {
        "in_uci": True, "live": True, "listen_port": PORT, "addresses": ["%s/24" % _tunnel_address(site, index)],
        "live_state": {"public_key": public_key(name), "listen_port": PORT}, "peers": peers}}}}}


def site_views(site, size) -> dict:
    """``{host: view}`` of one healthy site: a mesh of ``size`` hosts."""
    members = range(size)
    return {host_name(site, index): (_linux if index % 2 == 0 else _openwrt)(host_name(site, index), site, index, members)
            for index in members}


def _entries(view):
    """The peer entries of a view's wg0: [(live entry dict or None, kept entry dict)], kept being the config's or uci's."""
    if "openwrt" in view:
        return [(peer["live"], peer) for peer in view["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"]]
    wireguard = view["tunnelfix"]["wireguard"]
    live = {peer["public_key"]: peer for peer in wireguard["interfaces"]["wg0"]["peers"]}
    return [(live.get(peer["public_key"]), peer) for peer in wireguard["configs"][0]["peers"]]


def _entry(view, key):
    """(live, kept) of the entry for ``key`` in ``view``."""
    return next((live, kept) for live, kept in _entries(view) if kept["public_key"] == key)


def _drop_entry(view, key):
    if "openwrt" in view:
        iface = view["openwrt"]["wireguard"]["interfaces"]["wg0"]
        iface["peers"] = [peer for peer in iface["peers"] if peer["public_key"] != key]
        return
    wireguard = view["tunnelfix"]["wireguard"]
    wireguard["interfaces"]["wg0"]["peers"] = [peer for peer in wireguard["interfaces"]["wg0"]["peers"] if peer["public_key"] != key]
    wireguard["configs"][0]["peers"] = [peer for peer in wireguard["configs"][0]["peers"] if peer["public_key"] != key]


def _never_answered(live, tx_bytes):
    live.update(handshake_age_s=None, tx_bytes=tx_bytes, rx_bytes=0)


def _forget_endpoint(view, key):
    live, kept = _entry(view, key)
    if "endpoint" in kept:
        kept["endpoint"] = None
    else:
        kept.update(endpoint_host=None, endpoint_port=None)
    live.update(endpoint_host=None, endpoint_port=None)
    _never_answered(live, 0)


def seed_one_sided(views, site):
    """h01 (OpenWrt) lists h02; h02's entry for h01 was deleted (a key rotated on one side only)."""
    one, two = host_name(site, 1), host_name(site, 2)
    _drop_entry(views[two], public_key(one))
    _never_answered(_entry(views[one], public_key(two))[0], 4440)
    return {("one_sided_peer", one, two)}


def seed_duplicate_key(views, site):
    """h02 (Linux) was cloned from h04 and put to use at its own address: h04's key, h02's peers and address."""
    two, four = host_name(site, 2), host_name(site, 4)
    views[two]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["public_key"] = public_key(four)
    return {("duplicate_public_key", two, four), ("duplicate_public_key", four, two)}


def seed_no_endpoint(views, site):
    """h03 (OpenWrt) and h06 (Linux) list each other, neither keeps an endpoint for the other (two road-warrior configs)."""
    three, six = host_name(site, 3), host_name(site, 6)
    _forget_endpoint(views[three], public_key(six))
    _forget_endpoint(views[six], public_key(three))
    return {("no_endpoint_either_side", three, six), ("no_endpoint_either_side", six, three)}


def seed_port_mismatch(views, site):
    """h04 (Linux, behind NAT: h05 keeps no endpoint for it) sends to h05 at port 51821; h05 listens on 51820."""
    four, five = host_name(site, 4), host_name(site, 5)
    live, kept = _entry(views[four], public_key(five))
    kept["endpoint"] = "%s:%d" % (_public_address(site, 5), PORT + 1)
    live["endpoint_port"] = PORT + 1
    _never_answered(live, 1480)
    _forget_endpoint(views[five], public_key(four))
    return {("endpoint_port_mismatch", four, five)}


def seed_return_path(views, site):
    """h07 (OpenWrt)'s entry for h08 allows 10.X.Y.99/32, not h08's address: h07 drops every packet from h08."""
    seven, eight = host_name(site, 7), host_name(site, 8)
    live = _entry(views[seven], public_key(eight))[0]
    live["allowed_ips"] = ["%s/32" % _tunnel_address(site, 98)]
    return {("return_path_not_allowed", seven, eight)}


def seed_keepalive_side(views, site):
    """h10 (Linux, a hub: keeps no endpoint for h09) sends PersistentKeepalive 25 to h09 (OpenWrt, keeps h10's endpoint,
    sends none): the keepalive is on the end that cannot start the tunnel."""
    nine, ten = host_name(site, 9), host_name(site, 10)
    _forget_endpoint(views[ten], public_key(nine))
    live = _entry(views[ten], public_key(nine))[0]
    live.update(endpoint_host=_public_address(site, 9), endpoint_port=1024, handshake_age_s=HANDSHAKE_AGE_S,
                tx_bytes=92000, rx_bytes=148000, persistent_keepalive_s=25)   # learned from h09's packets
    return {("keepalive_on_wrong_side", nine, ten)}


def seed_handshake(views, site):
    """h01 (OpenWrt) sends handshake initiations to h02 (Linux), which accepts and answers them; only h02's entry has a
    preshared key (as the facts show it: whether one is set), so the handshake never completes."""
    one, two = host_name(site, 1), host_name(site, 2)
    live_one, live_two = _entry(views[one], public_key(two))[0], _entry(views[two], public_key(one))[0]
    _never_answered(live_one, 1480)
    live_one["has_preshared_key"] = False
    live_two.update(handshake_age_s=None, tx_bytes=920, rx_bytes=1480, has_preshared_key=True)
    return {("handshake_never_completes", one, two), ("handshake_never_completes", two, one)}


def seed_overlap(views, site):
    """h06 (Linux)'s file also lists h08's tunnel address for h07 (a copy-paste of a [Peer]): the kernel gives it to
    h08's entry (set later), h07's entry gets none of it."""
    six, seven, eight = host_name(site, 6), host_name(site, 7), host_name(site, 8)
    kept = _entry(views[six], public_key(seven))[1]
    kept["allowed_ips"] = ["%s/32" % _tunnel_address(site, 7), "%s/32" % _tunnel_address(site, 8)]
    return {("allowed_ips_overlap", six, seven)}


def seed_shadow_lan(views, site):
    """h04 (Linux) routes 192.168.1.0/24 to h05 (the site behind h05 is numbered like h04's own LAN on eth0)."""
    four, five = host_name(site, 4), host_name(site, 5)
    live, kept = _entry(views[four], public_key(five))
    for entry in (live, kept):
        entry["allowed_ips"] = ["%s/32" % _tunnel_address(site, 5), "192.168.1.0/24"]
    views[four]["tunnelfix"]["link_addresses"] = {"devices": {"eth0": ["192.168.1.2/24"], "wg0": ["%s/24" % _tunnel_address(site, 4)]},
                                                  "note": None}
    return {("allowed_ips_shadow_lan", four, five)}


def with_addresses(view, name):
    """``view`` of host ``name`` with its live addresses read (link_addresses): eth0 its public address/24, wg0 its
    tunnel address/24, lo."""
    site, index = int(name[1:4]), int(name[6:8])
    facts = view.get("openwrt") or view["tunnelfix"]
    facts["link_addresses"] = {"devices": {"eth0": ["%s/24" % _public_address(site, index)], "lo": ["127.0.0.1/8", "::1/128"],
                                           "wg0": ["%s/24" % _tunnel_address(site, index)]}, "note": None}
    return view


def seed_endpoint_address(views, site):
    """h02 (Linux)'s [Peer] for h03 (OpenWrt, its addresses read) was copied from h05's: Endpoint = h05's address, set
    with wg syncconf after the last handshake (an hour ago, both ends quiet since); the others reach h03 at its own."""
    two, three = host_name(site, 2), host_name(site, 3)
    live, kept = _entry(views[two], public_key(three))
    kept["endpoint"] = "%s:%d" % (_public_address(site, 5), PORT)
    live.update(endpoint_host=_public_address(site, 5), handshake_age_s=3600)
    _entry(views[three], public_key(two))[0]["handshake_age_s"] = 3600
    with_addresses(views[three], three)
    return {("endpoint_address_mismatch", two, three)}


def seed_key_mismatch(views, site):
    """h03 (OpenWrt)'s entry for h02 (Linux) lists h02's old key (h02 made a new key pair; h03's uci was not updated):
    public_key_mismatch on h03 (the line to change), one_sided_peer on h02 (h03 runs no entry for h02's key). And h05
    (OpenWrt)'s uci private_key gives another key than wg0 runs with (changed in uci, no ifup since): public_key_mismatch
    on h05 alone (its peers list the running key; the other end of none is named)."""
    two, three, five = host_name(site, 2), host_name(site, 3), host_name(site, 5)
    old = public_key(two + "-old")
    for peer in views[three]["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"]:
        if peer["public_key"] == public_key(two):
            peer["public_key"] = old
    _never_answered(_entry(views[two], public_key(three))[0], 1480)
    _never_answered(_entry(views[three], old)[0], 1480)
    views[five]["openwrt"]["wireguard"]["interfaces"]["wg0"]["configured_public_key"] = public_key(five + "-next")
    return {("public_key_mismatch", three, two), ("one_sided_peer", two, three), ("public_key_mismatch", five, None)}


SEEDS = {"one_sided_peer": seed_one_sided, "duplicate_public_key": seed_duplicate_key,
         "no_endpoint_either_side": seed_no_endpoint, "endpoint_port_mismatch": seed_port_mismatch,
         "return_path_not_allowed": seed_return_path, "keepalive_on_wrong_side": seed_keepalive_side,
         "handshake_never_completes": seed_handshake, "allowed_ips_overlap": seed_overlap,
         "allowed_ips_shadow_lan": seed_shadow_lan, "endpoint_address_mismatch": seed_endpoint_address,
         "public_key_mismatch": seed_key_mismatch}


def fleet(sites, size=11, seeds=()):
    """``(views, expected)``: ``sites`` meshes of ``size`` hosts (module doc); ``seeds`` (names of SEEDS) each changes
    one site of its own, the first seed site 0, the next site 1, ... (``sites`` must be at least ``len(seeds)``, ``size``
    at least 11). Raises ValueError on an unknown seed or too few sites or hosts."""
    unknown = [name for name in seeds if name not in SEEDS]
    if unknown:
        raise ValueError("unknown seed(s) %s; known: %s" % (", ".join(unknown), ", ".join(SEEDS)))
    if sites < len(seeds) or size < 11:
        raise ValueError("%d seeds need at least %d sites of at least 11 hosts, got %d of %d" % (len(seeds), len(seeds), sites, size))
    views = {}
    for site in range(sites):
        views.update(site_views(site, size))
    expected = set()
    for site, name in enumerate(seeds):
        expected |= SEEDS[name](views, site)
    return views, expected


def other_end(finding, views) -> str:
    """The host at the other end of a graph finding: its evidence's ``other_host``, else the host of its first ``also_on``
    node (``HOST/INTERFACE``), else the host of ``views`` whose own key is the entry's ``peer_public_key``, else None."""
    evidence = finding.get("evidence") or {}
    if evidence.get("other_host"):
        return evidence["other_host"]
    also = evidence.get("also_on") or []
    if also:
        return str(also[0]).rsplit("/", 1)[0]
    return next((host for host in sorted(views) if public_key(host) == evidence.get("peer_public_key")), None)


def copy_views(views):
    """A deep copy (the graph is cached per views object: a benchmark repeat needs a new one)."""
    return copy.deepcopy(views)
