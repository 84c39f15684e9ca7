# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Many commands in one remote execution: a framed POSIX sh script and the parser of its output.

Pure functions, no I/O. A python-free action that needs twenty commands pays twenty connection
round trips when it runs them one by one. ``batch_script(steps, nonce)`` builds one POSIX sh
script (BusyBox ash, dash and bash run it alike) that runs every step with stdin from
``/dev/null`` and prints, per step::

    @@tunnelfix-batch NONCE begin NAME
    <the step's stdout, byte for byte>
    @@tunnelfix-batch NONCE stderr
    <the step's stderr>
    @@tunnelfix-batch NONCE rc RC

and ``@@tunnelfix-batch NONCE end`` last. Each marker starts a line: the script prints a newline
before the ``stderr`` and ``rc`` markers, and the parser drops exactly that newline again, so an
output without a trailing newline keeps its shape. ``NONCE`` (``new_nonce()``, 32 hex digits,
new for every call) is what makes a marker a marker: a command cannot print one it does not
know, so recorded or hostile output (a uci value, an interface name) cannot end a step early or
forge another. ``split_batch_output(text, nonce)`` gives every step's ``rc``, ``stdout`` and
``stderr`` back by name.

The shell only runs and frames commands; what to make of the results is the caller's decision.
Two small additions keep this true when names are only known on the target:

* ``Step(name, argv, after_failure=True)`` runs only when the step just before it exited
  non-zero (a text fallback after a failed JSON listing, not run when the JSON one worked).
* ``Step(name, argv, after_success=True)`` runs only when the step just before it exited 0 (or,
  when that one was skipped, the last one that ran): a chain of writes stops at its first failure.
* ``ForEachLine(lines, inputs, commands)`` runs ``ARGV LINE`` for every distinct line the sh
  snippet ``lines`` prints (sorted), for each argv prefix in ``commands``, named ``shlex.join(ARGV) + " " + LINE``
  (``ethtool -k br-lan``). Inside ``lines``, ``"$1"``, ``"$2"``... are files holding the stdout
  of the earlier steps named in ``inputs`` (so a listing already printed is read, not run again).

``batch_script(steps, nonce, environment)`` exports ``environment`` (``{NAME: value}``) before the first step: a value
the controller makes per run for fixed steps (the preshared key fingerprints' salt). A step named exactly as its words
joined by spaces, none needing quotes (``step_of(["uname", "-r"])``), is written with the name ``=`` and named from its
words on the target (``"$*"``): the command line an SSH server accepts is bounded (dropbear: 9000 bytes), and the
facts batches stay well under it.

A step's stdout goes straight to the script's stdout; its stderr (and the stdout of a step a
ForEachLine reads) goes to a file in a private ``mktemp -d`` directory (removed on exit) and is
printed after it, ``cat`` only running for a file that is not empty: few processes per step, which
counts on a router and on a fleet. The target needs ``mktemp``, ``cat`` and a writable
``$TMPDIR`` or ``/tmp``.
Without them the script exits 125 before the first marker, with the shell's message on stderr.
"""

from __future__ import annotations

import re
import secrets
import shlex
from typing import NamedTuple

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

MARKER = "@@tunnelfix-batch"
_NONCE = re.compile(r"[0-9a-f]{16,64}")

_PROLOGUE = r"""umask 077
M='%s %s'
T=$(mktemp -d) || exit 125
trap 'rm -rf "$T"' EXIT
r=0
step() {
  f=$T/$1 n=$2
  shift 2
  [ "$n" != = ] || n="$*"
  printf '%%s begin %%s\n' "$M" "$n"
  "$@" </dev/null 2>"$f.err"
  r=$?
  printf '\n%%s stderr\n' "$M"
  [ ! -s "$f.err" ] || cat "$f.err"
  printf '\n%%s rc %%s\n' "$M" "$r"
}
keep() {
  f=$T/$1 n=$2
  shift 2
  [ "$n" != = ] || n="$*"
  "$@" </dev/null >"$f.out" 2>"$f.err"
  r=$?
  printf '%%s begin %%s\n' "$M" "$n"
  cat "$f.out"
  printf '\n%%s stderr\n' "$M"
  [ ! -s "$f.err" ] || cat "$f.err"
  printf '\n%%s rc %%s\n' "$M" "$r"
}
"""


class Step(NamedTuple):
    """One command of a batch.

    ``name`` is how the caller finds the result (and reports the command): unique, one line.
    ``argv`` is the command as a list of words, run as it is (no shell parsing of the words).
    ``after_failure``: run only when the step just before exited non-zero (else it is absent
    from the output); put it right after that Step, not after a ForEachLine (whose loop runs in
    a subshell and leaves the exit code of the Step before the loop). ``after_success``: run
    only when it exited 0, the same way. Not both.
    """

    name: str
    argv: list
    after_failure: bool = False
    after_success: bool = False


class ForEachLine(NamedTuple):
    """Steps named on the target: ``ARGV LINE`` for every line ``lines`` prints (see module doc).

    ``lines`` is a sh snippet (a pipeline) printing one word per line; empty lines are skipped.
    ``inputs`` names earlier Steps whose stdout files the snippet gets as ``"$1"``, ``"$2"``...
    ``commands`` is a tuple of argv prefixes, each run once per line.
    """

    lines: str
    inputs: tuple
    commands: tuple


# ok_rcs that accepts every exit status a command can have: the caller reads a failure (rc, output) itself
ANY_EXIT_STATUS = range(256)


def step_name(argv) -> str:
    """The name a batch step of ``argv`` goes by, and the command a result reports: ``shlex.join(argv)``."""
    return shlex.join(argv)


def step_of(argv) -> "Step":
    """A batch step that runs ``argv`` under its own name (``step_name``)."""
    return Step(step_name(argv), list(argv))


def new_nonce() -> str:
    """32 random hex digits for one batch (``secrets.token_hex``)."""
    return secrets.token_hex(16)


def _check_nonce(nonce):
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise ParseError("batch nonce must be 16-64 lower-case hex digits, got %r" % (nonce,))


def foreach_name(argv, line: str) -> str:
    """The name ForEachLine gives the step running ``argv`` for ``line``: ``"ethtool -k br-lan"``."""
    return "%s %s" % (shlex.join(argv), line)


# A word of this many characters or more that several steps pass (the redacting sed scripts of each
# ``uci show``) is written once, as a shell variable, and passed as "$_hN": the command line an SSH
# server accepts is bounded (dropbear, OpenWrt's SSH server: MAX_CMD_LEN 9000 bytes, measured on
# the bench's routers: 8,802 bytes ran, 10,002 closed the connection) and quoting multiplies it.
SHARED_WORD_MIN_CHARS = 64


def _shared_words(steps) -> dict:
    """{word: variable name} for every argv word of SHARED_WORD_MIN_CHARS or more used by 2+ Steps."""
    counts = {}
    for item in steps:
        if isinstance(item, Step):
            for word in dict.fromkeys(str(word) for word in item.argv):
                if len(word) >= SHARED_WORD_MIN_CHARS:
                    counts[word] = counts.get(word, 0) + 1
    shared = [word for word, count in counts.items() if count > 1]
    return {word: "_h%d" % index for index, word in enumerate(shared, 1)}


# A step's name ``=`` on the command line stands for its words joined by spaces (``"$*"`` in step/keep): a step
# named as its command (``step_of``) whose words need no quoting is not written twice.
SAME_NAME = "="
_ENVIRONMENT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _written_name(item) -> str:
    words = [str(word) for word in item.argv]
    plain = all(word and shlex.quote(word) == word for word in words)
    return SAME_NAME if plain and item.name == " ".join(words) else shlex.quote(item.name)


def batch_script(steps, nonce: str, environment=None) -> str:
    """Return the sh script running ``steps`` (Step and ForEachLine, in order) with framed output.

    ``environment``: ``{NAME: value}`` exported to every step (upper-case names; a value the controller makes per
    run, such as the preshared key fingerprints' salt, where the steps are fixed data). Raises ParseError for a bad
    nonce, a step name that is empty, holds a newline or repeats, a ForEachLine input that is not an earlier Step, or
    an environment name that is not upper-case letters, digits and ``_``.
    """
    _check_nonce(nonce)
    lines = [_PROLOGUE % (MARKER, nonce)]
    for name, value in sorted((environment or {}).items()):
        if not _ENVIRONMENT_NAME.fullmatch(str(name)):
            raise ParseError("batch environment name must be upper-case letters, digits and _, got %r" % (name,))
        lines.append("export %s=%s" % (name, shlex.quote(str(value))))
    shared = _shared_words(steps)
    lines.extend("%s=%s" % (variable, shlex.quote(word)) for word, variable in shared.items())
    files = {}
    read_later = {name for item in steps if isinstance(item, ForEachLine) for name in item.inputs}
    for index, item in enumerate(steps):
        if isinstance(item, Step):
            misread = item.name == SAME_NAME and [str(word) for word in item.argv] != [SAME_NAME]   # read as its words
            if not item.name or "\n" in item.name or item.name in files or misread:
                raise ParseError("batch step name must be one unique line (and not %r), got %r" % (SAME_NAME, item.name))
            if item.after_failure and item.after_success:
                raise ParseError("batch step %r cannot run both after a failure and after a success" % (item.name,))
            files[item.name] = '"$T/%d.out"' % index
            run = "%s %d %s %s" % ("keep" if item.name in read_later else "step", index, _written_name(item),
                                   " ".join('"$%s"' % shared[str(word)] if str(word) in shared else shlex.quote(str(word))
                                            for word in item.argv))
            lines.append(('[ "$r" = 0 ] || ' + run) if item.after_failure
                         else ('[ "$r" = 0 ] && ' + run) if item.after_success else run)
            continue
        missing = [name for name in item.inputs if name not in files]
        if missing:
            raise ParseError("batch loop input %r is not an earlier step" % missing[0])
        if item.inputs:
            lines.append("set -- %s" % " ".join(files[name] for name in item.inputs))
        # sort -u: a line printed twice would name two steps alike and break the framing
        lines.append("{\n%s\n} | sort -u | while IFS= read -r w; do" % item.lines.strip())
        lines.append('  [ -n "$w" ] || continue')
        for argv in item.commands:
            prefix = shlex.join(argv)
            quoted = (prefix.replace("\\", "\\\\").replace('"', '\\"')
                      .replace("$", "\\$").replace("`", "\\`"))
            lines.append('  step w "%s $w" %s "$w"' % (quoted, prefix))
        lines.append("done")
    lines.append("printf '%s end\\n' \"$M\"\n")
    return "\n".join(lines)


def split_batch_output(text: str, nonce: str) -> dict:
    """Parse ``batch_script``'s stdout into ``{name: {"rc": int, "stdout": str, "stderr": str}}``.

    Steps come back in the order they ran; a skipped ``after_failure`` step or a loop line never
    printed is simply absent. Example (one step, ``uci -q show banip`` without a config)::

        "@@tunnelfix-batch 0f…e1 begin uci -q show banip\\n\\n@@tunnelfix-batch 0f…e1 stderr\\n"
        "\\n@@tunnelfix-batch 0f…e1 rc 1\\n@@tunnelfix-batch 0f…e1 end\\n"
        → {"uci -q show banip": {"rc": 1, "stdout": "", "stderr": ""}}

    Lines that look like markers but carry another nonce are output like any other. Raises
    ParseError when the framing is broken: text outside a step, a marker out of order, a step
    name seen twice, or no end marker (truncated output, the connection or script died).
    """
    _check_nonce(nonce)
    text = text or ""
    marker = re.compile(r"^%s %s (?:begin (?P<name>[^\n]*)|(?P<stderr>stderr)|rc (?P<rc>-?\d+)|(?P<end>end))$"
                        % (re.escape(MARKER), nonce), re.M)
    steps, current, where, expect = {}, None, 0, "begin|end"
    for found in marker.finditer(text):
        kind = "begin" if found["name"] is not None else "stderr" if found["stderr"] else "rc" if found["rc"] else "end"
        if kind not in expect.split("|"):
            raise ParseError("batch output: %s marker where %s was expected (after step %r)"
                             % (kind, expect.replace("|", " or "), current))
        between = text[where:found.start()]
        if kind in ("begin", "end"):
            if between:
                raise ParseError("batch output: %d characters outside any step (after step %r)"
                                 % (len(between), current))
            if kind == "end":
                if text[found.end():] not in ("", "\n"):
                    raise ParseError("batch output: text after the end marker")
                return steps
            current = found["name"]
            if not current or current in steps:
                raise ParseError("batch output: step name %r empty or seen twice" % current)
            steps[current] = {"rc": None, "stdout": "", "stderr": ""}
            expect = "stderr"
        else:
            if not between.endswith("\n"):
                raise ParseError("batch output: %s marker of step %r does not start a line" % (kind, current))
            steps[current]["stdout" if kind == "stderr" else "stderr"] = between[:-1]
            if kind == "rc":
                steps[current]["rc"] = int(found["rc"])
            expect = "rc" if kind == "stderr" else "begin|end"
        where = found.end() + 1
    raise ParseError("batch output is truncated: no end marker (last step %r)" % current)
