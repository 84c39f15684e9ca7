# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make ``ansible_collections.tunnelfix.fleet`` importable in unit tests, without ansible.

The collection's own files import each other by their installed name
(``from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError``).
At test time ``<repo>/.cache/collections/ansible_collections/tunnelfix/fleet`` is made a
symlink to the repository root and ``<repo>/.cache/collections`` goes first on sys.path
(the same directory ansible.cfg uses as collections_path).
"""

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
COLLECTIONS = REPO_ROOT / ".cache" / "collections"


def _link_collection():
    link = COLLECTIONS / "ansible_collections" / "tunnelfix" / "fleet"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(link):
        try:
            link.symlink_to(os.path.relpath(REPO_ROOT, link.parent), target_is_directory=True)
        except FileExistsError:  # created meanwhile by another run
            pass
    if link.resolve() != REPO_ROOT:
        raise RuntimeError("%s exists but does not point to %s; remove it and rerun" % (link, REPO_ROOT))
    sys.path.insert(0, str(COLLECTIONS))
    import ansible_collections  # may be a namespace package shared with an installed ansible

    ours = str(COLLECTIONS / "ansible_collections")
    if ours not in list(ansible_collections.__path__):
        ansible_collections.__path__.append(ours)


_link_collection()


@pytest.fixture
def load_fixture():
    """Return a reader: ``load_fixture("wg_show_all_dump", "case10_hub.txt")`` → file text.

    Fixtures are recorded command output, one file per command and case, under
    tests/unit/fixtures/<command>/<case>.txt (see tests/unit/fixtures/README.md).
    """

    def read(command, case):
        return (FIXTURES / command / case).read_text(encoding="utf-8")

    return read


@pytest.fixture(autouse=True)
def no_dns(monkeypatch):
    """Unit tests never resolve a name: the tunnel graph's resolver (faults/tunnel_graph/resolve.py, which graph_of
    uses) answers every name "not resolved (unit test)"; a test that needs answers patches ``graph.resolve_names``."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import graph

    monkeypatch.setattr(graph, "resolve_names", lambda names: {name: {"addresses": [], "error": "not resolved (unit test)"} for name in names})
