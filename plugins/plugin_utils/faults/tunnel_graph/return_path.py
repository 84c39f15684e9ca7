# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of return_path_not_allowed: the other end's AllowedIPs for this host leave out this host's tunnel address.

Read from the tunnel graph (``graph.graph_of``). WireGuard's cryptokey routing checks every packet it decrypts: its
inner source address must lie in the AllowedIPs of the peer it came from, else it is dropped (the WireGuard paper,
section 2: "Cryptokey Routing"). So when B's entry for A's key does not allow the address A's interface sends from,
B drops all of A's packets: the handshake works, nothing passes. The finding is B's (its entry is what changes), with
A's addresses as evidence. Only a running entry is judged (its AllowedIPs as the kernel holds them), against A's
addresses as A's owner keeps them (wg-quick ``Address =``, uci ``addresses``); link-local addresses are left out.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet


def missing_sources(addresses, allowed_ips) -> list:
    """The addresses of ``addresses`` (interface addresses, ``"10.77.0.2/24"``) no prefix of ``allowed_ips`` holds, as
    given; link-local (fe80::/10, 169.254.0.0/16) and unreadable ones are left out.
    ``(["10.77.0.2/24", "fd77::2/64"], ["10.77.0.0/24"])`` -> ``["fd77::2/64"]``."""
    nets = [net for net in (ipnet.network(str(prefix)) for prefix in allowed_ips or []) if net is not None]
    link_local = [ipnet.network("fe80::/10"), ipnet.network("169.254.0.0/16")]
    out = []
    for value in addresses or []:
        ip = ipnet.address(str(value).split("/", maxsplit=1)[0])
        if ip is None or any(ip.version == net.version and ip in net for net in link_local):
            continue
        if not any(ip.version == net.version and ip in net for net in nets):
            out.append(value)
    return out


def return_path(host, view, views):
    """One (evidence, explanation) per running entry of ``host`` whose key is exactly one other interface of the run
    with addresses known, when that interface's addresses are not all in the entry's AllowedIPs."""
    graph = graph_of(views)
    out = []
    for edge in graph["by_host"].get(host, []):
        if not edge["running"] or len(edge["to"]) != 1 or edge["to"][0] == edge["from"]:
            continue
        other = graph["nodes"][edge["to"][0]]
        missing = missing_sources(other["addresses"], edge["allowed_ips"])
        if not missing:
            continue
        node = graph["nodes"][edge["from"]]
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "allowed_ips": edge["allowed_ips"],
                    "other_host": other["host"], "other_interface": other["interface"], "other_addresses": other["addresses"],
                    "missing": missing, "owner": edge["owner"], "owner_path": edge["owner_path"]}
        out.append((evidence, """
            %s's %s allows %s for the peer %s (%s's %s), which sends from %s: WireGuard drops every packet whose source
            is outside the sending peer's AllowedIPs, so %s drops what %s sends from %s (a handshake still completes,
            nothing else passes). Add %s to that entry's AllowedIPs (%s), unless another peer of %s is meant to carry
            it.""" % (host, node["interface"], ", ".join(edge["allowed_ips"]) or "nothing", edge["public_key"], other["host"],
                      other["interface"], ", ".join(other["addresses"]), host, other["host"], ", ".join(missing),
                      ", ".join(value.split("/")[0] + ("/32" if ":" not in value else "/128") for value in missing),
                      edge["owner_path"] or edge["owner"], node["interface"])))
    return out
