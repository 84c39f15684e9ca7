# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rate filters as Jinja sees them: values, and bad input as a filter error naming the filter."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.rates import FilterModule

F = FilterModule().filters()


def test_values():
    assert F["mathis_bits_per_second"](1368, 52, 0.00033) == pytest.approx(14.19e6, rel=1e-3)
    assert F["bdp_bytes"]("40M", 50) == 250000.0
    assert F["to_bits_per_second"]("150 Mbps") == 150e6
    assert F["human_bits_per_second"](36626599.2) == "36.6 Mbit/s"


@pytest.mark.parametrize("name, args, text", [
    ("mathis_bits_per_second", (1368, 52, 0), "loss_ratio"),
    ("bdp_bytes", ("40MB/s", 50), "cannot parse bitrate"),
    ("to_bits_per_second", ("fast",), "cannot parse bitrate 'fast'"),
    ("human_bits_per_second", ("fast",), "cannot format bitrate"),
    ("mathis_bits_per_second", (1368, 52), "loss_ratio"),
])
def test_bad_input_is_a_filter_error(name, args, text):
    with pytest.raises(AnsibleFilterError, match=text) as err:
        F[name](*args)
    assert str(err.value).startswith(name + ":")
