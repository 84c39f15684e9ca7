# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fail when a program the project's scripts run on the host comes from a package it does not install.

    .venv/bin/python scripts/check_host_packages.py                 # make deps runs this after bootstrap
    .venv/bin/python scripts/check_host_packages.py --requirements-apt /tmp/copy.txt

Why: ``make demo`` once failed on a bare Debian 12 machine because ``lab/up.sh`` ran the host's
``ping`` and nothing installed iputils-ping; the machines the project was developed on had it from
a manual install, so CI stayed green. This check reads what the scripts run, not what the machine
happens to have:

1. Every host command of the Makefile, ``.ci/``, ``scripts/``, ``lab/``, ``bench/``, ``ee/``,
   ``tests/``, ``changelogs/`` and ``examples/`` (scripts/host_commands.py) must be listed in
   ``scripts/host-commands.txt`` with the package that provides it; a command missing there fails
   with the places that run it. A listed command no script runs any more fails too (stale line).
2. Each listed Debian package must be in ``requirements-apt.txt`` (which scripts/bootstrap.sh
   installs) or have priority ``required``. Priority ``important`` is not enough: Debian 12
   machines and container images without iputils-ping and kmod (both ``important``) exist; this
   machine kind was one. ``pip:NAME`` entries must be in ``requirements.txt`` (the .venv).
3. Where the command is installed, the package that owns it (``dpkg-query -S`` on the path found
   in /usr/sbin, /usr/bin, /sbin, /bin, merged-/usr aware, alternatives followed) must be the
   listed one; a command found only in /usr/local or pyenv fails (installed by hand). A listed
   command that is not installed fails with the package to install.

Output: one line per problem, naming the command, the package and what to do, then a summary;
exit 1 on any problem, 0 otherwise. Output and exit status are the same with or without a tty.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import host_commands  # noqa: E402
import host_packages  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# Where the project's host-side scripts live: what make demo and make test run (examples/user-ci/ runs
# on the host in tests/user_pipeline, changelogs/release.sh in make changelog).
ROOTS = ("Makefile", ".ci", "scripts", "lab", "bench", "ee", "tests", "changelogs", "examples")
# Files under ROOTS that run somewhere else, or are data: never host commands.
NOT_HOST = (
    "lab/images/openwrt/",      # the OpenWrt-like image's rootfs and uci emulator (BusyBox, in the container)
    "lab/owrt/",                # hooks lab/up.sh installs into the owrt container
    "ee/base/",                 # inside the execution environment's base image
    "lab/state/", "bench/state/", "bench/results/",
    "tests/unit/fixtures/", "tests/report_browser/fixtures/", "tests/unit/bench/fixtures/",
)
TABLE = "scripts/host-commands.txt"


def _kind(path: Path) -> str | None:
    """shell, python or None, by suffix, else by the #! line (``#!/usr/bin/env bash``, ``#!/bin/sh``)."""
    if path.suffix in (".sh", ".bash"):
        return "shell"
    if path.suffix == ".py":
        return "python"
    if path.suffix:
        return None
    try:
        first = path.open("rb").readline(128)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    interpreter = first.split()[-1].split(b"/")[-1] if first.split() else b""
    if interpreter in (b"sh", b"bash", b"dash", b"ash"):
        return "shell"
    if interpreter.startswith(b"python"):
        return "python"
    return None


def host_files(repo: Path) -> list[tuple[str, str]]:
    """(kind, relative path) of every host-side file under ROOTS: kind shell, python or makefile."""
    found = []
    for root in ROOTS:
        base = repo / root
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in paths:
            rel = path.relative_to(repo).as_posix()
            if any(rel.startswith(prefix) for prefix in NOT_HOST) or "__pycache__" in rel:
                continue
            kind = "makefile" if path.name == "Makefile" else _kind(path)
            if kind:
                found.append((kind, rel))
    return found


def collect_uses(repo: Path, files=None) -> tuple[dict[str, list[str]], list[str]]:
    """{command: [places]} over ``files`` (default: host_files), and the parse problems (unreadable syntax)."""
    files = host_files(repo) if files is None else files
    texts, problems = {}, []
    for _kind_of, rel in files:
        try:
            texts[rel] = (repo / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError) as exc:
            problems.append("%s: cannot be read as UTF-8 text (%s): its commands are not checked" % (rel, exc))
    files = [(kind, rel) for kind, rel in files if rel in texts]
    functions = frozenset().union(*(host_commands.shell_functions(texts[rel])
                                    for kind, rel in files if kind == "shell"))
    uses: dict[str, list[str]] = defaultdict(list)
    for kind, rel in files:
        text = texts[rel]
        if kind == "python":
            try:
                found = host_commands.python_uses(text, rel)
            except (SyntaxError, ValueError) as exc:
                problems.append("%s:%s: not Python (%s): its commands cannot be read"
                                % (rel, getattr(exc, "lineno", "?"), getattr(exc, "msg", exc)))
                continue
        elif kind == "makefile":
            found = host_commands.makefile_uses(text, rel, functions)
            for line in host_commands.makefile_parse_errors(text):
                problems.append("%s:%d: tree-sitter-bash cannot parse this recipe: commands on it are not "
                                "checked; write it another way" % (rel, line))
        else:
            found = host_commands.shell_uses(text, rel, functions)
            for line in host_commands.parse_errors(text):
                problems.append("%s:%d: tree-sitter-bash cannot parse this line: commands on it are not "
                                "checked; write it another way" % (rel, line))
        for use in found:
            uses[use.command].append(use.where)
    return dict(uses), problems


def _places(places: list[str]) -> str:
    more = len(places) - 2
    return ", ".join(places[:2]) + (" and %d more" % more if more > 0 else "")


def check(repo: Path, apt_file: Path, pip_file: Path, table_file: Path,
          dpkg_search=host_packages.run_dpkg_search, priority=None,
          locate=host_packages.locate) -> tuple[list[str], dict]:
    """Problems (one sentence each) and a summary dict. See the module docstring for the rules.

    ``priority``: package -> priority or None (default: one dpkg-query for every package that needs it).
    """
    apt = host_packages.read_requirements_apt(apt_file.read_text(encoding="utf-8"))
    pip = host_packages.read_requirements_pip(pip_file.read_text(encoding="utf-8"))
    table_name = TABLE if table_file.resolve() == (repo / TABLE).resolve() else str(table_file)
    table = host_packages.read_command_table(table_file.read_text(encoding="utf-8"), table_name)
    files = host_files(repo)
    uses, problems = collect_uses(repo, files)
    apt_name, pip_name = apt_file.name, pip_file.name
    how = {"requirements-apt": set(), "required": set(), "pip": set()}
    # dpkg is asked twice in all: who owns every program found, the priority of every package not in apt.
    paths = {command: locate(command) for command in set(uses) | set(table)
             if not table.get(command, "").startswith(("pip:", "venv"))}
    owners = host_packages.owner_table([path for path in paths.values() if path], dpkg_search)
    if priority is None:
        priority = host_packages.package_priorities(
            {package for package in table.values() if not package.startswith(("pip:", "venv")) and package not in apt}).get

    for command in sorted(uses):
        if command not in table:
            path = paths[command]
            owner = host_packages.owning_package(path, owners=owners) if path else None
            hint = ("here it comes from %s" % owner) if owner else "find its Debian package (apt-file search)"
            problems.append("%s (%s): not in %s: add '%s PACKAGE' (%s) and the package to %s"
                            % (command, _places(uses[command]), table_name, command, hint, apt_name))
    for command in sorted(set(table) - set(uses)):
        problems.append("%s: listed in %s but no host-side script runs it: remove the line" % (command, table_name))

    for command in sorted(set(table) & set(uses)):
        package = table[command]
        where = _places(uses[command])
        if package == "venv":   # the .venv's interpreter (python, python3): bootstrap makes it
            if (repo / ".venv").is_dir() and not (repo / ".venv" / "bin" / command).exists():
                problems.append("%s (%s): .venv/bin/%s is missing: rerun scripts/bootstrap.sh" % (command, where, command))
            how["pip"].add("venv")
            continue
        if package.startswith("pip:"):
            distribution = host_packages.normalise_distribution(package[4:])
            if distribution not in pip:
                problems.append("%s (%s): its Python distribution %s is not in %s: add it there (pinned)"
                                % (command, where, package[4:], pip_name))
            elif (repo / ".venv").is_dir() and not (repo / ".venv" / "bin" / command).exists():
                problems.append("%s (%s): .venv/bin/%s is missing although %s is in %s: is %s the distribution "
                                "that installs it? rerun scripts/bootstrap.sh" % (command, where, command, package[4:],
                                                                                  pip_name, package[4:]))
            else:
                how["pip"].add(package[4:])
            continue
        installed_priority = None if package in apt else priority(package)
        if package in apt:
            how["requirements-apt"].add(package)
        elif installed_priority == "required":
            how["required"].add(package)
        else:
            problems.append("%s (%s): Debian package %s is not in %s (priority %s; only 'required' "
                            "packages are on every Debian 12 machine): add '%s' to %s"
                            % (command, where, package, apt_name, installed_priority or "unknown: not installed",
                               package, apt_name))
            continue
        path = paths[command]
        if path is None:
            anywhere = locate(command, tuple(os.environ.get("PATH", "").split(os.pathsep)))
            problems.append("%s (%s): not installed%s: install Debian package %s (make deps installs %s)"
                            % (command, where, " from any Debian package (found only at %s, installed by hand)"
                               % anywhere if anywhere else "", package, apt_name))
            continue
        owner = host_packages.owning_package(path, owners=owners)
        if owner != package:
            problems.append("%s: %s says Debian package %s, but %s comes from %s: correct the line"
                            % (command, table_name, package, path, owner or "no package (installed by hand)"))
    summary = {"commands": len(uses), "files": len(files),
               **{key: sorted(value) for key, value in how.items()}}
    return problems, summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--requirements-apt", type=Path, default=None, help="default: REPO/requirements-apt.txt")
    parser.add_argument("--requirements-pip", type=Path, default=None, help="default: REPO/requirements.txt")
    parser.add_argument("--table", type=Path, default=None, help="default: REPO/" + TABLE)
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    try:
        problems, summary = check(repo, args.requirements_apt or repo / "requirements-apt.txt",
                                  args.requirements_pip or repo / "requirements.txt",
                                  args.table or repo / TABLE)
    except (host_packages.ListError, OSError) as exc:
        print("host packages: %s" % exc)
        return 1
    for problem in problems:
        print("host packages: FAIL %s" % problem)
    print("host packages: %d commands in %d host-side files; Debian packages from requirements-apt.txt: %d, "
          "from Debian's required base: %d (%s); programs of the .venv: %d"
          % (summary["commands"], summary["files"], len(summary["requirements-apt"]), len(summary["required"]),
             " ".join(summary["required"]), len(summary["pip"])))
    if problems:
        print("host packages: %d problem(s): a fresh Debian 12 machine would miss these programs" % len(problems))
        return 1
    print("host packages: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
