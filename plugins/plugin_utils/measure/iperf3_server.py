# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A one-test iperf3 server that is ours alone on its port: the hub-side script and the reading of its report.

``START_SCRIPT`` runs on the hub as ``sh -c START_SCRIPT sh BIND PORT LIMIT_S``. It prints one line,
tab-separated, that ``parse_server_start`` reads:

* ``busy<TAB>LISTENERS``: something listens on the TCP port and still does after 3 s (a socket
  the previous test's server is closing goes within that); ``LISTENERS``: the ``ss -Hltnp`` lines
  on one line; nothing is started.
* ``listening<TAB>WRAPPER<TAB>STARTED<TAB>LISTENER<TAB>PPID<TAB>LINE``, once ``ss`` names the listening
  process (it lists a new socket a moment before it can): ``timeout LIMIT_S iperf3 --server --one-off``
  was started (pid WRAPPER, in its own session where ``setsid`` exists; STARTED its start time, field 22
  of ``/proc/WRAPPER/stat``: clock ticks after boot, read at once) and a process LISTENER, whose parent
  is PPID, now listens on the port (``ss`` line LINE). It is ours when LISTENER or PPID is WRAPPER
  (timeout runs iperf3 as its child).
* ``exited<TAB>OUTPUT``: the server ended before it listened (an address the hub does not have, a
  port below 1024 without root); OUTPUT is its stdout and stderr on one line. The server runs with
  ``--json``, so its own view reaches a client run with ``--get-server-output`` as JSON (with its
  version, ``_iperf3.parse_iperf3_json``), and an error found after it began its JSON is the
  ``"error"`` member there (``exit_message`` picks it out).
* ``slow``: it did not listen within 10 s; it was stopped.
* ``no-ss``: ``ss`` (iproute2) is missing on the hub, so the port cannot be checked; nothing is started.

The listener's pid is the first ``pid=N`` of ``ss``'s ``users:`` field (``users:(("iperf3",pid=812,fd=3))``,
ss(8) with ``-p``). Pure; ``ParseError`` for any other output.

``STOP_SCRIPT`` runs as ``sh -c STOP_SCRIPT sh PID STARTED`` and stops only what is provably ours: the
process PID if it still runs and still started at STARTED (a pid the kernel gave to another process
since, or an admin's own ``iperf3 -s``, has another start time). A pid alone, or a command line holding
``iperf3``, proves nothing (issue 30.8: the stop once killed any process whose command line held it).
It prints one line, tab-separated, that ``parse_server_stop`` reads:

* ``gone``: no process PID runs (the server ended after its one test or its time limit); nothing killed.
* ``not_ours<TAB>STARTED_NOW<TAB>NAME``: PID is another process now (its start time STARTED_NOW, its name
  NAME from ``/proc/PID/comm``, at most 15 characters: never its arguments, which may hold a secret);
  nothing killed.
* ``stopped``: ours got SIGTERM (``timeout`` passes it to iperf3) and ended within 3 s.
* ``running``: ours got SIGTERM and still ran 3 s later.

A process that has ended but is not yet reaped (state Z) counts as gone. The start time is read from
``/proc/PID/stat`` after the last ``)`` (the command name in parentheses may hold spaces and ``)``).
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.target_json import load_target_json

# How long the script waits for the server to listen (100 x 0.1 s).
LISTEN_WAIT_S = 10
# A shell function printing the start time of process $1 (field 22 of /proc/$1/stat, clock ticks after
# boot), nothing when no such process runs or it has ended (state Z or X). Fields counted after the last
# ") ", which ends the command name: field 3 (state) is then the 1st, field 22 the 20th.
_STARTED_FUNCTION = r"""started() {
  awk '{ s = s $0 " " } END { sub(/.*\) /, "", s); split(s, f, " "); if (f[1] != "Z" && f[1] != "X") print f[20] }' \
    "/proc/$1/stat" 2>/dev/null
}
"""
START_SCRIPT = _STARTED_FUNCTION + r"""bind=$1 port=$2 limit=$3
command -v ss >/dev/null 2>&1 || { echo no-ss; exit 0; }
listeners() { ss -Hltnp "sport = :$port" 2>/dev/null | tr '\t\n' '  ' | sed 's/  */ /g; s/ $//'; }
busy=$(listeners)
i=0
while [ -n "$busy" ] && [ "$i" -lt 30 ]; do
  sleep 0.1; i=$((i + 1)); busy=$(listeners)
done
[ -z "$busy" ] || { printf 'busy\t%s\n' "$busy"; exit 0; }
err=$(mktemp) || exit 1
out=$(mktemp) || { rm -f "$err"; exit 1; }
if command -v setsid >/dev/null 2>&1; then
  setsid timeout "$limit" iperf3 --server --one-off --json --bind "$bind" --port "$port" </dev/null >"$out" 2>"$err" &
else
  timeout "$limit" iperf3 --server --one-off --json --bind "$bind" --port "$port" </dev/null >"$out" 2>"$err" &
fi
wrapper=$!
# read at once: our own child, not reaped yet even if it has ended, so the pid is still its
wrapper_started=$(started "$wrapper")
i=0
while [ "$i" -lt 100 ]; do
  now=$(listeners)
  # ss lists a new socket a moment before it can name its process: wait for the pid too
  pid=$(printf '%s\n' "$now" | sed -n 's/.*pid=\([0-9][0-9]*\).*/\1/p' | head -n 1)
  if [ -n "$pid" ]; then
    ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    rm -f "$err" "$out"
    printf 'listening\t%s\t%s\t%s\t%s\t%s\n' "$wrapper" "${wrapper_started:-0}" "${pid:-0}" "${ppid:-0}" "$now"
    exit 0
  fi
  if ! kill -0 "$wrapper" 2>/dev/null; then
    printf 'exited\t%s\n' "$(cat "$out" "$err" | tr '\t\n' '  ')"; rm -f "$err" "$out"; exit 0
  fi
  sleep 0.1
  i=$((i + 1))
done
kill "$wrapper" 2>/dev/null; rm -f "$err" "$out"; echo slow
"""
# Stops the server started above only if pid $1 still started at $2 (see the module doc), and waits (at
# most 3 s) until it is gone, so that the next test's server finds the port free:
# ``sh -c STOP_SCRIPT sh PID STARTED``.
STOP_SCRIPT = _STARTED_FUNCTION + r"""pid=$1 want=$2
now=$(started "$pid")
[ -n "$now" ] || { echo gone; exit 0; }
if [ "$now" != "$want" ]; then
  printf 'not_ours\t%s\t%s\n' "$now" "$(tr '\t\n' '  ' <"/proc/$pid/comm" 2>/dev/null)"
  exit 0
fi
kill "$pid" 2>/dev/null
i=0
while [ "$(started "$pid")" = "$want" ] && [ "$i" -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(started "$pid")" = "$want" ]; then echo running; else echo stopped; fi"""

_PROCESS = re.compile(r'users:\(\("([^"]*)",pid=([0-9]+)')


def listener_names(lines: str) -> str:
    """``"sshd (pid 50)"`` for each process ``ss -p`` names in ``lines``, joined; the raw lines when it names none."""
    found = ["%s (pid %s)" % match for match in _PROCESS.findall(lines)]
    return ", ".join(dict.fromkeys(found)) or lines.strip() or "an unknown process (ss -p shows no process: not root?)"


_JSON_ERROR = re.compile(r'"error":\s*"((?:[^"\\]|\\.)*)"')


def exit_message(output: str) -> str:
    """What a server that ended before it listened said: the ``"error"`` of its JSON, else its output as it is.

    ``'{ "start": { ... }, "intervals": [], "end": { }, "error": "error - unable to start listener for
    connections: Address already in use" } iperf3: exiting'`` (iperf3 3.12 with ``--json``) →
    ``"error - unable to start listener for connections: Address already in use"``;
    ``"iperf3: parameter error - ..."`` → the same text; ``""`` → ``""``.
    """
    match = _JSON_ERROR.search(output or "")
    if not match:
        return (output or "").strip()
    try:
        return load_target_json('"%s"' % match.group(1), "iperf3 --server")
    except ParseError:
        return match.group(1)


def parse_server_start(text: str) -> dict:
    """START_SCRIPT's output -> ``{"state": busy|listening|exited|slow|no-ss, "ours": bool, "pid": int | None,
    "start_time": int | None, "listeners": text}``; ``pid`` and ``start_time`` are the wrapper's (what stop takes)
    when it listens. Raises ParseError otherwise."""
    # only newlines and spaces: a server that exited silently leaves "exited<TAB>" with an empty OUTPUT
    line = (text or "").strip(" \r\n").splitlines()[-1:] or [""]
    fields = line[0].split("\t")
    state = fields[0]
    if state in ("slow", "no-ss") and len(fields) == 1:
        return {"state": state, "ours": False, "pid": None, "start_time": None, "listeners": ""}
    if state in ("busy", "exited") and len(fields) == 2:
        return {"state": state, "ours": False, "pid": None, "start_time": None, "listeners": fields[1]}
    if state == "listening" and len(fields) == 6 and all(field.isdigit() and len(field) <= 20 for field in fields[1:5]):
        wrapper, started, listener, parent = (int(field) for field in fields[1:5])
        if started < 1:  # the wrapper's start time unread: stop could never prove it is ours
            raise ParseError("the iperf3 server's start script could not read the start time of pid %d" % wrapper)
        return {"state": state, "ours": wrapper in (listener, parent), "pid": wrapper, "start_time": started,
                "listeners": fields[5]}
    raise ParseError("the iperf3 server's start script printed %r: expected busy, listening, exited, slow or no-ss"
                     % (text or "")[:200])


def parse_server_stop(text: str) -> dict:
    """STOP_SCRIPT's output -> ``{"state": gone|not_ours|stopped|running, "start_time": int | None, "command": str | None}``.

    ``command``: the process name (``/proc/PID/comm``) of a ``not_ours`` process, else None.

    ``"not_ours\\t81234\\tiperf3\\n"`` -> ``{"state": "not_ours", "start_time": 81234, "command": "iperf3"}`` (the
    name of the process that holds the pid now; nothing was killed); ``"stopped\\n"`` -> ``{"state": "stopped", "start_time": None,
    "command": None}``. Raises ParseError for any other output.
    """
    line = (text or "").strip(" \r\n").splitlines()[-1:] or [""]
    fields = line[0].split("\t")
    if fields[0] in ("gone", "stopped", "running") and len(fields) == 1:
        return {"state": fields[0], "start_time": None, "command": None}
    if fields[0] == "not_ours" and len(fields) == 3 and fields[1].isdigit() and len(fields[1]) <= 20:
        return {"state": "not_ours", "start_time": int(fields[1]), "command": fields[2].strip()}
    raise ParseError("the iperf3 server's stop script printed %r: expected gone, not_ours, stopped or running"
                     % (text or "")[:200])
