# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Debian package a host program comes from, and what the project says it installs.

Pure parsers of the project's two lists and of dpkg's output, plus two thin readers of this host
(``locate``, ``owning_package``) that take dpkg as a function so tests can give recorded output.

Formats:

- ``requirements-apt.txt``: one Debian package a line, ``#`` comments (scripts/bootstrap.sh).
- ``requirements.txt``: pip's ``name==version`` lines (the .venv).
- ``scripts/host-commands.txt``: ``COMMAND PACKAGE`` a line, ``#`` comments; PACKAGE is a Debian
  package, or ``pip:DISTRIBUTION`` for a program of the .venv (``ansible-playbook pip:ansible-core``).
- ``dpkg-query -S PATH`` (dpkg 1.21, Debian 12): ``pkg[:arch][, pkg2]: /path`` lines; diversions
  print ``diversion by pkg from: /path`` and ``diversion by pkg to: /path``; an unowned path exits 1
  with ``dpkg-query: no path found matching pattern /path`` on stderr.
- ``dpkg-query -W -f '${Priority}' PKG``: one word (``required``, ``important``, ``standard``,
  ``optional``, ``extra``) or nothing.

Debian 12 has merged /usr: ``/bin`` is a symlink to ``/usr/bin``, but dpkg's database keeps the path
each package shipped (``iputils-ping: /bin/ping``, ``python3-minimal: /usr/bin/python3``), so a
program found at ``/usr/bin/ping`` is looked up under both spellings. Alternatives
(``/usr/bin/awk -> /etc/alternatives/awk -> /usr/bin/mawk``) are followed link by link until a
package owns one.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Callable

# Where a fresh Debian 12 root shell finds programs. /usr/local and per-user paths (pyenv) are left
# out on purpose: nothing the project installs goes there, so a program found only there was
# installed by hand.
SYSTEM_PATH = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")


class ListError(ValueError):
    """A malformed line in one of the project's lists: the message names the file and line."""


def read_requirements_apt(text: str) -> set[str]:
    """``requirements-apt.txt`` text -> the set of package names."""
    return {line.split("#", 1)[0].strip() for line in text.splitlines()} - {""}


def read_requirements_pip(text: str) -> set[str]:
    """``requirements.txt`` text -> normalised distribution names (PEP 503: lower case, ``-``)."""
    names = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(normalise_distribution(re.split(r"[=<>!~\[; ]", line, maxsplit=1)[0]))
    return names


def normalise_distribution(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_command_table(text: str, where: str = "scripts/host-commands.txt") -> dict[str, str]:
    """``COMMAND PACKAGE`` lines -> {command: package}. Raises ListError naming the line."""
    table: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2:
            raise ListError("%s:%d: want 'COMMAND PACKAGE', got %r" % (where, number, line))
        if fields[0] in table:
            raise ListError("%s:%d: %s is listed twice" % (where, number, fields[0]))
        table[fields[0]] = fields[1]
    return table


def parse_dpkg_search(text: str) -> dict[str, list[str]]:
    """``dpkg-query -S`` stdout -> {path: [package, ...]} (architecture suffixes dropped).

    ``"iputils-ping: /bin/ping\\n"`` -> ``{"/bin/ping": ["iputils-ping"]}``. Diversion lines are
    skipped (the diverting package does not own the path).
    """
    owners: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("diversion by "):
            continue
        packages, separator, path = line.partition(": /")
        if separator and packages:
            names = [name.strip().split(":", 1)[0] for name in packages.split(",")]
            owners.setdefault("/" + path, []).extend(name for name in names if name)
    return owners


def merged_usr_spellings(path: str) -> list[str]:
    """A path and its other spelling under merged /usr: ``/usr/bin/x`` <-> ``/bin/x``."""
    for short in ("/bin/", "/sbin/", "/lib/", "/lib64/"):
        if path.startswith("/usr" + short):
            return [path, path[len("/usr"):]]
        if path.startswith(short):
            return [path, "/usr" + path]
    return [path]


def link_chain(path: str, readlink: Callable[[str], str] = os.readlink, limit: int = 16) -> list[str]:
    """``path`` and every symlink target after it, absolute (``/usr/bin/awk``,
    ``/etc/alternatives/awk``, ``/usr/bin/mawk``); stops at a non-link or after ``limit`` hops."""
    chain = [path]
    for _hop in range(limit):
        try:
            target = readlink(chain[-1])
        except OSError:
            break
        chain.append(os.path.normpath(os.path.join(os.path.dirname(chain[-1]), target)))
    return chain


def locate(command: str, search_path: tuple[str, ...] = SYSTEM_PATH,
           is_executable: Callable[[str], bool] = lambda p: os.path.isfile(p) and os.access(p, os.X_OK)
           ) -> str | None:
    """The first executable ``command`` in ``search_path`` (an absolute ``command`` as it is)."""
    if command.startswith("/"):
        return command if is_executable(command) else None
    for directory in search_path:
        candidate = os.path.join(directory, command)
        if is_executable(candidate):
            return candidate
    return None


def run_dpkg_search(paths: list[str]) -> str:
    """stdout of ``dpkg-query -S`` for ``paths`` (unowned paths only go to stderr)."""
    return subprocess.run(["dpkg-query", "-S", *paths], capture_output=True, text=True,
                          check=False).stdout


def owner_table(paths, dpkg_search: Callable[[list[str]], str] = run_dpkg_search,
                readlink: Callable[[str], str] = os.readlink) -> dict[str, list[str]]:
    """{path: [package, ...]} for every merged-/usr spelling of every link of every program in
    ``paths``, from ONE ``dpkg-query -S`` (each call reads dpkg's whole database: about 40 ms)."""
    spellings = sorted({spelling for path in paths for step in link_chain(path, readlink)
                        for spelling in merged_usr_spellings(step)})
    return parse_dpkg_search(dpkg_search(spellings)) if spellings else {}


def owning_package(path: str, dpkg_search: Callable[[list[str]], str] = run_dpkg_search,
                   readlink: Callable[[str], str] = os.readlink, owners: dict | None = None) -> str | None:
    """The Debian package that installed the program at ``path`` (merged-/usr and symlink aware):
    the owner of the first link in the chain a package owns. None when no package owns any of
    them, or when the chain ends in a file no package owns (a link re-pointed by hand).
    ``owners``: an owner_table covering ``path`` (asked for here otherwise)."""
    owners = owner_table([path], dpkg_search, readlink) if owners is None else owners
    chain = link_chain(path, readlink)
    owner = next((found for found in (_owner(step, owners) for step in chain) if found), None)
    if owner is None or (len(chain) > 1 and _owner(chain[-1], owners) is None):
        return None   # the program itself (the last link's target) was put there by hand
    return owner


def _owner(path: str, owners: dict) -> str | None:
    return next((owners[spelling][0] for spelling in merged_usr_spellings(path) if owners.get(spelling)), None)


def package_priorities(packages) -> dict[str, str]:
    """{package: priority} (``required``, ``important``, ...) of the installed ones among ``packages``,
    from ONE ``dpkg-query -W``; a package that is not installed is absent."""
    if not packages:
        return {}
    proc = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Status} ${Package} ${Priority}\n", *sorted(packages)],
                          capture_output=True, text=True, check=False)
    return {fields[1]: fields[2] for fields in (line.split() for line in proc.stdout.splitlines())
            if len(fields) == 3 and fields[0] == "installed"}
