# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A uci config read for the facts: ``uci -q show CONFIG`` redacted on the router, as a batch step and as read.

``uci_step(config)`` is the step a reading lists (``faults/reading.Read.steps``), named as the facts actions report it;
``uci_show(action, config, parser)`` reads that step's result in a reading's gather. Several readings use them (the
uci network in faults/readings.py, banIP's and mwan3's settings in faults/banip_icmp/reads.py), so they live below
the faults and import none of them (moved here from faults/readings.py, unchanged).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import uci_show_redacted_argv


def uci_step(config):
    """The batch step for the redacted ``uci -q show CONFIG``, named as the action reports it."""
    return Step("uci -q show %s" % config, uci_show_redacted_argv(config))


def uci_show(action, config, parser):
    """``parser(uci -q show CONFIG)`` (redacted on the router); a missing config (rc 1) parses as empty output."""
    res = action.step(uci_show_redacted_argv(config), ok_rcs=(0, 1), name=uci_step(config).name)
    if res["rc"] == 1:
        res = dict(res, stdout="")
    return action.parse_output(res, parser)
