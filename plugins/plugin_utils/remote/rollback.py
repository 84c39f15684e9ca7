# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Apply-with-rollback on the target: the POSIX sh scripts and the parser of what they print.

Pure functions, no I/O; the action ``guarded_apply`` (plugins/action/guarded_apply.py) sends the
scripts and decides. The idea is LuCI's apply-with-rollback: a change that may cut the management
connection is applied only after a revert has been armed on the target itself, and the controller
confirms (disarms) it once it can reach the host again. If it cannot, the timer fires on the
target and the old files come back without help.

Every run has its own private directory, ``BASE/NAME.RUNID`` (mode 0700, files 0600; RUNID: 16 hex digits
the action draws for the run), and one run at a time holds the guard of a name, the directory ``BASE/NAME.lock``
(``mkdir`` is atomic and needs no ``flock``, which BusyBox may lack) with ``holder``: ``RUNID EPOCH``. The guard is
taken before the snapshot and given back by the confirm, the discard, or the revert once it has run; every
script reads and changes only its own run's directory, so a second run can neither replace nor delete the
snapshot of the first, and a verify compares with its own run's snapshot. A second run while the guard is held
prints ``busy HOLDER AGE STATE DUE`` and does nothing. A guard is stale, and taken over (``stale HOLDER AGE
WHY``), when its holder's directory is gone, its revert has run, or its snapshot was never armed within
``STALE_S``; the holder's directory is then left where it is. BASE is ``/var/run/tunnelfix-rollback`` (root's,
not world-writable ``/tmp``); the snapshot and the arming print ``unsafe_base BASE`` and do nothing unless it
is a directory, not a symlink, owned by the current user with mode 0700.

In the run's directory:

* ``N`` / ``N.absent``: the snapshot of the N-th file (``cp -p``), or a note that it did not exist;
  ``paths``: the files, one per line; ``sha256``: ``N HEX`` (or ``N absent``) per file, taken at
  snapshot time. The snapshot holds keys; it is never read back to the controller, only hashed.
* ``restore-TOKEN.sh``: puts every file back (a file that was absent is removed), then runs the restore
  command. It starts with ``mv armed firing``: the rename is the lock, so a confirm and a timer
  that meet cannot both win. It ends with ``mv firing rolled-back`` (having written ``restore.rc``) and gives the guard back.
* ``armed``: ``EPOCH DEADLINE`` (the target's clock), exists while the revert is pending. ``confirmed`` replaces it when the controller
  confirms (also a ``mv``). ``apply.rc`` / ``apply.out``: the apply command's exit code and output;
  ``apply.pid``: the apply's process group (``setsid``), which the revert kills if it still runs.
* The timer: with systemd (``/run/systemd/system`` and ``systemd-run``) a transient timer unit
  ``tunnelfix-rollback-NAME-RUNID`` (``--on-active``); without it (OpenWrt, BusyBox) a detached
  ``sleep N; sh restore-TOKEN.sh`` in its own session (``setsid``), its pid in ``timer.pid``. TOKEN is
  new for every arming, and a confirm removes the run's directory, so a sleeper left from a confirmed run
  finds no script to run.

Every script prints ``key value`` lines (``parse_status``) and exits 0 unless the shell itself
could not work (no ``mkdir``/``cp``), which the action reports with rc and stderr.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

BASE_DIR = "/var/run/tunnelfix-rollback"
SYSTEMD_DIR = "/run/systemd/system"
UNIT_PREFIX = "tunnelfix-rollback-"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
RUN_ID_PATTERN = re.compile(r"^[0-9a-f]{8,32}$")
# a guard whose run took its snapshot but never armed its revert is taken to be gone after this long: the
# longest rollback_timeout_s, far longer than any playbook's gap between its snapshot and its apply
STALE_S = 3600
_SHA = re.compile(r"^(absent|[0-9a-f]{64})$")
# a WireGuard key (32 bytes in base64: 43 characters and '='), the shape any key in an output has,
# and whatever follows a private/preshared key's name (uci private_key=, wg-quick PrivateKey = )
_WG_KEY = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=(?![A-Za-z0-9+/=])")
_KEY_VALUE = re.compile(r"(?i)((?:private|preshared)[_ ]?key'?\s*[=: ]\s*'?)[^\s';]+")
REDACTED = "<redacted>"
# ``sh -c READ_AND_RUN`` runs the script sent on its standard input (kept off the command line)
READ_AND_RUN = 'script=$(cat) && eval "$script"'


def check_name(name: str) -> str:
    """Return ``name`` if it can name a guard (``[A-Za-z0-9_.-]{1,64}``, not ``.``/``..``); else ParseError naming it."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or name in (".", ".."):
        raise ParseError("name must be 1-64 letters, digits, '_', '.' or '-', got %r" % (name,))
    return name


def check_files(files) -> list:
    """Return ``files`` (absolute paths, no newline, at least one, no repeats); else ParseError naming the value."""
    if not files:
        raise ParseError("files must list at least one absolute path, got %r" % (files,))
    for path in files:
        if (not isinstance(path, str) or not path.startswith("/") or path.endswith("/")
                or any(char in path for char in "\n\r\0")):
            raise ParseError("files must be absolute file paths, got %r" % (path,))
    # normpath keeps a leading '//' (POSIX leaves it to the system); Linux reads it as '/'
    normal = ["/" + posixpath.normpath(path).lstrip("/") for path in files]
    if len(set(normal)) != len(normal):
        raise ParseError("files lists a path twice: %r" % (files,))
    return list(files)


def check_command(option: str, text) -> str:
    """Return ``text`` if it is a command that does something (not blank); else ParseError naming ``option``."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("%s must be a shell command, got a blank value" % option)
    return text


def redact(text: str) -> str:
    """``text`` with every WireGuard-key-shaped word (44 base64 characters ending '=') and the value after a
    private or preshared key's name replaced by ``<redacted>``."""
    return _KEY_VALUE.sub(r"\g<1>" + REDACTED, _WG_KEY.sub(REDACTED, text or ""))


def check_timeouts(rollback_timeout_s: int, reconnect_timeout_s: int, connect_timeout_s: int) -> None:
    """ParseError naming the option and value unless 10 <= rollback <= 3600, 1 <= connect, and
    connect <= reconnect < rollback (a confirm must be able to happen before the timer fires)."""
    if not 10 <= rollback_timeout_s <= 3600:
        raise ParseError("rollback_timeout_s must be 10-3600, got %r" % rollback_timeout_s)
    if not 1 <= connect_timeout_s <= 60:
        raise ParseError("connect_timeout_s must be 1-60, got %r" % connect_timeout_s)
    if not connect_timeout_s <= reconnect_timeout_s < rollback_timeout_s - connect_timeout_s:
        raise ParseError(
            "reconnect_timeout_s must be at least connect_timeout_s (%d) and less than rollback_timeout_s "
            "minus connect_timeout_s (%d), got %r" % (connect_timeout_s, rollback_timeout_s - connect_timeout_s,
                                                      reconnect_timeout_s))


def check_run_id(run_id: str) -> str:
    """Return ``run_id`` if it can name a run (8-32 lowercase hex digits); else ParseError naming it."""
    if not isinstance(run_id, str) or not RUN_ID_PATTERN.match(run_id):
        raise ParseError("run_id must be 8-32 lowercase hex digits, got %r" % (run_id,))
    return run_id


def guard_dir(name: str, run_id: str, base: str = BASE_DIR) -> str:
    """The run's own directory on the target (its snapshot, revert and state): ``BASE/NAME.RUNID``."""
    return "%s/%s.%s" % (base, check_name(name), check_run_id(run_id))


def lock_dir(name: str, base: str = BASE_DIR) -> str:
    """The guard of ``name`` on the target, one run at a time: the directory ``BASE/NAME.lock`` (``mkdir``)."""
    return "%s/%s.lock" % (base, check_name(name))


def unit_name(name: str, run_id: str) -> str:
    """The systemd unit of the run's timer: ``tunnelfix-rollback-NAME-RUNID`` (``.timer``/``.service``)."""
    return "%s%s-%s" % (UNIT_PREFIX, check_name(name), check_run_id(run_id))


def _base_lines(base: str) -> list:
    """sh lines: create ``base`` (0700) if missing; print ``unsafe_base BASE`` and exit unless it is a real
    directory (not a symlink) owned by the current user with mode 0700 (``ls -ldn``: BusyBox, GNU)."""
    b = shlex.quote(base)
    return ["mkdir -p %s 2>/dev/null" % b,
            "set -- $(ls -ldn %s 2>/dev/null)" % b,
            'if [ -L %s ] || [ ! -d %s ] || [ "$3" != "$(id -u)" ]; then echo "unsafe_base %s"; exit 0; fi' % (b, b, base),
            'case $1 in drwx------*) ;; *) echo "unsafe_base %s"; exit 0 ;; esac' % base]


def _sha_lines(files) -> str:
    """sh printing ``sha256 N HEX|absent`` for each of ``files`` as it is now (``sha256sum`` reads stdin)."""
    out = []
    for index, path in enumerate(files):
        q = shlex.quote(path)
        out.append("if [ -f %s ]; then h=$(sha256sum < %s) || exit 5; set -- $h; echo \"sha256 %d $1\"; "
                   "else echo 'sha256 %d absent'; fi" % (q, q, index, index))
    return "\n".join(out)


def _vars(name: str, run_id: str, base: str) -> list:
    """sh lines setting B (base), N (name), RUN, D (the run's directory) and L (the guard)."""
    return ["B=%s" % shlex.quote(base), "N=%s" % shlex.quote(check_name(name)), "RUN=%s" % check_run_id(run_id),
            'D="$B/$N.$RUN"', 'L="$B/$N.lock"']


# sh: give the guard up if this run holds it. The guard is first renamed away (atomic), then its holder read: a
# guard that turns out to be another run's (it took a stale guard over in between) is put back.
_RELEASE = """release() {
  mv "$L" "$B/.$N.release.$RUN" 2>/dev/null || return 0
  rh=; { read -r rh _rt < "$B/.$N.release.$RUN/holder"; } 2>/dev/null
  if [ "$rh" = "$RUN" ] || [ -e "$L" ]; then rm -rf "$B/.$N.release.$RUN"; else mv "$B/.$N.release.$RUN" "$L"; fi
}"""

# sh: describe the guard's holder: h (run id or '-'), age (s since it took the guard, or '-'), st (its state:
# snapshot, armed, firing, confirming, rolled-back, gone, unknown), due (s until an armed revert fires, or '-'),
# and stale (gone, rolled-back, old, or empty: the guard may be taken over only when this is set).
_DESCRIBE = """describe() {
  h=; t=; st=unknown; age=-; due=-; stale=
  { read -r h t < "$L/holder"; } 2>/dev/null
  case $t in ''|*[!0-9]*) ;; *) age=$((now - t)) ;; esac
  case $h in ''|*[!0-9a-f]*) h=-; return 0 ;; esac
  H="$B/$N.$h"
  if [ ! -d "$H" ]; then st=gone
  elif [ -e "$H/rolled-back" ]; then st=rolled-back
  elif [ -e "$H/firing" ]; then st=firing
  elif [ -e "$H/confirmed" ]; then st=confirming
  elif [ -e "$H/armed" ]; then
    st=armed; a=; dl=; { read -r a dl < "$H/armed"; } 2>/dev/null
    case $dl in ''|*[!0-9]*) ;; *) due=$((dl - now)) ;; esac
  else st=snapshot; fi
  case $st in
    gone|rolled-back) stale=$st ;;
    snapshot) if [ "$age" != - ] && [ "$age" -gt %(stale_s)d ]; then stale=old; fi ;;
  esac
}"""


def _take_lines(stale_s: int) -> list:
    """sh: create the run's directory, then take the guard (``mkdir``, atomic) and write ``RUN EPOCH`` into its
    ``holder``; a stale guard is taken over (``stale HOLDER AGE WHY``), a live one refused (``busy HOLDER AGE
    STATE DUE``, the run's directory removed again, exit 0)."""
    return [
        "now=$(date +%s)",
        _RELEASE, _DESCRIBE % {"stale_s": stale_s},
        'take() { mkdir "$L" 2>/dev/null || return 1; echo "$RUN $now" > "$L/holder"; }',
        'mkdir "$D" || exit 4',
        "if ! take; then",
        "  describe",
        # one taker at a time (the mark is inside the stale guard itself); the holder is read again under it
        '  if [ -n "$stale" ] && mkdir "$L/takeover" 2>/dev/null; then',
        '    h0=$h; t0=$t; describe',
        '    if [ -n "$stale" ] && [ "$h" = "$h0" ] && [ "$t" = "$t0" ] && mv "$L" "$B/.$N.stale.$RUN" 2>/dev/null; then',
        '      rm -rf "$B/.$N.stale.$RUN"; echo "stale $h $age $stale"',
        '    else rmdir "$L/takeover" 2>/dev/null; fi',
        '    take || describe',
        "  fi",
        '  if [ "$(cat "$L/holder" 2>/dev/null)" != "$RUN $now" ]; then rm -rf "$D"; echo "busy $h $age $st $due"; exit 0; fi',
        "fi",
        # from here on, a failure gives the guard back
        'fail() { rm -rf "$D"; release; exit "$1"; }',
    ]


def snapshot_script(name: str, files, run_id: str, base: str = BASE_DIR, stale_s: int = STALE_S) -> str:
    """sh that takes the guard of ``name`` for ``run_id`` and copies ``files`` into the run's own directory;
    prints ``sha256 N HEX|absent`` per file and ``snapshot ok``.

    Refuses (changes nothing, exit 0) with ``notfile N`` when file N exists but is not a regular file, and with
    ``busy HOLDER AGE STATE DUE`` while another run holds the guard (``AGE`` s since it took it, its ``STATE``
    snapshot/armed/firing/confirming/unknown, ``DUE`` s until its armed revert fires, ``-`` when unknown).
    A guard whose holder is gone (its directory removed: it ended), whose revert has run, or whose snapshot
    was never armed within ``stale_s`` seconds is taken over (``stale HOLDER AGE gone|rolled-back|old``); the
    holder's directory is left as it is (it may hold the only copy of the files as they were).
    """
    files = check_files(files)
    lines = ["umask 077"] + _vars(name, run_id, base) + _base_lines(base)
    for index, path in enumerate(files):
        q = shlex.quote(path)
        # a symlink that leads nowhere, a directory, a FIFO: not a file the snapshot can copy back
        lines.append("if { [ -L %s ] && [ ! -e %s ]; } || { [ -e %s ] && [ ! -f %s ]; }; then echo \"notfile %d\"; exit 0; fi"
                     % (q, q, q, q, index))
    lines += _take_lines(stale_s)
    for index, path in enumerate(files):
        q = shlex.quote(path)
        lines.append("if [ -f %s ]; then cp -p %s \"$D/%d\" || fail 5; else : > \"$D/%d.absent\"; fi" % (q, q, index, index))
        lines.append("printf '%%s\\n' %s >> \"$D/paths\"" % q)
    lines.append("{\n%s\n} > \"$D/sha256.txt\" || fail 5" % _sha_lines(files))
    lines.append("sed 's/^sha256 //' \"$D/sha256.txt\" > \"$D/sha256\" && rm -f \"$D/sha256.txt\" || fail 5")
    lines.append('while read -r n h; do echo "sha256 $n $h"; done < "$D/sha256"')
    lines.append("echo snapshot ok")
    return "\n".join(lines) + "\n"


def restore_script(name: str, files, restore: str, run_id: str, base: str = BASE_DIR) -> str:
    """The text of ``restore-TOKEN.sh``: claim the run's revert (``mv armed firing``), put the files back from the
    run's own snapshot, run ``restore``, then give the guard back."""
    lines = ["#!/bin/sh"] + _vars(name, run_id, base) + [
        'mv "$D/armed" "$D/firing" 2>/dev/null || exit 0', "rc=0",
        # an apply still running would write over what is restored: stop its process group first
        'if [ -f "$D/apply.pid" ] && [ ! -f "$D/apply.rc" ]; then',
        '  p=$(cat "$D/apply.pid")',
        '  kill -TERM -"$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null',
        '  i=0; while [ "$i" -lt 5 ] && kill -0 "$p" 2>/dev/null; do sleep 1; i=$((i + 1)); done',
        '  kill -KILL -"$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null',
        '  echo "$p" > "$D/apply.killed"',
        "fi"]
    for index, path in enumerate(check_files(files)):
        q = shlex.quote(path)
        lines.append("if [ -e \"$D/%d.absent\" ]; then rm -f %s || rc=1; else cp -p \"$D/%d\" %s || rc=1; fi"
                     % (index, q, index, q))
    lines.append('echo "$rc" > "$D/files.rc"')
    lines.append("sh -c %s > \"$D/restore.out\" 2>&1 < /dev/null; echo $? > \"$D/restore.rc\"" % shlex.quote(restore))
    lines.append('mv "$D/firing" "$D/rolled-back"')
    lines += [_RELEASE, "release"]
    return "\n".join(lines) + "\n"


def arm_and_apply_script(name: str, files, apply: str, restore: str, rollback_timeout_s: int, token: str,
                         run_id: str, base: str = BASE_DIR, systemd_dir: str = SYSTEMD_DIR) -> str:
    """sh that arms the run's revert (timer in ``rollback_timeout_s``), then starts ``apply`` detached, and returns at once.

    Needs this run's snapshot (``snapshot_script``) in place: prints ``missing snapshot`` otherwise, ``lost HOLDER``
    when the guard is no longer this run's (taken over as stale), and ``mismatch`` with ``snapshot_path PATH`` lines
    when ``files`` are not the snapshot's in order. Prints ``timer systemd|sleep`` and ``apply started``. The apply
    runs in its own session with its output in ``apply.out`` and its exit code in ``apply.rc``, so it completes when
    the SSH session that started it is cut. ``armed`` holds ``EPOCH DEADLINE`` (target clock, s).
    """
    unit = unit_name(name, run_id)
    if not re.match(r"^[0-9a-f]{8,32}$", token):
        raise ParseError("token must be 8-32 hex digits, got %r" % (token,))
    restore_text = restore_script(name, files, restore, run_id, base)
    script = '"$D/restore-%s.sh"' % token
    # run as ``sh -c "$a" DIR``: the directory is $0 there, written so here (no replace over the user's text)
    apply_sh = ("sh -c %s > \"$0/apply.out\" 2>&1 < /dev/null; echo $? > \"$0/apply.rc.tmp\"; "
                "mv \"$0/apply.rc.tmp\" \"$0/apply.rc\"" % shlex.quote(apply))
    want = "".join("%s\n" % path for path in check_files(files))
    lines = ["umask 077"] + _vars(name, run_id, base) + _base_lines(base) + [
        'if [ ! -f "$D/sha256" ]; then echo "missing snapshot"; exit 0; fi',
        'holder() { hh=; { read -r hh _ht < "$L/holder"; } 2>/dev/null; echo "${hh:--}"; }',
        'if [ "$(holder)" != "$RUN" ]; then echo "lost $(holder)"; exit 0; fi',
        'if [ -e "$D/armed" ] || [ -e "$D/firing" ]; then echo "busy $RUN - armed -"; exit 0; fi',
        # the snapshot must be of these files, in this order: file N goes back to path N
        "if [ \"$(cat \"$D/paths\")\" != %s ]; then echo 'mismatch'; while IFS= read -r p; do "
        "echo \"snapshot_path $p\"; done < \"$D/paths\"; exit 0; fi" % shlex.quote(want.rstrip("\n")),
        'rm -f "$D/apply.rc" "$D/apply.out" "$D/confirmed" "$D/rolled-back" "$D/restore.rc" "$D/files.rc" "$D/timer.pid"',
        'rm -f "$D/apply.pid" "$D/apply.killed"',
        'rm -f "$D"/restore-*.sh',
        "printf '%%s' %s > %s || exit 5" % (shlex.quote(restore_text), script),
        'now=$(date +%%s); echo "$now $((now + %d))" > "$D/armed" || exit 5' % rollback_timeout_s,
        # armed first, then the holder again: a stale takeover in between would not have seen 'armed'
        'if [ "$(holder)" != "$RUN" ]; then rm -f "$D/armed"; echo "lost $(holder)"; exit 0; fi',
        "if [ -d %s ] && command -v systemd-run >/dev/null 2>&1; then" % shlex.quote(systemd_dir),
        "  systemd-run --quiet --collect --unit %s --on-active=%ds --timer-property=AccuracySec=1s /bin/sh %s"
        " >/dev/null 2>\"$D/arm.err\" || { rm -f \"$D/armed\"; echo \"arm failed $(head -c 300 \"$D/arm.err\" | tr '\\n' ' ')\"; exit 0; }"
        % (unit, rollback_timeout_s, script),
        "  echo 'timer systemd'",
        "else",
        "  w=%s" % shlex.quote('sleep %d; exec sh "$0"' % rollback_timeout_s),
        "  if command -v setsid >/dev/null 2>&1; then setsid sh -c \"$w\" %s < /dev/null > /dev/null 2>&1 &" % script,
        "  else (trap '' HUP; sh -c \"$w\" %s) < /dev/null > /dev/null 2>&1 & fi" % script,
        '  echo $! > "$D/timer.pid"',
        "  echo 'timer sleep'",
        "fi",
        "a=%s" % shlex.quote(apply_sh),
        # setsid (util-linux, BusyBox) execs in the background child, so $! leads the apply's process group
        "if command -v setsid >/dev/null 2>&1; then setsid sh -c \"$a\" \"$D\" < /dev/null > /dev/null 2>&1 &",
        "else (trap '' HUP; exec sh -c \"$a\" \"$D\") < /dev/null > /dev/null 2>&1 & fi",
        'echo $! > "$D/apply.pid"',
        "echo 'apply started'",
    ]
    return "\n".join(lines) + "\n"


def _cancel_timer(name: str, run_id: str) -> str:
    unit = unit_name(name, run_id)
    return ("if [ -f \"$D/timer.pid\" ]; then kill \"$(cat \"$D/timer.pid\")\" 2>/dev/null; "
            "else systemctl stop %s.timer >/dev/null 2>&1; systemctl reset-failed %s.timer %s.service >/dev/null 2>&1; fi"
            % (unit, unit, unit))


def confirm_script(name: str, run_id: str, base: str = BASE_DIR) -> str:
    """sh run on the first connection after the apply: says where the run's revert is, and confirms it if it can.

    Prints ``state running`` (apply not finished: nothing done, ask again), ``state failed RC``
    (the apply exited RC != 0: the timer is stopped and the revert started detached, in its own
    session and deaf to SIGHUP, and ``state firing`` follows: the caller polls ``verify_script``),
    ``state confirmed`` (the revert was disarmed, the guard given back, the run's directory removed), or
    ``state rolled-back`` (the timer won: the caller verifies with ``verify_script``), ``state unarmed``
    (a snapshot but no revert armed: the launch never ran, nothing was applied), or ``state missing``.
    Only the run's own directory is read or changed.
    """
    lines = _vars(name, run_id, base) + [
        _RELEASE,
        'if [ ! -d "$D" ]; then echo "state missing"; exit 0; fi',
        'if [ -e "$D/rolled-back" ] || [ -e "$D/firing" ]; then echo "state rolled-back"; exit 0; fi',
        'if [ ! -e "$D/armed" ] && [ ! -e "$D/confirmed" ]; then echo "state unarmed"; exit 0; fi',
        'if [ ! -f "$D/apply.rc" ]; then echo "state running"; exit 0; fi',
        'rc=$(cat "$D/apply.rc")',
        'if [ "$rc" != 0 ]; then',
        '  echo "state failed $rc"; echo "apply_out $(tail -c 300 "$D/apply.out" | tr \'\\n\' \' \')"',
        "  %s" % _cancel_timer(name, run_id),
        # detached: a revert that cuts this session must not die half-way (the caller polls verify_script)
        '  for f in "$D"/restore-*.sh; do [ -f "$f" ] || continue',
        # and deaf to SIGHUP (ignored signals stay ignored across exec), whatever the restore hangs up
        '    if command -v setsid >/dev/null 2>&1; then setsid sh -c "trap \'\' HUP; exec sh \\"\\$0\\"" "$f" < /dev/null > /dev/null 2>&1 &',
        "    else (trap '' HUP; exec sh \"$f\") < /dev/null > /dev/null 2>&1 & fi",
        '  done; echo "state firing"; exit 0',
        "fi",
        'if mv "$D/armed" "$D/confirmed" 2>/dev/null; then',
        "  %s" % _cancel_timer(name, run_id),
        '  release; rm -rf "$D"; echo "state confirmed"',
        'else echo "state rolled-back"; fi',
    ]
    return "\n".join(lines) + "\n"


def verify_script(name: str, run_id: str, base: str = BASE_DIR) -> str:
    """sh run after a rollback: prints ``state rolled-back|firing|armed|missing``, ``restore_rc N``,
    ``files_rc N``, the run's snapshot's ``before N HEX`` and the files' ``sha256 N HEX`` now; then removes
    the run's directory (and gives the guard back, if the revert could not) unless the revert is still pending
    or running."""
    lines = _vars(name, run_id, base) + [
        _RELEASE,
        'if [ ! -d "$D" ]; then echo "state missing"; exit 0; fi',
        'if [ -e "$D/rolled-back" ]; then echo "state rolled-back"; elif [ -e "$D/firing" ]; then echo "state firing"; '
        'else echo "state armed"; fi',
        '[ -f "$D/restore.rc" ] && echo "restore_rc $(cat "$D/restore.rc")"',
        '[ -f "$D/files.rc" ] && echo "files_rc $(cat "$D/files.rc")"',
        'echo "restore_out $(tail -c 300 "$D/restore.out" 2>/dev/null | tr \'\\n\' \' \')"',
        'while read -r n h; do echo "before $n $h"; done < "$D/sha256"',
        'i=0',
        'while IFS= read -r p; do',
        '  echo "path $i $p"',
        '  if [ -f "$p" ]; then h=$(sha256sum < "$p"); set -- $h; echo "sha256 $i $1"; else echo "sha256 $i absent"; fi',
        '  i=$((i + 1))',
        'done < "$D/paths"',
        'if [ -e "$D/rolled-back" ]; then release; rm -rf "$D"; fi',
        "exit 0",
    ]
    return "\n".join(lines) + "\n"


def discard_script(name: str, run_id: str, base: str = BASE_DIR) -> str:
    """sh that removes the run's snapshot and gives the guard back unless the run's revert is armed or running
    (prints ``state discarded|busy|missing``). Another run's guard or snapshot is never touched."""
    lines = _vars(name, run_id, base) + [
        _RELEASE,
        'if [ ! -d "$D" ]; then release; echo "state missing"; exit 0; fi',
        'if [ -e "$D/armed" ] || [ -e "$D/firing" ]; then echo "state busy"; exit 0; fi',
        'release; rm -rf "$D" && echo "state discarded"',
    ]
    return "\n".join(lines) + "\n"


def describe_busy(name: str, words: dict, base: str = BASE_DIR, stale_s: int = STALE_S) -> str:
    """The sentence for a ``busy HOLDER AGE STATE DUE`` line: who holds the guard, since when, and what to do."""
    holder, age, state, due = (words.get("busy", "").split() + ["-"] * 4)[:4]
    since = "%s s ago" % age if age.lstrip("-").isdigit() else "at an unknown time"
    if holder == "-" or not RUN_ID_PATTERN.match(holder):
        return ("the guard %s has no holder (a run is taking it this instant, or one died doing so); run again, and "
                "remove that directory if it stays" % lock_dir(name, base))
    where = guard_dir(name, holder, base)
    if state == "armed" and due.lstrip("-").isdigit() and int(due) < 0:
        what = ("its revert was due %d s ago and has not run (its timer is gone): check the files on the host against "
                "%s, then remove %s and %s" % (-int(due), where, where, lock_dir(name, base)))
    elif state == "armed":
        what = "its revert is armed and fires in %s s unless that run confirms its change" % due
    elif state == "firing":
        what = "its revert is running now (%s: firing)" % where
    elif state == "confirming":
        what = "it is confirming its change"
    else:
        what = ("it took its snapshot and has not armed its revert yet; if that run is gone, the guard is taken over "
                "after %d s, or remove %s by hand (its snapshot %s stays)" % (stale_s, lock_dir(name, base), where))
    return "the guard is held by run %s (taken %s): %s" % (holder, since, what)


def describe_stale(name: str, words: dict, base: str = BASE_DIR, stale_s: int = STALE_S) -> str:
    """The sentence for a ``stale HOLDER AGE WHY`` line: whose guard was taken over, why, and where its snapshot is."""
    holder, age, why = (words.get("stale", "").split() + ["-"] * 3)[:3]
    reason = {"gone": "that run ended without giving it back", "rolled-back": "its revert has run",
              "old": "its snapshot was never armed within %d s" % stale_s}.get(why, why)
    where = guard_dir(name, holder, base) if RUN_ID_PATTERN.match(holder) else "(unknown)"
    return ("name=%s: took over the stale guard of run %s (taken %s s ago; %s); anything of it is left in %s"
            % (name, holder, age, reason, where))


def parse_status(text: str, files) -> dict:
    """Read what the scripts print: ``{"state": str|None, "words": {key: rest}, "sha256": {path: HEX|"absent"},
    "before": {path: ...}, "restore_rc": int|None, "files_rc": int|None, "apply_rc": int|None}``.

    ``files`` maps the indexes back to paths, unless the text names them itself (``path N PATH``
    lines, printed by ``verify_script`` from the snapshot's list: the paths it really hashed).
    ``snapshot_path PATH`` lines (a snapshot of other files) are listed in ``snapshot_paths``.
    Lines of other shapes are ignored (a login banner); a sha line with an unknown index or a
    malformed hash raises ParseError.
    """
    out = {"state": None, "words": {}, "sha256": {}, "before": {}, "restore_rc": None, "files_rc": None,
           "apply_rc": None, "snapshot_paths": []}
    named = {}
    for line in text.splitlines():
        key, _sep, rest = line.strip().partition(" ")
        index, _sep, value = rest.partition(" ")
        if key == "path" and index.isdigit():
            named[int(index)] = value
    if named:
        files = [named.get(i) for i in range(max(named) + 1)]
    for line in text.splitlines():
        key, _sep, rest = line.strip().partition(" ")
        if key == "path":
            continue
        if key == "snapshot_path":
            out["snapshot_paths"].append(rest)
        elif key in ("sha256", "before"):
            index, _sep, value = rest.partition(" ")
            if not index.isdigit() or int(index) >= len(files) or not _SHA.match(value):
                raise ParseError("unexpected line %r (want '%s INDEX HEX' for %d files)" % (line, key, len(files)))
            out[key][files[int(index)]] = value
        elif key == "state":
            word, _sep, code = rest.partition(" ")
            if word == "failed" and code.strip().lstrip("-").isdigit():
                out["apply_rc"] = int(code)
            if out["state"] != "failed":
                out["state"] = word
            else:
                out["words"]["then"] = word
        elif key in ("restore_rc", "files_rc"):
            out[key] = int(rest) if rest.strip().lstrip("-").isdigit() else None
        elif key:
            out["words"][key] = rest
    return out
