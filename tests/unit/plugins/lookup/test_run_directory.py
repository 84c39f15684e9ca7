# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lookup tunnelfix.fleet.run_directory: the reports' parent with and without $PWD (a systemd service has none)."""

import os

import pytest
from ansible.errors import AnsibleLookupError

from ansible_collections.tunnelfix.fleet.plugins.lookup.run_directory import LookupModule, run_directory


def test_pwd_is_kept_when_it_names_the_working_directory_through_a_symlink(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert run_directory({"PWD": str(tmp_path / "link")}, lambda: str(tmp_path / "real")) == str(tmp_path / "link")


@pytest.mark.parametrize("environ", [{}, {"PWD": ""}, {"PWD": "/"}, {"PWD": "reports"}, {"PWD": "/no/such/dir"}])
def test_without_a_pwd_naming_it_the_working_directory_is_used(tmp_path, environ):
    assert run_directory(environ, lambda: str(tmp_path)) == str(tmp_path)


def test_the_lookup_returns_the_process_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PWD", raising=False)
    assert LookupModule().run([]) == [os.getcwd()]
    with pytest.raises(AnsibleLookupError, match="takes no terms"):
        LookupModule().run(terms=("reports",))
