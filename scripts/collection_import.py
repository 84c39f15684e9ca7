# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Import modules of this repository as the collection tunnelfix.fleet, with no install and no network.

The scripts that generate files from the fault registry (faults_doc.py, prometheus_rules.py) need the
collection's own packages; this links ``repo`` as ``ansible_collections/tunnelfix/fleet`` in a temporary
directory and imports through it.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

PACKAGE = "ansible_collections.tunnelfix.fleet."


def import_from(repo: Path, *names: str) -> list:
    """The modules ``names`` (dotted, under the collection: ``plugins.plugin_utils.faults.registry``) of ``repo``,
    in that order. Raises ImportError like any import."""
    root = Path(tempfile.mkdtemp(prefix="tunnelfix-collection-"))
    link = root / "ansible_collections" / "tunnelfix" / "fleet"
    link.parent.mkdir(parents=True)
    link.symlink_to(repo.resolve(), target_is_directory=True)
    sys.path.insert(0, str(root))
    try:
        return [importlib.import_module(PACKAGE + name) for name in names]
    finally:
        sys.path.remove(str(root))
