# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One line per host and tunnel for diagnose.yml's overview: the facts an operator reads first.

``host_summary_lines(views)`` takes the host views of diagnose.yml (``{host: {"tunnelfix":
tunnel_facts' facts or None, "openwrt": openwrt_facts' facts or None, ...}}``, the same input as
the findings filter) and returns text lines, sorted by host:

* per WireGuard peer: ``peer wg0 peer AAAAAAAA… endpoint 203.0.113.1:51820 handshake_age_s 12 (fresh) persistent_keepalive_s off``
* per Linux host: ``peer tcp congestion_control cubic default_qdisc - tcp_wmem 4096 16384 4194304 child_netns true``
* per OpenWrt endpoint route: ``owrt wg0 endpoint 198.51.100.1 via wwan0 (gateway 100.64.20.1) preferred uplink eth1 pinned host routes 1``
* per OpenWrt router: ``owrt banIP ban_icmplimit unset, in force 25/s (nft rule), cnt_icmpflood 10 packets dropped``

One task on the controller prints them all, instead of a task per host and topic (a worker per
host and task: the cost that grows with the fleet, docs/performance.md). Missing or odd facts
give fewer lines, never an error. Public keys are shortened to 8 characters; nothing secret is
in the facts.
"""

from __future__ import annotations


def _dict(value):
    return value if isinstance(value, dict) else {}


def _text(value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _peer_lines(host, wireguard):
    lines = []
    for name, interface in sorted(_dict(wireguard.get("interfaces")).items(), key=lambda item: str(item[0])):
        peers = interface.get("peers") if isinstance(interface, dict) else None
        for peer in peers if isinstance(peers, list) else []:
            if not isinstance(peer, dict):
                continue
            # openwrt_facts merges uci with the live state: the handshake is under "live"
            live = peer.get("live") if isinstance(peer.get("live"), dict) else peer
            endpoint = live.get("endpoint") or (
                "%s:%s" % (peer["endpoint_host"], peer.get("endpoint_port")) if peer.get("endpoint_host") else None)
            keepalive = peer.get("persistent_keepalive_s")
            lines.append("%s %s peer %s… endpoint %s handshake_age_s %s (%s) persistent_keepalive_s %s" % (
                host, name, str(peer.get("public_key") or "?")[:8], _text(endpoint),
                _text(live.get("handshake_age_s")), _text(live.get("handshake_state")),
                "off" if keepalive in (None, 0) else keepalive))
    return lines


def _linux_lines(host, facts):
    lines = _peer_lines(host, _dict(facts.get("wireguard")))
    tcp, netns = _dict(facts.get("tcp")), _dict(facts.get("netns"))
    if tcp:
        lines.append("%s tcp congestion_control %s default_qdisc %s tcp_wmem %s child_netns %s" % (
            host, _text(tcp.get("congestion_control")), _text(tcp.get("default_qdisc")),
            _text(tcp.get("tcp_wmem")), _text(netns.get("child_netns"))))
    return lines


def _openwrt_lines(host, facts, preferred_device=None):
    lines = _peer_lines(host, _dict(facts.get("wireguard")))
    routes = _dict(facts.get("endpoint_routes"))
    for endpoint in routes.get("endpoints") if isinstance(routes.get("endpoints"), list) else []:
        if not isinstance(endpoint, dict):
            continue
        pinned = endpoint.get("pinned_routes")
        lines.append("%s %s endpoint %s via %s (gateway %s) preferred uplink %s pinned host routes %s" % (
            host, _text(endpoint.get("interface")), _text(endpoint.get("address")), _text(endpoint.get("dev")),
            _text(endpoint.get("gateway")), _text(routes.get("preferred_uplink_device") or preferred_device),
            len(pinned) if isinstance(pinned, list) else "-"))
    banip = _dict(facts.get("banip"))
    if banip.get("installed"):
        rule, counter = _dict(banip.get("icmp_limit_rule")), _dict(banip.get("icmp_counter"))
        if rule.get("rate_per_second") is not None:
            in_force = "%s/s (nft rule)" % rule["rate_per_second"]
        else:
            in_force = "unknown" if banip.get("icmplimit_per_second") is None else "%s/s" % banip["icmplimit_per_second"]
        dropped = ("%s %s packets dropped" % (counter.get("name"), _text(counter.get("packets")))
                   if counter else "no ICMP flood counter")
        state = ("disabled (ban_enabled 0), " if banip.get("enabled") is False else "") + (
            "nft table not loaded, " if banip.get("nft_table_loaded") is False else "")
        lines.append("%s banIP %sban_icmplimit %s, in force %s, %s" % (
            host, state, banip.get("ban_icmplimit") or "unset", in_force, dropped))
    elif banip:
        lines.append("%s banIP not installed" % host)
    return lines


def host_summary_lines(views) -> list:
    """``{host: view}`` → overview lines (see module doc); a view that is not a dict gives no line.

    Raises ValueError when ``views`` is not a dict.
    """
    if not isinstance(views, dict):
        raise ValueError("views must be a dict of host views, got %s" % type(views).__name__)
    lines = []
    for host in sorted(views, key=str):
        view = _dict(views[host])
        if isinstance(view.get("tunnelfix"), dict):
            lines += _linux_lines(host, view["tunnelfix"])
        if isinstance(view.get("openwrt"), dict):
            lines += _openwrt_lines(host, view["openwrt"], view.get("preferred_uplink_device"))
    return lines
