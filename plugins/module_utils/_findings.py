# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Findings: what is wrong on which host, why, with the numbers and the role that fixes it.

``find_findings(views)`` takes one *view* per inventory host, put together by the diagnose
playbook from facts and measurements (every key optional)::

    {"groups": ["tunnelfix_wireguard_peers"],        # the host's inventory groups
     "tunnel_hub": "hub",                             # tunnelfix_tunnel_hub (peers)
     "tunnelfix": {...},                              # ansible_facts.tunnelfix (tunnel_facts)
     "openwrt": {...},                                # ansible_facts.tunnelfix_openwrt (openwrt_facts)
     "measurement": {...},                            # tunnel_measure_record (ping after idle, iperf3)
     "health_checks": {...},                          # health_check_measure_record
     "sweep": {...},                                  # tunnel_sweep_record (peers: TCP/UDP both ways)
     "path_bits_per_second": 40e6,                    # the path the tunnel should fill, if known
     "preferred_uplink_device": "eth1"}               # OpenWrt: the device endpoints should use

and returns a list of findings sorted by host, then severity, then id::

    {"id": "nat_peer_without_keepalive", "severity": "critical", "host": "peer",
     "fix_role": "tunnelfix.fleet.wireguard_keepalive",
     "evidence": {...numbers...}, "explanation": "one paragraph"}

A finding may also carry ``fix_vars`` (optional; only where the role needs to know what to fix):
the variables for ``fix_role``, for example ``{"bridge_gso_off_bridges": ["br-lan"]}``.

Ids are stable (tests and operators' alert rules key on them). A host with nothing wrong gives
no finding; a missing fact gives no finding (never a guess). Sources of the thresholds:
WireGuard's REJECT_AFTER_TIME (180 s, handshake "stale"), Mathis et al. 1997 and the
bandwidth-delay product (_tcp_model), mwan3track's defaults (count 1, interval 10 s), banIP's
ICMP limit (shared case 05), and for offloads on a bridge fed by a smaller-MTU tunnel the
Tailscale (MTU 1280) into br-lan field case (shared case 12).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_model import bdp_bytes, mathis_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.module_utils._tunnel_links import UP_OPERSTATES

SEVERITY_ORDER = ("critical", "high", "medium", "low", "info")
LOSS_BASED_CC = ("cubic", "reno", "htcp", "bic", "highspeed", "scalable", "westwood", "illinois")
STALE_HANDSHAKE_S = 180
# A 1420-byte WireGuard MTU leaves 1368 bytes of TCP payload (IPv4, timestamps on): Mathis' MSS.
DEFAULT_MSS_BYTES = 1368
MWAN3_DEFAULT_COUNT = 1
MWAN3_DEFAULT_INTERVAL_S = 10


def _is_int(value):
    """An int that is not a bool (JSON true is not an MTU)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    """An int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finding(fid, severity, host, fix_role, evidence, explanation, fix_vars=None):
    finding = {"id": fid, "severity": severity, "host": host, "fix_role": fix_role,
               "evidence": evidence, "explanation": " ".join(explanation.split())}
    if fix_vars is not None:
        finding["fix_vars"] = fix_vars
    return finding


def _peers_to_hub(view, hub_view):
    """(this host's peer entries pointing at its hub, the hub's entries for this host), by public key."""
    own = ((view.get("tunnelfix") or {}).get("wireguard") or {}).get("interfaces") or {}
    hub = ((hub_view.get("tunnelfix") or {}).get("wireguard") or {}).get("interfaces") or {} if hub_view else {}
    hub_keys = {iface.get("public_key") for iface in hub.values()}
    own_keys = {iface.get("public_key") for iface in own.values()}
    mine = [peer for iface in own.values() for peer in iface.get("peers", []) if peer.get("public_key") in hub_keys]
    theirs = [peer for iface in hub.values() for peer in iface.get("peers", []) if peer.get("public_key") in own_keys]
    return mine, theirs


def keepalive_findings(host, view, views):
    """nat_peer_without_keepalive / stale_despite_keepalive (fault 4), from both ends of the tunnel."""
    if "tunnelfix_wireguard_peers" not in view.get("groups", []) or "tunnelfix_openwrt" in view.get("groups", []):
        return []
    hub = view.get("tunnel_hub")
    mine, theirs = _peers_to_hub(view, views.get(hub))
    ping = (view.get("measurement") or {}).get("ping") or {}
    loss = ping.get("loss_percent")
    ages = [p.get("handshake_age_s") for p in mine + theirs if p.get("handshake_age_s") is not None]
    stale = [age for age in ages if age > STALE_HANDSHAKE_S]
    unreachable = loss is not None and loss > 0
    out = []
    for peer in mine:
        evidence = {"hub": hub, "peer_public_key": peer.get("public_key"), "persistent_keepalive_s": peer.get("persistent_keepalive_s"),
                    "handshake_age_s": max(ages) if ages else None, "hub_sees_endpoint": [p.get("endpoint") for p in theirs] or None,
                    "idle_ping_loss_percent": loss, "idle_s": (view.get("measurement") or {}).get("idle_s")}
        if peer.get("persistent_keepalive_s") is None and (unreachable or stale):
            out.append(_finding("nat_peer_without_keepalive", "critical", host, "tunnelfix.fleet.wireguard_keepalive", evidence, """
                This peer sends no PersistentKeepalive to %s, and the hub cannot reach it after a silence
                (%s %% ping loss after %s s idle; newest handshake %s s old, which only shows that the peer itself sent
                lately: its own packets refresh the mapping, the hub's cannot). A NAT or stateful firewall in front of
                the peer forgets the UDP mapping when no packet leaves for a while, so packets from the hub are
                dropped until the peer itself sends again. PersistentKeepalive below the NAT's UDP timeout
                (25 s suits most) keeps the mapping open.""" % (hub, loss, evidence["idle_s"], evidence["handshake_age_s"])))
        elif peer.get("persistent_keepalive_s") is not None and stale:
            out.append(_finding("stale_despite_keepalive", "high", host, None, evidence, """
                PersistentKeepalive is %s s, yet the newest handshake with %s is %s s old (over %s s: no usable
                session). Keepalives are not getting through: the endpoint may be wrong or unreachable, a firewall
                may drop them, or the NAT's UDP timeout is shorter than the keepalive interval."""
                                % (peer.get("persistent_keepalive_s"), hub, max(stale), STALE_HANDSHAKE_S)))
    return out


def _loss_limited_bound(bps, path, rtt_ms, loss_ratio):
    """The Mathis bound (bit/s) when a loss-based flow of ``bps`` is held back by loss, else None.

    The fault: the path could carry twice what the model allows a loss-based flow, and the flow
    got no more than the model (with 50 % slack for the estimate). Mathis et al. 1997 (_tcp_model).
    """
    bound = mathis_bits_per_second(DEFAULT_MSS_BYTES, rtt_ms, loss_ratio)
    return bound if bound < 0.5 * path and bps < 1.5 * bound else None


def congestion_control_findings(host, view, views):
    """loss_sensitive_congestion_control (fault 3) and buffer_below_bdp, from the TCP facts and the single flow."""
    tcp = (view.get("tunnelfix") or {}).get("tcp") or {}
    measurement = view.get("measurement") or {}
    iperf3 = measurement.get("iperf3") or {}
    cc = iperf3.get("sender_congestion_control") or tcp.get("congestion_control")
    bps, retransmits = iperf3.get("bits_per_second"), iperf3.get("retransmits")
    duration = iperf3.get("duration_s") or 15
    # The path RTT: the idle ping's average, else the single flow's own mean RTT (tcp_info, under load).
    idle_rtt = (measurement.get("ping") or {}).get("rtt_avg_ms")
    loaded_rtt = iperf3.get("mean_rtt_ms")
    path, rtt = view.get("path_bits_per_second"), idle_rtt or loaded_rtt
    out = []
    # A flow whose RTT grew well above the idle RTT filled a queue: it runs at a bottleneck (a slow
    # uplink, a shaper) and its losses are that queue overflowing, not random path loss. Then the
    # congestion control is not what limits it.
    queueing = bool(idle_rtt and loaded_rtt and loaded_rtt > 1.5 * idle_rtt + 5)
    if cc in LOSS_BASED_CC and bps and retransmits and path and rtt and iperf3.get("valid", True) and not queueing:
        segments = bps * duration / 8 / DEFAULT_MSS_BYTES
        loss_ratio = min(1.0, retransmits / segments) if segments else None
        bound = _loss_limited_bound(bps, path, rtt, loss_ratio) if loss_ratio else None
        if bound is not None:
            out.append(_finding("loss_sensitive_congestion_control", "high", host, "tunnelfix.fleet.linux_bbr_fq", {
                "congestion_control": cc, "measured_bits_per_second": bps, "path_bits_per_second": path,
                "rtt_ms": rtt, "retransmits": retransmits, "loss_ratio_estimate": loss_ratio,
                "mathis_bits_per_second": bound, "bdp_bytes": bdp_bytes(path, rtt)}, """
                One TCP flow reached %.1f Mbit/s of a %.1f Mbit/s path with %s, a loss-based congestion control.
                With %.0f ms RTT and about %.3f %% loss (%s retransmits) the Mathis bound for such a flow is
                %.1f Mbit/s: it backs off at every loss. BBR models bandwidth and RTT instead and fills the path."""
                % (bps / 1e6, path / 1e6, cc, rtt, loss_ratio * 100, retransmits, bound / 1e6)))
    if tcp and path and rtt:
        need = bdp_bytes(path, rtt)
        for key in ("tcp_wmem", "tcp_rmem"):
            fields = str(tcp.get(key) or "").split()
            if len(fields) == 3 and fields[2].isdigit() and int(fields[2]) < need:
                out.append(_finding("buffer_below_bdp", "medium", host, "tunnelfix.fleet.linux_bbr_fq", {
                    "sysctl": "net.ipv4.%s" % key, "max_bytes": int(fields[2]), "bdp_bytes": need,
                    "path_bits_per_second": path, "rtt_ms": rtt}, """
                    net.ipv4.%s allows at most %s bytes per socket, below the %.0f bytes a flow needs in flight to
                    fill %.1f Mbit/s at %.0f ms; one flow is capped near %.1f Mbit/s."""
                    % (key, fields[2], need, path / 1e6, rtt, int(fields[2]) * 8 / (rtt / 1000) / 1e6)))
    return out


def _sweep_entry(sweep, name):
    """The valid result ``name`` of a tunnel_sweep record, or None."""
    for entry in (sweep or {}).get("results") or []:
        if isinstance(entry, dict) and entry.get("name") == name and entry.get("valid") is True:
            return entry
    return None


def _udp_loss_ratio(sweep, direction, path):
    """The UDP test with the lowest loss in ``direction`` at a rate below ``path``: (loss ratio 0-1, entry), or (None, None).

    The lowest rate's loss is the path's own (random) loss: well below the bottleneck no queue
    overflows. That is Mathis' p more directly than a retransmit count.
    """
    losses = [(entry["lost_percent"] / 100.0, entry) for entry in (sweep or {}).get("results") or []
              if isinstance(entry, dict) and entry.get("valid") is True and entry.get("protocol") == "udp"
              and entry.get("direction") == direction and _is_number(entry.get("lost_percent"))
              and _is_number(entry.get("offered_bits_per_second"))
              and entry["offered_bits_per_second"] < path]
    return min(losses, key=lambda item: item[0]) if losses else (None, None)


def hub_download_findings(host, view, views):
    """loss_sensitive_congestion_control on a hub: its peers' sweeps show the hub -> peer direction held back.

    The hub sends in the download direction (iperf3 -R from the peer), so its own congestion
    control decides that rate: fixing only the peer leaves traffic towards the peer slow. Per hub,
    one finding naming every peer whose single download flow stays under the Mathis bound computed
    from the sweep's own UDP loss (downloads below the path) and the path RTT (the hub's idle
    ping, else the upload flow's mean RTT: with the NAT fault the ping is lost).
    """
    if "tunnelfix_wireguard_hubs" not in view.get("groups", []):
        return []
    hub_cc = ((view.get("tunnelfix") or {}).get("tcp") or {}).get("congestion_control")
    held_back = []
    for peer in sorted(views):
        peer_view = views[peer]
        flow = _sweep_entry(peer_view.get("sweep"), "tcp_single_download")
        path = peer_view.get("path_bits_per_second")
        # The path RTT: the hub's idle ping to the peer, else (all lost: the NAT fault) the upload flow's own.
        upload = _sweep_entry(peer_view.get("sweep"), "tcp_single_upload") or {}
        rtt = (((peer_view.get("measurement") or {}).get("ping") or {}).get("rtt_avg_ms")
               or upload.get("mean_rtt_ms") or ((peer_view.get("measurement") or {}).get("iperf3") or {}).get("mean_rtt_ms"))
        if peer_view.get("tunnel_hub") != host or not flow or not path or not rtt:
            continue
        cc = flow.get("congestion_control") or hub_cc
        loss_ratio, udp = _udp_loss_ratio(peer_view.get("sweep"), "download", path)
        bps = flow.get("bits_per_second")
        if cc not in LOSS_BASED_CC or not loss_ratio or not bps:
            continue
        bound = _loss_limited_bound(bps, path, rtt, loss_ratio)
        if bound is not None:
            held_back.append({"peer": peer, "congestion_control": cc, "measured_bits_per_second": bps,
                              "path_bits_per_second": path, "rtt_ms": rtt, "udp_loss_ratio": loss_ratio,
                              "udp_test": udp["name"], "udp_offered_bits_per_second": udp["offered_bits_per_second"],
                              "mathis_bits_per_second": bound, "bdp_bytes": bdp_bytes(path, rtt)})
    if not held_back:
        return []
    worst = min(held_back, key=lambda item: item["measured_bits_per_second"] / item["path_bits_per_second"])
    return [_finding("loss_sensitive_congestion_control", "high", host, "tunnelfix.fleet.linux_bbr_fq", dict(
        worst, direction="download", peers=[item["peer"] for item in held_back]), """
        This hub sends to %s with %s, a loss-based congestion control: one TCP flow hub -> %s reached %.1f Mbit/s
        of a %.1f Mbit/s path. The peer's sweep lost %.2f %% of UDP sent hub -> peer at %.1f Mbit/s offered (below the
        path's rate; the lowest loss of its UDP tests in that direction), and the RTT is %.0f ms: the Mathis bound for
        such a flow is %.1f Mbit/s. The peer's own congestion control does not help this
        direction: the sender is the hub, and it needs BBR too."""
        % (", ".join(item["peer"] for item in held_back), worst["congestion_control"], worst["peer"],
           worst["measured_bits_per_second"] / 1e6, worst["path_bits_per_second"] / 1e6,
           worst["udp_loss_ratio"] * 100, worst["udp_offered_bits_per_second"] / 1e6, worst["rtt_ms"],
           worst["mathis_bits_per_second"] / 1e6))]


def kernel_findings(host, view, views):
    """sch_fq_missing, congestion_control_restricted_in_container, kernel_without_bbr."""
    facts = view.get("tunnelfix") or {}
    tcp, netns = facts.get("tcp") or {}, facts.get("netns") or {}
    if not tcp:
        return []
    out = []
    available = tcp.get("congestion_control_available")
    if not isinstance(available, list):  # not read (or junk): no guess about the kernel
        return []
    allowed = tcp.get("congestion_control_allowed") or []
    if "bbr" not in available and not tcp.get("tcp_bbr_loadable_module") and not tcp.get("tcp_bbr_available"):
        out.append(_finding("kernel_without_bbr", "medium", host, None, {"congestion_control_available": available}, """
            This kernel offers no BBR (not built in, no tcp_bbr module): the congestion-control fix cannot be
            applied here; tune buffers and keep loss low, or use a kernel with CONFIG_TCP_CONG_BBR."""))
    elif netns.get("child_netns") and "bbr" in available and "bbr" not in allowed:
        out.append(_finding("congestion_control_restricted_in_container", "medium", host, None,
                            {"container": netns.get("container"), "congestion_control_allowed": allowed}, """
            This host is a container (a child network namespace): it may only select a congestion control the
            host lists in net.ipv4.tcp_allowed_congestion_control, and bbr is not there. Add it on the host
            (Proxmox node, Docker host); the container cannot."""))
    if tcp.get("sch_fq_available") is False and not netns.get("child_netns"):
        out.append(_finding("sch_fq_missing", "low", host, None, {"default_qdisc": tcp.get("default_qdisc")}, """
            The fq qdisc is not available in this kernel. BBR paces with TCP's internal pacing instead, which
            costs some CPU; install the sch_fq module for net.core.default_qdisc=fq."""))
    return out


def endpoint_route_findings(host, view, views):
    """endpoint_route_pinned (fault 1): a split tunnel's endpoint pinned to another uplink than the preferred one."""
    facts = view.get("openwrt") or {}
    preferred = view.get("preferred_uplink_device")
    interfaces = (facts.get("wireguard") or {}).get("interfaces") or {}
    out = []
    for endpoint in (facts.get("endpoint_routes") or {}).get("endpoints") or []:
        iface = interfaces.get(endpoint.get("interface")) or {}
        pinned = endpoint.get("pinned_routes") or []
        if not pinned or not preferred or iface.get("tunnel") != "split" or endpoint.get("dev") == preferred:
            continue
        out.append(_finding("endpoint_route_pinned", "high", host, "tunnelfix.fleet.openwrt_mwan3_wg", {
            "interface": endpoint.get("interface"), "endpoint": endpoint.get("address"), "dev": endpoint.get("dev"),
            "gateway": endpoint.get("gateway"), "preferred_uplink_device": preferred, "pinned_routes": pinned}, """
            The WireGuard endpoint %s of %s is reached through %s, not the preferred uplink %s, because of a static
            host route. netifd adds that route when the interface starts, through whichever uplink is best at that
            moment, and never moves it when mwan3 switches back. For a split tunnel set nohostroute=1 and delete
            the pinned route.""" % (endpoint.get("address"), endpoint.get("interface"), endpoint.get("dev"), preferred)))
    return out


def _mwan3_ping_budget(tracking):
    """Echo replies per second mwan3track expects: sum over ping-tracked interfaces of targets x count / interval."""
    budget = 0.0
    for entry in tracking.values():
        if entry.get("enabled") is not True or entry.get("track_method") not in (None, "ping"):
            continue
        intervals = [v for v in (entry.get("interval_s"), entry.get("failure_interval_s"), entry.get("recovery_interval_s")) if v]
        interval = min(intervals) if intervals else MWAN3_DEFAULT_INTERVAL_S
        budget += len(entry.get("track_ip") or []) * (entry.get("count") or MWAN3_DEFAULT_COUNT) / interval
    return budget


def banip_findings(host, view, views):
    """banip_icmp_limit_drops_health_checks (fault 2): banIP's ICMP limit drops mwan3's echo replies."""
    facts = view.get("openwrt") or {}
    banip, mwan3 = facts.get("banip") or {}, facts.get("mwan3") or {}
    checks = view.get("health_checks") or {}
    if not banip.get("installed") or not mwan3.get("tracking"):
        return []
    rule = banip.get("icmp_limit_rule") or {}
    limit = rule.get("rate_per_second") or banip.get("icmplimit_per_second")
    budget = _mwan3_ping_budget(mwan3["tracking"])
    drops, failed = checks.get("icmp_flood_drops_packets"), checks.get("failed_pings")
    if budget == 0 or not limit or not ((drops or 0) > 0 or (failed or 0) > 0 or budget * 2 > limit):
        return []
    return [_finding("banip_icmp_limit_drops_health_checks", "high", host, "tunnelfix.fleet.banip_icmp", {
        "icmplimit_per_second": limit, "mwan3_ping_budget_per_second": round(budget, 2),
        "health_check_pings_sent": checks.get("sent"), "health_check_pings_failed": failed,
        "icmp_flood_drops_packets": drops, "counter": rule.get("counter")}, """
        banIP drops ICMP above %s packets/s in one shared bucket (burst 5) on the WAN devices, before
        established traffic is accepted. mwan3 tracks uplinks by ping (about %.1f replies/s on average, in
        bursts): %s of %s bursty one-shot health-check pings failed and the flood counter counted %s drops, so
        mwan3 can mark a healthy uplink offline. Raise banip.global.ban_icmplimit (250)."""
        % (limit, budget, failed, checks.get("sent"), drops))]


def _bridges_facts(view):
    """The ``bridges`` subset of tunnel_facts (Linux, view["tunnelfix"]) or openwrt_facts (view["openwrt"]), or {}."""
    for key in ("tunnelfix", "openwrt"):
        facts = (view.get(key) or {}).get("bridges")
        if isinstance(facts, dict) and facts.get("ip_json"):
            return facts
    return {}


def _offloads_on(name, bridge):
    """``{device: [gso/tso/gro names on and changeable]}`` for the bridge and its ports; devices with none left out."""
    devices = [(name, bridge)] + sorted((bridge.get("ports") or {}).items())
    on = {device: (facts.get("gso_tso_gro") or {}).get("on") for device, facts in devices}
    on = {device: [str(n) for n in names] if isinstance(names, list) else [] for device, names in on.items()}
    return {device: names for device, names in on.items() if names}


def bridge_offload_findings(host, view, views):
    """bridge_offload_small_mtu_tunnel (fault 5): a forwarding host, an up tunnel below a bridge's MTU, offloads on."""
    facts = _bridges_facts(view)
    ip_forward = facts.get("ip_forward")
    if not _is_int(ip_forward) or ip_forward < 1:  # None is unknown: no guess
        return []
    tunnels = sorted((t["mtu"], name, t.get("kind")) for name, t in (facts.get("tunnels") or {}).items()
                     if isinstance(t, dict) and _is_int(t.get("mtu")) and t.get("operstate") in UP_OPERSTATES)
    out = []
    for name, bridge in sorted((facts.get("bridges") or {}).items()):
        bridge_mtu = bridge.get("mtu")
        smaller = [t for t in tunnels if _is_int(bridge_mtu) and t[0] < bridge_mtu]
        offloads = _offloads_on(name, bridge)
        if not smaller or not offloads:
            continue
        tunnel_mtu, tunnel, kind = smaller[0]
        out.append(_finding("bridge_offload_small_mtu_tunnel", "high", host, "tunnelfix.fleet.bridge_gso_off", {
            "bridge": name, "bridge_mtu_bytes": bridge_mtu, "tunnel": tunnel, "tunnel_mtu_bytes": tunnel_mtu,
            "kind": kind, "offloads_on": offloads, "ip_forward": ip_forward}, """
            IP forwarding is on, the %s tunnel %s is up with an MTU of %s bytes, below the %s bytes of bridge %s,
            and segmentation or receive offload is still on for %s. Receive offload glues the tunnel's small
            packets into one large buffer, and segmentation offload is trusted to cut that buffer back into
            frames that fit the LAN; on a bridge fed from a smaller-MTU tunnel that cut can come out wrong, so
            LAN clients get frames above their MTU, drop them, and TCP crawls along on retransmits (in a field case,
            Tailscale's 1280-byte tunnel into a LAN bridge, TCP fell to 0.2 Mbit/s). Turning gso, tso and gro off on the bridge and every port makes the kernel
            forward packets at the size they arrived."""
            % (kind, tunnel, tunnel_mtu, bridge_mtu, name, ", ".join(sorted(offloads))),
            fix_vars={"bridge_gso_off_bridges": [name]}))
    return out


RULES = (endpoint_route_findings, banip_findings, keepalive_findings, congestion_control_findings,
         hub_download_findings, kernel_findings,
         bridge_offload_findings)


def find_findings(views: dict) -> list:
    """All findings for ``{host: view}`` (shape in the module docstring), sorted by host, severity, id.

    Raises ValueError when ``views`` is not a dict of dicts.
    """
    if not isinstance(views, dict) or not all(isinstance(v, dict) for v in views.values()):
        raise ValueError("views must be a dict of host -> view (dict), got %s" % type(views).__name__)
    found = []
    for host in sorted(views, key=str):
        if not isinstance(host, str) or not host:
            raise ValueError("views: a host name must be a non-empty string, got %r" % (host,))
        for rule in RULES:
            try:
                found.extend(rule(host, views[host], views))
            except (AttributeError, TypeError, KeyError, IndexError) as exc:
                # Facts of the wrong shape (a string where a dict belongs): say where, never guess.
                raise ValueError("views[%r] has facts of the wrong shape for %s: %s" % (host, rule.__name__, exc)) from None
    return sorted(found, key=lambda f: (f["host"], SEVERITY_ORDER.index(f["severity"]), f["id"]))


def fix_roles_by_host(findings) -> dict:
    """``find_findings`` output → ``{host: [fix role, ...]}`` (sorted, unique; findings without a role left out).

    Raises ValueError when ``findings`` is not a list of findings (dicts with ``host``).
    """
    if not isinstance(findings, list) or not all(isinstance(f, dict) and "host" in f for f in findings):
        raise ValueError("findings must be the list find_findings returns (reports/findings.json)")
    roles = {}
    for finding in findings:
        if finding.get("fix_role"):
            roles.setdefault(finding["host"], set()).add(finding["fix_role"])
    return {host: sorted(names) for host, names in sorted(roles.items())}


def fix_vars_by_host(findings) -> dict:
    """``find_findings`` output → ``{host: {role variable: value}}`` from the findings' ``fix_vars``.

    List values of the same variable on one host are joined (sorted, unique): two
    ``bridge_offload_small_mtu_tunnel`` findings for ``br-lan`` and ``br-guest`` on one router give
    ``{"owrt": {"bridge_gso_off_bridges": ["br-guest", "br-lan"]}}``. Other values: the last one
    wins. Hosts whose findings carry no ``fix_vars`` are left out.
    Raises ValueError when ``findings`` is not a list of findings, or a ``fix_vars`` is not a dict.
    """
    if not isinstance(findings, list) or not all(isinstance(f, dict) and isinstance(f.get("host"), str) for f in findings):
        raise ValueError("findings must be the list find_findings returns (reports/findings.json)")
    out = {}
    for finding in findings:
        fix_vars = finding.get("fix_vars")
        if fix_vars is None:
            continue
        if not isinstance(fix_vars, dict):
            raise ValueError("fix_vars of %s on %s must be a dict, got %r" % (finding.get("id"), finding["host"], fix_vars))
        host_vars = out.setdefault(finding["host"], {})
        for name, value in fix_vars.items():
            if isinstance(value, list) or isinstance(host_vars.get(name), list):
                if not isinstance(value, list) or not isinstance(host_vars.get(name, []), list) \
                        or not all(isinstance(item, (str, int, float)) for item in value):
                    raise ValueError("fix_vars.%s of %s on %s must be a list of names like the others, got %r"
                                     % (name, finding.get("id"), finding["host"], value))
                value = sorted(set(host_vars.get(name, [])) | set(value), key=str)
            host_vars[name] = value
    return dict(sorted(out.items()))
