# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which programs the project's own scripts run on the host: pure extraction, no host access.

``make deps`` (scripts/check_host_packages.py) checks that each of these programs comes from a
package the project installs; this file only finds them. Input is the text of a file, output a list
of :class:`Use` (command name, ``path:line``), for example::

    shell_uses('nsx peer ping -c 1 "$ip" && cx hub systemctl -q is-active x', "lab/up.sh")
    -> [Use("ping", "lab/up.sh:1")]       # nsx runs a host binary in a namespace; cx runs in a container

Shell (bash, sh) is parsed with tree-sitter-bash (the grammar GitHub and editors use), so commands in
pipelines, lists, ``$(...)``, ``if``/``while`` conditions and function bodies are all seen. Makefile
recipes are shell once make's own ``$(VAR)`` are replaced. Python files contribute the literal argv
of ``subprocess`` calls (and of any call named ``run``/``sh``/``Popen``/...), ``shutil.which("x")``
and a module-level ``HOST_COMMANDS = ("x", ...)`` tuple, where a file names its programs in a way no
parser can follow (a loop over names).

What is skipped, and why:

- builtins and keywords of bash/sh, and functions defined in any scanned shell file;
- paths into the repository (``lab/up.sh``, ``"${LAB_DIR}"/images/build.sh``, ``.venv/bin/python``);
- names built at run time (``"$cmd"``): the file must then declare them (see HOST_COMMANDS);
- what runs elsewhere: in a container (``podman exec``, ``podman run``, ``chroot``, the lab's ``cx``/
  ``ox``), or on another host (``ssh``).

Wrappers that run their argument on the host (``timeout 5 ssh ...``, ``nsenter -t PID -n -- ip``,
``xargs -r podman rm``, ``env A=1 make``, ``bash -c '...'``) yield the wrapped command as well.

Errors: none raised for odd input; a file tree-sitter cannot fully parse still yields what it could
parse (its ERROR nodes are skipped), and :func:`parse_errors` names the lines, which the checker
reports so a construct it cannot read never hides a command silently.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

import tree_sitter
import tree_sitter_bash

_BASH = tree_sitter.Language(tree_sitter_bash.language())

# bash builtins and reserved words (bash(1), SHELL BUILTIN COMMANDS), and POSIX sh's special builtins.
BUILTINS = frozenset("""
    . : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare
    dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill
    let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt
    source suspend test times trap true type typeset ulimit umask unalias unset wait
""".split())

# Wrappers whose argument runs on the host: name -> options that take a separate value. The wrapped
# command is the first word after the options (and after "--"), past `skip` more positional words.
_HOST_WRAPPERS = {
    # name: (options taking a value, positional words before the command)
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),        # DURATION
    "nsenter": (frozenset({"-t", "--target", "-S", "--setuid", "-G", "--setgid"}), 0),
    "xargs": (frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "--max-args",
                         "--max-procs", "--delimiter", "--arg-file"}), 0),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "nohup": (frozenset(), 0),
    "setsid": (frozenset(), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "--class", "--classdata"}), 0),
    "taskset": (frozenset(), 1),                                                   # MASK
    "unshare": (frozenset(), 0),
    "setpriv": (frozenset(), 0),
    "watch": (frozenset({"-n", "--interval", "-d"}), 0),
    "sudo": (frozenset({"-u", "--user", "-g", "--group"}), 0),
    "unbuffer": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "builtin": (frozenset(), 0),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1),  # LOCKFILE
}
# Wrappers whose argument runs somewhere else: the wrapped words are never host commands.
_ELSEWHERE = frozenset({"chroot", "ssh", "dbclient"})

# The project's shell functions that pass their arguments ("$@") on: name -> (where the words run,
# positional words before the command). "host": a command on the host; "elsewhere": a command in a
# container or on another host; "arguments": "$@" are arguments of a fixed program, not a command.
# tests/unit/scripts/test_host_commands.py fails when a function passing "$@" on is missing here.
FUNCTION_WRAPPERS = {
    # lab/up.sh, bench/common.sh (bench/fleet.sh, bench/slots_fleet.sh): nsx ROLE|PID CMD...: nsenter -n into a
    # container's network namespace, host binary
    "lab/up.sh:nsx": ("host", 1),
    "bench/common.sh:nsx": ("host", 1),
    "lab/common.sh:check": ("host", 2),         # check DESCRIPTION HINT CMD...: a lab verification step
    "lab/up.sh:cx": ("elsewhere", 1),           # cx ROLE CMD...: podman exec in a lab container
    "lab/up.sh:ox": ("elsewhere", 0),           # ox CMD...: podman exec in the OpenWrt-like container
    "lab/up.sh:owrt_daemon": ("elsewhere", 2),  # owrt_daemon RESTART PIDFILE CMD...: a loop in the background there
    "tests/rollback/run.sh:mgmt": ("elsewhere", 1),   # mgmt HOST CMD...: ssh to a lab host
    "tests/ee/run.sh:ee_run": ("elsewhere", 0),       # podman run of the execution environment
    "tests/ee/run.sh:navigator_check": ("arguments", 2),   # navigator_check NAME DIR ansible-navigator run options
    "tests/matrix/run.sh:check": ("host", 1),         # check NAME CMD...: one check of a matrix leg
    "tests/openwrt_image/run.sh:play": ("arguments", 0),   # ansible-playbook options
    "tests/rollout/run.sh:run": ("arguments", 2),          # run NAME CHECK ansible-playbook options
    "tests/graph/run.sh:run_playbook": ("arguments", 1),   # run_playbook NAME ansible-playbook options
    "tests/graph/run.sh:diagnose_expecting": ("arguments", 2),   # diagnose_expecting NAME WANT ansible-playbook options
    "examples/user-ci/pipeline.sh:playbook": ("arguments", 2),   # playbook NAME LOG ansible-playbook options
}

_SUBPROCESS_CALLS = frozenset({"run", "Popen", "check_output", "check_call", "call", "sh", "execvp",
                               "execv", "spawn"})


@dataclass(frozen=True, order=True)
class Use:
    """One place where a host program is run: ``command`` as written (a name, or an absolute path)."""

    command: str
    where: str   # "path:line", line 1-based


def _literal(node) -> str | None:
    """The literal text of a word-like node, or None when it expands anything at run time."""
    kind = node.type
    if kind in ("word", "number"):
        text = node.text.decode()
        return None if "$" in text or "`" in text else text.replace("\\", "")
    if kind == "raw_string":
        return node.text.decode()[1:-1]
    if kind == "string":   # "..." without expansions
        if any(child.type not in ('"', "string_content") for child in node.children):
            return None
        return node.text.decode()[1:-1]
    if kind == "concatenation":
        parts = [_literal(child) for child in node.children]
        return None if None in parts else "".join(parts)
    return None


def _is_repo_path(word: str) -> bool:
    return "/" in word and not word.startswith("/")


def _wrapped_index(name: str, words: list[str | None]) -> int | None:
    """Index in ``words`` (the arguments after ``name``) of the command ``name`` runs, or None."""
    opts, positional = _HOST_WRAPPERS[name]
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            break           # a word built at run time: the command, or the positional word before it
        if word == "--":
            i += 1
            break
        if name == "env" and "=" in word and not word.startswith("-"):
            i += 1
            continue
        if word.startswith("-") and len(word) > 1:
            i += 2 if word in opts else 1
            continue
        break
    i += positional
    return i if i < len(words) else None


def _string_uses(script: str, where: str, line: int, functions=frozenset(), sourced=None) -> list[Use]:
    """Uses of a shell command string (``bash -c '...'``, ``trap '...'``, ``shell=True``), all at ``line``."""
    return [Use(use.command, "%s:%d" % (where, line)) for use in shell_uses(script, where, functions, sourced)]


def _uses_from_words(words: list[str | None], line: int, where: str, functions: frozenset[str],
                     parse_strings: bool = True, sourced: tuple[str, ...] = (), builtins=BUILTINS) -> list[Use]:
    """Uses from one simple command given as its words (None for a word built at run time).
    ``sourced``: the files ``where`` sources, whose wrapper functions apply here too."""
    uses: list[Use] = []
    while words:
        name = words[0]
        if name is None or name in builtins - {"exec", "command", "builtin"}:
            return uses
        if "=" in name and name.split("=", 1)[0].isidentifier():
            words = words[1:]     # a prefix assignment: A=1 cmd
            continue
        rest = words[1:]
        if name in ("{", "!", "}", "(", ")", "time", "coproc"):   # keywords tree-sitter left in the words
            words = [word for word in rest if word not in ("-p",)] if name == "time" else rest
            continue
        if name == "command" and rest and rest[0] in ("-v", "-V"):
            # command -v X looks X up: the script needs X on the host (or says what to do without it)
            uses.extend(Use(word, "%s:%d" % (where, line)) for word in rest[1:]
                        if word is not None and word not in functions and not _is_repo_path(word))
            return uses
        if name == "command" and rest and rest[0] is not None:
            # `command X` runs the program X even where a function X exists
            uses.extend(_uses_from_words(rest, line, where, frozenset(), parse_strings, sourced))
            return uses
        wrapper = next((FUNCTION_WRAPPERS["%s:%s" % (path, name)] for path in (where, *sourced)
                        if "%s:%s" % (path, name) in FUNCTION_WRAPPERS), None)
        if wrapper is not None:
            side, skip = wrapper
            if side != "host" or len(rest) <= skip:
                return uses
            words = rest[skip:]
            continue
        if name in functions or _is_repo_path(name):
            return uses
        if name not in ("exec", "command", "builtin"):
            uses.append(Use(name, "%s:%d" % (where, line)))
        if name in _ELSEWHERE:
            return uses
        if name == "podman":
            return uses     # podman exec/run: the command runs in a container
        if name == "ip" and rest[:2] == ["netns", "exec"] and len(rest) > 3:
            words = rest[3:]
            continue
        if name in ("bash", "sh", "dash") and parse_strings:
            shell_flag = next((i for i, word in enumerate(rest)
                               if word is not None and re.fullmatch(r"-[a-z]*c[a-z]*", word)), None)
            if shell_flag is not None:
                index = shell_flag + 1 + (rest[shell_flag + 1:shell_flag + 2] == ["--"])
                if index < len(rest) and rest[index] is not None:
                    uses.extend(_string_uses(rest[index], where, line, functions, sourced))
                return uses
        if name == "flock" and rest[1:2] == ["-c"] and len(rest) > 2 and rest[2] is not None:   # flock FILE -c CMD
            uses.extend(_string_uses(rest[2], where, line, functions, sourced))
            return uses
        if name in _HOST_WRAPPERS:
            index = _wrapped_index(name, rest)
            if index is None:
                return uses
            words = rest[index:]
            continue
        return uses
    return uses


def _parse(text: str):
    return tree_sitter.Parser(_BASH).parse(text.encode())


def _walk(node):
    """Every node under ``node``, depth first, in source order. ``$((...))`` inside a here-document
    is arithmetic, which tree-sitter-bash reads as ``$( (...) )``: that subtree is skipped."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command_substitution" and current.text.startswith(b"$(("):
            continue
        yield current
        stack.extend(reversed(current.children))


def _inside_error(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "ERROR":
            return True
        parent = parent.parent
    return False


_PROGRAM_PATH = re.compile(r"/(?:usr/)?s?bin/[\w.+-]+")
_ARRAY_ALL = re.compile(r'"?\$\{(\w+)\[[@*]\]\}"?')


def _array_words(tree) -> dict:
    """{name: [word or None, ...]} of the ``name=(w1 w2 ...)`` array assignments (the longest, as
    ``locked=(flock "$lock")`` beside ``locked=()``), so ``"${name[@]}" ...`` in command position can
    be read as the words it expands to."""
    arrays = {}
    for node in _walk(tree.root_node):
        if node.type == "variable_assignment":
            value = node.child_by_field_name("value")
            name = node.child_by_field_name("name")
            if value is not None and name is not None and value.type == "array":
                words = [_literal(child) for child in value.children if child.type not in ("(", ")")]
                if len(words) >= len(arrays.get(name.text.decode(), [])):
                    arrays[name.text.decode()] = words
    return arrays


def shell_functions(text: str) -> frozenset[str]:
    """Names of the shell functions ``text`` defines (``name() {...}`` and ``function name {...}``)."""
    names = set()
    for node in _walk(_parse(text).root_node):
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                names.add(name.text.decode())
    return frozenset(names)


def functions_running_arguments(text: str) -> list[str]:
    """Names of the functions ``text`` defines whose body runs ``"$@"`` inside a command
    (``nsx() { nsenter -t "$1" -n -- "$@"; }``); ``for a in "$@"`` does not count. Each of these
    must be declared in FUNCTION_WRAPPERS, or its callers' commands would go unchecked."""
    found = []
    for node in _walk(_parse(text).root_node):
        if node.type != "function_definition":
            continue
        for inner in _walk(node):
            if inner.type == "command" and any(child.text == b'"$@"' for child in _walk(inner)):
                found.append(node.child_by_field_name("name").text.decode())
                break
    return found


def parse_errors(text: str) -> list[int]:
    """1-based lines where tree-sitter-bash could not parse ``text`` (ERROR or MISSING nodes)."""
    return sorted({node.start_point[0] + 1 for node in _walk(_parse(text).root_node)
                   if node.type == "ERROR" or node.is_missing})


_SHELLCHECK_SOURCE = re.compile(r"^\s*#\s*shellcheck\s.*\bsource=(\S+)", re.M)


def sourced_files(text: str, where: str) -> tuple[str, ...]:
    """Files ``where`` sources, from its shellcheck ``source=`` directives (which shellcheck -x needs
    anyway): each directive's path beside ``where`` and from the repository root, normalised.
    ``# shellcheck source-path=SCRIPTDIR source=common.sh`` in lab/up.sh -> ("lab/common.sh", "common.sh")."""
    found = []
    for name in _SHELLCHECK_SOURCE.findall(text):
        for path in (posixpath.normpath(posixpath.join(posixpath.dirname(where), name)), posixpath.normpath(name)):
            if path not in found:
                found.append(path)
    return tuple(found)


def shell_uses(text: str, where: str, functions: frozenset[str] = frozenset(),
               sourced: tuple[str, ...] | None = None) -> list[Use]:
    """Host programs a shell script runs, in file order. ``functions``: names defined elsewhere;
    ``sourced``: files whose wrapper functions apply (default: from the shellcheck directives)."""
    functions = functions | shell_functions(text)
    if sourced is None:
        sourced = sourced_files(text, where)
    error_lines = set(parse_errors(text))   # reported by the checker; what tree-sitter guessed there is not used
    tree = _parse(text)
    arrays = _array_words(tree)
    uses: list[Use] = []
    for node in _walk(tree.root_node):
        if node.type == "array" and node.start_point[0] + 1 not in error_lines:
            # a list of host programs (build-openwrt.sh's TOOLS=([/usr/sbin/ethtool]=... ) copies them)
            uses.extend(Use(text, "%s:%d" % (where, child.start_point[0] + 1)) for child in _walk(node)
                        for text in [child.text.decode().strip('"\'')] if child.type in ("word", "string", "raw_string")
                        and _PROGRAM_PATH.fullmatch(text))
        if node.type != "command" or node.start_point[0] + 1 in error_lines:
            continue
        words: list[str | None] = []
        for child in node.children:
            if child.type == "command_name":
                array = _ARRAY_ALL.fullmatch(child.text.decode())
                if array and array.group(1) in arrays:    # "${cmd[@]}" args: the array's words
                    words.extend(arrays[array.group(1)])
                else:
                    words.append(_literal(child.children[0]) if child.children else None)
            elif child.type == "variable_assignment":
                continue
            elif child.type in ("word", "string", "raw_string", "concatenation", "number",
                                "simple_expansion", "expansion", "command_substitution",
                                "process_substitution", "arithmetic_expansion", "ansi_c_string"):
                if words:
                    words.append(_literal(child))
        if _inside_error(node):
            continue
        uses.extend(_uses_from_words(words, node.start_point[0] + 1, where, functions, sourced=sourced))
        if words and words[0] == "trap" and len(words) > 1 and words[1] is not None:
            uses.extend(_string_uses(words[1], where, node.start_point[0] + 1, functions, sourced))
    return uses


_MAKE_VAR = re.compile(r"\$\((\w+)\)|\$\{(\w+)\}")
_MAKE_SHELL = re.compile(r"\$\(shell ")
_MAKE_CALL = re.compile(r"\$[({][^()${}]*[)}]")     # an innermost $(function args) or ${...}
_MAKE_AUTOMATIC = re.compile(r"\$[@<^*?+|%]")


def makefile_recipes(text: str) -> list[tuple[int, str]]:
    """The recipe lines of a Makefile as (1-based first line, shell text), continuations joined.

    A recipe line starts with a tab and follows a rule line (``target: ...``) or another recipe line;
    a tab-indented continuation of a variable or ``.PHONY`` line is not one. make's prefixes
    ``@ - +`` are dropped; ``$(MAKE)`` becomes ``make``; ``$$`` becomes ``$``; any other ``$(VAR)``
    becomes a shell expansion (a name built at run time).
    """
    logical: list[tuple[int, str]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start, body = i + 1, lines[i]
        while body.endswith("\\") and i + 1 < len(lines):
            i += 1
            body = body[:-1] + " " + lines[i].lstrip("\t ")
        logical.append((start, body))
        i += 1
    recipes: list[tuple[int, str]] = []
    in_rule = False
    for start, body in logical:
        if body.startswith("\t"):
            if not in_rule:
                continue
            body = body[1:].lstrip("@-+ ").replace("$$", "\0")
            body = _MAKE_SHELL.sub("\1(", body)          # $(shell CMD): CMD runs on the host, as $(CMD)
            body = _MAKE_VAR.sub(lambda m: "make" if (m.group(1) or m.group(2)) == "MAKE"
                                 else "\1MK_%s" % (m.group(1) or m.group(2)), body)
            body = _MAKE_AUTOMATIC.sub("\1MK_AUTO", body)
            while _MAKE_CALL.search(body):                 # $(if ...), $(call ...): a value at run time
                body = _MAKE_CALL.sub("\1MK_CALL", body)
            body = body.replace("\1", "$").replace("\0", "$")
            recipes.append((start, body.replace("\0", "$")))
        elif body.strip() and not body.lstrip().startswith("#"):
            head = body.split("#", 1)[0]
            in_rule = ":" in head and not re.match(r"^\s*(?:export\s+|override\s+)?[\w.-]+\s*[:?+!]?=", head)
    return recipes


def makefile_uses(text: str, where: str, functions: frozenset[str] = frozenset()) -> list[Use]:
    """Host programs a Makefile's recipes run."""
    uses = []
    for start, body in makefile_recipes(text):
        for use in shell_uses(body, where, functions):
            line = int(use.where.rsplit(":", 1)[1])
            uses.append(Use(use.command, "%s:%d" % (where, start + line - 1)))
    return uses


def makefile_parse_errors(text: str) -> list[int]:
    """1-based Makefile lines whose recipe (as makefile_recipes gives it) tree-sitter-bash cannot parse."""
    return sorted({start + line - 1 for start, body in makefile_recipes(text) for line in parse_errors(body)})


def _call_name(func) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _constant_words(node) -> list[str | None] | None:
    """The words of a literal argv: a list/tuple (non-literal items None), or ``[...] + more`` (the
    left list's words, then None)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _constant_words(node.left)
        return None if left is None else left + [None]
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    return [elt.value if isinstance(elt, ast.Constant) and isinstance(elt.value, str) else None
            for elt in node.elts]


_SHELL_STRING_CALLS = frozenset({"system", "popen", "getoutput", "getstatusoutput"})


def python_uses(text: str, where: str) -> list[Use]:
    """Host programs a Python file runs: literal argv of subprocess-like calls, ``which("x")``,
    and a module-level ``HOST_COMMANDS`` tuple or list of strings.

    Raises SyntaxError (with the file name) when ``text`` is not Python.
    """
    tree = ast.parse(text, filename=where)
    uses: list[Use] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node.func)
        keywords = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
        first = node.args[0] if node.args else keywords.get("args", keywords.get("cmd"))
        if first is None:
            continue
        literal = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if name == "which" and literal is not None:
            uses.append(Use(literal, "%s:%d" % (where, node.lineno)))
        elif literal is not None and (name in _SHELL_STRING_CALLS or (
                name in _SUBPROCESS_CALLS and isinstance(keywords.get("shell"), ast.Constant) and keywords["shell"].value)):
            uses.extend(_string_uses(literal, where, node.lineno))
        elif literal is not None and name in ("execvp", "execlp", "execv", "execl", "spawnlp", "spawnvp"):
            uses.append(Use(literal, "%s:%d" % (where, node.lineno)))
        elif name in _SUBPROCESS_CALLS:
            words = _constant_words(first)
            if words:   # in a Python argv, test, echo, kill, printf are programs, not shell builtins
                uses.extend(_uses_from_words(words, node.lineno, where, frozenset(), parse_strings=True,
                                             builtins=frozenset()))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if value is not None and any(isinstance(t, ast.Name) and t.id == "HOST_COMMANDS" for t in targets):
            if isinstance(value, ast.Set):
                value = ast.Tuple(elts=list(value.elts))
            for word in _constant_words(value) or []:
                if word is not None:
                    uses.append(Use(word, "%s:%d" % (where, node.lineno)))
    return [use for use in uses if not _is_repo_path(use.command)]
