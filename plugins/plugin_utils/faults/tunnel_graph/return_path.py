# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of return_path_not_allowed: the other end's AllowedIPs for this host leave out this host's tunnel address.

Read from the tunnel graph (``graph.graph_of``). WireGuard's cryptokey routing checks every packet it decrypts: its
inner source address must lie in the AllowedIPs of the peer it came from, else it is dropped (the WireGuard paper,
section 2: "Cryptokey Routing"). So when B's entry for A's key does not allow the address A's interface sends from,
B drops all of A's packets: the handshake works, nothing passes. The finding is B's (its entry is what changes), with
A's addresses as evidence. Only a running entry is judged (its AllowedIPs as the kernel holds them), against A's
addresses as A's owner keeps them (wg-quick ``Address =``, uci ``addresses``); link-local addresses are left out.

Which of A's addresses A sends from toward B is read from A's entry back for B (``graph["back"]``): A routes to B only
the families that entry has a prefix of (a dual-stack hub with an IPv4-only entry for a spoke sends it no IPv6, so
the spoke needs no IPv6 prefix for the hub). Within a family, an address whose subnet overlaps a prefix of that entry
is a source (the connected route's; e.g. one of two point-to-point /30s on one interface); with none such, A sends
from one of them that the facts do not tell, so the rule fires only when none of them is allowed.
"""


from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of, machine, unknown_entries
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.one_sided import one_sided_coverage
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse import ipnet


def _nets(prefixes):
    return [net for net in (ipnet.network(str(prefix)) for prefix in prefixes or []) if net is not None]


def _overlap(one, two) -> bool:
    return one.version == two.version and (one in two or two in one)


def missing_sources(addresses, allowed_ips, back_allowed) -> tuple:
    """(judged, missing): the addresses of ``addresses`` (interface addresses, ``"10.77.0.2/24"``) the other end sends
    from toward the entry's host, given its entry back's AllowedIPs ``back_allowed`` (module doc), and those of them
    no prefix of ``allowed_ips`` holds, as given; link-local (fe80::/10, 169.254.0.0/16) and unreadable ones are left out.
    ``(["10.77.0.2/24", "fd77::2/64"], ["10.77.0.0/24"], ["10.77.0.0/24", "fd77::/64"])`` -> ``(both, ["fd77::2/64"])``;
    the same with ``back_allowed`` ``["10.77.0.1/32"]`` -> ``(["10.77.0.2/24"], [])``."""
    nets, back = _nets(allowed_ips), _nets(back_allowed)
    judged, missing = [], []
    for version in sorted({net.version for net in back}):
        family = []
        for value in addresses or []:
            ip = ipnet.address(str(value).partition("/")[0])
            if ip is None or ip.version != version or ip.is_link_local():   # netaddr: fe80::/10, 169.254.0.0/16
                continue
            family.append((value, ipnet.network(str(value)) or ipnet.network(str(ip)), ip))
        sources = [item for item in family if any(_overlap(item[1], net) for net in back if net.version == version)]
        lost = [item[0] for item in sources or family if not any(item[2].version == net.version and item[2] in net for net in nets)]
        judged.extend(item[0] for item in sources or family)
        if sources or len(lost) == len(family):
            missing.extend(lost)
    return judged, missing


def _judged_pairs(graph, host):
    """(entry, the other end's node, its entry back) for every running, enabled entry of ``host`` whose key is exactly
    one other machine of the run."""
    nodes = graph["nodes"]
    for edge in graph["by_host"].get(host, []):
        if not edge["running"] or edge["disabled"] or len(edge["to"]) != 1 or machine(nodes, edge["to"][0]) == machine(nodes, edge["from"]):
            continue
        back = graph["by_id"].get(graph["back"].get(edge["id"]))
        yield edge, nodes[edge["to"][0]], back


def return_path(host, view, views):
    """One (evidence, explanation) per running entry of ``host`` whose key is exactly one other interface of the run
    with addresses known and an entry back, when an address that interface sends from toward ``host`` is not in the
    entry's AllowedIPs (``missing_sources``)."""
    graph = graph_of(views)
    out = []
    for edge, other, back in _judged_pairs(graph, host):
        if back is None or other["config_ambiguous"]:
            continue
        judged, missing = missing_sources(other["addresses"], edge["allowed_ips"], back["allowed_ips"])
        if not missing:
            continue
        node = graph["nodes"][edge["from"]]
        passing = [value for value in judged if value not in missing]
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "allowed_ips": edge["allowed_ips"],
                    "other_host": other["host"], "other_interface": other["interface"], "other_addresses": other["addresses"],
                    "judged": judged, "missing": missing, "owner": edge["owner"], "owner_path": edge["owner_path"]}
        if passing:
            dropped = ("so %s drops what %s sends from %s; what it sends from %s still passes"
                       % (host, other["host"], ", ".join(missing), ", ".join(passing)))
        else:
            dropped = ("so %s drops everything %s sends from %s (a handshake still completes, nothing else passes)"
                       % (host, other["host"], ", ".join(missing)))
        to_add = ", ".join(value.split("/")[0] + ("/32" if ":" not in value else "/128") for value in missing)
        words = (host, node["interface"], ", ".join(edge["allowed_ips"]) or "nothing", edge["public_key"], other["host"],
                 other["interface"], ", ".join(judged), dropped, to_add, edge["owner_path"] or edge["owner"], node["interface"])
        out.append((evidence, """
            %s's %s allows %s for the peer %s (%s's %s), which sends from %s toward it: WireGuard drops every packet
            whose source is outside the sending peer's AllowedIPs, %s. Add %s to that entry's AllowedIPs (%s), unless
            another peer of %s is meant to carry it.""" % words))
    return out


def return_path_coverage(host, view, views):
    """one_sided_coverage's answer, else: ``not_checked`` when no entry of ``host`` could be judged (the other ends'
    tunnel addresses not read: a .netdev, whose .network is not read, or ``wg set``; no entry back), ``partly`` when
    some could not."""
    base = one_sided_coverage(host, view, views)
    if base is not None and not base[1].startswith("judged without"):
        return base
    graph = graph_of(views)
    pairs = list(_judged_pairs(graph, host))
    unknown = sum(1 for _edge, other, back in pairs if back is None or other["addresses"] is None or other["config_ambiguous"])
    return unknown_entries(unknown, len(pairs), "the other ends' tunnel addresses or entries back are not known (a "
                           ".netdev's .network file is not read; several files for one interface; no entry back)",
                           "whose other end's tunnel addresses or entry back are not known") or base
