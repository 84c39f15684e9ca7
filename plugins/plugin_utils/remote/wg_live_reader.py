# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one reader of the live WireGuard state on OpenWrt: openwrt_facts (fault 1's and 4's facts) and wg_endpoint_route (fault 1's fix).

``wg show all dump`` with the target's clock (``fact_commands.WG_DUMP``: keys replaced on the
target), parsed by module_utils/_wireguard.parse_wg_dump. ``WgLiveReader`` is a mixin for
``OpenWrtActionBase`` subclasses whose batch holds the ``WG_DUMP_NAME`` step.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import split_dated_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import NOT_FOUND, WG_DUMP, WG_DUMP_NAME
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS


class WgLiveReader:
    """``wg_live`` for an OpenWrtActionBase subclass (``step``, ``parse_output``)."""

    def wg_live(self):
        """``(wg installed, interfaces or None, note)`` from ``wg show all dump``, dated by the target's clock.

        ``interfaces``: parse_wg_dump's (``{name: {"peers": [...], ...}}``). None with a note when
        ``wg`` is missing or cannot read the kernel state; never fails for that.
        """
        return self.wg_live_dated()[:3]

    def wg_live_dated(self):
        """``wg_live``'s three values and the target's clock when ``wg`` ran (``date +%s``, Unix s; None when no dump
        was read): the time of the counters' sample, which a second reading of them is compared with."""
        res = self.step(WG_DUMP, ok_rcs=ANY_EXIT_STATUS, name=WG_DUMP_NAME)
        if res["rc"] == NOT_FOUND:
            return False, None, "wg is not installed (wireguard-tools); uci view only", None
        if res["rc"] != 0:
            return True, None, "wg show all dump failed with rc=%s: %s; uci view only" % (
                res["rc"], (res["stderr"] or "no output").strip()[:200]), None
        now, dump = self.parse_output(res, split_dated_output)
        interfaces = self.parse_output(dict(res, stdout=dump), lambda text: parse_wg_dump(text, now))["interfaces"]
        if not interfaces:
            return True, interfaces, "no live WireGuard interface (wg show all dump printed nothing); uci view only", now
        return True, interfaces, None, now
