# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lookup tunnelfix.fleet.measuring_roles: the registry's measuring roles, which diagnose and verify loop over."""

from dataclasses import replace

import pytest
from ansible.errors import AnsibleLookupError

from ansible_collections.tunnelfix.fleet.plugins.lookup.measuring_roles import LookupModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry


def test_the_lookup_lists_the_path_mtu_role():
    assert LookupModule().run([]) == ["tunnelfix.fleet.path_mtu_measure"]


def test_the_lookup_follows_the_registry(monkeypatch):
    made_up = replace(registry.FAULTS[0], id="made_up_fault", measure_role="tunnelfix.fleet.made_up_measure")
    monkeypatch.setattr(registry, "FAULTS", registry.FAULTS + (made_up,))
    assert LookupModule().run([]) == ["tunnelfix.fleet.path_mtu_measure", "tunnelfix.fleet.made_up_measure"]


def test_the_lookup_takes_no_terms():
    with pytest.raises(AnsibleLookupError, match=r"takes no terms, got \('path_mtu',\)"):
        LookupModule().run(terms=("path_mtu",))
