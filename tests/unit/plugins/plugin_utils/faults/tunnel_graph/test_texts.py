# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph findings' whole texts, one per rule and case (fake keys): what an operator reads, pinned."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.allowed_ips import allowed_ips_overlap
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.duplicate_key import duplicate_keys
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoints import no_endpoint, port_mismatch
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keepalive import wrong_side
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.return_path import return_path
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.shadow import allowed_ips_shadow_lan


def _cases(tg):
    hub, peer, owrt, old = tg.HUB, tg.PEER, tg.OWRT, tg.OLD
    uci_only = tg.owrt(owrt, [peer])
    uci_only["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["live"] = None   # in uci, not in the kernel
    return {
        "one_sided rotated": (one_sided, "peer", {
            "hub": tg.linux(hub, [old]), "peer": tg.linux(peer, [hub])}),
        "one_sided router lacks": (one_sided, "hub", {
            "hub": tg.linux(hub, [peer, owrt]), "peer": tg.linux(peer, [hub]), "owrt": tg.owrt(owrt, [])}),
        "one_sided not running": (one_sided, "peer", {
            "hub": tg.linux(hub, [peer], paper=[peer]), "peer": tg.linux(peer, [hub])}),
        "one_sided uci not running": (one_sided, "peer", {"owrt": uci_only, "peer": tg.linux(peer, [owrt])}),
        "one_sided disabled": (one_sided, "peer", {
            "owrt": tg.owrt(owrt, [peer], disabled=[peer]), "peer": tg.linux(peer, [owrt])}),
        "one_sided from a router": (one_sided, "owrt", {
            "owrt": tg.owrt(owrt, [peer]), "peer": tg.linux(peer, [old, "X" * 43 + "="])}),
        "one_sided from a router, not running there": (one_sided, "owrt", {
            "owrt": tg.owrt(owrt, [peer]), "peer": tg.linux(peer, [owrt], paper=[owrt])}),
        "duplicate clone": (duplicate_keys, "peer", {
            "hub": tg.linux(hub, [peer]), "peer": tg.linux(peer, [hub]), "clone": tg.linux(peer, [hub], listen_port=51821)}),
        "duplicate identical": (duplicate_keys, "hub", {
            "hub": tg.linux(hub, [owrt]), "hub.example.com": tg.linux(hub, [owrt]), "peer": tg.linux(peer, [hub])}),
        "no_endpoint never": (no_endpoint, "hub", {
            "hub": tg.linux(hub, [owrt]), "owrt": tg.owrt(owrt, [hub])}),
        "no_endpoint fresh": (no_endpoint, "hub", {
            "hub": tg.linux(hub, [owrt], learned={owrt: "198.51.100.7:51820"}, ages={owrt: 5}),
            "owrt": tg.owrt(owrt, [hub], learned={hub: "203.0.113.10:51820"})}),
        "port linux": (port_mismatch, "peer", {
            "hub": tg.linux(hub, [peer], listen_port=51820),
            "peer": tg.linux(peer, [hub], endpoints={hub: "203.0.113.10:51821"}, counters={hub: (1480, 0)})}),
        "port owrt kept": (port_mismatch, "hub", {
            "owrt": tg.owrt(owrt, [hub], listen_port=51820),
            "hub": tg.linux(hub, [owrt], endpoints={owrt: "198.51.100.7:51000"}, counters={owrt: (592, 0)})}),
        "port owrt random": (port_mismatch, "hub", {
            "hub": tg.linux(hub, [owrt], endpoints={owrt: "198.51.100.7:51820"}, counters={owrt: (8880, 0)}),
            "owrt": tg.owrt(owrt, [hub], listen_port=43512, uci_port=False)}),
        "return some": (return_path, "hub", {
            "hub": tg.linux(hub, [peer], allowed={peer: ["10.77.0.0/24", "10.78.0.0/24"]}),
            "peer": tg.linux(peer, [hub], addresses=["10.77.0.2/24", "10.78.0.2/24", "fd77::2/64", "fd78::2/64"],
                             allowed={hub: ["10.0.0.0/8", "fd00::/8"]})}),
        "return nothing": (return_path, "owrt", {
            "owrt": tg.owrt(owrt, [peer]),
            "peer": tg.linux(peer, [owrt], addresses=["10.77.0.2/24", "10.77.1.2/24"], allowed={owrt: ["10.77.0.0/16"]})}),
        "return none": (return_path, "hub", {
            "hub": tg.linux(hub, [peer], addresses=["10.77.0.1/24"], allowed={peer: ["10.77.0.3/32"]}),
            "peer": tg.linux(peer, [hub], addresses=["10.77.0.2/24"])}),
        "keepalive owrt": (wrong_side, "owrt", {
            "hub": tg.linux(hub, [owrt], learned={owrt: "198.51.100.7:1024"}, ages={owrt: 20}, keepalive={owrt: 25}),
            "owrt": tg.owrt(owrt, [hub], endpoints={hub: "203.0.113.10:51820"})}),
        "keepalive wg-quick": (wrong_side, "peer", {
            "hub": tg.linux(hub, [peer], learned={peer: "198.51.100.9:1024"}, ages={peer: 20}, keepalive={peer: 15}),
            "peer": tg.linux(peer, [hub], path="/etc/wireguard/other.conf", endpoints={hub: "203.0.113.10:51820"})}),
        "overlap identical live": (allowed_ips_overlap, "hub", {
            "hub": tg.linux(hub, [owrt, peer], kept={peer: ["10.77.0.2/32", "192.168.20.0/24"], owrt: ["192.168.20.0/24"]},
                            allowed={peer: ["10.77.0.2/32"], owrt: ["192.168.20.0/24"]}),
            "peer": tg.linux(peer, [hub]), "owrt": tg.owrt(owrt, [hub])}),
        "overlap identical order": (allowed_ips_overlap, "hub", {
            "hub": tg.linux(None, [peer, owrt], kept={peer: ["0.0.0.0/0", "::/0"], owrt: ["0.0.0.0/0", "::/0"]})}),
        "overlap identical uci": (allowed_ips_overlap, "owrt", {
            "owrt": tg.owrt(None, [hub, peer], kept={hub: ["10.77.0.0/24"], peer: ["10.77.0.0/24"]}, sections={hub: "hub", peer: "peer"})}),
        "overlap contained": (allowed_ips_overlap, "hub", {
            "hub": tg.linux(hub, [peer, owrt], kept={peer: ["10.0.0.0/16"], owrt: ["10.0.5.0/24", "10.0.6.0/24"]})}),
        "overlap own address": (allowed_ips_overlap, "hub", {
            "hub": tg.linux(hub, [peer, owrt], kept={peer: ["10.77.0.0/24"], owrt: ["10.77.0.2/32"]}),
            "peer": tg.linux(peer, [hub], addresses=["10.77.0.2/24"])}),
        "shadow same": (allowed_ips_shadow_lan, "hub", {
            "hub": tg.with_lan(tg.linux(hub, [peer], kept={peer: ["10.77.0.2/32", "192.168.1.0/24"]}),
                               {"eth0": ["192.168.1.2/24"], "wg0": ["10.77.0.1/24"]}),
            "peer": tg.linux(peer, [hub])}),
        "shadow inside uci": (allowed_ips_shadow_lan, "owrt", {
            "owrt": tg.with_lan(tg.owrt(owrt, [hub], kept={hub: ["10.77.0.0/24", "192.168.1.128/25"]}, sections={hub: "hub"}),
                                {"br-lan": ["192.168.1.1/24"], "wg0": ["10.77.0.3/24"]})}),
    }


TEXTS = {
    'one_sided rotated': (
        "peer's wg0 has a peer entry for hub's wg0 (public key HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=), but hub's "
        "wg0 runs no entry for peer's key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE=: WireGuard drops a handshake "
        'from a key it has no peer for, so this tunnel cannot come up. It lists 1 key(s) no host of this run has '
        '(OLDPEEROLDPEEROLDPEEROLDPEEROLDPEEROLDPEERO=): if one is an older key of peer, replace it with '
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE=. Add a [Peer] (or uci wireguard_wg0 peer) with PublicKey = '
        "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= to hub's wg0, or remove the entry here (/etc/wireguard/wg0.conf) "
        'if the tunnel is gone.'),
    'one_sided router lacks': (
        "hub's wg0 has a peer entry for owrt's wg0 (public key OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=), but "
        "owrt's wg0 runs no entry for hub's key HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=: WireGuard drops a "
        'handshake from a key it has no peer for, so this tunnel cannot come up. Add a [Peer] (or uci wireguard_wg0 '
        "peer) with PublicKey = HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH= to owrt's wg0, or remove the entry here "
        '(/etc/wireguard/wg0.conf) if the tunnel is gone.'),
    'one_sided not running': (
        "peer's wg0 has a peer entry for hub's wg0 (public key HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=), but hub's "
        "wg0 runs no entry for peer's key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (it is listed in "
        "/etc/wireguard/wg0.conf but not running: the kernel does not have it; run wg syncconf or restart the interface): "
        "WireGuard drops a handshake from a key it has no peer for, so this tunnel cannot come up. Make that entry run, or "
        "remove the entry here (/etc/wireguard/wg0.conf) if the tunnel is gone."),
    'one_sided uci not running': (
        "peer's wg0 has a peer entry for owrt's wg0 (public key OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=), but "
        "owrt's wg0 runs no entry for peer's key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (it is listed in uci but "
        "not running: the kernel does not have it; run wg syncconf or restart the interface): WireGuard drops a handshake "
        "from a key it has no peer for, so this tunnel cannot come up. Make that entry run, or remove the entry here "
        "(/etc/wireguard/wg0.conf) if the tunnel is gone."),
    'one_sided disabled': (
        "peer's wg0 has a peer entry for owrt's wg0 (public key OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=), but "
        "owrt's wg0 runs no entry for peer's key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (its uci peer for that key "
        "has disabled '1': netifd never gives it to the kernel; enable it): WireGuard drops a handshake from a key it has "
        "no peer for, so this tunnel cannot come up. Make that entry run, or remove the entry here "
        "(/etc/wireguard/wg0.conf) if the tunnel is gone."),
    'one_sided from a router': (
        "owrt's wg0 has a peer entry for peer's wg0 (public key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE=), but "
        "peer's wg0 runs no entry for owrt's key OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=: WireGuard drops a handshake "
        "from a key it has no peer for, so this tunnel cannot come up. It lists 2 key(s) no host of this run has "
        "(OLDPEEROLDPEEROLDPEEROLDPEEROLDPEEROLDPEERO=, XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX=): if one is an older "
        "key of owrt, replace it with OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=. Add a [Peer] (or uci wireguard_wg0 "
        "peer) with PublicKey = OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= to peer's wg0, or remove the entry here (uci) "
        "if the tunnel is gone."),
    'one_sided from a router, not running there': (
        "owrt's wg0 has a peer entry for peer's wg0 (public key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE=), but "
        "peer's wg0 runs no entry for owrt's key OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= (it is listed in "
        "/etc/wireguard/wg0.conf but not running: the kernel does not have it; run wg syncconf or restart the interface): "
        "WireGuard drops a handshake from a key it has no peer for, so this tunnel cannot come up. Make that entry run, or "
        "remove the entry here (uci) if the tunnel is gone."),
    'duplicate clone': (
        "peer's wg0 has the public key PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE=, and so does clone/wg0: the same "
        'private key is on more than one interface (a cloned image or a copied config). Every peer that lists this key '
        "(hub/wg0) sends to whichever of them spoke last, and each takes the other's session. Give peer its own key "
        "pair (wg genkey) and put the new public key in those peers' entries. (An active/standby pair that shares the "
        'key on purpose, e.g. with keepalived, is the one exception: then only one of them may run the interface at a '
        'time.)'),
    'duplicate identical': (
        "hub's wg0 and hub.example.com's wg0 show the same public key HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=, "
        'listen port, addresses and peers. Either they are one machine listed twice in the inventory (then remove one '
        'of the names: every run reads and changes it twice), or hub is a clone of hub.example.com nobody has changed '
        "yet (then both answer for that key and take each other's sessions: give hub its own key pair with wg genkey "
        "and put the new public key in the peers' entries)."),
    'no_endpoint never': (
        "Neither end of the tunnel between hub's wg0 and owrt's wg0 keeps an endpoint for the other (a file's Endpoint, "
        'uci endpoint_host). WireGuard starts a handshake only toward an endpoint it knows, so neither side ever starts '
        'this tunnel. Give the end that can reach the other (the one behind NAT, or the roaming one) Endpoint = the '
        "other's public address and listen port (uci endpoint_host and endpoint_port on OpenWrt). If a script sets it "
        '(PostUp = wg set ... endpoint ..., a portal), that owner is not read here: put the endpoint in the file '
        'instead.'),
    'no_endpoint fresh': (
        "Neither end of the tunnel between hub's wg0 and owrt's wg0 keeps an endpoint for the other (a file's Endpoint, "
        "uci endpoint_host). The tunnel works now (a handshake 5 s ago) only because one end learned the other's "
        'endpoint from its packets; after a restart of both, neither side starts it. Give the end that can reach the '
        "other (the one behind NAT, or the roaming one) Endpoint = the other's public address and listen port (uci "
        'endpoint_host and endpoint_port on OpenWrt). If a script sets it (PostUp = wg set ... endpoint ..., a portal), '
        'that owner is not read here: put the endpoint in the file instead.'),
    'port linux': (
        "peer's wg0 sends to hub's wg0 at 203.0.113.10 port 51821, but hub's wg0 listens on port 51820; the entry sent "
        '1480 bytes, received none, and has never had a handshake. Unless a NAT in front of hub forwards port 51821 to '
        "51820, set the endpoint's port to 51820 (/etc/wireguard/wg0.conf) if hub's wg0 keeps ListenPort = 51820; if it "
        "has no ListenPort line, 51820 is random and changes at each start: give hub's wg0 a fixed listen port "
        '(ListenPort = 51821) instead.'),
    'port owrt kept': (
        "hub's wg0 sends to owrt's wg0 at 198.51.100.7 port 51000, but owrt's wg0 listens on port 51820; the entry sent "
        '592 bytes, received none, and has never had a handshake. Unless a NAT in front of owrt forwards port 51000 to '
        "51820, set the endpoint's port to 51820 (/etc/wireguard/wg0.conf)."),
    'port owrt random': (
        "hub's wg0 sends to owrt's wg0 at 198.51.100.7 port 51820, but owrt's wg0 listens on port 43512; the entry sent "
        "8880 bytes, received none, and has never had a handshake. Unless a NAT in front of owrt forwards port 51820 to "
        "43512, give owrt's wg0 a fixed listen port (uci listen_port '51820'): it has none, so 43512 is a random port "
        "chosen at its last start and changes at the next."),
    'return some': (
        "hub's wg0 allows 10.77.0.0/24, 10.78.0.0/24 for the peer PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (peer's "
        "wg0), which sends from 10.77.0.2/24, 10.78.0.2/24, fd77::2/64, fd78::2/64 toward it: WireGuard drops every packet "
        "whose source is outside the sending peer's AllowedIPs, so hub drops what peer sends from fd77::2/64, fd78::2/64; "
        "what it sends from 10.77.0.2/24, 10.78.0.2/24 still passes. Add fd77::2/128, fd78::2/128 to that entry's "
        "AllowedIPs (/etc/wireguard/wg0.conf), unless another peer of wg0 is meant to carry it."),
    'return nothing': (
        "owrt's wg0 allows nothing for the peer PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (peer's wg0), which sends "
        "from 10.77.0.2/24, 10.77.1.2/24 toward it: WireGuard drops every packet whose source is outside the sending "
        "peer's AllowedIPs, so owrt drops everything peer sends from 10.77.0.2/24, 10.77.1.2/24 (a handshake still "
        "completes, nothing else passes). Add 10.77.0.2/32, 10.77.1.2/32 to that entry's AllowedIPs (uci), unless "
        "another peer of wg0 is meant to carry it."),
    'return none': (
        "hub's wg0 allows 10.77.0.3/32 for the peer PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (peer's wg0), which "
        "sends from 10.77.0.2/24 toward it: WireGuard drops every packet whose source is outside the sending peer's "
        'AllowedIPs, so hub drops everything peer sends from 10.77.0.2/24 (a handshake still completes, nothing else '
        "passes). Add 10.77.0.2/32 to that entry's AllowedIPs (/etc/wireguard/wg0.conf), unless another peer of wg0 is "
        'meant to carry it.'),
    'keepalive owrt': (
        "owrt's wg0 keeps an endpoint for hub's wg0 (203.0.113.10) and sends no PersistentKeepalive, while hub's wg0 "
        'keeps no endpoint for it and sends one every 25 s. Only owrt can start this tunnel: hub knows its address only '
        'from its last packet, and a NAT in front of owrt keeps the mapping open for outbound packets, not for '
        "hub's keepalives, which the NAT drops once the mapping has expired. Put the keepalive on this side: uci set "
        "network.<the wireguard_wg0 peer with public_key HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=>."
        "persistent_keepalive='25' (remediate applies it with wireguard_keepalive on this entry only: "
        "wireguard_keepalive_interfaces=[wg0], wireguard_keepalive_public_keys=[HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=]). "
        "hub's keepalive is harmless and may stay."),
    'keepalive wg-quick': (
        "peer's wg0 keeps an endpoint for hub's wg0 (203.0.113.10) and sends no PersistentKeepalive, while hub's wg0 "
        'keeps no endpoint for it and sends one every 15 s. Only peer can start this tunnel: hub knows its address only '
        'from its last packet, and a NAT in front of peer keeps the mapping open for outbound packets, not for '
        "hub's keepalives, which the NAT drops once the mapping has expired. Put the keepalive on this side: "
        'PersistentKeepalive = 25 in the [Peer] for HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH= in '
        '/etc/wireguard/other.conf (remediate applies it with wireguard_keepalive on this entry only: '
        "wireguard_keepalive_interfaces=[wg0], wireguard_keepalive_public_keys=[HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=]). "
        "hub's keepalive is harmless and may stay."),
    'overlap contained': (
        "hub's wg0 sends 10.0.5.0/24 (inside 10.0.0.0/16), 10.0.6.0/24 (inside 10.0.0.0/16) to "
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=, although PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= lists the '
        'wider prefix: WireGuard sends a packet to the peer with the longest matching prefix, so '
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= loses them to OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=. If '
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= is meant to carry them (a route carved out on purpose), nothing is '
        'wrong; else remove them from the entry for OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= (AllowedIPs of the '
        '[Peer] with PublicKey = OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= in /etc/wireguard/wg0.conf). No role '
        'changes AllowedIPs: a wrong guess moves traffic to another peer.'),
    'overlap identical live': (
        "hub's wg0 lists 192.168.20.0/24 for two peers, PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (peer's wg0) and "
        "OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= (owrt's wg0). WireGuard gives a prefix to one peer of an interface "
        "only, the one set last: owrt's wg0 (the kernel holds it for that entry now), so peer's wg0 gets none of it (wg "
        "show lists it under owrt's wg0 only). Keep it in the one entry meant to carry it: remove it from the entry for "
        "peer's wg0 (AllowedIPs of the [Peer] with PublicKey = PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= in "
        "/etc/wireguard/wg0.conf) or from the one for owrt's wg0 (AllowedIPs of the [Peer] with PublicKey = "
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= in /etc/wireguard/wg0.conf). No role changes AllowedIPs: a wrong '
        'guess moves traffic to another peer.'),
    'overlap identical order': (
        "hub's wg0 lists 0.0.0.0/0, ::/0 for two peers, PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= and "
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=. WireGuard gives a prefix to one peer of an interface only, the one '
        'set last: OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= (it comes later in /etc/wireguard/wg0.conf), so '
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= gets none of them (wg show lists them under '
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= only). Keep them in the one entry meant to carry them: remove them '
        'from the entry for PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (AllowedIPs of the [Peer] with PublicKey = '
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= in /etc/wireguard/wg0.conf) or from the one for '
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= (AllowedIPs of the [Peer] with PublicKey = '
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= in /etc/wireguard/wg0.conf). No role changes AllowedIPs: a wrong '
        'guess moves traffic to another peer.'),
    'overlap identical uci': (
        "owrt's wg0 lists 10.77.0.0/24 for two peers, HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH= and "
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE=. WireGuard gives a prefix to one peer of an interface only, the one '
        "set last: PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (netifd sets the peer sections in uci's order, and its "
        'section comes later), so HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH= gets none of it (wg show lists it under '
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= only). Keep it in the one entry meant to carry it: remove it from '
        'the entry for HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH= (network.hub.allowed_ips) or from the one for '
        'PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (network.peer.allowed_ips). No role changes AllowedIPs: a wrong '
        'guess moves traffic to another peer.'),
    'overlap own address': (
        "hub's wg0 sends 10.77.0.2/32 (inside 10.77.0.0/24) to OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=, although "
        "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (peer's wg0) lists the wider prefix: WireGuard sends a packet to "
        "the peer with the longest matching prefix, so peer's wg0 loses it to "
        "OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR=. 10.77.0.2 is the tunnel address of peer's wg0 itself: what hub "
        'sends to it goes to OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= instead. Remove it from the entry for '
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= (AllowedIPs of the [Peer] with PublicKey = '
        'OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR= in /etc/wireguard/wg0.conf). No role changes AllowedIPs: a wrong '
        'guess moves traffic to another peer.'),
    'shadow inside uci': (
        "owrt's wg0 routes 192.168.1.128/25 to the peer HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH=, inside the LAN "
        'connected here (192.168.1.0/24 on br-lan): the longer prefix wins, so owrt reaches those LAN hosts through the '
        "tunnel instead. If the site behind the peer really uses this LAN's addresses, renumber one of them or NAT it; "
        'else correct the prefix in network.hub.allowed_ips. No role changes AllowedIPs: a wrong guess moves traffic to '
        'another peer.'),
    'shadow same': (
        "hub's wg0 routes 192.168.1.0/24 to the peer PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= (peer's wg0), and the "
        'same prefix is connected here (192.168.1.2/24 on eth0): two routes for one prefix, and the connected one wins '
        '(an IPv4 route of the tunnel cannot even be added, File exists: wg-quick up stops there; an IPv6 one loses on '
        'metric), so what lies behind the peer in that prefix is unreachable from hub. If the site behind the peer really '
        "uses this LAN's addresses, renumber one of them or NAT it; else correct the prefix in AllowedIPs of the [Peer] "
        'with PublicKey = PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE= in /etc/wireguard/wg0.conf. No role changes '
        'AllowedIPs: a wrong guess moves traffic to another peer.'),
}


@pytest.mark.parametrize("case", sorted(TEXTS))
def test_the_whole_text_of_each_graph_finding(tg, case):
    rule, host, views = _cases(tg)[case]
    (_evidence, text), = rule(host, views[host], views)
    assert " ".join(text.split()) == TEXTS[case]
