# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check the report that run.sh rendered from the fixtures, as Chromium parsed and drew it.

Usage: check.py DIR, DIR holding report.html, report.json, report.dom.html (chromium --dump-dom)
and report.png (chromium --screenshot, 1200x2000). Exits 1 listing every failed check.
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
            ("peer", "nat_peer_without_keepalive"), ("peer", "loss_sensitive_congestion_control")}
# _report_html.COLOURS; the screenshot must show these exact sRGB colours where the bars are.
BEFORE_RGB, AFTER_RGB = (0x9C, 0xA3, 0xAF), (0x25, 0x63, 0xEB)
BAR_HEIGHT = 24


class _Dom(HTMLParser):
    """Collect the bars, reference lines and findings rows of the dumped DOM."""

    def __init__(self):
        super().__init__()
        self.bars, self.references, self.finding_rows, self.scripts = [], [], [], 0
        self._svg_test = None

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
    if image.size != (1200, 2000):
        failures.append("screenshot is %s, expected 1200x2000" % (image.size,))
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
    check_self_contained((directory / "report.html").read_text(encoding="utf-8"), failures)
    check_document(json.loads((directory / "report.json").read_text(encoding="utf-8")), failures)
    check_screenshot(Image.open(directory / "report.png").convert("RGB"), dom, failures)
    for failure in failures:
        print("FAIL: " + failure)
    print("%d bars, %d findings checked; %d failures" % (len(dom.bars), len(dom.finding_rows), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
