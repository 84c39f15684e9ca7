# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""finite_float (plugin_utils/parse/numbers.py)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import finite_float


@pytest.mark.parametrize("value, expected", [
    (3, 3.0), (2.5e6, 2.5e6), (0, 0.0), (-1.5, -1.5),
    (None, None), ("40M", None), ("3", None), (True, None), (False, None),
    (float("nan"), None), (float("inf"), None), (-float("inf"), None), (10 ** 400, None), ([1], None),
])
def test_finite_float(value, expected):
    assert finite_float(value) == expected
