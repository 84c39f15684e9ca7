# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's tunnel graph in the reports: an inline SVG for report.html, the entries with problems as a table.

Input: reports/findings.json's ``tunnel_graph`` (faults/tunnel_graph/export.py: nodes, edges each with a ``state``,
``states`` worst first, ``stale_after_s``, ``unreadable``).

The picture draws hosts, not interfaces: one line per pair of hosts that list each other's keys (the worse state of
the entries between them, all their entry ids in ``data-edges``), coloured by state. Layout (deterministic: from
names and degrees only):

- a *hub* is a host with tunnels to ``HUB_DEGREE`` or more hosts (when hubs are more than a quarter of the hosts, the
  fleet is a mesh and there are none); every other host is grouped under the hub with the most tunnels among its
  neighbours (ties: the name), or under none;
- the hosts of each group sit side by side on an outer ring, sorted by name, their hub on an inner ring at the middle of
  their arc (one hub: the centre), so a hub's tunnels fan out to its own arc;
- more than ``FOLD_AT`` hosts: in each group the hosts whose every tunnel and entry is healthy (and that no finding names)
  become one circle with their count and one line to their hub; healthy tunnels between two folded hosts of different
  groups are not drawn (the caption says how many). Every tunnel with a problem is still drawn, host by host.

Pure, no I/O; every piece of input text is HTML-escaped. Raises ValueError for a ``graph`` that is not an export.
"""

from __future__ import annotations

import math
from html import escape

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import md_cell

STATES = ("conflict", "one_sided", "dead", "stale", "healthy")   # worst first, as the export lists them
STATE_COLOURS = {"healthy": "#16a34a", "stale": "#ca8a04", "dead": "#57534e", "one_sided": "#9333ea", "conflict": "#dc2626"}
STATE_TEXT = {"healthy": "healthy (handshake within %d s)", "stale": "stale (last handshake over %d s ago)",
              "dead": "dead (no handshake, nothing received, or not running)",
              "one_sided": "one-sided (the other end runs no entry back)",
              "conflict": "in conflict (a tunnel graph finding names it)"}
HUB_DEGREE = 3
FOLD_AT = 60           # hosts; more are folded per hub (module doc)
LABELS_UP_TO = 120     # outer-ring slots with a name beside them; more: names in the tooltips only
SLOT_PX, MIN_RADIUS, LABEL_CHARS, CHAR_PX = 17.0, 200.0, 22, 6.5   # a label: at most LABEL_CHARS, about CHAR_PX each


def _e(value):
    return escape("" if value is None else str(value), quote=True)


def _worst(states):
    ranked = [STATES.index(state) for state in states if state in STATES]
    return STATES[min(ranked)] if ranked else "healthy"


def _check(graph):
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list) or not isinstance(graph.get("edges"), list):
        raise ValueError("tunnel_graph must be reports/findings.json's tunnel_graph (nodes and edges lists), got %s"
                         % type(graph).__name__)
    for index, edge in enumerate(graph["edges"]):
        if not isinstance(edge, dict) or edge.get("state") not in STATES or not isinstance(edge.get("to"), list):
            raise ValueError("tunnel_graph.edges[%d] must be an edge with a state (one of %s) and a to list, got %r"
                             % (index, ", ".join(STATES), edge))
    return graph


def problem_rows(graph) -> list:
    """The entries whose state is not healthy or that a finding names, worst first then by id: ``[{"from": "peer/wg0", "to": "hub/wg0" | "(no
    host of this run)", "state": "one_sided", "findings": "the finding ids, comma-separated" | "-", "id": edge id}]``."""
    _check(graph)
    rows = []
    for edge in graph["edges"]:
        if edge["state"] != "healthy" or edge.get("findings"):
            rows.append({"from": edge.get("from"), "to": ", ".join(edge["to"]) or "(no host of this run)", "state": edge["state"],
                         "findings": ", ".join(edge.get("findings") or []) or "-", "id": edge.get("id")})
    return sorted(rows, key=lambda row: (STATES.index(row["state"]), str(row["id"])))


def _words(state):
    """A state as the tables print it: ``one_sided`` -> "one-sided"."""
    return state.replace("_", "-")


def problem_table(graph) -> str:
    """``problem_rows`` as a Markdown table (from, to, state as ``_words``, finding; cells as ``md_cell``), LF line ends; a sentence
    when every entry is healthy or there is no entry."""
    rows = problem_rows(graph)
    if not graph["edges"]:
        return "No WireGuard peer entry in this run.\n"
    if not rows:
        return "All %d WireGuard peer entries are healthy.\n" % len(graph["edges"])
    lines = ["| from | to | state | finding |", "|---|---|---|---|"]
    lines += ["| %s |" % " | ".join(md_cell(text) for text in (row["from"], row["to"], _words(row["state"]), row["findings"])) for row in rows]
    return "\n".join(lines) + "\n"


def _new_host():
    """A host of the picture: its nodes, the findings naming them, its other inventory names, its entries whose key no
    host of the run has (and how many of those are not healthy)."""
    return {"nodes": [], "findings": set(), "aliases": set(), "outside": 0, "outside_problem": 0}


def _links(graph):
    """(hosts {host: {"nodes": [...], "findings": set, "aliases": set, "outside": n}}, links {(a, b): {...}})."""
    nodes = {node["id"]: node for node in graph["nodes"] if isinstance(node, dict) and node.get("id")}

    def host_of(name):
        node = nodes.get(name)
        if node is None:
            return str(name).rsplit("/", 1)[0]
        return host_of(node["alias_of"]) if node.get("alias_of") and node["alias_of"] in nodes and node["alias_of"] != name else node["host"]

    hosts = {}
    for name, node in sorted(nodes.items()):
        host = hosts.setdefault(host_of(name), _new_host())
        host["nodes"].append(name)
        host["findings"].update(node.get("findings") or [])
        if host_of(name) != node["host"]:
            host["aliases"].add(node["host"])
    links = {}
    for edge in graph["edges"]:
        start = host_of(edge.get("from"))
        hosts.setdefault(start, _new_host())
        if not edge["to"]:
            hosts[start]["outside"] += 1
            hosts[start]["outside_problem"] += edge["state"] != "healthy"
        for target in sorted({host_of(name) for name in edge["to"]} - {start}):
            hosts.setdefault(target, _new_host())
            link = links.setdefault((min(start, target), max(start, target)), {"state": "healthy", "edges": [], "findings": set()})
            link["state"] = _worst([link["state"], edge["state"]])
            link["edges"].append(edge)
            link["findings"].update(edge.get("findings") or [])
    return hosts, links


def _groups(hosts, links):
    """(hubs in order, {host: its hub or None})."""
    neighbours = {host: set() for host in hosts}
    for first, second in links:
        neighbours[first].add(second)
        neighbours[second].add(first)
    degree = {host: len(peers) for host, peers in neighbours.items()}
    hubs = sorted((host for host in hosts if degree[host] >= HUB_DEGREE), key=lambda host: (-degree[host], host))
    if len(hubs) * 4 > len(hosts):
        hubs = []
    hub_set = set(hubs)
    group = {}
    for host in hosts:
        if host in hub_set:
            group[host] = host
            continue
        near = sorted((hub for hub in neighbours[host] if hub in hub_set), key=lambda hub: (-degree[hub], hub))
        group[host] = near[0] if near else None
    return hubs, group


def _layout(hosts, links, fold):
    """Slots on the outer ring, hub positions, folded hosts: {"slots": [(kind, name, members)], "hubs": [...], ...}."""
    hubs, group = _groups(hosts, links)
    problem = {host for host, info in hosts.items() if info["findings"] or info["outside_problem"]}
    for (first, second), link in links.items():
        if link["state"] != "healthy":
            problem.update((first, second))
    members = {hub: [] for hub in hubs + [None]}
    for host in sorted(hosts):
        if group[host] != host:   # a hub is its own group's
            members[group[host]].append(host)
    slots, sectors, folded = [], {}, {}
    for hub in hubs + [None]:
        shown = [host for host in members[hub] if not fold or host in problem]
        hidden = [host for host in members[hub] if fold and host not in problem]
        if not shown and not hidden and hub is None:
            continue
        if slots and len(hubs) > 1:
            slots.append(("gap", None, []))
        start = len(slots)
        slots += [("host", host, [host]) for host in shown]
        if hidden:
            slots.append(("fold", hub, hidden))
            for host in hidden:
                folded[host] = hub
        if len(slots) == start:
            slots.append(("gap", None, []))   # a hub with no host of its own: a place on the ring for its angle
        sectors[hub] = (start, len(slots) - 1)
    return {"hubs": hubs, "group": group, "slots": slots, "sectors": sectors, "folded": folded, "problem": problem, "fold": fold}


def _fold_key(hub):
    """The position key of the hosts folded under ``hub`` (None: under no hub)."""
    return "fold:" + (hub or "")


def _point(radius, angle):
    return radius * math.cos(angle), radius * math.sin(angle)


def _host_title(host, info, role, group):
    parts = ["%s (%s%s)" % (host, role, "" if role == "hub" or not group else " under %s" % group)]
    if info["nodes"]:
        parts.append("interfaces: " + ", ".join(name.rsplit("/", 1)[1] for name in info["nodes"]))
    if info["aliases"]:
        parts.append("also listed as: " + ", ".join(sorted(info["aliases"])))
    if info["findings"]:
        parts.append("findings: " + ", ".join(sorted(info["findings"])))
    if info["outside"]:
        parts.append("%d peer entr%s whose key no host of this run has (not drawn)" % (info["outside"], "y" if info["outside"] == 1 else "ies"))
    return "; ".join(parts)


def _edge_words(edge):
    age = edge.get("handshake_age_s")
    return "%s -> %s: %s (handshake %s, received %s bytes)%s" % (
        edge.get("from"), ", ".join(edge["to"]), edge["state"], "never" if age is None else "%s s ago" % age,
        "unknown" if edge.get("rx_bytes") is None else edge["rx_bytes"],
        " [%s]" % ", ".join(edge["findings"]) if edge.get("findings") else "")


def _geometry(lay):
    """Positions {host or fold key: (x, y)}, angles, the outer and inner radius, the label margin, whether names show."""
    slots, hubs = lay["slots"], lay["hubs"]
    count = max(len(slots), 1)
    outer = max(MIN_RADIUS, count * SLOT_PX / (2 * math.pi))
    labels = count <= LABELS_UP_TO
    # the longest name printed beside the ring: the hosts' when they show, a fold's "N healthy"
    longest = max([len(name) for kind, name, _members in slots if kind == "host" and labels]
                  + [len("%d healthy" % len(members)) for kind, _name, members in slots if kind == "fold"] + [0])
    geo = {"pos": {}, "angle": {}, "outer": outer, "labels": labels, "inner": 0.0 if len(hubs) == 1 else outer * 0.48,
           "margin": 30.0 + CHAR_PX * min(longest, LABEL_CHARS)}
    for index, (kind, name, _members) in enumerate(slots):
        if kind != "gap":
            key = name if kind == "host" else _fold_key(name)
            geo["angle"][key] = -math.pi / 2 + 2 * math.pi * index / count
            geo["pos"][key] = _point(outer, geo["angle"][key])
    for hub in hubs:
        first, last = lay["sectors"][hub]
        geo["angle"][hub] = -math.pi / 2 + 2 * math.pi * (first + last) / 2 / count
        geo["pos"][hub] = _point(geo["inner"], geo["angle"][hub])
    return geo


def _drawn(links, lay, pos):
    """(lines [(a, b, link)], folded lines {(fold key, hub): [link, ...]}, the count of healthy ones not drawn): a folded
    host's tunnel to its own hub joins its fold's one line; other tunnels between folded hosts are not drawn."""
    drawn, fold_lines, hidden = [], {}, 0
    for (first, second), link in sorted(links.items()):
        ends = [_fold_key(lay["folded"][host]) if host in lay["folded"] else host for host in (first, second)]
        if ends[0] == ends[1] or ends[0] not in pos or ends[1] not in pos:
            hidden += 1
        elif ends[0].startswith("fold:") or ends[1].startswith("fold:"):
            fold, other = sorted(ends, key=lambda end: not end.startswith("fold:"))
            if other == fold[5:]:
                fold_lines.setdefault((fold, other), []).append(link)
            else:
                hidden += 1
        else:
            drawn.append((first, second, link))
    return drawn, fold_lines, hidden


def _tunnel_lines(drawn, fold_lines, pos):
    out = []
    for state in reversed(STATES):   # the worst drawn last, on top
        for first, second, link in drawn:
            if link["state"] != state:
                continue
            (x1, y1), (x2, y2) = pos[first], pos[second]
            title = "%s <-> %s: %s\n%s" % (first, second, state, "\n".join(_edge_words(edge) for edge in link["edges"]))
            out.append('<line class="tunnel %s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s%s '
                       'data-state="%s" data-from="%s" data-to="%s" data-edges="%s" data-findings="%s"><title>%s</title></line>'
                       % (state, x1, y1, x2, y2, STATE_COLOURS[state], "1.5" if state == "healthy" else "2.5",
                          ' stroke-dasharray="7 4"' if state == "one_sided" else "",
                          ' stroke-opacity="0.7"' if state == "healthy" else "", state, _e(first), _e(second),
                          _e(" ".join(str(edge.get("id")) for edge in link["edges"])), _e(" ".join(sorted(link["findings"]))),
                          _e(title)))
    for (fold, hub), group_links in sorted(fold_lines.items()):
        (x1, y1), (x2, y2) = pos[fold], pos[hub]
        out.append('<line class="tunnel folded healthy" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3" '
                   'stroke-opacity="0.7" data-state="healthy" data-from="%s" data-to="%s" data-count="%d"><title>%s</title></line>'
                   % (x1, y1, x2, y2, STATE_COLOURS["healthy"], _e(fold), _e(hub), len(group_links),
                      _e("%d healthy tunnels between %s and the hosts folded under it" % (len(group_links), hub))))
    return out


def _label(geo, key, text, offset):
    """A name beside its circle on the outer ring, turned along the radius (upside down never: the left half flips)."""
    x, y = geo["pos"][key]
    angle = geo["angle"][key]
    flip = math.cos(angle) < -1e-9
    lx, ly = _point(math.hypot(x, y) + offset, angle)
    return ('<text class="label" x="%.1f" y="%.1f" text-anchor="%s" dominant-baseline="central" transform="rotate(%.1f %.1f %.1f)">'
            "%s</text>" % (lx, ly, "end" if flip else "start", math.degrees(angle) + (180 if flip else 0), lx, ly,
                           _e(text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…")))


def _host_marks(hosts, lay, geo):
    out = []
    for kind, name, members in lay["slots"]:
        if kind == "host":
            x, y = geo["pos"][name]
            problem = name in lay["problem"]
            out.append('<g class="host" data-host="%s" data-role="peer" data-group="%s" data-problem="%s"><title>%s</title>'
                       '<circle cx="%.1f" cy="%.1f" r="%s" fill="%s" stroke="%s" stroke-width="1.2"/>%s</g>'
                       % (_e(name), _e(lay["group"].get(name) or ""), str(problem).lower(),
                          _e(_host_title(name, hosts[name], "peer", lay["group"].get(name))), x, y, "5" if geo["labels"] else "3.5",
                          "#fee2e2" if problem else "#fff", STATE_COLOURS["conflict"] if hosts[name]["findings"] else "#111827",
                          _label(geo, name, name, 9) if geo["labels"] else ""))
        elif kind == "fold":
            x, y = geo["pos"][_fold_key(name)]
            title = "%d hosts under %s whose every tunnel is healthy: %s" % (
                len(members), name or "no hub", ", ".join(members[:30]) + (", …" if len(members) > 30 else ""))
            out.append('<g class="host fold" data-group="%s" data-count="%d" data-hosts="%s"><title>%s</title>'
                       '<circle cx="%.1f" cy="%.1f" r="11" fill="#dcfce7" stroke="%s" stroke-width="1.5"/>'
                       '<text class="count" x="%.1f" y="%.1f" text-anchor="middle">%d</text>%s</g>'
                       % (_e(name or ""), len(members), _e(" ".join(members)), _e(title), x, y, STATE_COLOURS["healthy"],
                          x, y + 4, len(members), _label(geo, _fold_key(name), "%d healthy" % len(members), 16)))
    for hub in lay["hubs"]:   # blue; a red ring when a finding names the hub's own interface (a shared key)
        x, y = geo["pos"][hub]
        out.append('<g class="host" data-host="%s" data-role="hub" data-group="%s" data-problem="%s"><title>%s</title>'
                   '<circle cx="%.1f" cy="%.1f" r="9" fill="#dbeafe" stroke="%s" stroke-width="2"/>'
                   '<text class="hub-label" x="%.1f" y="%.1f" text-anchor="middle">%s</text></g>'
                   % (_e(hub), _e(hub), str(hub in lay["problem"]).lower(), _e(_host_title(hub, hosts[hub], "hub", hub)), x, y,
                      STATE_COLOURS["conflict"] if hosts[hub]["findings"] else "#111827", x, y - 14, _e(hub)))
    return out


def _caption(graph, hosts, links, lay, geo, hidden):
    words = ["%d hosts, %d tunnels (a line per pair of hosts: the worse state of the entries between them)."
             % (len(hosts), len(links))]
    if len(lay["hubs"]) == 1:
        words.append("The hub (tunnels to %d or more hosts) in the centre, the other hosts around it." % HUB_DEGREE)
    elif lay["hubs"]:
        words.append("Hubs (tunnels to %d or more hosts) on the inner ring; each other host on the outer ring beside the hub "
                     "it is grouped under." % HUB_DEGREE)
    if lay["fold"]:
        words.append("More than %d hosts: in each group the hosts whose every tunnel is healthy are one green circle with "
                     "their count; every tunnel with a problem is drawn." % FOLD_AT)
    if hidden:
        words.append("%d healthy tunnel%s between folded hosts not drawn." % (hidden, "" if hidden == 1 else "s"))
    if not geo["labels"]:
        words.append("Host names are in the tooltips (too many to print).")
    outside = sum(info["outside"] for info in hosts.values())
    if outside:
        words.append("%d peer entr%s a key no host of this run has (not drawn; in the host's tooltip)."
                     % (outside, "y lists" if outside == 1 else "ies list"))
    if graph.get("unreadable"):
        words.append("Left out (facts of an unexpected shape): %s." % ", ".join(sorted(graph["unreadable"])))
    if graph.get("phase") == "after":   # verify.yml's graph (tunnel-graph-after.json), not diagnose's
        words.append("As verify.yml read the hosts after the fix (the hosts it read again).")
    return '<p class="graph-caption">%s</p>' % _e(" ".join(words))


def _legend(links, stale):
    counts = dict.fromkeys(STATES, 0)
    for link in links.values():
        counts[link["state"]] += 1
    return '<p class="legend graph-legend">%s</p>' % "".join(
        '<span data-state="%s"><i class="line-swatch%s" style="border-color:%s"></i>%s: %d</span>'
        % (state, " dashed" if state == "one_sided" else "", STATE_COLOURS[state],
           _e(STATE_TEXT[state] % stale if "%d" in STATE_TEXT[state] else STATE_TEXT[state]), counts[state])
        for state in reversed(STATES))


def _problem_html(graph):
    rows = problem_rows(graph)
    if not rows:
        return []
    return (['<table class="graph-problems"><thead><tr><th>from</th><th>to</th><th>state</th><th>finding</th></tr></thead><tbody>']
            + ['<tr data-edge="%s" data-state="%s"><td><code>%s</code></td><td><code>%s</code></td><td>%s</td><td>%s</td></tr>'
               % (_e(row["id"]), row["state"], _e(row["from"]), _e(row["to"]), _e(_words(row["state"])), _e(row["findings"]))
               for row in rows]
            + ["</tbody></table>"])


def graph_svg(graph) -> str:
    """``graph`` (the export) as the report's tunnel graph section: a legend, an inline SVG, a caption and the table of
    entries with a problem (str, HTML).

    Lines: ``<line class="tunnel STATE">`` with ``data-state``, ``data-from`` / ``data-to`` (host names, sorted),
    ``data-edges`` (the entry ids, space-separated), ``data-findings`` and a ``<title>`` naming each entry; a folded
    line has class ``tunnel folded`` and ``data-count``. Hosts: ``<g class="host">`` with ``data-host``, ``data-role``
    (hub, peer), ``data-group`` (its hub), ``data-problem`` (true, false) and a ``<title>``; a fold is
    ``<g class="host fold">`` with ``data-count`` and ``data-hosts``. Table rows: ``data-edge``, ``data-state``.
    Raises ValueError as ``problem_rows``.
    """
    _check(graph)
    hosts, links = _links(graph)
    out = ['<section class="tunnel-graph"><h2>The tunnel graph</h2>']
    if not hosts:
        return "\n".join(out + ["<p>No WireGuard interface in this run.</p></section>"])
    lay = _layout(hosts, links, len(hosts) > FOLD_AT)
    geo = _geometry(lay)
    drawn, fold_lines, hidden = _drawn(links, lay, geo["pos"])
    half = geo["outer"] + geo["margin"]
    out.append(_legend(links, graph.get("stale_after_s") or 180))
    summary = "%d hosts, %d tunnels" % (len(hosts), len(links))
    out.append('<svg class="tunnel-graph" width="%d" viewBox="%.1f %.1f %.1f %.1f" role="img" aria-label="%s" data-hosts="%d" '
               'data-folded="%s">' % (min(2 * half, 1000), -half, -half, 2 * half, 2 * half, _e(summary), len(hosts), str(lay["fold"]).lower()))
    if geo["inner"]:
        out.append('<circle class="hub-ring" cx="0" cy="0" r="%.1f" fill="none" stroke="#e5e7eb" stroke-dasharray="3 5"/>' % geo["inner"])
    out += _tunnel_lines(drawn, fold_lines, geo["pos"])
    out += _host_marks(hosts, lay, geo)
    out.append("</svg>")
    out.append(_caption(graph, hosts, links, lay, geo, hidden))
    out += _problem_html(graph)
    return "\n".join(out + ["</section>"])


GRAPH_CSS = """
svg.tunnel-graph{display:block;max-width:100%;height:auto;margin:6px auto}
svg.tunnel-graph text{font:11px system-ui,"DejaVu Sans",sans-serif;fill:#111827}
svg.tunnel-graph text.hub-label{font-size:12px;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg.tunnel-graph text.count{font-size:10px;font-weight:600}
.line-swatch{display:inline-block;width:20px;margin-right:5px;vertical-align:middle;border-top:3px solid}
.line-swatch.dashed{border-top-style:dashed}.graph-caption{font-size:13px;color:#4b5563}
table.graph-problems td code{word-break:break-all}
"""
