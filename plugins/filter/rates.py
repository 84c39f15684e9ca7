# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: mathis_bits_per_second, bdp_bytes, to_bits_per_second, human_bits_per_second.

Documentation in the .yml twins; the arithmetic is in plugin_utils/parse/tcp_model.py and _bitrate.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import (
    format_bits_per_second, to_bits_per_second)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes, mathis_bits_per_second


def _filter(name, func):
    """Wrap a pure function: its ValueError/ParseError becomes AnsibleFilterError naming the filter."""
    def run(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (ValueError, ParseError, TypeError) as exc:
            raise AnsibleFilterError("%s: %s" % (name, exc)) from None
    run.__doc__ = func.__doc__
    return run


def _mathis(mss_bytes, rtt_ms, loss_ratio):
    return mathis_bits_per_second(mss_bytes, rtt_ms, loss_ratio)


def _bdp(bits_per_second, rtt_ms):
    return bdp_bytes(to_bits_per_second(bits_per_second), rtt_ms)


class FilterModule:
    """tunnelfix.fleet rate filters."""

    def filters(self):
        return {
            "mathis_bits_per_second": _filter("mathis_bits_per_second", _mathis),
            "bdp_bytes": _filter("bdp_bytes", _bdp),
            "to_bits_per_second": _filter("to_bits_per_second", to_bits_per_second),
            "human_bits_per_second": _filter("human_bits_per_second", format_bits_per_second),
        }
