# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's measuring step: every ladder of a host in one remote script, and the record the rule reads.

Pure functions, no I/O; the action ``tunnelfix.fleet.path_mtu_ladder`` (plugins/action/path_mtu_ladder.py) runs the
script and the role ``path_mtu_measure`` sets the record as ``path_mtu_measure_record``, which the host's view holds as
``view["path_mtu"]`` (``RECORD``, declared by the fault: ``Fault.records``; the shape in rule.py's module doc). The
fault declares the role too (``ROLE``, ``Fault.measure_role``): diagnose and verify run it as they run every fault's
measuring role, with the phase in ``tunnelfix_measure_phase``.

``measure_script(targets, nonce, ...)``: one POSIX sh script (BusyBox ash, dash) holding, for every entry of
``reads.ladder_targets`` and each of its ladders that can run (outer, then inner), ``ladder.ladder_script`` in a
subshell of its own (the snippet ends with ``exit``), framed as a batch step (remote/batch.py: ``@@tunnelfix-batch
NONCE begin <i> outer`` ... ``rc N``) with its stderr joined to its stdout, so a stray message makes that one ladder
unreadable instead of hiding. Between two ladders the script pauses ``interval_ms`` as a ladder pauses between two
pings, with the same snippet (measure/pause.py ``pause_snippet``: ``usleep``, else a fractional ``sleep``, else whole
seconds rounded up), so the host sends at most
1000 / interval_ms echo requests per second over the whole run, ladder after ladder. The script is sent on the
shell's standard input: a ladder is about 4 KB of sh, and a command line over about 9,000 bytes closes dropbear's
connection (remote/batch.py SHARED_WORD_MIN_CHARS).

``measure_record(targets, stdout, nonce, phase, interval_ms)``: ``{"phase", "interval_ms", "ladders_run",
"tunnels": [reads.record_entry, ...]}``. A ladder whose output cannot be read (no block for it, a line the snippet
does not print, the output of another target or with a high bound above its link's) becomes ``invalid_ladder`` with the reason: the rule then judges
nothing from it and its coverage says why; never an exception.

Pacing: ``interval_ms`` defaults to ladder.DEFAULT_INTERVAL_MS (200 ms: 5 echo requests/s, a fifth of banIP's 25/s
default) and is lengthened, as the banIP fault's own probe is, where the router's loaded banIP rule is lower
(``pace``: measure/icmp_pacing.py's ``probe_interval_ms`` inside ``banip_icmp.limiter.banip_limiter``'s rule,
1000 / (limit x PROBE_SHARE_OF_LIMIT) ms).
"""

from __future__ import annotations

import json
import re
import shlex

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import (
    DEFAULT_ATTEMPTS, DEFAULT_INTERVAL_MS, DEFAULT_TIMEOUT_S, PING_COMMANDS, ladder_script, parse_ladder)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import ladder_targets, record_entry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import Record
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.limiter import banip_limiter
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.icmp_pacing import probe_interval_ms
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import pause_snippet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import MARKER, split_batch_output

# The record the role sets and the view key the rule reads it under (faults/view.py takes what the faults declare)
RECORD = Record("path_mtu", "path_mtu_measure_record")
# The role that sets it, which diagnose and verify run with the phase in tunnelfix_measure_phase (Fault.measure_role)
ROLE = "tunnelfix.fleet.path_mtu_measure"
SIDES = ("outer", "inner")
PHASES = ("before", "after")
# The most probes one ladder sends sizes for: low, high, the bisection of up to 65507 bytes (16 halvings), the recheck
# of the last lost size and of the largest passing one
MAX_PROBES_PER_LADDER = 20
# Seconds the measuring task is given on top of its ladders (Ansible's connection, the script's start)
TASK_SLACK_S = 60


def block_name(index, side) -> str:
    """The framed block of the ``index``-th target's ``side`` ladder: ``(0, "outer")`` -> ``"0 outer"``."""
    return "%d %s" % (index, side)


def ladders(targets) -> list:
    """``[(block name, index, side, ladder spec)]`` for every ladder of ``targets`` that can run (its spec is not None)."""
    out = []
    for index, target in enumerate(targets):
        for side in SIDES:
            spec = target.get(side)
            if spec is not None:
                out.append((block_name(index, side), index, side, spec))
    return out


# The bounds ladder.ladder_script takes, checked once for the whole script (also where no ladder runs)
OPTION_RANGES = (("interval_ms", 0, 10000), ("timeout_s", 1, 60), ("attempts", 1, 5))


def check_options(interval_ms, timeout_s, attempts, ping_command):
    """Raise ValueError naming the first option out of its range (OPTION_RANGES) or a ping command not in PING_COMMANDS."""
    for (name, low, high), value in zip(OPTION_RANGES, (interval_ms, timeout_s, attempts)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError("%s must be a whole number %d-%d, got %r" % (name, low, high, value))
    if ping_command not in PING_COMMANDS:
        raise ValueError("ping_command must be one of %s, got %r" % (", ".join(PING_COMMANDS), ping_command))


def measure_script(targets, nonce, interval_ms=DEFAULT_INTERVAL_MS, timeout_s=DEFAULT_TIMEOUT_S, attempts=DEFAULT_ATTEMPTS,
                   ping_command="ping") -> str:
    """The one remote script running every ladder of ``targets`` (``reads.ladder_targets``), framed by ``nonce`` (module doc).

    ``""`` when no ladder can run. Raises ValueError naming the argument (``check_options``, also when no ladder
    runs; a target that is not an address of its family, as ``ladder.ladder_script``).
    """
    check_options(interval_ms, timeout_s, attempts, ping_command)
    runs = ladders(targets)
    if not runs:
        return ""
    parts = ["M=%s" % shlex.quote("%s %s" % (MARKER, nonce)), pause_snippet(interval_ms).rstrip("\n")]
    for number, (name, _index, _side, spec) in enumerate(runs):
        snippet = ladder_script(spec["target"], spec["family"], spec["low"], spec["high"], interval_ms, timeout_s, attempts,
                                ping_command)
        if number and interval_ms:
            parts.append("nap_")
        parts.append("printf '%%s begin %%s\\n' \"$M\" %s" % shlex.quote(name))
        parts.append("(\n%s\n) </dev/null 2>&1" % snippet.strip("\n"))
        parts.append("printf '\\n%s stderr\\n\\n%s rc %s\\n' \"$M\" \"$M\" \"$?\"")
    parts.append("printf '%s end\\n' \"$M\"")
    return "\n".join(parts) + "\n"


def pace(view, interval_ms) -> dict:
    """The ladders' pace on this host: ``icmp_pacing.probe_interval_ms`` of ``interval_ms`` (the role's) inside the
    router's loaded banIP ICMP limit (``banip_limiter``; none off OpenWrt or where banIP limits nothing), module doc:
    ``{"interval_ms": 200, "rate_per_second": 5.0, "limit_per_second": 25, "burst_packets": 5}``. Raises ValueError
    naming ``interval_ms`` for one that is not a whole number 0-10000."""
    limit, _why = banip_limiter((view.get("openwrt") or {}).get("banip") or {})
    try:
        return probe_interval_ms(limit, interval_ms)
    except ValueError as exc:
        raise ValueError(str(exc).replace("wanted_interval_ms", "interval_ms")) from None


def paced_interval_ms(view, interval_ms) -> int:
    """The pause the ladders of this host really use, ms: ``pace``'s ``interval_ms``. Raises ValueError as ``pace``."""
    return pace(view, interval_ms)["interval_ms"]


def task_timeout_s(view, hub_address, interval_ms, timeout_s, attempts) -> int:
    """Seconds the measuring task may take on this host: every ladder that runs (``ladders`` of ``reads.ladder_targets``)
    at MAX_PROBES_PER_LADDER sizes x ``attempts`` x (``timeout_s`` + the pause really used, ``paced_interval_ms``, in
    whole seconds rounded up + 1 s to start ping), plus TASK_SLACK_S. ``(view with 2 ladders, None, 200, 1, 2)`` ->
    60 + 2 x 20 x 2 x (1 + 1 + 1) = 300. Raises ValueError naming the option out of range (``check_options``)."""
    pace = paced_interval_ms(view, interval_ms)
    check_options(pace, timeout_s, attempts, "ping")
    count = len(ladders(ladder_targets(view, hub_address or None)))
    return TASK_SLACK_S + count * MAX_PROBES_PER_LADDER * attempts * (timeout_s + -(-pace // 1000) + 1)


def invalid_ladder(spec, reason) -> dict:
    """A ladder in parse_ladder's shape that judges nothing: sizes None, no probes, ``invalid`` = ``reason``."""
    return {"tool": None, "family": spec.get("family"), "target": spec.get("target"), "low_payload_bytes": spec.get("low"),
            "high_payload_bytes": spec.get("high"), "interval_ms": None, "largest_passing_payload_bytes": None,
            "path_mtu_bytes": None, "at_high_bound": False, "reported_mtu_bytes": None, "pings_sent": None, "probes": [],
            "invalid": reason}


def read_ladder(spec, block) -> dict:
    """The measurement of one ladder from its framed block (``{"rc", "stdout", "stderr"}``, or None when absent)."""
    if block is None:
        return invalid_ladder(spec, "the ladder to %s printed nothing (the remote script stopped before it)" % spec["target"])
    try:
        measured = parse_ladder(block["stdout"])
    except ParseError as exc:
        return invalid_ladder(spec, "cannot read the ladder to %s (rc=%s): %s" % (spec["target"], block.get("rc"), exc))
    if measured["target"] != spec["target"] or measured["family"] != spec["family"]:
        return invalid_ladder(spec, "the ladder to %s printed the header of another target (%s, IPv%s)"
                              % (spec["target"], measured["target"], measured["family"]))
    if measured["high_payload_bytes"] > spec["high"]:
        # a high bound over the link's would measure a path MTU above the link MTU the facts know
        return invalid_ladder(spec, "the ladder to %s printed a high bound of %d payload bytes, above its link's (%d): a path "
                              "MTU above the link MTU cannot be true" % (spec["target"], measured["high_payload_bytes"], spec["high"]))
    return measured


def split_blocks(stdout, nonce):
    """``({block name: {rc, stdout, stderr}}, None)`` from the script's output, or ``({}, why)`` when its framing is broken."""
    try:
        return split_batch_output(stdout, nonce), None
    except ParseError as exc:
        return {}, "the ladders' output cannot be split (%s)" % exc


def measure_record(targets, stdout, nonce, phase, interval_ms) -> dict:
    """The record of one host (module doc): every target's entry with its ladders read from ``stdout`` (``""``/None when
    nothing ran: no ladder could run, and every entry keeps its notes)."""
    runs = ladders(targets)
    blocks, broken = split_blocks(stdout, nonce) if runs else ({}, None)
    entries = [record_entry(target) for target in targets]
    for name, index, side, spec in runs:
        if broken:
            entries[index][side] = invalid_ladder(spec, broken)
        else:
            entries[index][side] = read_ladder(spec, blocks.get(name))
    return {"phase": phase, "interval_ms": interval_ms, "ladders_run": len(runs), "tunnels": entries}


# The role's options with a range (role path_mtu_measure; its argument spec gives the rest): (name, low, high, unit)
ROLE_OPTION_RANGES = (("path_mtu_measure_interval_ms", 0, 10000, "ms between two pings"),
                      ("path_mtu_measure_timeout_s", 1, 60, "seconds per ping"),
                      ("path_mtu_measure_attempts", 1, 5, "pings per size while they are lost"))


def role_option_errors(options) -> list:
    """Messages for the role's options out of range (``fix/role_options.option_errors``), naming option and value:
    ``{"path_mtu_measure_attempts": 9}`` -> ``['path_mtu_measure_attempts must be 1-5 pings per size while they are lost,
    got "9"']``. Whole numbers may come as strings of digits (``-e``); ``phase`` must be before or after."""
    errors = []
    for name, low, high, unit in ROLE_OPTION_RANGES:
        value = options.get(name)
        text = value if isinstance(value, str) else str(value)
        if isinstance(value, bool) or not re.fullmatch(r"[0-9]+", text) or not low <= int(text) <= high:
            errors.append("%s must be %d-%d %s, got %s" % (name, low, high, unit, json.dumps(text)))
    phase = options.get("path_mtu_measure_phase")
    if phase not in PHASES:
        errors.append("path_mtu_measure_phase must be before or after (diagnose's and verify's), got %s"
                      % json.dumps(phase if isinstance(phase, str) else str(phase)))
    return errors
