"""resolve_gather_subset: all, names and !exclusions like setup's gather_subset."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.subset import resolve_gather_subset

KNOWN = ("wireguard", "routes", "tcp", "netns")


@pytest.mark.parametrize("requested, expected", [
    (["all"], set(KNOWN)),
    (["all", "!routes"], {"wireguard", "tcp", "netns"}),
    (["!routes"], {"wireguard", "tcp", "netns"}),
    (["tcp", "netns"], {"tcp", "netns"}),
    (["!all"], set()),
])
def test_resolve(requested, expected):
    assert resolve_gather_subset(requested, KNOWN) == expected


def test_unknown_subset_names_the_option_and_value():
    with pytest.raises(ParseError, match="gather_subset: unknown subset 'bogus'"):
        resolve_gather_subset(["bogus"], KNOWN)
