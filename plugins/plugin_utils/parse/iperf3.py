# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse the client side of an iperf3 test (``iperf3 -c HOST -J``), across iperf3 versions.

The JSON shape changed between releases (esnet/iperf): UDP has ``end.sum_sent`` and
``end.sum_received`` only from 3.11 (PR #1174; before that ``end.sum`` holds the *sender's*
numbers), ``--bidir`` wrote duplicate keys before 3.11 (issue #952, fixed with the
``*_bidir_reverse`` keys) and ``test_start.bidir`` exists from 3.13. Errors are a top-level
``"error"`` string with ``-J``, or an ``{"event": "error"}`` line with ``--json-stream`` (3.17+).

Pure functions, no I/O.
"""

from __future__ import annotations

import json
import math
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

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
    return json.loads(text, object_pairs_hook=_remember_duplicates)


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
    """Rebuild ``{"start", "end"}`` from ``--json-stream`` lines; None if ``text`` is not that."""
    events = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            event = _loads(line)
        except json.JSONDecodeError:
            return None
        if not isinstance(event, dict) or "event" not in event:
            return None
        events.append(event)
    doc = {}
    for event in events:
        if event["event"] == "error":
            raise Iperf3Error(event.get("data"))
        if event["event"] in ("start", "end"):
            doc[event["event"]] = event.get("data")
    return doc


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


def _section(end, key):
    value = end.get(key)
    if value is not None and not isinstance(value, dict):
        raise ParseError("iperf3 JSON end.%s must be an object, got %s" % (key, type(value).__name__))
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
        reasons.append("no UDP packet was counted (packets 0): its 0 %% loss and rate measure nothing")
    return reasons


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
         "valid": True, "invalid_reason": None}

    Rules: TCP goodput is ``end.sum_received``; UDP uses ``end.sum_received`` when present,
    else derives ``bytes * 8 / seconds * (1 - lost_percent / 100)`` from ``end.sum`` and sets
    ``approximate``. ``valid`` is False (``invalid_reason`` says why) for lost_percent outside
    0-100, a negative/NaN/infinite bit rate, a duration of 0, a negative count, a UDP test that
    counted no packet, or a server-side JSON.

    Raises Iperf3Error (a ParseError) for a top-level ``"error"`` or a json-stream error event,
    with ``retryable`` set (busy server: True; connection refused: False). Raises ParseError for
    text that is not JSON (quoting its first 200 characters), a key repeated inside ``end`` or
    ``start.test_start`` ("upgrade iperf3 to >= 3.11 or don't use --bidir"; repeats elsewhere,
    like 3.12's per-stream ``start.sock_bufsize``, are tolerated), or JSON without end results.
    """
    if not isinstance(text, str):
        raise ParseError("iperf3 output must be text, got %s" % type(text).__name__)
    if not text.strip():
        raise ParseError("iperf3 printed nothing on stdout (was it run with -J? see its stderr)")
    try:
        doc = _loads(text)
    except json.JSONDecodeError:
        doc = _from_json_stream(text)
        if doc is None:
            raise ParseError("iperf3 output is not JSON (run iperf3 with -J): %r" % text[:200]) from None
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

    version_match = _VERSION.match(str(start.get("version", "")))
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
        "version": version_match.group(1) if version_match else None,
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
    reasons = _invalid_reasons(result, role)
    result["valid"] = not reasons
    result["invalid_reason"] = "; ".join(reasons) or None
    return result
