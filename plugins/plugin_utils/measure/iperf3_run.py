# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One iperf3 client test as the ``tunnelfix.fleet.iperf3`` action runs it: options, argv, retries, result.

The action (plugins/action/iperf3.py) only runs commands over the connection and sleeps; every
decision is here, pure and unit tested: which options are valid (``check_params``), the argv
(``build_argv``), whether and how long to wait before another attempt (``retry_wait_s``), the
failure messages and the final result (``judged_result``). Parsing is ``_iperf3.parse_iperf3_json``,
judging ``_iperf3_judge.judge_iperf3``.
"""

from __future__ import annotations


from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.address import is_host_or_address
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import (
    format_bits_per_second,
    to_bits_per_second,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_judge import judge_iperf3
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import iperf3_version, version_tuple

# the longest single wait between two attempts, seconds
MAX_BACKOFF_S = 30.0

ARGUMENT_SPEC = {
    "server": {"type": "str", "required": True},
    "port": {"type": "int", "default": 5201},
    "protocol": {"type": "str", "choices": ["tcp", "udp"], "default": "tcp"},
    "reverse": {"type": "bool", "default": False},
    "parallel": {"type": "int", "default": 1},
    "duration_s": {"type": "int", "default": 10},
    "omit_s": {"type": "int", "default": 0},
    "bitrate": {"type": "str"},
    "congestion_control": {"type": "str"},
    "bind_address": {"type": "str"},
    "connect_timeout_ms": {"type": "int", "default": 5000},
    "min_bits_per_second": {"type": "raw"},
    "max_lost_percent": {"type": "float"},
    "max_retransmits": {"type": "int"},
    "busy_retries": {"type": "int", "default": 5},
    "busy_backoff_s": {"type": "float", "default": 2.0},
    "start_delay_s": {"type": "float", "default": 0.0},
}

# option -> inclusive (low, high); None (not given) is not checked
RANGES = {
    "port": (1, 65535),
    "parallel": (1, 128),
    "duration_s": (1, 3600),
    "omit_s": (0, 600),
    "connect_timeout_ms": (1, 600000),
    "busy_retries": (0, 50),
    "busy_backoff_s": (0, 60),
    "start_delay_s": (0, 600),
    "max_lost_percent": (0, 100),
    "max_retransmits": (0, 2 ** 31),
}

NOT_INSTALLED = "iperf3 is not installed on this host: install the iperf3 package"
CHECK_MODE_MSG = "check mode: iperf3 test not run"


def check_params(params):
    """Range and format checks of validated options.

    Returns ``(min_bits_per_second or None, error or None)``; the error names the option and the
    value: ``{"port": 70000, ...}`` → ``(None, "port must be 1-65535, got 70000")``;
    ``{"min_bits_per_second": "32M", ...}`` → ``(32000000.0, None)``.
    """
    if not (params["server"] or "").strip():
        return None, "server must name the iperf3 server, got %r" % (params["server"],)
    if not is_host_or_address(params["server"]):
        return None, ("server must be one host name or IP address (the port goes in port), got %r"
                      % (params["server"],))
    for name, (low, high) in RANGES.items():
        value = params[name]
        if isinstance(value, bool) or (value is not None and not low <= value <= high):
            return None, "%s must be %s-%s, got %s" % (name, low, high, value)
    if params["bitrate"] is not None:
        try:
            to_bits_per_second(params["bitrate"])
        except ParseError as exc:
            return None, "bitrate: %s" % exc
    minimum = None
    if params["min_bits_per_second"] is not None:
        try:
            minimum = to_bits_per_second(params["min_bits_per_second"])
        except ParseError as exc:
            return None, "min_bits_per_second: %s" % exc
    return minimum, None


def option_context(params):
    """' (with bind_address=..., congestion_control=...)' for the options that can cause an error, or ''."""
    given = ["%s=%s" % (name, params[name]) for name in ("bind_address", "congestion_control", "bitrate")
             if params[name]]
    return " (with %s)" % ", ".join(given) if given else ""


# --get-server-output and --udp-counters-64bit came with iperf3 3.1 (RELNOTES.md, 3.1 2015-10-16)
SERVER_OUTPUT_VERSION = (3, 1)
# On the wire iperf3 numbers UDP datagrams in 32 bits unless --udp-counters-64bit, and up to 3.13 it
# counts them in a signed 32-bit int (3.14 made them int64, esnet/iperf PR #1536): a count wraps after
# 2**31 datagrams. A test that may send more than an eighth of that (2**28, the margin covers datagrams
# smaller than assumed and a rate above the one asked for) gets 64-bit counters. At 1000-byte datagrams
# that is about 597 Mbit/s for an hour per stream; a 10 s test needs more than 200 Gbit/s, or -b 0.
LONG_UDP_DATAGRAMS = 2 ** 28
# the datagram size assumed: iperf3 sizes them to the control connection's MSS (1460 without one), above
# 1000 bytes through any tunnel with an MTU of 1280 or more
ASSUMED_DATAGRAM_BYTES = 1000
# iperf3's UDP rate without -b: 1 Mbit/s (UDP_RATE, 1024 * 1024 bit/s)
UDP_DEFAULT_BITS_PER_SECOND = 1024 * 1024


def supports_server_output(version):
    """Whether the local iperf3 (``"3.12"``, None when unknown) has --get-server-output and --udp-counters-64bit."""
    known = version_tuple(version)
    return known is not None and known >= SERVER_OUTPUT_VERSION


def udp_counters_64bit(params, version):
    """Whether the test gets ``--udp-counters-64bit``: a UDP test the local iperf3 (3.1+) can run with them that
    may send more than LONG_UDP_DATAGRAMS datagrams.

    Datagrams: the rate (``bitrate``, else iperf3's 1 Mbit/s; ``0`` is unlimited, so always) times
    ``omit_s + duration_s`` times ``parallel`` over ASSUMED_DATAGRAM_BYTES. ``{"protocol": "udp",
    "bitrate": "0", ...}`` with iperf3 3.12 → True; the same with version None → False.
    """
    if params["protocol"] != "udp" or not supports_server_output(version):
        return False
    rate = UDP_DEFAULT_BITS_PER_SECOND if params["bitrate"] is None else to_bits_per_second(params["bitrate"])
    if rate == 0:
        return True
    seconds = params["omit_s"] + params["duration_s"]
    return rate * seconds * params["parallel"] / 8 / ASSUMED_DATAGRAM_BYTES > LONG_UDP_DATAGRAMS


def build_argv(iperf3, params, version=None):
    """The client's argv: ``iperf3 -c SERVER -p PORT -J -t S -P N --connect-timeout MS`` plus the options given.

    ``version``: the local iperf3's (from the lookup), None when unknown. With 3.1 or later the
    client asks for the server's own output (``--get-server-output``: its counts and, from a server
    run with ``--json``, its version) and long UDP tests get ``--udp-counters-64bit``
    (udp_counters_64bit); an iperf3 of unknown version gets neither (one before 3.1 refuses them).
    """
    argv = [iperf3, "-c", params["server"], "-p", str(params["port"]), "-J",
            "-t", str(params["duration_s"]), "-P", str(params["parallel"]),
            "--connect-timeout", str(params["connect_timeout_ms"])]
    if supports_server_output(version):
        argv.append("--get-server-output")
    if udp_counters_64bit(params, version):
        argv.append("--udp-counters-64bit")
    if params["omit_s"]:
        argv += ["-O", str(params["omit_s"])]
    if params["protocol"] == "udp":
        argv.append("-u")
    if params["reverse"]:
        argv.append("-R")
    if params["bitrate"] is not None:
        argv += ["-b", str(int(to_bits_per_second(params["bitrate"])))]
    if params["congestion_control"]:
        argv += ["-C", params["congestion_control"]]
    if params["bind_address"]:
        argv += ["-B", params["bind_address"]]
    return argv


# One lookup for all: iperf3's path (the first line, none: rc 1), timeout's (an empty line where it is
# missing), then what ``iperf3 --version`` prints (its first line names the version; its exit status
# is not the lookup's).
LOOKUP_SCRIPT = 'p=$(command -v iperf3) || exit 1; echo "$p"; command -v timeout || echo; "$p" --version 2>&1 || true'

# Beyond the test itself and its connect timeout: the server's own start and the final exchange.
CLIENT_SLACK_S = 20
KILLED_BY_TIMEOUT = 124  # timeout(1) exit status when it stopped the command


def client_limit_s(params):
    """Seconds after which the client is killed (timeout(1)): omit + duration + the connect timeout + CLIENT_SLACK_S."""
    return params["omit_s"] + params["duration_s"] + -(-params["connect_timeout_ms"] // 1000) + CLIENT_SLACK_S


def bounded_argv(argv, timeout_path, params):
    """``argv`` under ``timeout LIMIT`` where the target has timeout(1) (``timeout_path``), else as it is.

    A client connected to something that is not an iperf3 server (another listener on the port)
    otherwise waits for iperf3's receive timeout (120 s) and outlives an Ansible task timeout.
    """
    return [timeout_path, str(client_limit_s(params))] + argv if timeout_path else argv


def killed_msg(params):
    """The failure when timeout(1) stopped the client."""
    return ("iperf3 to %s:%s gave no result within %d s and was stopped: the port may be held by something that is not an "
            "iperf3 server, or the path stalls" % (params["server"], params["port"], client_limit_s(params)))


def iperf3_path(command_v_output):
    """The path ``command -v iperf3`` printed, or None when it names no executable file.

    ``"/usr/bin/iperf3\\n"`` → ``"/usr/bin/iperf3"``; ``""`` → None; an alias or function
    (``"alias iperf3='iperf3 -f m'"``, bash/ash print that for aliases) → None.
    """
    lines = (command_v_output or "").strip().splitlines()
    path = lines[0].strip() if lines else ""
    return path if path.startswith("/") else None


def parse_lookup(stdout):
    """LOOKUP_SCRIPT's output → ``{"iperf3": path | None, "timeout": path | None, "version": "3.12" | None}``.

    ``"/usr/bin/iperf3\n/usr/bin/timeout\niperf 3.12 (cJSON 1.7.15)\nLinux hub ...\n"`` →
    ``{"iperf3": "/usr/bin/iperf3", "timeout": "/usr/bin/timeout", "version": "3.12"}``; an empty
    second line is a host without timeout(1); a version line that names none (an alias that could
    not run) → version None. Never raises.
    """
    lines = (stdout or "").splitlines() + ["", "", ""]
    return {"iperf3": iperf3_path(lines[0]), "timeout": iperf3_path(lines[1]), "version": iperf3_version(lines[2])}


def base_result(params):
    """What every result carries: ``{"changed": False, "server": "HOST:PORT", "direction": ..., "attempts": 0}``.

    ``direction`` comes from ``reverse`` (``server_to_client``) or not (``client_to_server``).
    """
    return {
        "changed": False,
        "server": "%s:%s" % (params["server"], params["port"]),
        "direction": "server_to_client" if params["reverse"] else "client_to_server",
        "attempts": 0,
    }


def backoff_ceiling_s(attempts, base_s):
    """Upper bound of the wait after attempt ``attempts`` (1-based): ``base_s * 2^(attempts-1)``, at most 30 s."""
    return min(MAX_BACKOFF_S, base_s * 2 ** (attempts - 1))


def retry_wait_s(retryable, attempts, params, uniform):
    """Seconds to wait before another attempt, or None to give up.

    ``retryable`` is ``Iperf3Error.retryable``; ``attempts`` the runs made so far. A retryable
    error is retried while ``attempts <= busy_retries`` (so busy_retries=5 allows 6 runs); the
    wait is ``uniform(0, backoff_ceiling_s(attempts, busy_backoff_s))``, random so a fleet does
    not retry in lock-step (pass ``random.uniform``).
    """
    if not retryable or attempts > params["busy_retries"]:
        return None
    return uniform(0, backoff_ceiling_s(attempts, params["busy_backoff_s"]))


def iperf3_error_msg(result, exc, params):
    """``"iperf3 to HOST:PORT failed after N attempt(s): MESSAGE (with OPTIONS)"`` for an ``Iperf3Error``."""
    return "iperf3 to %s failed after %d attempt(s): %s%s" % (
        result["server"], result["attempts"], exc.message, option_context(params))


def parse_error_msg(result, exc):
    """``"iperf3 to HOST:PORT: WHAT WAS WRONG"`` for output that could not be read (not JSON, no results)."""
    return "iperf3 to %s: %s" % (result["server"], exc)


def judged_result(result, measured, minimum, params):
    """The final result of a test that produced numbers.

    ``result`` (from base_result, ``attempts`` counted) is updated with every key of
    ``measured`` (a ``parse_iperf3_json`` result), ``bits_per_second`` (the receiver's) and
    ``bits_per_second_human`` (``"37.4 Mbit/s"``). Threshold warnings go to ``warnings`` (key
    absent when there are none); threshold failures set ``failed`` and ``msg``:
    ``"iperf3 to 10.44.0.1:5201 (client_to_server, TCP, 1 stream(s)): receiver bits_per_second
    ... is below the required ..."``. Returns a new dict.
    """
    out = dict(result)
    out.update(measured)
    out["bits_per_second"] = measured["receiver_bits_per_second"]
    out["bits_per_second_human"] = format_bits_per_second(measured["receiver_bits_per_second"])
    verdict = judge_iperf3(measured, minimum, params["max_lost_percent"], params["max_retransmits"])
    if verdict["warnings"]:
        out["warnings"] = list(verdict["warnings"])
    if verdict["failures"]:
        out["failed"] = True
        out["msg"] = "iperf3 to %s (%s, %s, %d stream(s)): %s" % (
            result["server"], result["direction"], measured["protocol"], params["parallel"],
            "; ".join(verdict["failures"]))
    return out
