# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""to_bits_per_second, format_bits_per_second."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import (
    format_bits_per_second,
    to_bits_per_second,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError


@pytest.mark.parametrize("value, expected", [
    (150000000, 150e6),
    (39.8e6, 39.8e6),
    (0, 0.0),
    ("40000000", 40e6),
    ("150M", 150e6),
    ("150m", 150e6),  # iperf3 -b reads lower case m as mega too
    ("1.5G", 1.5e9),
    ("800k", 800e3),
    ("800K", 800e3),
    ("2T", 2e12),
    ("150Mbit/s", 150e6),
    ("150 Mbps", 150e6),
    ("150 Mbit", 150e6),
    ("150 Mbits/s", 150e6),
    (" 100 kb/s ", 100e3),
    ("950 bit/s", 950.0),
    (".5G", 0.5e9),
    ("1e9", 1e9),
    ("0", 0.0),
])
def test_to_bits_per_second(value, expected):
    assert to_bits_per_second(value) == pytest.approx(expected)
    assert isinstance(to_bits_per_second(value), float)


@pytest.mark.parametrize("value", [
    "fast", "10X", "", "   ", "-5M", -1, -0.5, True, False, None, [150], "150MB/s", "150 MBps", "M", "1.2.3M",
    float("nan"), float("inf"), "150 Mb ps",
])
def test_to_bits_per_second_errors(value):
    with pytest.raises(ParseError) as err:
        to_bits_per_second(value)
    assert str(err.value) == ("cannot parse bitrate %r: expected a number of bits per second or a number "
                              "with k/M/G/T" % (value,))


def test_error_message_matches_the_documented_example():
    with pytest.raises(ParseError, match=r"^cannot parse bitrate 'fast': expected a number of bits per second "
                                         r"or a number with k/M/G/T$"):
        to_bits_per_second("fast")


@pytest.mark.parametrize("value, expected", [
    (39812345.6, "39.8 Mbit/s"),
    (1.5e9, "1.50 Gbit/s"),
    (950000, "950 kbit/s"),
    (999999, "1.00 Mbit/s"),
    (999.4, "999 bit/s"),
    (12, "12 bit/s"),
    (0, "0 bit/s"),
    (0.0, "0 bit/s"),
    (632835310.28865242, "633 Mbit/s"),
    (20538436306.16, "20.5 Gbit/s"),
    (3.2e12, "3.20 Tbit/s"),
    (-1.5e6, "-1.50 Mbit/s"),
    (None, "n/a"),
    (float("nan"), "n/a"),
])
def test_format_bits_per_second(value, expected):
    assert format_bits_per_second(value) == expected


@pytest.mark.parametrize("value", ["150M", True, [1]])
def test_format_bits_per_second_errors(value):
    with pytest.raises(ParseError, match="cannot format bitrate"):
        format_bits_per_second(value)


@pytest.mark.parametrize("text", ["150M", "1.5G", "800k", "39.8M"])
def test_round_trip(text):
    assert to_bits_per_second(format_bits_per_second(to_bits_per_second(text)).replace(" ", "")) == \
        pytest.approx(to_bits_per_second(text))


@pytest.mark.parametrize("value, expected", [
    (float("inf"), "inf bit/s"),
    (float("-inf"), "-inf bit/s"),
    (0.5, "0.50 bit/s"),      # below 1 bit/s: still bit/s, not negative, three significant digits
    (12.5, "12.5 bit/s"),     # a fraction of a bit/s keeps its decimals
    (100e6, "100 Mbit/s"),    # exactly 100 of a unit: no decimals, like 633 Mbit/s
    (99.94e6, "99.9 Mbit/s"),
    (999.6, "1.00 kbit/s"),   # rounds to three digits before choosing the unit
    (999.4e3, "999 kbit/s"),
])
def test_format_bits_per_second_boundaries(value, expected):
    assert format_bits_per_second(value) == expected


def test_to_bits_per_second_names_an_int_too_large_for_a_float():
    with pytest.raises(ParseError) as err:
        to_bits_per_second(10 ** 400)
    assert repr(10 ** 400) in str(err.value)
