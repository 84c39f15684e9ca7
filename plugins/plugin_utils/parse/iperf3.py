# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse the client side of an iperf3 test (``iperf3 -c HOST -J``), across iperf3 versions.

The JSON shape changed between releases (esnet/iperf): UDP has ``end.sum_sent`` and
``end.sum_received`` only from 3.11 (PR #1174; before that ``end.sum`` holds the *sender's*
numbers), ``--bidir`` wrote duplicate keys before 3.11 (issue #952, fixed with the
``*_bidir_reverse`` keys) and ``test_start.bidir`` exists from 3.13. Errors are a top-level
``"error"`` string with ``-J``, or an ``{"event": "error"}`` line with ``--json-stream`` (3.17+).
With ``--get-server-output`` (3.1+) the client's JSON carries the server's own: ``server_output_json``
(the server's whole ``-J`` document, when the server runs with ``--json``) or ``server_output_text``.
iperf3 before 3.1.2 printed NaN as a bare ``nan``/``-nan`` (esnet/iperf#278), which is not JSON.

Pure functions, no I/O.
"""

from __future__ import annotations

import math
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_number
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.target_json import NotJSON, load_target_json

# Substrings (lower case) of iperf3 error messages worth retrying after a random backoff:
# src/iperf_error.c IEACCESSDENIED ("the server is busy running a test. try again later"),
# IESENDMESSAGE ("unable to send control message"), IECTRLCLOSE ("control socket has closed
# unexpectedly"), a reset connection, and EAGAIN seen when many clients start at once.
RETRYABLE_MARKERS = (
    "server is busy",
    "unable to send control message",
    "control socket has closed unexpectedly",
    "connection reset",
    "resource temporarily unavailable",
)

_VERSION = re.compile(r"(?:iperf\s+)?(\d+(?:\.\d+)+)")
# iperf3 3.14 (esnet/iperf PR #1498) is the first whose server sends "omitted_errors"/"omitted_packets"
# with its results. A client from 3.14 on, given results without them (a server up to 3.13; tag 3.13's
# send_results has neither), substitutes its own omit baseline, and the UDP loss it reports for what it
# sent is 0 without --omit, wrong with it (esnet/iperf#1984, #2055; still so in 3.21). A client before
# 3.14 counts the losses of the omitted seconds too (esnet/iperf#1489).
OMITTED_COUNTS_VERSION = (3, 14)
# C's printf("%g") of a NaN or an infinity, where a JSON number belongs (cJSON of iperf3 before 3.1.2)
_BARE_NON_NUMBER = re.compile(r"([:\[,]\s*)(-?(?:nan|inf))(?=\s*[,}\]])")
_AS_JSON = {"nan": "NaN", "-nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
_STDERR_LINE = re.compile(r"^iperf3: (?:error - )?(.+?)\s*$", re.MULTILINE)
_BIDIR_ADVICE = "upgrade iperf3 to >= 3.11 or don't use --bidir"
_SERVER_SIDE = ("this is the server's JSON, which reports zeros for the direction it did not measure "
                "(esnet/iperf#1410): parse the client's output")


def is_retryable_iperf3_error(message) -> bool:
    """Tell whether an iperf3 error message describes a transient condition.

    ``"the server is busy running a test. try again later"`` → True;
    ``"unable to send control message: Connection reset by peer"`` → True;
    ``"unable to connect to server: Connection refused"`` → False (nothing listens; retrying
    will not help). Unknown messages → False. Never raises.
    Source: iperf3 3.12 src/iperf_error.c messages, see RETRYABLE_MARKERS.
    """
    lowered = str(message or "").lower()
    return any(marker in lowered for marker in RETRYABLE_MARKERS)


class Iperf3Error(ParseError):
    """iperf3 ran but reported an error instead of a result.

    Attributes: ``message`` (iperf3's own text, e.g. ``"the server is busy running a test. try
    again later"``) and ``retryable`` (see is_retryable_iperf3_error). A result carrying an error
    is never a measurement: do not record 0 bit/s from it.
    """

    def __init__(self, message, retryable=None):
        self.message = str(message)
        self.retryable = is_retryable_iperf3_error(self.message) if retryable is None else bool(retryable)
        super().__init__("iperf3 reported an error (%s): %s"
                         % ("retryable" if self.retryable else "not retryable", self.message))


def parse_iperf3_stderr(text):
    """Find iperf3's error in plain-text output (stderr, or a run without ``-J``).

    ``"iperf3: error - the server is busy running a test. try again later\\n"`` →
    ``{"message": "the server is busy running a test. try again later", "retryable": True}``;
    ``"iperf3: unrecognized option '--json-stream'\\nUsage: ..."`` (iperf3 < 3.17) →
    ``{"message": "unrecognized option '--json-stream'", "retryable": False}``.
    Returns None when no line starts with ``iperf3: ``. Format: iperf3 3.12 ``iperf_err()``.
    """
    match = _STDERR_LINE.search(text or "")
    if not match:
        return None
    return {"message": match.group(1), "retryable": is_retryable_iperf3_error(match.group(1))}


def iperf3_version(text):
    """The version ``iperf3 --version`` or ``start.version`` names, or None.

    ``"iperf 3.12 (cJSON 1.7.15)"`` → ``"3.12"``; ``"iperf 3.0.11"`` → ``"3.0.11"``; ``"3.17.1"`` →
    ``"3.17.1"``; ``""``, None or ``"sh: iperf3: not found"`` → None.
    """
    match = _VERSION.match(str(text or "").strip())
    return match.group(1) if match else None


def version_tuple(version):
    """``"3.17.1"`` → ``(3, 17, 1)``, for comparing with ``(3, 14)``; None (unknown) → None."""
    return tuple(int(part) for part in version.split(".")) if version else None


class _Object(dict):
    """A JSON object that remembers which keys it saw more than once (the last value wins)."""

    duplicates = ()


def _remember_duplicates(pairs):
    obj = _Object()
    duplicates = []
    for key, value in pairs:
        if key in obj:
            duplicates.append(key)
        obj[key] = value
    if duplicates:
        obj.duplicates = tuple(duplicates)
    return obj


def _loads(text):
    """The decoded JSON; NotJSON for text that is not JSON, ParseError naming iperf3 for hostile JSON (too deep, huge numbers)."""
    return load_target_json(text, "iperf3", object_pairs_hook=_remember_duplicates)


def _reject_duplicate_results(doc):
    """Refuse repeated keys where results are read (top level, ``end``, ``start.test_start``).

    iperf3 < 3.11 with --bidir repeats ``sum_sent``/``sum_received`` in ``end`` (esnet/iperf#952),
    so a plain JSON parser silently keeps one direction. Repeats elsewhere are tolerated: iperf3
    3.12 prints ``start.sock_bufsize``/``sndbuf_actual``/``rcvbuf_actual`` once per stream with
    -P > 1 or --bidir, and nothing here reads them.
    """
    start = doc.get("start") if isinstance(doc.get("start"), dict) else {}
    places = [("the top-level object", doc), ("end", doc.get("end")),
              ("start.test_start", start.get("test_start")), ("start.connecting_to", start.get("connecting_to"))]
    end = doc.get("end")
    if isinstance(end, dict):
        places.extend(("end.%s" % key, value) for key, value in end.items() if isinstance(value, dict))
    for where, obj in places:
        duplicates = getattr(obj, "duplicates", ())
        if duplicates:
            raise ParseError("iperf3 JSON has the key %r twice in %s, so one direction's numbers would be "
                             "lost (iperf3 < 3.11 with --bidir, esnet/iperf#952): %s"
                             % (duplicates[0], where, _BIDIR_ADVICE))


def _from_json_stream(text):
    """Rebuild the ``-J`` document from ``--json-stream`` lines; None if ``text`` is not that.

    Events (3.17+): ``start``, ``interval`` (one per interval, into ``intervals``), ``error``,
    ``server_output_json``/``server_output_text`` (with ``--get-server-output``), ``end``.
    """
    events = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            event = _loads(line)
        except NotJSON:
            return None
        if not isinstance(event, dict) or "event" not in event:
            return None
        events.append(event)
    doc = {}
    for event in events:
        if event["event"] == "error":
            raise Iperf3Error(event.get("data"))
        if event["event"] in ("start", "end", "server_output_json", "server_output_text"):
            doc[event["event"]] = event.get("data")
        elif event["event"] == "interval":
            doc.setdefault("intervals", []).append(event.get("data"))
    return doc


def _document(text):
    """The client's JSON (or the one rebuilt from ``--json-stream``) and the bare ``nan``/``-nan``/``inf`` it had.

    Only output that is not JSON as it stands is read with such tokens taken as NaN/infinity, so
    a ``, nan,`` inside a string of valid JSON is never touched.
    """
    try:
        return _loads(text), []
    except NotJSON:
        pass
    tokens = []

    def as_json(match):
        tokens.append(match.group(2))
        return match.group(1) + _AS_JSON[match.group(2)]

    fixed = _BARE_NON_NUMBER.sub(as_json, text)
    if tokens:
        try:
            return _loads(fixed), tokens
        except NotJSON:
            pass
    doc = _from_json_stream(fixed)
    if doc is None:
        raise ParseError("iperf3 output is not JSON (run iperf3 with -J): %r" % text[:200]) from None
    return doc, tokens


def _non_finite_places(value, where=""):
    """Paths of the NaN and infinite numbers in a parsed JSON value, in document order."""
    if isinstance(value, float) and not math.isfinite(value):
        return [where]
    if isinstance(value, dict):
        return [place for key, item in value.items()
                for place in _non_finite_places(item, "%s.%s" % (where, key) if where else key)]
    if isinstance(value, list):
        return [place for index, item in enumerate(value) for place in _non_finite_places(item, "%s[%d]" % (where, index))]
    return []


def _not_a_number_reason(doc, tokens):
    """Why a document with NaN or infinity in it is no measurement, naming up to three places; None without."""
    places = _non_finite_places(doc)
    if not places:
        return None
    more = " and %d more" % (len(places) - 3) if len(places) > 3 else ""
    printed = "/".join(dict.fromkeys(tokens)) or "NaN/Infinity"
    why = " (iperf3 before 3.1.2 wrote not-a-number so, esnet/iperf#278)" if tokens else ""
    return "the output has %s where numbers belong%s: %s%s" % (printed, why, ", ".join(places[:3]), more)


def _stuck_reason(intervals, whose):
    """The reason when only the first interval carried data and every later one 0 bytes; None otherwise.

    ``intervals``: a ``-J`` document's ``intervals`` (omitted ones included, in order); each
    direction's sum (``sum``, and ``sum_bidir_reverse`` with ``--bidir``) is checked on its own.
    A single interval, or one later interval with a byte, is no such case.
    """
    if not isinstance(intervals, list):
        return None
    for key, direction in (("sum", ""), ("sum_bidir_reverse", " (the reverse direction of --bidir)")):
        sums = [interval.get(key) if isinstance(interval, dict) else None for interval in intervals]
        sizes = [summary.get("bytes") if isinstance(summary, dict) else None for summary in sums]
        if len(sizes) < 2 or not all(is_number(size) for size in sizes):
            continue
        if sizes[0] > 0 and all(size == 0 for size in sizes[1:]):
            first = sums[0]
            span = ("%.2f-%.2f s, " % (first["start"], first["end"])
                    if is_number(first.get("start")) and is_number(first.get("end")) else "")
            return ("only the first of the %s %d intervals%s carried data (%s%d bytes), every later one 0 bytes: a stuck "
                    "server (esnet/iperf#1363) or a path that stopped, so the average is no rate"
                    % (whose, len(sizes), direction, span, sizes[0]))
    return None


def _number(section, key, where):
    value = section.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParseError("iperf3 JSON %s.%s must be a number, got %r" % (where, key, value))
    return float(value)


def _count(section, key, where):
    """A count (packets, retransmits): an int, None when absent or NaN; ParseError for an infinite one."""
    value = _number(section, key, where)
    if value is not None and math.isinf(value):
        raise ParseError("iperf3 JSON %s.%s must be a finite count, got %r" % (where, key, value))
    return None if value is None or math.isnan(value) else int(value)


def _section(end, key, where="end"):
    value = end.get(key)
    if value is not None and not isinstance(value, dict):
        raise ParseError("iperf3 JSON %s.%s must be an object, got %s" % (where, key, type(value).__name__))
    return value


def _duration(summary, where):
    seconds = _number(summary, "seconds", where)
    if seconds is None and "end" in summary:
        seconds = (_number(summary, "end", where) or 0.0) - (_number(summary, "start", where) or 0.0)
    return seconds


def _mean_rtt_ms(end):
    """Mean of the sending streams' ``mean_rtt`` (Linux tcp_info, microseconds) in ms; None without it.

    Only a side that sent (``streams[].sender.sender`` true, the client unless ``-R``) has RTT
    samples; the RTT is measured under load, so it includes the queue the flow built.
    """
    values = []
    for stream in end.get("streams") or []:
        sender = stream.get("sender") if isinstance(stream, dict) else None
        if isinstance(sender, dict) and sender.get("sender", True) is True:
            rtt = sender.get("mean_rtt")
            if isinstance(rtt, (int, float)) and not isinstance(rtt, bool) and rtt > 0:
                values.append(rtt)
    return round(sum(values) / len(values) / 1000.0, 3) if values else None


def _start_epoch_s(start):
    """``start.timestamp.timesecs`` (Unix seconds when the test started, the client's clock) or None."""
    timestamp = start.get("timestamp")
    secs = timestamp.get("timesecs") if isinstance(timestamp, dict) else None
    return secs if isinstance(secs, int) and not isinstance(secs, bool) and secs > 0 else None


def _tcp(end):
    received, sent = _section(end, "sum_received"), _section(end, "sum_sent")
    if received is None or sent is None:
        raise ParseError("iperf3 JSON has no end.sum_received/end.sum_sent: the test did not finish")
    return {
        "receiver_bits_per_second": _number(received, "bits_per_second", "end.sum_received"),
        "sender_bits_per_second": _number(sent, "bits_per_second", "end.sum_sent"),
        "retransmits": _count(sent, "retransmits", "end.sum_sent"),
        "duration_s": _duration(received, "end.sum_received"),
        "sender_congestion_control": end.get("sender_tcp_congestion"),
        "receiver_congestion_control": end.get("receiver_tcp_congestion"),
        "mean_rtt_ms": _mean_rtt_ms(end),
    }


def _udp(end):
    received, sent, total = _section(end, "sum_received"), _section(end, "sum_sent"), _section(end, "sum")
    if received is not None:
        measured, where, approximate = received, "end.sum_received", False
        receiver = _number(received, "bits_per_second", where)
        sender = _number(sent, "bits_per_second", "end.sum_sent") if sent else None
    elif total is not None:
        # iperf3 < 3.11: end.sum holds the sender's byte count (esnet/iperf PR #1174); what
        # arrived is that minus the lost share.
        measured, where, approximate = total, "end.sum", True
        sender = _number(total, "bits_per_second", where)
        byte_count, seconds = _number(total, "bytes", where), _number(total, "seconds", where)
        if byte_count is not None and seconds:
            sender_rate = byte_count * 8 / seconds
        else:
            sender_rate = sender
        lost = _number(total, "lost_percent", where)
        receiver = None if sender_rate is None else sender_rate * (1 - (lost or 0.0) / 100)
    else:
        raise ParseError("iperf3 JSON has no end.sum_received or end.sum: the test did not finish")
    if receiver is None:
        raise ParseError("iperf3 JSON %s has no bits_per_second" % where)
    return {
        "receiver_bits_per_second": receiver,
        "sender_bits_per_second": sender,
        "lost_percent": _number(measured, "lost_percent", where),
        "jitter_ms": _number(measured, "jitter_ms", where),
        "lost_packets": _count(measured, "lost_packets", where),
        "packets": _count(measured, "packets", where),
        "duration_s": _duration(measured, where),
        "approximate": approximate,
    }


def _bad_number(value):
    return value is not None and (math.isnan(value) or math.isinf(value) or value < 0)


def _invalid_reasons(result, role):
    reasons = []
    if role == "server":
        reasons.append(_SERVER_SIDE)
    for name in ("receiver_bits_per_second", "sender_bits_per_second"):
        if _bad_number(result[name]):
            reasons.append("%s is %r" % (name, result[name]))
    lost = result["lost_percent"]
    if lost is not None and not 0 <= lost <= 100:
        reasons.append("lost_percent is %r, outside 0-100" % lost)
    duration = result["duration_s"]
    if duration is not None and not duration > 0:
        reasons.append("duration_s is %r" % duration)
    for name in ("retransmits", "lost_packets", "packets", "bidir_reverse_retransmits"):
        if (result.get(name) or 0) < 0:
            reasons.append("%s is %r, a negative count" % (name, result[name]))
    if result["protocol"] == "UDP" and result["packets"] == 0:
        reasons.append("no UDP packet was counted (packets 0): its 0 % loss and rate measure nothing")
    lost_packets, packets = result["lost_packets"], result["packets"]
    if lost_packets is not None and packets is not None and 0 <= packets < lost_packets:
        reasons.append("lost_packets %d is more than packets %d: the counters cannot both be right" % (lost_packets, packets))
    return reasons


def _server_view(doc):
    """``(server's -J document or None, how it came: "json" | "text" | None)`` of a ``--get-server-output`` run."""
    server = doc.get("server_output_json")
    if server is None:
        return None, "text" if isinstance(doc.get("server_output_text"), str) else None
    if not isinstance(server, dict):
        raise ParseError("iperf3 JSON server_output_json must be an object, got %s" % type(server).__name__)
    return server, "json"


def _server_received(server):
    """What the server counted arriving, ``(lost_packets, packets)``, from its own ``end.sum_received``
    (3.11+) or ``end.sum``; ``(None, None)`` without them. Its ``sum_sent`` is zeros (esnet/iperf#1410)."""
    end = server.get("end") if isinstance(server.get("end"), dict) else {}
    for key in ("sum_received", "sum"):
        section = _section(end, key, "server_output_json.end")
        if section is not None:
            where = "server_output_json.end." + key
            return _count(section, "lost_packets", where), _count(section, "packets", where)
    return None, None


def _lost_unknown_reason(result, omit_s, server_version, server_output, server_counts):
    """Why the UDP loss the client reports cannot be trusted, or None when it can (see OMITTED_COUNTS_VERSION).

    Only where the client sent (no ``-R``): there the loss is the server's count as the client
    rendered it; with ``-R`` the client counted what arrived itself. A client before 3.14 is
    trusted without ``--omit``; a client from 3.14 on (or naming no version) only with a server
    from 3.14 on, which needs the server's version (its ``server_output_json``).
    """
    if result["protocol"] != "UDP" or result["direction"] == "server_to_client":
        return None
    client = version_tuple(result["version"])
    if client is not None and client < OMITTED_COUNTS_VERSION:
        if omit_s:
            return ("iperf3 %s counts the UDP loss of the %s omitted second(s) too when the client sends "
                    "(esnet/iperf#1489, fixed in 3.14)" % (result["version"], omit_s))
        return None
    server = version_tuple(server_version)
    if server is not None and server >= OMITTED_COUNTS_VERSION:
        return None
    if server is not None:
        said = "the server runs iperf3 %s, which sends no omitted counts (before 3.14)" % server_version
    elif server_output == "text":
        said = "the server's iperf3 version is unknown (it sent its output as text: run the server with --json)"
    else:
        said = "the server's iperf3 version is unknown (no server_output_json: run the client with --get-server-output)"
    lost, packets = server_counts
    counted = "" if lost is None or packets is None else "; the server itself counted %d of %d datagrams lost" % (lost, packets)
    return ("%s, and iperf3 %s on the client then reports the loss the server counted as 0 or miscounts it "
            "(esnet/iperf#1984, #2055)%s" % (said, result["version"] or "(version unknown)", counted))


# Datagrams still in flight when the results are exchanged may reach one count and not the other: a difference
# of up to COUNT_SLACK_PACKETS, or COUNT_SLACK_SHARE of the datagrams, is agreement. A server that sends no
# loss at all (older than 3.14: esnet/iperf#1984) differs by every lost datagram, far more than that.
COUNT_SLACK_PACKETS = 2
COUNT_SLACK_SHARE = 0.001


def _differ(first, second, packets):
    slack = max(COUNT_SLACK_PACKETS, COUNT_SLACK_SHARE * (packets or 0))
    return first is not None and second is not None and abs(first - second) > slack


def _disagreement(result, server_counts):
    """The reason when the client's UDP counts (the server's, as sent with the results) differ from the server's own
    by more than the slack of datagrams in flight (COUNT_SLACK_PACKETS, COUNT_SLACK_SHARE)."""
    lost, packets = server_counts
    lost_differs = _differ(lost, result["lost_packets"], packets)
    # before 3.11 the client's end.sum counts what it sent, not what arrived: only the losses compare
    packets_differ = not result["approximate"] and _differ(packets, result["packets"], packets)
    if not (lost_differs or packets_differ):
        return None
    return ("the client reports %s of %s datagrams lost, the server counted %s of %s: one of them miscounts"
            % (result["lost_packets"], result["packets"], lost, packets))


def parse_iperf3_json(text: str) -> dict:
    """Parse the client's ``iperf3 -J`` output (or ``--json-stream``) into one flat result.

    Source: esnet iperf3 3.7-3.17 JSON (recorded 3.12 plus field samples), see the module
    docstring for the version differences. Run the client with ``-J``; the server's JSON
    (``"accepted_connection"`` instead of ``"connecting_to"``) is parsed but marked invalid.

    Input: ``{"start": {"version": "iperf 3.12", "connecting_to": {"host": "10.20.0.1", "port":
    5201}, "test_start": {"protocol": "TCP", "num_streams": 1, "reverse": 0, "duration": 3}},
    "end": {"sum_sent": {"seconds": 3.0, "bits_per_second": 6.4e8, "retransmits": 24982},
    "sum_received": {"seconds": 3.0, "bits_per_second": 6.3e8}, "sender_tcp_congestion": "bbr",
    "receiver_tcp_congestion": "bbr"}}``

    Output (bits per second, seconds, milliseconds, percent; unknown is None)::

        {"version": "3.12", "protocol": "TCP", "reverse": False, "bidir": False,
         "direction": "client_to_server",   # or "server_to_client" (-R) or "bidirectional"
         "role": "client",                  # "server" for a server's JSON (then valid is False)
         "num_streams": 1, "duration_s": 3.0, "requested_duration_s": 3,
         "server_host": "10.20.0.1", "server_port": 5201,
         "start_epoch_s": 1796041290,        # start.timestamp.timesecs (client clock), None if absent
         "receiver_bits_per_second": 6.3e8,  # goodput: what arrived (end.sum_received)
         "sender_bits_per_second": 6.4e8,
         "retransmits": 24982,               # TCP sender; None when iperf3 did not report it
         "lost_percent": None, "jitter_ms": None, "lost_packets": None, "packets": None,  # UDP
         "sender_congestion_control": "bbr", "receiver_congestion_control": "bbr",
         "mean_rtt_ms": 0.029,               # TCP sender streams' mean RTT under load; None otherwise
         "approximate": False,   # True: UDP from end.sum only (iperf3 < 3.11), receiver derived
         "bidir_reverse_receiver_bits_per_second": None,   # --bidir: server-to-client direction
         "bidir_reverse_sender_bits_per_second": None, "bidir_reverse_retransmits": None,
         "server_version": None,             # the server's start.version ("3.12") from its own JSON
                                             # (--get-server-output, a server run with --json)
         "server_lost_packets": None, "server_packets": None,  # UDP, client sending: what the server
                                             # itself counted arriving (its own end section)
         "lost_unknown_reason": None,        # UDP: why lost_percent/lost_packets are None (not 0)
         "valid": True, "invalid_reason": None}

    Rules: TCP goodput is ``end.sum_received``; UDP uses ``end.sum_received`` when present,
    else derives ``bytes * 8 / seconds * (1 - lost_percent / 100)`` from ``end.sum`` and sets
    ``approximate``. ``valid`` is False (``invalid_reason`` says why, every reason "; "-joined)
    for lost_percent outside 0-100, a negative/NaN/infinite bit rate, a duration of 0, a negative
    count, a UDP test that counted no packet (packets 0), more lost_packets than packets, NaN or
    infinity anywhere in the output (a bare ``nan``/``-nan`` is named as such), only the first
    interval carrying data (the client's or the server's intervals: a stuck server), a server
    that reported an error, client and server counts that disagree, or a server-side JSON.

    UDP loss is unknown (``lost_percent`` and ``lost_packets`` None, ``lost_unknown_reason`` set,
    the result still valid) where the client sent and either its iperf3 is before 3.14 and
    ``--omit`` was used, or it is 3.14 or later and the server is before 3.14 or of unknown
    version (see OMITTED_COUNTS_VERSION). Where the loss is trusted and the server's own counts
    are there, they must equal the client's.

    Raises Iperf3Error (a ParseError) for a top-level ``"error"`` or a json-stream error event,
    with ``retryable`` set (busy server: True; connection refused: False). Raises ParseError for
    text that is not JSON (quoting its first 200 characters), hostile JSON (nested deeper than
    ``_target_json.MAX_DEPTH``, a number of thousands of digits: named as iperf3 output), a key repeated inside ``end`` or
    ``start.test_start`` ("upgrade iperf3 to >= 3.11 or don't use --bidir"; repeats elsewhere,
    like 3.12's per-stream ``start.sock_bufsize``, are tolerated), or JSON without end results.
    """
    if not isinstance(text, str):
        raise ParseError("iperf3 output must be text, got %s" % type(text).__name__)
    if not text.strip():
        raise ParseError("iperf3 printed nothing on stdout (was it run with -J? see its stderr)")
    doc, tokens = _document(text)
    if not isinstance(doc, dict):
        raise ParseError("iperf3 JSON must be an object, got %s" % type(doc).__name__)
    if "error" in doc:
        raise Iperf3Error(doc["error"])
    _reject_duplicate_results(doc)
    start = doc.get("start") if isinstance(doc.get("start"), dict) else {}
    end = doc.get("end")
    if not isinstance(end, dict) or not end:
        raise ParseError("iperf3 JSON has no end results: the test did not finish")
    test_start = start.get("test_start") if isinstance(start.get("test_start"), dict) else {}

    protocol = str(test_start.get("protocol") or "").upper()
    if not protocol:
        protocol = "UDP" if isinstance(end.get("sum"), dict) and "jitter_ms" in end["sum"] else "TCP"
    reverse = bool(test_start.get("reverse"))
    bidir = bool(test_start.get("bidir")) or any(key.endswith("_bidir_reverse") for key in end)
    connecting_to = start.get("connecting_to") if isinstance(start.get("connecting_to"), dict) else {}
    role = "server" if "accepted_connection" in start and not connecting_to else "client"
    num_streams = test_start.get("num_streams")
    if num_streams is None and isinstance(end.get("streams"), list) and end["streams"]:
        num_streams = len(end["streams"])

    result = {
        "version": iperf3_version(start.get("version")),
        "protocol": protocol,
        "reverse": reverse,
        "bidir": bidir,
        "direction": "bidirectional" if bidir else "server_to_client" if reverse else "client_to_server",
        "role": role,
        "num_streams": num_streams,
        "requested_duration_s": test_start.get("duration"),
        "server_host": connecting_to.get("host"),
        "server_port": connecting_to.get("port"),
        "start_epoch_s": _start_epoch_s(start),
        "retransmits": None,
        "lost_percent": None,
        "jitter_ms": None,
        "lost_packets": None,
        "packets": None,
        "sender_congestion_control": None,
        "receiver_congestion_control": None,
        "mean_rtt_ms": None,
        "approximate": False,
    }
    result.update(_udp(end) if protocol == "UDP" else _tcp(end))
    reverse_received = _section(end, "sum_received_bidir_reverse") or {}
    reverse_sent = _section(end, "sum_sent_bidir_reverse") or {}
    result["bidir_reverse_receiver_bits_per_second"] = _number(
        reverse_received, "bits_per_second", "end.sum_received_bidir_reverse")
    result["bidir_reverse_sender_bits_per_second"] = _number(
        reverse_sent, "bits_per_second", "end.sum_sent_bidir_reverse")
    result["bidir_reverse_retransmits"] = _count(reverse_sent, "retransmits", "end.sum_sent_bidir_reverse")

    server, server_output = _server_view(doc)
    server_start = server.get("start") if server and isinstance(server.get("start"), dict) else {}
    result["server_version"] = iperf3_version(server_start.get("version"))
    client_sent = protocol == "UDP" and result["direction"] != "server_to_client"
    server_counts = _server_received(server) if server and client_sent else (None, None)
    result["server_lost_packets"], result["server_packets"] = server_counts
    omit_s = test_start.get("omit") if is_number(test_start.get("omit")) else 0
    lost_unknown = _lost_unknown_reason(result, omit_s, result["server_version"], server_output, server_counts)

    reasons = _invalid_reasons(result, role)
    reasons.append(_not_a_number_reason(doc, tokens))
    reasons.append(_stuck_reason(doc.get("intervals"), "%s's" % role))
    if server:
        reasons.append(_stuck_reason(server.get("intervals"), "server's"))
        if server.get("error"):
            reasons.append("the server reported an error: %s" % server["error"])
        if client_sent and not lost_unknown:
            reasons.append(_disagreement(result, server_counts))
    reasons = [reason for reason in reasons if reason]
    result["lost_unknown_reason"] = lost_unknown
    if lost_unknown:
        result["lost_percent"] = result["lost_packets"] = None
    result["valid"] = not reasons
    result["invalid_reason"] = "; ".join(reasons) or None
    return result
