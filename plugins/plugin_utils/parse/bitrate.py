# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bit rates: parse what operators write, print what they can read.

Decimal SI prefixes like iperf3's ``-b`` option (iperf3 3.12 ``unit_atof_rate``: k = 1000,
M = 1000², G = 1000³, T = 1000⁴, either case). Pure functions, no I/O.
"""

from __future__ import annotations

import math
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
# number, optional prefix, optional unit; "B" (bytes) is deliberately not accepted
_RATE = re.compile(
    r"(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*"
    r"(?P<prefix>[kKmMgGtT]?)"
    r"(?:(?:bits?|bit/s|bits/s|bps|b/s))?"
)
_UNITS = ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s"))


def _bad(value):
    return ParseError("cannot parse bitrate %r: expected a number of bits per second or a number "
                      "with k/M/G/T" % (value,))


def to_bits_per_second(value) -> float:
    """Convert a bit rate to bits per second.

    ``150000000`` → 150000000.0; ``"150M"``, ``"150 Mbps"``, ``"150Mbit/s"`` → 150000000.0;
    ``"1.5G"`` → 1500000000.0; ``"800k"`` → 800000.0; ``"40000000"`` → 40000000.0; ``"0"`` → 0.0.
    Numbers are bits per second; prefixes are decimal (k=1e3, M=1e6, G=1e9, T=1e12, either
    case, as iperf3 ``-b``); an optional unit ``bit``, ``bit/s``, ``bits/s``, ``bps`` or ``b/s``
    may follow. Byte units (``MB/s``, ``MBps``) are refused rather than guessed.

    Raises ParseError ``cannot parse bitrate 'fast': expected a number of bits per second or a
    number with k/M/G/T`` for negative, NaN/infinite, empty, boolean or unknown values
    (``'10X'``).
    """
    if isinstance(value, bool):
        raise _bad(value)
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float, e.g. 10**400
            raise _bad(value) from None
    elif isinstance(value, str):
        match = _RATE.fullmatch(value.strip())
        if not match:
            raise _bad(value)
        number = float(match.group("number")) * _PREFIX[match.group("prefix").lower()]
    else:
        raise _bad(value)
    if math.isnan(number) or math.isinf(number) or number < 0:
        raise _bad(value)
    return number


def format_bits_per_second(value) -> str:
    """Format bits per second for people, with three significant digits.

    ``39812345.6`` → ``"39.8 Mbit/s"``; ``1.5e9`` → ``"1.50 Gbit/s"``; ``950000`` →
    ``"950 kbit/s"``; ``999999`` → ``"1.00 Mbit/s"``; ``0`` → ``"0 bit/s"``; ``None`` or NaN →
    ``"n/a"``. Decimal prefixes (k=1e3 ... T=1e12), like iperf3's own summary with ``-f m``.
    Raises ParseError for a value that is not a number (strings: use to_bits_per_second first).
    """
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParseError("cannot format bitrate %r: expected a number of bits per second" % (value,))
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "%sinf bit/s" % ("-" if value < 0 else "")
    sign, magnitude = ("-" if value < 0 else ""), abs(float(value))
    if magnitude == 0:
        return "0 bit/s"
    # round to three significant digits first, so 999999 becomes 1.00 Mbit/s, not 1000 kbit/s
    digits = 2 - int(math.floor(math.log10(magnitude)))
    magnitude = round(magnitude, digits)
    for scale, unit in _UNITS:
        if magnitude >= scale or scale == 1.0:
            scaled = magnitude / scale
            decimals = 2 if scaled < 10 else 1 if scaled < 100 else 0
            if scale == 1.0:
                decimals = 0 if scaled == int(scaled) else decimals
            return "%s%.*f %s" % (sign, decimals, scaled, unit)
    raise AssertionError("unreachable")  # pragma: no cover
