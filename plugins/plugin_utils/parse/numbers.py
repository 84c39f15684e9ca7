# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading numbers out of measurement records (JSON written by the roles, iperf3 results)."""

from __future__ import annotations

import math


def is_int(value):
    """An int that is not a bool (JSON true is not an MTU)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    """An int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def finite_float(value):
    """``value`` as a finite float, else None.

    ``3`` → ``3.0``; ``2.5e6`` → ``2500000.0``; None, text (``"40M"``), a bool (JSON ``true`` is not
    a measurement), NaN, infinity and an int too large for a float (``10**400``) → None. Never raises.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
