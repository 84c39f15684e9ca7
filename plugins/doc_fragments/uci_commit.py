# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The option every tunnelfix.fleet action that runs ``uci commit`` shares (uci, wg_endpoint_route)."""

from __future__ import annotations


class ModuleDocFragment:  # pylint: disable=too-few-public-methods
    """``commit_staged``: what happens to changes someone else staged in the config being committed."""

    DOCUMENTATION = r"""
options:
  commit_staged:
    description:
      - What to do when the config this task commits already holds staged changes it did not make
        (an administrator's C(uci set) without C(uci commit)); C(uci commit) would commit them along.
      - With V(false) the task fails before changing anything, in check mode too, naming each staged change
        by C(config.section.option) and operation (never its value).
      - With V(true) it commits them with its own change and warns, naming them.
      - The roles pass the inventory variable C(tunnelfix_uci_commit_staged) (default V(false)).
    type: bool
    default: false
"""
