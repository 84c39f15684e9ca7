# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report filters turn every bad input into an AnsibleFilterError naming the filter and the value."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.report import FilterModule

FILTERS = FilterModule().filters()


@pytest.mark.parametrize("name, value, args, message", [
    ("before_after_rows", {"peer": {}}, ({}, 10 ** 400), "bottleneck_bits_per_second['peer']: cannot parse bitrate"),
    ("health_check_rows", {"r1": {"rate_per_second": 10 ** 400}}, ({},), "before['r1']: int too large"),
    ("before_after_rows", {}, ("x",), "after must be a dict"),
])
def test_garbage_is_a_filter_error(name, value, args, message):
    with pytest.raises(AnsibleFilterError, match="^%s: bad input: " % name) as err:
        FILTERS[name](value, *args)
    assert message in str(err.value)
