# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Prometheus alert rules and their promtool unit tests, generated from the fault registry.

    python3 scripts/prometheus_rules.py            # (re)write both files
    python3 scripts/prometheus_rules.py --check    # write nothing; exit 1 when a committed file differs

RULES (shipped in the collection, roles/prometheus_textfile/files/) alerts on what the
prometheus_textfile role writes: a stale handshake on a peer entry with keepalive on, a fault's own
alert (``Fault.alert``: the keepalive one), a single flow below the floor verify held it to, and any
other finding. TESTS is its ``promtool test rules`` file (make prometheus-rules-test), each alert on
both sides of its boundary. Finding ids come from the registry only. ``tests/unit/scripts/
test_prometheus_rules.py`` fails when a committed file differs from what this script writes now.
Imports the collection through a temporary ``ansible_collections`` link (no install, no network).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

# the scripts' own helpers (this file is also loaded by path, from the tests)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from collection_import import import_from  # noqa: E402  pylint: disable=wrong-import-position

REPO = Path(__file__).resolve().parents[1]
RULES = "roles/prometheus_textfile/files/tunnelfix.rules.yml"
TESTS = "tests/prometheus/tunnelfix.test.yml"
# The scheduled run's interval (roles/prometheus_textfile/files/tunnelfix-verify.timer, OnUnitActiveSec): the
# textfile is a snapshot up to this old, so the handshake threshold adds it.
INTERVAL_S = 300
GROUP = "tunnelfix"


def load(repo: Path):
    """(registry, the textfile renderer's module, the keepalive faults' handshakes module) imported from ``repo``."""
    return tuple(import_from(repo, "plugins.plugin_utils.faults.registry", "plugins.plugin_utils.report.prometheus",
                             "plugins.plugin_utils.faults.nat_peer_keepalive.handshakes"))


def finding_series(prometheus, fault_id):
    return '%s{id="%s"}' % (prometheus.FINDINGS, fault_id)


def alerts(registry, prometheus, stale_handshake_s):
    """The rules in file order: ``[{"alert", "expr", "labels", "summary", "why"}, ...]``."""
    own = [fault for fault in registry.FAULTS if fault.alert is not None]
    stale = stale_handshake_s + INTERVAL_S
    out = [{
        "alert": "TunnelfixWireGuardHandshakeStale",
        "expr": "(time() - %s > %d) and on(job, instance, interface, peer) (%s == 1)"
                % (prometheus.HANDSHAKE, stale, prometheus.KEEPALIVE_ENABLED),
        "labels": {"severity": "critical"},
        "summary": "{{ $labels.instance }} {{ $labels.interface }}: no WireGuard handshake with {{ $labels.peer }} for over "
                   "%d s although PersistentKeepalive is on (0 = never)" % stale,
        "why": "%d s without a handshake leaves no usable session (REJECT_AFTER_TIME) + %d s, the run interval (the file is a "
               "snapshot); only entries with keepalive on, which handshake every 2 to 3 minutes: an idle entry without it "
               "has no reason to" % (stale_handshake_s, INTERVAL_S),
    }]
    for fault in own:
        out.append({"alert": fault.alert.name, "expr": fault.alert.expr.replace("{finding}", finding_series(prometheus, fault.id)),
                    "labels": {"severity": fault.severity}, "summary": fault.alert.summary, "why": fault.alert.why})
    out.append({
        "alert": "TunnelfixThroughputBelowFloor",
        "expr": "%s < %s" % (prometheus.VERIFIED_BPS, prometheus.FLOOR),
        "labels": {"severity": "warning"},
        "summary": "{{ $labels.instance }} -> {{ $labels.hub }}: the {{ $labels.test }} result is below the floor verify "
                   "held it to",
        "why": "same labels on both series (hub, test): one result against its own floor; no floor, no alert",
    })
    excluded = "|".join(re.escape(fault.id) for fault in own)
    out.append({
        "alert": "TunnelfixFinding",
        "expr": ('%s{id!~"%s"} > 0' % (prometheus.FINDINGS, excluded)) if excluded else "%s > 0" % prometheus.FINDINGS,
        "labels": {},
        "summary": "{{ $labels.instance }}: tunnelfix finds {{ $labels.id }} ({{ $labels.severity }}); "
                   "reports/findings.json has the evidence, docs/faults.md the fix",
        "why": "the series' own severity label is the alert's; the faults with an alert of their own are left out",
    })
    return out


def _quote(text):
    """A YAML single-quoted scalar."""
    return "'%s'" % text.replace("'", "''")


def _scalar(indent, key, text):
    """``key: 'text'`` at ``indent`` spaces, or a folded block (``>-``, lines joined by one space) when that line would
    be long: yamllint allows 160 characters. The text's spaces are single (folding would not keep a double one)."""
    line = "%s%s: %s" % (" " * indent, key, _quote(text))
    if len(line) <= 120:
        return [line]
    assert "  " not in text and "\n" not in text, text
    body = textwrap.wrap(text, 100, break_long_words=False, break_on_hyphens=False)
    deeper = indent + 2 + (2 if key.startswith("- ") else 0)  # past the key's own column
    return ["%s%s: >-" % (" " * indent, key)] + ["%s%s" % (" " * deeper, part) for part in body]


def render_rules(registry, prometheus, stale_handshake_s) -> str:
    out = ["---",
           "# Generated by scripts/prometheus_rules.py from the fault registry; do not edit by hand.",
           "# Alert rules for the metrics the tunnelfix.fleet.prometheus_textfile role writes (its README).",
           "# Load with rule_files in prometheus.yml; checked with promtool check rules and promtool test rules.",
           "#",
           "# No rule has a 'for': a series changes only when a run rewrites the file (every %d s with" % INTERVAL_S,
           "# tunnelfix-verify.timer), and what it carries is already debounced: a finding needs the rule's evidence",
           "# (pings lost after an idle period, a handshake older than %d s), the floor leaves room for noise." % stale_handshake_s,
           "# A 'for' shorter than the interval changes nothing; a longer one delays the alert by whole runs.",
           "groups:",
           "  - name: %s" % GROUP,
           "    rules:"]
    for rule in alerts(registry, prometheus, stale_handshake_s):
        out.extend(textwrap.wrap(rule["why"], 120, initial_indent="      # ", subsequent_indent="      # "))
        out.append("      - alert: %s" % rule["alert"])
        out.extend(_scalar(8, "expr", rule["expr"]))
        if rule["labels"]:
            out.append("        labels:")
            out.extend("          %s: %s" % item for item in sorted(rule["labels"].items()))
        out.append("        annotations:")
        out.extend(_scalar(10, "summary", rule["summary"]))
    return "\n".join(out) + "\n"


def _summary(rule, labels):
    """The summary as Prometheus renders it for ``labels`` (the rules use $labels.NAME only)."""
    return re.sub(r"\{\{ \$labels\.([a-z_]+) \}\}", lambda m: labels[m.group(1)], rule["summary"])


def _series(name, labels, values):
    return {"series": "%s{%s}" % (name, ", ".join('%s="%s"' % item for item in labels.items())), "values": values}


def cases(registry, prometheus, stale_handshake_s):
    """``[(comment, input series, [(eval time, [expected label sets]), ...], alert name, rule)]``; the expected labels
    without the rule's own. Times in minutes from 0; time() is the evaluation time in seconds."""
    rules = {rule["alert"]: rule for rule in alerts(registry, prometheus, stale_handshake_s)}
    stale = stale_handshake_s + INTERVAL_S
    peer = {"job": "node", "instance": "peer:9100", "interface": "wg0", "peer": "A" * 43 + "="}
    hub = dict(peer, instance="hub:9100", peer="B" * 43 + "=")
    test = {"job": "node", "instance": "peer:9100", "hub": "hub", "test": "tcp_single_flow"}
    out = []
    # Handshake: at 10 m time() is 600; a stamp of 600 - stale is exactly at the threshold (not over it).
    hs, ka = prometheus.HANDSHAKE, prometheus.KEEPALIVE_ENABLED
    out += [
        ("handshake over the threshold, keepalive on: fires", [_series(hs, peer, "%dx10" % (600 - stale - 1)), _series(ka, peer, "1x10")],
         10, "TunnelfixWireGuardHandshakeStale", [peer]),
        ("handshake exactly at the threshold: quiet", [_series(hs, peer, "%dx10" % (600 - stale)), _series(ka, peer, "1x10")],
         10, "TunnelfixWireGuardHandshakeStale", []),
        ("never a handshake (0), keepalive on: fires", [_series(hs, peer, "0x10"), _series(ka, peer, "1x10")],
         10, "TunnelfixWireGuardHandshakeStale", [peer]),
        ("fresh handshake: quiet", [_series(hs, peer, "590x10"), _series(ka, peer, "1x10")],
         10, "TunnelfixWireGuardHandshakeStale", []),
        ("stale handshake but keepalive off (an idle entry handshakes only when it sends): quiet",
         [_series(hs, peer, "0x10"), _series(ka, peer, "0x10")], 10, "TunnelfixWireGuardHandshakeStale", []),
    ]
    for fault in registry.FAULTS:
        if fault.alert is None:
            continue
        found = _series(prometheus.FINDINGS, {"job": "node", "instance": "peer:9100", "id": fault.id, "severity": fault.severity},
                        "1x10")
        out += [
            ("%s: keepalive off and the finding on the host: fires" % fault.id,
             [_series(ka, peer, "0x10"), found], 5, fault.alert.name, [peer]),
            ("%s: keepalive off on a host without the finding (a hub): quiet" % fault.id,
             [_series(ka, hub, "0x10"), found], 5, fault.alert.name, []),
            ("%s: keepalive on: quiet" % fault.id,
             [_series(ka, peer, "1x10"), found], 5, fault.alert.name, []),
            ("%s: firing until the run after the fix writes keepalive on and no finding (a stale marker), then resolved"
             % fault.id, [_series(ka, peer, "0x4 1x6"), dict(found, values="1x4 stale")], [(3, [peer]), (6, [])], fault.alert.name, None),
            ("%s: its finding raises no generic alert" % fault.id, [found], 5, "TunnelfixFinding", []),
        ]
    bps, floor = prometheus.VERIFIED_BPS, prometheus.FLOOR
    out += [
        ("result one bit below the floor: fires", [_series(bps, test, "24999999x5"), _series(floor, test, "25000000x5")],
         5, "TunnelfixThroughputBelowFloor", [test]),
        ("result equal to the floor: quiet", [_series(bps, test, "25000000x5"), _series(floor, test, "25000000x5")],
         5, "TunnelfixThroughputBelowFloor", []),
        ("result above the floor: quiet", [_series(bps, test, "35000000x5"), _series(floor, test, "25000000x5")],
         5, "TunnelfixThroughputBelowFloor", []),
        ("a result without a floor: quiet", [_series(bps, test, "1x5")], 5, "TunnelfixThroughputBelowFloor", []),
    ]
    plain = next((fault for fault in registry.FAULTS if fault.alert is None), None)
    if plain is not None:
        labels = {"job": "node", "instance": "owrt:9100", "id": plain.id, "severity": plain.severity}
        out += [
            ("a finding without an alert of its own: the generic one fires", [_series(prometheus.FINDINGS, labels, "1x5")],
             5, "TunnelfixFinding", [labels]),
            ("no finding series (a clean host): quiet", [_series(ka, peer, "1x5")], 5, "TunnelfixFinding", []),
        ]
    return [(comment, series, minutes if isinstance(minutes, list) else [(minutes, expected)], name, rules[name])
            for comment, series, minutes, name, expected in out]


def render_tests(registry, prometheus, stale_handshake_s) -> str:
    rules_path = Path(RULES)
    relative = "/".join([".."] * len(Path(TESTS).parent.parts) + list(rules_path.parts))
    out = ["---",
           "# Generated by scripts/prometheus_rules.py from the fault registry; do not edit by hand.",
           "# promtool test rules %s (make prometheus-rules-test): each alert on both sides of its boundary." % TESTS,
           "rule_files:",
           "  - %s" % relative,
           "evaluation_interval: 1m",
           "tests:"]
    for comment, series, evaluations, name, rule in cases(registry, prometheus, stale_handshake_s):
        out.append("  # %s" % comment)
        out.append("  - interval: 1m")
        out.append("    input_series:")
        for item in series:
            out.extend(_scalar(6, "- series", item["series"]))
            out.append("        values: %s" % _quote(item["values"]))
        out.append("    alert_rule_test:")
        for minutes, expected in evaluations:
            out.append("      - eval_time: %dm" % minutes)
            out.append("        alertname: %s" % name)
            if not expected:
                out.append("        exp_alerts: []")
                continue
            out.append("        exp_alerts:")
            for labels in expected:
                full = dict(labels, **rule["labels"])
                out.append("          - exp_labels:")
                out.extend("              %s: %s" % (key, _quote(value)) for key, value in sorted(full.items()))
                out.append("            exp_annotations:")
                out.extend(_scalar(14, "summary", _summary(rule, full)))
    return "\n".join(out) + "\n"


def files(repo: Path) -> dict:
    """``{path relative to the repository: text}`` for the registry in ``repo``."""
    registry, prometheus, keepalive = load(repo)
    return {RULES: render_rules(registry, prometheus, keepalive.STALE_HANDSHAKE_S),
            TESTS: render_tests(registry, prometheus, keepalive.STALE_HANDSHAKE_S)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a committed file differs")
    args = parser.parse_args(argv)
    stale = []
    for path, text in files(REPO).items():
        target = REPO / path
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            continue
        if args.check:
            stale.append(path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print("wrote %s" % path)
    if stale:
        print("differs from the registry: %s (run python3 scripts/prometheus_rules.py)" % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
