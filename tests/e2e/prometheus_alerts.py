#!/usr/bin/env python
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Wait, bounded, until a real Prometheus shows a state: its targets up, an alert firing, or it cleared.

    prometheus_alerts.py --url URL --until targets-up --targets 3 [--timeout S]
    prometheus_alerts.py --url URL --until firing --alert NAME [--label instance=peer] [--timeout S]
    prometheus_alerts.py --url URL --until clear [--alert NAME] [--label k=v] [--timeout S]

Reads Prometheus's HTTP API (``/api/v1/targets``: ``data.activeTargets[].health``; ``/api/v1/alerts``:
``data.alerts[]`` with ``labels``, ``state`` pending/firing, ``activeAt``; Prometheus 2.42, docs "HTTP API",
"Alerts"). Polls every second; on success prints the UTC time it saw the state and the firing alerts, exit 0;
on timeout prints what it saw last, exit 1. ``clear`` without ``--alert`` means no alert at all is firing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone


def matching(document, alert=None, labels=None, state="firing"):
    """The alerts of an ``/api/v1/alerts`` answer in ``state`` whose alertname is ``alert`` (any when None) and
    whose labels include ``labels``; ValueError for an answer that is not a successful alerts document."""
    if not isinstance(document, dict) or document.get("status") != "success" \
            or not isinstance((document.get("data") or {}).get("alerts"), list):
        raise ValueError("not a successful /api/v1/alerts answer: %.200r" % (document,))
    wanted = dict(labels or {})
    if alert is not None:
        wanted["alertname"] = alert
    return [item for item in document["data"]["alerts"]
            if item.get("state") == state and all((item.get("labels") or {}).get(key) == value for key, value in wanted.items())]


def targets_up(document):
    """(targets up, targets in all) of an ``/api/v1/targets`` answer."""
    if not isinstance(document, dict) or document.get("status") != "success":
        raise ValueError("not a successful /api/v1/targets answer: %.200r" % (document,))
    active = (document.get("data") or {}).get("activeTargets") or []
    return sum(1 for target in active if target.get("health") == "up"), len(active)


def reached(until, document, args):
    """Whether ``document`` shows the state ``until`` asks for, and a line saying what it shows."""
    if until == "targets-up":
        up, total = targets_up(document)
        return up >= args.targets, "%d of %d targets up" % (up, total)
    firing = matching(document, args.alert, args.label)
    shown = ", ".join(sorted("%s{instance=%s}" % (a["labels"].get("alertname"), a["labels"].get("instance")) for a in firing))
    if until == "firing":
        return bool(firing), "firing: %s" % (shown or "none of them")
    return not firing, "still firing: %s" % (shown or "none")


def _get(url):
    with urllib.request.urlopen(url, timeout=5) as answer:  # nosec: the test's own Prometheus on loopback
        return json.load(answer)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--until", required=True, choices=("targets-up", "firing", "clear"))
    parser.add_argument("--alert")
    parser.add_argument("--label", action="append", default=[], type=lambda text: tuple(text.split("=", 1)))
    parser.add_argument("--targets", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args(argv)
    args.label = dict(args.label)
    path = "/api/v1/targets" if args.until == "targets-up" else "/api/v1/alerts"
    deadline = time.monotonic() + args.timeout
    said = "no answer yet"
    while True:
        try:
            ok, said = reached(args.until, _get(args.url + path), args)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            ok, said = False, "no answer: %s" % exc
        if ok:
            stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            what = "targets up" if args.until == "targets-up" else "%s %s" % (args.alert or "every alert", args.until)
            print("prometheus: %s at %s (%s)" % (what, stamp, said))
            return 0
        if time.monotonic() > deadline:
            print("FAIL: prometheus: not %s within %.0f s (%s); last: %s" % (args.until, args.timeout, args.alert or "", said))
            return 1
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main())
