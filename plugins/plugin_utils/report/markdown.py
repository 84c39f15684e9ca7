# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before/after comparison of tunnel measurements, as rows and as a Markdown table.

A row (before_after_rows, health_check_rows; the sweep filter makes the same shape)::

    {"host": "owrt", "test": "TCP single flow owrt -> hub",
     "before": "1.83 Mbit/s (25 retransmits, cubic)", "after": "36.6 Mbit/s (94 retransmits, cubic)",
     "reference": "40.0 Mbit/s",                      # strings, as printed in before-after.md
     "before_value": 1831610.75, "after_value": 36600000.0,
     "reference_value": 40000000.0,                   # floats in ``unit``; None when missing/failed
     "unit": "bits_per_second"}                       # or "percent", "count", "ms"
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import (
    format_bits_per_second,
    to_bits_per_second,
)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import finite_float
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import REDACTED
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import KEY_SHAPED


def _loss_value(record):
    return finite_float(((record or {}).get("ping") or {}).get("loss_percent"))


def _throughput_value(record):
    result = (record or {}).get("iperf3") or {}
    if result.get("failed") or result.get("valid") is False:
        return None
    return finite_float(result.get("bits_per_second"))


def _loss(record):
    ping = (record or {}).get("ping") or {}
    loss = ping.get("loss_percent")
    return None if loss is None else "%g %%" % loss


def _throughput(record):
    result = (record or {}).get("iperf3") or {}
    bps = result.get("bits_per_second")
    if result.get("not_measured"):
        return "not measured: %s" % (result.get("invalid_reason") or "no slot")
    if result.get("failed") or bps is None:
        return "failed: %s" % (result.get("msg") or "no result") if result else None
    if result.get("valid") is False:
        return "invalid: %s" % (result.get("invalid_reason") or "out of range")
    retransmits = result.get("retransmits")
    cc = result.get("sender_congestion_control")
    extra = ", ".join(part for part in (
        None if retransmits is None else "%d retransmits" % retransmits,
        cc) if part)
    return "%s%s" % (format_bits_per_second(bps), " (%s)" % extra if extra else "")


def _records(name, value):
    """``{host: record}`` (None reads as empty); raise ValueError naming the argument and the host otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("%s must be a dict {host: record}, got %s %r" % (name, type(value).__name__, value))
    for host, record in value.items():
        if record is not None and not isinstance(record, dict):
            raise ValueError("%s[%r] must be a dict (a measurement record), got %s %r"
                             % (name, host, type(record).__name__, record))
    return {host: record or {} for host, record in value.items()}


def _cell(name, host, render, record):
    """``render(record)``, a bad field raising ValueError that names the argument and the host."""
    try:
        return render(record)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise ValueError("%s[%r]: %s" % (name, host, exc)) from None


def before_after_rows(before, after, bottleneck_bits_per_second=None):
    """Pair before/after measurements per host.

    ``before``/``after``: ``{host: record}`` where a record is
    ``{"hub": str, "idle_s": int, "ping": parse_ping_summary() output, "iperf3": iperf3 module
    result (bits_per_second, retransmits, sender_congestion_control)}``; either may lack a host.
    ``bottleneck_bits_per_second``: the path bottleneck in bit/s (a number or "40M"), one for all
    hosts, or a ``{host: bits_per_second}`` dict; a host it does not name gets its record's
    ``path_bits_per_second`` (role tunnel_measure records it), else no reference.
    Returns a list of rows ``{"host", "test", "before", "after", "reference"}`` (strings, "n/a"
    where a side is missing; ``reference`` carries the path bottleneck for throughput rows) plus
    ``before_value``/``after_value``/``reference_value`` (float or None: missing, failed or
    invalid) and ``unit``: "percent" (ping loss) or "bits_per_second" (throughput).
    """
    rows = []
    before, after = _records("before", before), _records("after", after)
    for host in sorted(set(before) | set(after), key=str):
        path_bps = bottleneck_bits_per_second.get(host) if isinstance(bottleneck_bits_per_second, dict) \
            else bottleneck_bits_per_second
        if path_bps in (None, ""):  # not given for this host: the path its measurement recorded
            path_bps = (after.get(host) or {}).get("path_bits_per_second") or (before.get(host) or {}).get("path_bits_per_second")
        path_value = _cell("bottleneck_bits_per_second", host, lambda bps: to_bits_per_second(bps) if bps else None,
                           path_bps)
        bottleneck = "" if path_value is None else format_bits_per_second(path_value)
        b, a = before.get(host, {}), after.get(host, {})
        hub = a.get("hub") or b.get("hub") or "hub"
        idle = a.get("idle_s") or b.get("idle_s")
        rows.append({"host": host, "test": "%s -> %s ping loss after %s s idle" % (hub, host, idle),
                     "before": _cell("before", host, _loss, b) or "n/a",
                     "after": _cell("after", host, _loss, a) or "n/a", "reference": "0 %",
                     "before_value": _loss_value(b), "after_value": _loss_value(a), "reference_value": 0.0,
                     "unit": "percent"})
        rows.append({"host": host, "test": "TCP single flow %s -> %s" % (host, hub),
                     "before": _cell("before", host, _throughput, b) or "n/a",
                     "after": _cell("after", host, _throughput, a) or "n/a",
                     "reference": bottleneck, "before_value": _throughput_value(b),
                     "after_value": _throughput_value(a), "reference_value": path_value, "unit": "bits_per_second"})
    return rows


def _health_checks(record):
    if not record:
        return None
    text = "%s of %s lost" % (record.get("failed_pings"), record.get("sent"))
    limit, drops = record.get("banip_icmplimit_per_second"), record.get("icmp_flood_drops_packets")
    details = ", ".join(part for part in (
        None if limit in (None, "") else "banIP ICMP limit %s/s" % limit,
        None if drops in (None, "") else "%s %s drops" % (record.get("icmp_counter_name") or "ICMP flood", drops)) if part)
    text += " (%s)" % details if details else ""
    growth = record.get("window_icmp_flood_growth_packets")
    if growth in (None, ""):
        return text
    failed = record.get("mwan3_failed_checks")
    return "passive %s s: %s +%s, %s failed mwan3 checks; probe: %s" % (
        record.get("window_s"), record.get("icmp_counter_name") or "ICMP flood", growth,
        "unknown" if failed in (None, "") else failed, text)


def health_check_rows(before, after):
    """Pair before/after bursty health-check measurements (role health_check_measure) per host.

    ``before``/``after``: ``{host: record}``, a record being ``{"sent": int, "failed_pings": int,
    "rate_per_second": float, "banip_icmplimit_per_second": int|None, "icmp_counter_name":
    str|None, "icmp_flood_drops_packets": int|None, "targets": [str]}``, and from its passive window
    ``window_s``, ``window_icmp_flood_growth_packets`` and ``mwan3_failed_checks`` (shown first when
    measured). Returns rows in the shape of before_after_rows (``reference`` is the goal, no lost
    probe ping); the values are the probe's lost pings, unit "count".
    """
    rows = []
    before, after = _records("before", before), _records("after", after)
    for host in sorted(set(before) | set(after), key=str):
        b, a = before.get(host, {}), after.get(host, {})
        rate = a.get("rate_per_second") or b.get("rate_per_second")
        rate_text = _cell("after" if a.get("rate_per_second") else "before", host,
                          lambda value: " at %g/s" % float(value) if value else "", rate)
        rows.append({"host": host,
                     "test": "mwan3-like one-shot health-check pings%s" % rate_text,
                     "before": _health_checks(b) or "n/a", "after": _health_checks(a) or "n/a",
                     "reference": "0 lost", "before_value": finite_float(b.get("failed_pings")),
                     "after_value": finite_float(a.get("failed_pings")), "reference_value": 0.0,
                     "unit": "count"})
    return rows


# Markdown inside a table cell (CommonMark and GitHub's GFM), each written as text with a backslash: code spans (`),
# emphasis (*), link and image syntax ([ and ], so no "](" and no "![" stays active), strikethrough (~), math ($), the
# column bar (|), mentions and e-mail autolinks (@), and the backslash itself. "&", "<" and ">" become HTML entities
# (raw HTML, <autolinks>, entity references). "_" is escaped where it could open or close emphasis: everywhere
# except between two letters or digits, where CommonMark never reads it as emphasis (host and finding names such
# as tf_owrt_1 or nat_peer_without_keepalive stay readable in the .md). GFM's extended autolinks lose their
# trigger: ":" before "//" (http://...) and the "." after a leading "www". One function for every Markdown table the
# collection writes (markdown_table, findings_table, coverage_table); terminal_text reverses exactly these.
MD_BACKSLASHED = "\\`*[]~$|@"
MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_TRIGGERS = re.compile(r"(?<![^\W_])_|_(?![^\W_])|:(?=//)|(?<=[^\W_])\.(?=[^\W\d_])", re.IGNORECASE)


def md_cell(value):
    """``value`` as the text of one Markdown table cell, read as literal text by any CommonMark/GFM renderer (str).

    On one line (whitespace runs are one space); the characters of ``MD_BACKSLASHED`` and the emphasis, autolink
    triggers of ``_MD_TRIGGERS`` escaped with a backslash, ``&``, ``<`` and ``>`` as HTML entities: a host name or a
    target's output (``[x](http://evil)``, ``![i](http://evil/p.png)``, ``<b>``) is shown as typed, never as a link,
    an image or markup. None is "".
    """
    text = " ".join(("" if value is None else str(value)).split())
    text = _MD_TRIGGERS.sub(lambda match: "\\" + match.group(0),
                            "".join("\\" + char if char in MD_BACKSLASHED else char for char in text))
    return "".join(MD_ENTITIES.get(char, char) for char in text)


_MD_UNESCAPE = re.compile(r"\\([%s_:.])" % re.escape(MD_BACKSLASHED))


def terminal_text(markdown):
    """A table of ``markdown_table``/``findings_table``/``coverage_table`` (str) as a person reads it on a console (str).

    ``md_cell`` writes ``&``, ``<`` and ``>`` as HTML entities and escapes Markdown's characters with a backslash
    for the .md and .html files; this turns exactly those back into characters (``&amp;`` last, so a host's literal
    ``&lt;`` stays ``&lt;``; each escaped pair read once, so ``\\|`` is a backslash then the column bar). The
    table's ``|`` layout is kept. Raises ValueError for anything but a str.
    """
    if not isinstance(markdown, str):
        raise ValueError("terminal_text expects the text of a table, got %s" % type(markdown).__name__)
    text = _MD_UNESCAPE.sub(r"\1", markdown)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


NO_MEASUREMENT = ("No measurement yet: the report directory has no measurements-before.json or measurements-after.json. "
                  "diagnose.yml measures the tunnels before the fix (each peer needs its hub, tunnelfix_tunnel_hub, in "
                  "the run, and no -e tunnelfix_measure=false), verify.yml after it.")
NO_AFTER = ("No measurement after the fix yet, so the after column reads n/a: verify.yml, run after remediate.yml, "
            "measures again and writes the report again with both sides.")


def _missing(text):
    return text in (None, "", "n/a")


def measurement_note(rows):
    """Why the before/after table says little (str), or None when it has both sides somewhere.

    ``rows`` as ``before_after_rows`` (a list of row dicts). No row at all: ``NO_MEASUREMENT`` (nothing was
    measured: diagnose ran without a hub or with tunnelfix_measure=false, or not from this report directory).
    Rows, none with an after side (``after`` "n/a" and ``after_value`` None: diagnose's baseline, no verify yet):
    ``NO_AFTER``. The Markdown table and the HTML page print the same sentence.
    """
    if not rows:
        return NO_MEASUREMENT
    if all(_missing(row.get("after")) and row.get("after_value") is None for row in rows):
        return NO_AFTER
    return None


def markdown_table(rows):
    """Render ``before_after_rows()`` output as a Markdown table (one string, LF line ends); cells as ``md_cell``.

    No row gives ``NO_MEASUREMENT``, a sentence instead of an empty table; rows without any after side are the
    table followed by ``NO_AFTER`` (``measurement_note``).
    """
    note = measurement_note(rows)
    if not rows:
        return note + "\n"
    header = ["host", "test", "before", "after", "bottleneck / target"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [md_cell(row[key]) for key in ("host", "test", "before", "after", "reference")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" + ("\n" + note + "\n" if note else "")


def findings_table(findings):
    """Render diagnose's findings (plugin_utils/faults/registry.py) as a Markdown table, LF line ends.

    Columns: host, severity, finding (the id), fixed by (the role, or "-" when no role fixes it
    here), and "after verify" when the findings carry verify's ``outcome`` (reports/outcomes.json:
    fixed, still_present, new; "(not re-checked)" when verify could not read the host again).
    Empty findings give one line saying so. Raises ValueError for anything but a list of findings.
    """
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise ValueError("findings must be a list of findings (reports/findings.json), got %s" % type(findings).__name__)
    if not findings:
        return "No finding.\n"
    verified = any("outcome" in finding for finding in findings)
    lines = ["| host | severity | finding | fixed by |" + (" after verify |" if verified else ""),
             "|---|---|---|---|" + ("---|" if verified else "")]
    for finding in findings:
        cells = [md_cell(finding.get(key) or "-") for key in ("host", "severity", "id", "fix_role")]
        if verified:
            cells.append(md_cell(outcome_text(finding)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def outcome_text(finding):
    """verify's outcome of one finding for a table cell: ``fixed``, ``still_present``, ``new``, ``not_checked: REASON``,
    or "-" when not verified;
    ``(left alone: opt-in)`` after one whose opt-in fix the host did not opt into."""
    text = str(finding.get("outcome") or "-")
    if text == "not_checked":   # the rule could not judge the host on verify's facts: its reason is the whole cell
        return "not_checked: %s" % (finding.get("reason") or "see reports/outcomes.json")
    return (text + (" (not re-checked)" if finding.get("rechecked") is False else "")
            + (" (left alone: opt-in)" if finding.get("left_alone") else ""))


# An argument word that names a secret (``-e wg_psk=...``, ``-e wps_pin=...``, ``--vault-password-file=...``): redacted
# whole in the report, never carried into a next command (run_summary.carried_extra_vars). "ping" is not a PIN.
SECRET_WORD = re.compile(r"(?i)(pass|secret|token|key|psk|pin(?!g)|pwd|credential|vault)")


def redact_command_words(words: list) -> list:
    """A command line's words for the report, secrets out: ``["-e", "wg_psk=KKKK...="]`` ->
    ``["-e", "<redacted>"]``.

    A word naming a secret (``SECRET_WORD``: pass, secret, token, key, psk, pin, pwd, credential, vault, any letter
    case) is replaced whole;
    in every other word, each WireGuard-key-shaped token (``_wireguard.KEY_SHAPED``) is replaced, so a
    key passed under an innocent name (``-e x=KKKK...=``) never reaches report.html or report.json.
    Raises ValueError for a word that is not a string.
    """
    redacted = []
    for index, word in enumerate(words):
        if not isinstance(word, str):
            raise ValueError("words[%d] must be a string, got %r" % (index, type(word).__name__))
        redacted.append(REDACTED if SECRET_WORD.search(word) else KEY_SHAPED.sub(REDACTED, word))
    return redacted
