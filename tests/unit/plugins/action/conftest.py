# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixture ``shell_router``: a fake router that really runs what an action sends it, stubs printing recorded output.

``shell_router(answers)`` (one test per shell in ``available_shells()``) makes a
``ShellRouter(root, shell, answers)``, which runs every command with ``SHELL -c COMMAND`` in ``root``,
PATH holding only

* ``stubs/``: one stub per tool named in ``answers`` (``{"ethtool -k lan1": (rc, stdout,
  stderr)}``, keyed by the command as ``TOOL ARGS...`` joined with spaces). A stub prints its
  answer and exits with its rc; a command of a stubbed tool without an answer prints
  ``fake router: no answer for ...`` and exits 99. A tool with no answer at all has no stub, so
  the shell says ``not found`` (127), as on a router without it. The stub ``cat`` hands paths it
  has no answer for to the real ``cat``; ``ls`` of ``/sys/class/net/...`` answers ``BRIDGE_LS``
  whatever the host's own bridges are.
* ``base/``: ``sh``, ``sed``, ``awk``, ``mktemp``, ``rm``, ``sort`` and ``cat`` of the shell
  under test: dash or bash with the host's GNU tools, or BusyBox applets for all of them.

``calls()`` lists the stub commands run, in order (not the cats handed on); ``executions`` counts commands received.
``$TMPDIR`` is ``root/tmp`` (``leftovers()`` lists what remains there).

Fixture ``batch_action``: ``make(ActionModule, args, answers, overrides=..., later=...)``, the action
with its connection replaced by such a router (``fake_action``); ``overrides`` answer shell builtins,
``later`` the target as it is after the first execution (a value a write changed).
"""

import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import MARKER, split_batch_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import WG_CONFIG_PEERS_NAME
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import SYSCTL_BOOT_FILES_NAME, TCP_BBR_MODULE_FILES_NAME

BASE_TOOLS = ("sh", "sed", "awk", "mktemp", "rm", "sort", "cat")
SHELLS = ("dash", "bash", "busybox")
# The host programs this file runs by name from the tuples above (scripts/check_host_packages.py).
HOST_COMMANDS = ("dash", "bash", "busybox", "sh", "sed", "awk", "mktemp", "rm", "sort", "cat")
BRIDGE_LS = "ls -1d /sys/class/net/*/brif/* /sys/class/net/*/bridge"
# Batch steps that read the machine's own /etc (sysctl drop-ins, tcp_bbr module files, WireGuard
# configuration files): answered empty, so no test depends on the machine it runs on.
MACHINE_STEPS = {SYSCTL_BOOT_FILES_NAME, TCP_BBR_MODULE_FILES_NAME, WG_CONFIG_PEERS_NAME}
# the stub, in the host's /bin/sh; @TOOL@, @KEYS@, @ANSWERS@, @LOG@ and @FALLBACK@ are filled in
_STUB = r"""#!/bin/sh
key="@TOOL@${*:+ $*}"  # no trailing blank for a command without arguments (iptables-save)
case $key in "ls -1d "*/sys/class/net/*) key="%(bridge_ls)s" ;; esac
i=$(%(awk)s -v k="$key" 'BEGIN { FS = "\t" } $2 == k { print $1; exit }' "@KEYS@")
[ -n "$i" ] || @FALLBACK@
printf '%%s\n' "$key" >> "@LOG@"
if [ -z "$i" ]; then
  printf 'fake router: no answer for %%s\n' "$key" >&2
  exit 99
fi
%(cat)s "@ANSWERS@/$i.out"
%(cat)s "@ANSWERS@/$i.err" >&2
exit "$(%(cat)s "@ANSWERS@/$i.rc")"
"""


def available_shells() -> list:
    """The shells to test with: dash, bash and BusyBox ash (all installed by make deps; a missing one
    fails its tests, never skips them)."""
    return list(SHELLS)


class ShellRouter:
    """See the module doc."""

    def __init__(self, root: Path, shell: str, answers: dict):
        self.root, self.shell, self.executions = Path(root), shell, 0
        self.log = self.root / "calls.log"
        base, stubs, store = self.root / "base", self.root / "stubs", self.root / "answers"
        for folder in (base, stubs, store, self.root / "tmp"):
            folder.mkdir(parents=True, exist_ok=True)
        for tool in BASE_TOOLS:
            if shell == "busybox":
                target = shutil.which("busybox")
            else:
                target = shutil.which(shell) if tool == "sh" else shutil.which(tool)
            (base / tool).symlink_to(target)
        self.real_cat = str(base / "cat")
        keys = []
        for index, (key, (rc, stdout, stderr)) in enumerate(answers.items()):
            keys.append("%d\t%s\n" % (index, key))
            (store / ("%d.out" % index)).write_text(stdout, encoding="utf-8")
            (store / ("%d.err" % index)).write_text(stderr, encoding="utf-8")
            (store / ("%d.rc" % index)).write_text(str(rc), encoding="utf-8")
        (store / "keys").write_text("".join(keys), encoding="utf-8")
        for tool in sorted({key.split()[0] for key in answers}):
            fallback = 'exec "%s" "$@"' % self.real_cat if tool == "cat" else "true"
            text = (_STUB % {"bridge_ls": BRIDGE_LS, "awk": shutil.which("awk"), "cat": shutil.which("cat")})
            text = (text.replace("@TOOL@", tool).replace("@KEYS@", str(store / "keys")).replace("@ANSWERS@", str(store))
                    .replace("@LOG@", str(self.log)).replace("@FALLBACK@", fallback))
            (stubs / tool).write_text(text, encoding="utf-8")
            (stubs / tool).chmod(0o755)
        self.env = {"PATH": "%s:%s" % (stubs, base), "TMPDIR": str(self.root / "tmp"), "LC_ALL": "C"}

    def execute(self, cmd: str) -> dict:
        """Run ``cmd`` as the connection would (``SHELL -c CMD``); return ``{rc, stdout, stderr}``.

        The batch steps in MACHINE_STEPS read this machine's own /etc: their output is replaced by an
        empty answer (a test gives theirs through fake_action's overrides).
        """
        self.executions += 1
        done = subprocess.run([str(self.root / "base" / "sh"), "-c", cmd], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=60, check=False)
        res = {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        nonce = re.search(r"%s ([0-9a-f]+)'" % MARKER, cmd)
        if nonce and done.returncode == 0:
            steps = split_batch_output(res["stdout"], nonce.group(1))
            if MACHINE_STEPS & set(steps):
                res["stdout"] = _frame({name: ({"rc": 0, "stdout": "", "stderr": ""} if name in MACHINE_STEPS else got)
                                        for name, got in steps.items()}, nonce.group(1))
        return res

    def calls(self) -> list:
        return self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []

    def leftovers(self) -> list:
        return sorted(path.name for path in (self.root / "tmp").iterdir())


@pytest.fixture(params=available_shells())
def shell_router(request, tmp_path):
    """Return ``make(answers) -> ShellRouter`` for the shell of this test's parameter."""
    def make(answers):
        return ShellRouter(tmp_path / "router", request.param, answers)
    return make


def _frame(steps: dict, nonce: str) -> str:
    """``split_batch_output``'s input for ``steps`` (``{name: {rc, stdout, stderr}}``): the framing, rebuilt."""
    out = []
    for name, got in steps.items():
        out.append("%s %s begin %s\n%s\n%s %s stderr\n%s\n%s %s rc %s\n" % (
            MARKER, nonce, name, got["stdout"], MARKER, nonce, got["stderr"], MARKER, nonce, got["rc"]))
    return "".join(out) + "%s %s end\n" % (MARKER, nonce)


def fake_action(action_class, make_router, args, answers, overrides=None, later=None, check_mode=False, diff=False):
    """An ``action_class`` instance whose connection is a ShellRouter made from ``answers``.

    ``overrides`` (``{step name or command: (rc, stdout, stderr)}``) stand in for what no stub
    can: shell builtins (``command -v apk``, ``test -e /.dockerenv``) and scripts run by the
    shell itself (and the listings of MACHINE_STEPS, empty by default). A batch step of that name gets the answer in place of what it printed; a
    command sent on its own with that exact text is answered without running. ``later`` (same
    shape) is the target once the first execution has run (a value a write changed): it joins the
    overrides from the second execution on. ``action.ran`` lists what was sent (one entry per
    remote execution), ``action.outputs`` what came back (what ``-vvv`` would print),
    ``action.router`` is the ShellRouter.
    """
    first = dict(overrides or {})
    then = dict(first, **(later or {}))

    class Fake(action_class):
        def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                       encoding_errors="surrogate_then_replace", chdir=None):
            self.ran.append(cmd)
            overrides = first if len(self.ran) == 1 else then
            if cmd in overrides:
                rc, stdout, stderr = overrides[cmd]
                return {"rc": rc, "stdout": stdout, "stderr": stderr}
            res = self.router.execute(cmd)
            nonce = re.search(r"%s ([0-9a-f]+)'" % MARKER, cmd)
            if nonce and overrides:
                steps = split_batch_output(res["stdout"], nonce.group(1))
                for name in steps:
                    if name in overrides:
                        rc, stdout, stderr = overrides[name]
                        steps[name] = {"rc": rc, "stdout": stdout, "stderr": stderr}
                res["stdout"] = _frame(steps, nonce.group(1))
            self.outputs.append(res)
            return res

    name = "tunnelfix.fleet.%s" % action_class.__module__.rsplit(".", 1)[-1]
    task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff, action=name)
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
    action = Fake(task, connection, None, None, None)
    action._load_name = name
    action.router, action.ran, action.outputs = make_router(answers), [], []
    return action


@pytest.fixture
def batch_action(shell_router):
    """Return ``make(action_class, args, answers, overrides=None, later=None, check_mode=False, diff=False)``: see fake_action."""
    def make(action_class, args, answers, **kwargs):
        return fake_action(action_class, shell_router, args, answers, **kwargs)
    return make
