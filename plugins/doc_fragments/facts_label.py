# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The option both facts actions share (tunnel_facts, openwrt_facts): a label returned as given."""

from __future__ import annotations


class ModuleDocFragment:  # pylint: disable=too-few-public-methods
    """``label``: tells this gather's registered result from an earlier one in the same run."""

    DOCUMENTATION = r"""
options:
  label:
    description:
      - A word returned as is under C(label), nothing else. A playbook that gathers twice in one run and
        registers both under one name (diagnose, then verify, in C(tunnelfix.fleet.site)) tells by it which
        gather a host's registered result comes from; a host whose gather failed keeps the earlier label.
    type: str
"""
