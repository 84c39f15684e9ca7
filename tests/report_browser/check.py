# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check the report that run.sh rendered from the fixtures, as Chromium parsed and drew it.

Usage: check.py DIR, DIR holding report.html, report.json, report.dom.html (chromium --dump-dom)
and report.png (chromium --screenshot, 1200x3400). Exits 1 listing every failed check.

The tunnel graph of fixtures/findings.json (graph_fixture.py writes it): seven hosts, a line per pair of hosts in
each state.
"""

import json
import sys
from html.parser import HTMLParser
from pathlib import Path

from PIL import Image

# The fixture run: (host, test) -> (before_value, after_value), as the bars must carry them.
EXPECTED_BARS = {
    ("owrt", "hub -> owrt ping loss after 25 s idle"): (0.0, 0.0),
    ("owrt", "TCP single flow owrt -> hub"): (1.83e6, 36.6e6),
    ("owrt", "mwan3-like one-shot health-check pings at 100/s"): (10.0, 0.0),
    ("peer", "hub -> peer ping loss after 25 s idle"): (100.0, 0.0),
    ("peer", "TCP single flow peer -> hub"): (2.31e6, 35.7e6),
}
FINDINGS = {("owrt", "banip_icmp_limit_drops_health_checks"), ("owrt", "endpoint_route_pinned"),
            ("peer", "nat_peer_without_keepalive"), ("peer", "loss_sensitive_congestion_control"),
            ("clone-a", "duplicate_public_key"), ("clone-b", "duplicate_public_key"), ("owrt", "one_sided_peer")}
# The tunnel graph: (host, host) sorted -> state of the line, and the finding ids it carries.
EXPECTED_TUNNELS = {("hub", "peer"): ("healthy", ""), ("hub", "site-stale"): ("stale", ""), ("hub", "site-dead"): ("dead", ""),
                    ("hub", "owrt"): ("one_sided", "one_sided_peer"), ("clone-a", "hub"): ("conflict", "duplicate_public_key"),
                    ("clone-b", "hub"): ("conflict", "duplicate_public_key")}
GRAPH_HOSTS = {"hub": "hub", "peer": "peer", "site-stale": "peer", "site-dead": "peer", "owrt": "peer", "clone-a": "peer",
               "clone-b": "peer"}
# report/tunnel_graph.STATE_COLOURS; problem entries (one per direction that is not healthy) in the table
STATE_RGB = {"healthy": (0x16, 0xA3, 0x4A), "stale": (0xCA, 0x8A, 0x04), "dead": (0x57, 0x53, 0x4E),
             "one_sided": (0x93, 0x33, 0xEA), "conflict": (0xDC, 0x26, 0x26)}
PROBLEM_ENTRIES = {"conflict": 1, "one_sided": 1, "dead": 2, "stale": 2}
# _report_html.COLOURS; the screenshot must show these exact sRGB colours where the bars are.
BEFORE_RGB, AFTER_RGB = (0x9C, 0xA3, 0xAF), (0x25, 0x63, 0xEB)
BAR_HEIGHT = 24


class _Dom(HTMLParser):
    """Collect the bars, reference lines and findings rows of the dumped DOM."""

    def __init__(self):
        super().__init__()
        self.bars, self.references, self.finding_rows, self.scripts = [], [], [], 0
        self.tunnels, self.graph_hosts, self.problem_rows, self.legend_states, self.graph_svgs = [], [], [], [], 0
        self._svg_test = None
        self._open = None   # the tunnel or host whose <title> comes next
        self._title = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "script":
            self.scripts += 1
        if tag == "figure" and "test" in classes:
            self._svg_test = attrs.get("data-test")
        if tag == "rect" and "bar" in classes:
            side = "before" if "before" in classes else "after" if "after" in classes else None
            self.bars.append({"host": attrs.get("data-host"), "test": attrs.get("data-test"), "side": side,
                              "value": float(attrs["data-value"]), "width": float(attrs["width"])})
        if tag == "line" and "reference" in classes:
            self.references.append({"test": self._svg_test, "x": float(attrs["x1"]), "value": float(attrs["data-value"])})
        if tag == "tr" and attrs.get("data-finding"):
            self.finding_rows.append(attrs["data-finding"])
        if tag == "svg" and "tunnel-graph" in classes:
            self.graph_svgs += 1
        if tag == "line" and "tunnel" in classes:
            self.tunnels.append(dict(attrs, classes=classes, title=None))
            self._open = self.tunnels[-1]
        if tag == "g" and "host" in classes:
            self.graph_hosts.append(dict(attrs, classes=classes, title=None))
            self._open = self.graph_hosts[-1]
        if tag == "title" and self._open is not None:
            self._title = []
        if tag == "tr" and attrs.get("data-edge"):
            self.problem_rows.append(attrs)
        if tag == "span" and attrs.get("data-state"):
            self.legend_states.append(attrs["data-state"])

    def handle_data(self, data):
        if self._title is not None:
            self._title.append(data)

    def handle_endtag(self, tag):
        if tag == "title" and self._title is not None:
            self._open["title"], self._title, self._open = "".join(self._title), None, None


def _close(a, b, rel=0.01):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def check_dom(dom, failures):
    bars = {}
    for drawn in dom.bars:
        bars.setdefault((drawn["host"], drawn["test"]), {})[drawn["side"]] = drawn
    if set(bars) != set(EXPECTED_BARS):
        failures.append("charts for %s, expected %s" % (sorted(bars), sorted(EXPECTED_BARS)))
    if len(dom.bars) != 2 * len(EXPECTED_BARS):
        failures.append("%d bars, expected %d (before and after per host and test)" % (len(dom.bars), 2 * len(EXPECTED_BARS)))
    for key, (before, after) in EXPECTED_BARS.items():
        got = bars.get(key, {})
        values = tuple(got.get(side, {}).get("value") for side in ("before", "after"))
        if None in values or not all(_close(g, e) for g, e in zip(values, (before, after))):
            failures.append("%s: bar values %s, expected %s" % (key, values, (before, after)))
    tcp = bars.get(("owrt", "TCP single flow owrt -> hub"), {})
    if "before" in tcp and "after" in tcp:
        ratio = tcp["after"]["width"] / tcp["before"]["width"] if tcp["before"]["width"] else float("inf")
        if not _close(ratio, 36.6 / 1.83, rel=0.02):
            failures.append("owrt TCP: after bar %.1f px / before bar %.1f px = %.2f, expected 20.0 (36.6 / 1.83 Mbit/s)"
                            % (tcp["after"]["width"], tcp["before"]["width"], ratio))
        refs = [r for r in dom.references if r["test"] == "TCP single flow owrt -> hub"]
        bar_x = 64  # _report_html.BAR_X
        if len(refs) != 1 or not _close((refs[0]["x"] - bar_x) / tcp["after"]["width"], 40 / 36.6, rel=0.02):
            failures.append("owrt TCP: expected one dashed 40 Mbit/s line at 40/36.6 of the after bar, got %s" % refs)
    findings = list(dom.finding_rows)
    if sorted(findings) != sorted(fid for _host, fid in FINDINGS):
        failures.append("findings rows %s, expected %s" % (findings, sorted(fid for _host, fid in FINDINGS)))
    if dom.scripts:
        failures.append("%d <script> elements: the page must need none" % dom.scripts)


def check_graph(dom, failures):
    """The tunnel graph as Chromium parsed it: one SVG, a line per pair of hosts in its state's colour with a tooltip,
    every host once, the legend's five states, a table row per entry with a problem."""
    if dom.graph_svgs != 1:
        failures.append("%d tunnel graph SVGs, expected 1" % dom.graph_svgs)
    lines = {}
    for line in dom.tunnels:
        pair = (line.get("data-from"), line.get("data-to"))
        if pair in lines:
            failures.append("two lines for %s" % (pair,))
        lines[pair] = line
        state = line.get("data-state")
        if state not in STATE_RGB or line.get("stroke") != "#%02x%02x%02x" % STATE_RGB[state] or state not in line["classes"]:
            failures.append("tunnel %s: state %r drawn with stroke %r, class %r" % (pair, state, line.get("stroke"), line["classes"]))
        if not line["title"] or not line["title"].startswith("%s <-> %s: %s" % (pair + (state,))):
            failures.append("tunnel %s: tooltip %r does not name both hosts and the state" % (pair, line["title"]))
        if not line.get("data-edges") or any(">" not in entry for entry in line["data-edges"].split()):
            failures.append("tunnel %s: data-edges %r are not entry ids" % (pair, line.get("data-edges")))
        if state == "one_sided" and line.get("stroke-dasharray") is None:
            failures.append("tunnel %s: one-sided but not dashed" % (pair,))
    got = {pair: (line.get("data-state"), line.get("data-findings")) for pair, line in lines.items()}
    if got != EXPECTED_TUNNELS:
        failures.append("tunnel lines %s, expected %s" % (sorted(got.items()), sorted(EXPECTED_TUNNELS.items())))
    hosts = {host.get("data-host"): host.get("data-role") for host in dom.graph_hosts}
    if hosts != GRAPH_HOSTS or len(dom.graph_hosts) != len(GRAPH_HOSTS):
        failures.append("graph hosts %s, expected %s" % (sorted(hosts.items()), sorted(GRAPH_HOSTS.items())))
    for host in dom.graph_hosts:
        if not host["title"] or not host["title"].startswith(str(host.get("data-host"))):
            failures.append("host %s: tooltip %r" % (host.get("data-host"), host["title"]))
    if sorted(dom.legend_states) != sorted(STATE_RGB):
        failures.append("legend states %s, expected %s" % (dom.legend_states, sorted(STATE_RGB)))
    rows = {}
    for row in dom.problem_rows:
        rows[row.get("data-state")] = rows.get(row.get("data-state"), 0) + 1
    if rows != PROBLEM_ENTRIES:
        failures.append("problem entries per state %s, expected %s" % (rows, PROBLEM_ENTRIES))


def check_self_contained(html, failures):
    for needle in ("<script", "src=", "href=", "url(", "@import", "http://", "https://"):
        if needle in html:
            failures.append("report.html contains %r: it must load nothing" % needle)


def check_document(document, failures):
    if document.get("schema_version") != 1:
        failures.append("report.json schema_version %r, expected 1" % document.get("schema_version"))
    rows = {(r["host"], r["test"]): (r["before_value"], r["after_value"]) for r in document.get("rows", [])}
    if rows != EXPECTED_BARS:
        failures.append("report.json rows %s, expected %s" % (rows, EXPECTED_BARS))
    findings = {(f["host"], f["id"]) for f in document.get("findings") or []}
    if findings != FINDINGS:
        failures.append("report.json findings %s, expected %s" % (sorted(findings), sorted(FINDINGS)))
    graph = document.get("tunnel_graph") or {}
    if graph.get("counts") != dict(PROBLEM_ENTRIES, healthy=4) or len(graph.get("nodes") or []) != len(GRAPH_HOSTS):
        failures.append("report.json tunnel_graph counts %r and %d nodes, expected %r and %d"
                        % (graph.get("counts"), len(graph.get("nodes") or []), dict(PROBLEM_ENTRIES, healthy=4), len(GRAPH_HOSTS)))
    if "private" in json.dumps(graph) or "preshared" in json.dumps(graph):
        failures.append("report.json tunnel_graph names a private or preshared key")
    meta = document.get("meta") or {}
    if not all(meta.get(key) for key in ("generated", "collection_version", "command")) \
            or document.get("generated") != meta.get("generated"):
        failures.append("report.json meta %r lacks generated, collection_version or command" % meta)


def _colour_stats(image, rgb, tolerance=3):
    """(pixels of that colour, longest horizontal run of it) in an RGB image."""
    width, height = image.size
    pixels = image.load()
    count = longest = 0
    for y in range(height):
        run = 0
        for x in range(width):
            if all(abs(c - e) <= tolerance for c, e in zip(pixels[x, y], rgb)):
                count += 1
                run += 1
                longest = max(longest, run)
            else:
                run = 0
    return count, longest


def check_screenshot(image, dom, failures):
    if image.size != (1200, 3400):
        failures.append("screenshot is %s, expected 1200x3400" % (image.size,))
    # each state's lines: more pixels of its colour than its legend swatch (20x3) alone; healthy lines are drawn at
    # 70 % opacity, so only their swatch and a fold could match exactly: they are judged by the DOM
    for state, rgb in STATE_RGB.items():
        if state == "healthy":
            continue
        count, _longest = _colour_stats(image, rgb, tolerance=8)
        if count < 60 + 40:
            failures.append("screenshot: %d pixels of the %s colour #%02x%02x%02x: its tunnel lines are not drawn"
                            % ((count, state) + rgb))
    for side, rgb in (("before", BEFORE_RGB), ("after", AFTER_RGB)):
        widths = [drawn["width"] for drawn in dom.bars if drawn["side"] == side]
        area = sum(w * BAR_HEIGHT for w in widths)
        count, longest = _colour_stats(image, rgb)
        # text inside a bar takes some of its pixels; the legend swatch adds a few
        if count < 0.7 * area:
            failures.append("screenshot: %d pixels of the %s colour #%02x%02x%02x, expected about %d (bars not drawn?)"
                            % ((count, side) + rgb + (int(area),)))
        if widths and abs(longest - max(widths)) > 3:
            failures.append("screenshot: longest %s bar is %d px wide, the DOM says %.1f px" % (side, longest, max(widths)))


def main(directory):
    directory = Path(directory)
    failures = []
    dom = _Dom()
    dom.feed((directory / "report.dom.html").read_text(encoding="utf-8"))
    check_dom(dom, failures)
    check_graph(dom, failures)
    check_self_contained((directory / "report.html").read_text(encoding="utf-8"), failures)
    check_document(json.loads((directory / "report.json").read_text(encoding="utf-8")), failures)
    check_screenshot(Image.open(directory / "report.png").convert("RGB"), dom, failures)
    for failure in failures:
        print("FAIL: " + failure)
    print("%d bars, %d findings, %d tunnel lines, %d graph hosts checked; %d failures"
          % (len(dom.bars), len(dom.finding_rows), len(dom.tunnels), len(dom.graph_hosts), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
