# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Back-of-the-envelope TCP models: the Mathis bound and the bandwidth-delay product.

Sources:
* Mathis, Semke, Mahdavi, Ott, "The Macroscopic Behavior of the TCP Congestion Avoidance
  Algorithm", ACM SIGCOMM CCR 27(3), 1997: a loss-based (Reno-like) flow with random loss
  probability p is limited to about ``rate = (MSS / RTT) * C / sqrt(p)``, with
  ``C = sqrt(3/2)`` (about 1.22) for periodic loss and delayed ACKs off. CUBIC does better than
  Reno on long paths but still drops toward this bound as loss grows; BBR does not follow it.
* Bandwidth-delay product: the data in flight a sender needs to fill a path,
  ``BDP = rate * RTT`` (bits), / 8 for bytes; a socket buffer below it caps the rate at
  ``buffer / RTT``.

Units: bits per second, milliseconds, bytes; a loss ratio in (0, 1] (0.00033 = 0.033 %).
Pure functions; ValueError names the argument and the value.
"""

from __future__ import annotations

import math

MATHIS_C = math.sqrt(1.5)


def _positive(name, value, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("%s must be a number, got %r" % (name, value))
    try:
        number = float(value)
    except OverflowError:
        raise ValueError("%s is out of range, got %r" % (name, value)) from None
    if math.isnan(number) or math.isinf(number) or number < 0 or (number == 0 and not allow_zero):
        raise ValueError("%s must be a finite number above 0, got %r" % (name, value))
    return number


def mathis_bits_per_second(mss_bytes, rtt_ms, loss_ratio, c=MATHIS_C) -> float:
    """Upper bound of one loss-based TCP flow, bits per second (Mathis et al. 1997).

    ``mathis_bits_per_second(1368, 52, 0.00033)`` → about 14.2e6 (14.2 Mbit/s): MSS 1368 bytes
    (a 1420-byte WireGuard MTU), 52 ms RTT, 0.033 % loss. ``loss_ratio`` must be in (0, 1]: with
    no loss the model sets no bound (raise ValueError; callers report "no loss measured").
    """
    mss = _positive("mss_bytes", mss_bytes)
    rtt_s = _positive("rtt_ms", rtt_ms) / 1000.0
    loss = _positive("loss_ratio", loss_ratio)
    if loss > 1:
        raise ValueError("loss_ratio is a fraction in (0, 1] (0.01 = 1 %%), got %r" % (loss_ratio,))
    return _positive("c", c) * mss * 8 / rtt_s / math.sqrt(loss)


def bdp_bytes(bits_per_second, rtt_ms) -> float:
    """Bandwidth-delay product in bytes: ``bits_per_second * rtt_ms / 1000 / 8``.

    ``bdp_bytes(40e6, 50)`` → 250000.0. Zero rate gives 0.
    """
    return _positive("bits_per_second", bits_per_second, allow_zero=True) * _positive("rtt_ms", rtt_ms) / 8000.0
