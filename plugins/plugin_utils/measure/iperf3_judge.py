# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge a parsed iperf3 result against operator thresholds."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import format_bits_per_second


def judge_iperf3(measured, min_bits_per_second=None, max_lost_percent=None, max_retransmits=None):
    """Compare a ``parse_iperf3_json()`` result with thresholds.

    ``measured`` needs ``receiver_bits_per_second`` (bits/s), ``lost_percent`` (percent or
    None), ``retransmits`` (count or None), ``valid`` and ``invalid_reason``. Thresholds left at
    None are not checked. Returns ``{"failures": [str], "warnings": [str]}``; each failure
    names the metric, the measured value and the required value, for example
    ``"receiver bits_per_second 3.10 Mbit/s (3100000) is below the required 32.0 Mbit/s
    (32000000)"``. An invalid result (see ``valid``) fails any threshold instead of being
    judged, so a broken measurement never passes or fails a fix by accident. A UDP loss iperf3
    cannot vouch for (``lost_unknown_reason`` set, ``lost_percent`` None) fails ``max_lost_percent``
    the same way: an unknown loss is not a loss of 0.
    """
    failures, warnings = [], []
    wanted = [t is not None for t in (min_bits_per_second, max_lost_percent, max_retransmits)]
    if not measured.get("valid", True):
        if any(wanted):
            failures.append("result is invalid (%s) and cannot be judged" % measured.get("invalid_reason"))
        return {"failures": failures, "warnings": warnings}
    bps = measured.get("receiver_bits_per_second")
    if min_bits_per_second is not None and (bps is None or bps < min_bits_per_second):
        failures.append("receiver bits_per_second %s (%s) is below the required %s (%d)" % (
            format_bits_per_second(bps), "n/a" if bps is None else "%d" % bps,
            format_bits_per_second(min_bits_per_second), min_bits_per_second))
    lost = measured.get("lost_percent")
    if max_lost_percent is not None:
        if lost is None and measured.get("lost_unknown_reason"):
            failures.append("lost_percent is unknown (%s), so max_lost_percent %.3g cannot be checked"
                            % (measured["lost_unknown_reason"], max_lost_percent))
        elif lost is None:
            warnings.append("max_lost_percent is only measured for UDP tests; not checked")
        elif lost > max_lost_percent:
            failures.append("lost_percent %.3g is above the allowed %.3g" % (lost, max_lost_percent))
    retransmits = measured.get("retransmits")
    if max_retransmits is not None:
        if retransmits is None and measured.get("protocol") == "UDP":
            warnings.append("max_retransmits is only measured for TCP tests; not checked")
        elif retransmits is None:
            warnings.append("iperf3 did not report retransmits on this platform; max_retransmits not checked")
        elif retransmits > max_retransmits:
            failures.append("retransmits %d are above the allowed %d" % (retransmits, max_retransmits))
    return {"failures": failures, "warnings": warnings}
