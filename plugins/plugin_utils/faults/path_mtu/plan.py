# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's plan: what the fixing role would change, per platform, from the facts and the record (pure).

Where the tunnel's MTU is written:

- OpenWrt (netifd): ``uci set network.<wg>.mtu=N`` (the interface section's ``mtu``), and an explicit MSS clamp on the
  tunnel's traffic as a fw4 include: fw4's own ``mtu_fix`` clamps in mangle forward from the ingress device's MTU and
  goes wrong under mwan3/pbr (openwrt/openwrt #12112), so the rule names the tunnel (``oifname``/``iifname``) and the
  MSS itself (MTU - 40 IPv4, MTU - 60 IPv6: IP and TCP headers), in ``MSS_CLAMP_DIR`` (fw4 loads
  /usr/share/nftables.d/chain-post/<chain>/*.nft into the end of that chain of its table).
- wg-quick: ``MTU = N`` in the ``[Interface]`` section of /etc/wireguard/<if>.conf (wg(8)).
- systemd-networkd: ``MTUBytes=N`` in the ``[NetDev]`` section of the interface's .netdev (systemd.netdev(5)).

A host's plan is the changes for every tunnel the rule finds (``rule.judgements``): ``[]`` when every tunnel was
measured and none is found (converged), None when the facts cannot tell (no record: a path MTU is measured; a tunnel
with peers no valid ladder judged; a Linux tunnel whose configuration file the facts did not see, an OpenWrt one that
is not in uci; a found tunnel whose MTU to set is unknown). A tunnel whose MTU
is already the one to set (the IPv6 floor) changes nothing.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import host_facts, tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import entries, judgements
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import wireguard_interfaces

# fw4's include directory for rules appended to its mangle_forward chain (module doc)
MSS_CLAMP_DIR = "/usr/share/nftables.d/chain-post/mangle_forward"
# IP + TCP header bytes in front of a segment: MSS = MTU minus these
TCP_IP_HEADER_BYTES = {4: 40, 6: 60}


def mss_clamp_file(interface) -> str:
    """The fw4 include that clamps ``interface``'s MSS: ``MSS_CLAMP_DIR/tunnelfix-mss-<interface>.nft``."""
    return "%s/tunnelfix-mss-%s.nft" % (MSS_CLAMP_DIR, interface)


def mss_clamp_comment(interface) -> str:
    """The comment every clamp rule of ``interface`` carries: how the fixing role finds its own live rules."""
    return "tunnelfix-mss %s" % interface


def mss_clamp_rules(interface, mtu) -> list:
    """The nft rules (fw4 include text, one per line) that clamp TCP SYNs into and out of ``interface`` to ``mtu``::

        ("wg0", 1340) -> ['oifname "wg0" meta nfproto ipv4 tcp flags syn / fin,syn,rst tcp option maxseg size > 1300 '
                          'tcp option maxseg size set 1300 comment "tunnelfix-mss wg0"', ...]   # oif/iif x IPv4/IPv6

    A SYN or SYN-ACK (the flags fw4's own clamp matches) whose MSS is larger is lowered; a smaller MSS stays (a fixed
    ``set`` alone would raise it, and a peer behind a narrower link would then get segments it cannot carry). Written
    as ``nft list`` prints it back (nftables 1.0.6: ``syn / fin,syn,rst``), so the live rule and the file compare equal.
    """
    rules = []
    for way in ("oifname", "iifname"):
        for family, name in ((4, "ipv4"), (6, "ipv6")):
            mss = mtu - TCP_IP_HEADER_BYTES[family]
            rules.append('%s "%s" meta nfproto %s tcp flags syn / fin,syn,rst tcp option maxseg size > %d '
                         'tcp option maxseg size set %d comment "%s"' % (way, interface, name, mss, mss, mss_clamp_comment(interface)))
    return rules


def openwrt_changes(interface, info, current, mtu) -> list:
    """The changes on a router: the uci ``mtu`` (``info``: the interface's ``wireguard`` facts) and the MSS clamp include."""
    written = (info.get("options") or {}).get("mtu")
    before = "unset (%d in use)" % current if written is None else "'%s'" % written
    return ["network.%s.mtu: %s -> '%d'" % (interface, before, mtu),
            "write %s: clamp TCP MSS of %s to %d (IPv4) / %d (IPv6) both ways"
            % (mss_clamp_file(interface), interface, mtu - TCP_IP_HEADER_BYTES[4], mtu - TCP_IP_HEADER_BYTES[6])]


def linux_changes(interface, configs, current, mtu):
    """The change on a Linux host, from ``wireguard.configs`` (the files the facts listed): wg-quick's ``MTU =`` or the
    .netdev's ``MTUBytes=``, wg-quick's file first when both configure ``interface`` (as the role takes it: wg-quick
    owns a name it has a file for, ``fix._config``); None when no file of the facts configures ``interface``."""
    mine = [config for config in configs or [] if config.get("interface") == interface and config.get("wireguard")]
    for config in sorted(mine, key=lambda config: config.get("kind") != "wg-quick"):
        if config.get("kind") == "wg-quick":
            return ["%s: [Interface] MTU = %d (now %d)" % (config.get("path"), mtu, current)]
        if config.get("kind") == "netdev":
            return ["%s: [NetDev] MTUBytes=%d (now %d)" % (config.get("path"), mtu, current)]
    return None


def pmtu_plan(view, role_vars):
    """What the fixing role would change on this host (module doc): one line per change, ``[]``, or None."""
    if not entries(view):
        return None
    facts, platform = host_facts(view)
    interfaces, known = wireguard_interfaces(facts), tunnels(view)
    judged_by_name, changes = judgements(view), []
    for name in known:
        if known[name]["peers"] and not any(verdict["judged"] for _entry, verdict in judged_by_name.get(name, [])):
            return None   # a tunnel with peers the ladders did not judge: unknown, not converged
    for name, judged in sorted(judged_by_name.items()):
        found = [verdict for _entry, verdict in judged if verdict["found"]]
        if not found:
            continue
        if any(verdict["set_mtu_bytes"] is None for verdict in found):
            return None
        mtu, current = min(verdict["set_mtu_bytes"] for verdict in found), known[name]["tunnel_mtu_bytes"]
        if mtu >= current:
            continue
        if platform == "openwrt":
            if not (interfaces.get(name) or {}).get("in_uci"):
                return None   # not a uci interface: nothing the role could set
            changes.extend(openwrt_changes(name, interfaces.get(name) or {}, current, mtu))
            continue
        lines = linux_changes(name, (facts.get("wireguard") or {}).get("configs"), current, mtu)
        if lines is None:
            return None
        changes.extend(lines)
    return changes
